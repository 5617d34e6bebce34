package worker

import "github.com/corroborate/corroborate/internal/pipeline"

// runEnd is what the executor knows when a job's method has returned: the input of classifyRun,
// and nothing else, so that the classification is a pure function of it.
type runEnd struct {
	// err is the method's error; nil when it ran to the end.
	err error
	// outage and open are what Outages said of err: the failure was the model endpoint's, not
	// the job's, and the breaker is open (both false without Outages).
	outage, open bool
	// final is set on the job's last attempt (jobs.Delivery.Final).
	final bool
}

// runAction is what becomes of a job whose method returned. Each ends in one outcome, recorded
// by the executor and settled by the consume loop.
type runAction int

const (
	// storeDone stores the run: done, acked (a duplicate when another delivery stored it first).
	storeDone runAction = iota
	// storeFailed stores the failed run with its trace and the reason: failed, terminated.
	storeFailed
	// recordRejected records the input as bad for its method: rejected, terminated, never retried.
	recordRejected
	// recordDead records that the last attempt failed: dead, terminated.
	recordDead
	// recordRetry records the failed attempt: retry, nakked with a growing delay.
	recordRetry
	// holdForModel records the attempt as interrupted and holds the delivery (jobs.Hold) until
	// the model endpoint answers: the outage spends none of the job's attempts.
	holdForModel
)

// String names the action in test failures.
func (a runAction) String() string {
	switch a {
	case storeDone:
		return "store done"
	case storeFailed:
		return "store failed"
	case recordRejected:
		return "record rejected"
	case recordDead:
		return "record dead"
	case recordRetry:
		return "record retry"
	case holdForModel:
		return "hold for the model"
	}
	return "unknown"
}

// classifyRun decides, once, what becomes of a job whose method returned. The order matters:
//   - An outage while the breaker is open holds the job, whatever else is true: the endpoint's
//     failure is not the job's.
//   - Bad input for the method (pipeline.IsRejected) is rejected even on an outage: no retry or
//     endpoint can fix the input.
//   - A permanent error (unknown model, refused key, exhausted quota) fails the job with its
//     run stored, unless it is an outage: then it is the endpoint's, retried like a transient one
//     (below the breaker's threshold) and held on the last attempt.
//   - On the last attempt an outage holds the job rather than kill it; any other failure is the
//     job's dead letter. Before it, a failure is retried.
func classifyRun(end runEnd) runAction {
	if end.outage && end.open {
		return holdForModel
	}
	switch {
	case end.err == nil:
		return storeDone
	case pipeline.IsRejected(end.err):
		return recordRejected
	case pipeline.IsPermanent(end.err) && !end.outage:
		return storeFailed
	case end.final && end.outage:
		return holdForModel
	case end.final:
		return recordDead
	default:
		return recordRetry
	}
}
