package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// Delivery is one delivery of a job message to a Handler.
type Delivery struct {
	// JobID identifies the job across redeliveries and duplicates: the Nats-Msg-Id header when
	// the producer set one, else DedupeID of the message when it decodes as one with text or a
	// question, else "seq:<stream>/<stream sequence>@<publish time in Unix ns>".
	JobID        string
	Data         []byte
	Subject      string
	StreamSeq    uint64
	NumDelivered uint64
	// MaxAttempts is how many attempts the job gets (ConsumeConfig.MaxDeliver).
	MaxAttempts int
	// Attempt, Final and Exhausted are the loop's reading of NumDelivered: attempt NumDelivered;
	// Final on the last attempt (NumDelivered == MaxAttempts), when a handler that fails may
	// record the job dead or failed with its error; Exhausted on the delivery after it, when
	// every attempt ended without an outcome and the handler records the job dead.
	//
	// NumDelivered also counts deliveries no handler saw (a worker killed, a delivery lost on
	// the way), so a handler that keeps the attempts it handled decides on those instead and
	// sets these fields before it returns (the executor does; see store.Attempts). The server
	// itself has no delivery limit (see SetupLanes): a job ends only by its handler's outcome.
	Attempt   int
	Final     bool
	Exhausted bool
	// Recorded is the attempt number a handler that keeps attempts records this delivery under
	// (the executor: usually NumDelivered), 0 until it decides; kept across the runs of a held
	// delivery, so that a run again knows its own record.
	Recorded int
	Header   nats.Header
	Received time.Time
	// Stream is the stream's name; Published the time the server stored the message.
	Stream    string
	Published time.Time
	// Log carries job_id, stream_seq and attempt, for the handler's own log lines.
	Log *slog.Logger
	// Kept is what the handler kept of an attempt it held (see Hold), for its next try: the loop
	// runs a held job again on the same Delivery. A worker's executor keeps a finished run the
	// database could not store, so that the outage costs no model calls.
	Kept any
}

// Handler runs one job and says what became of it. The consume loop settles the message by the
// Result's outcome (done acks it; rejected, failed and dead terminate it; retry naks it with a
// growing delay; interrupted naks it at once), logs the job's end once and tells the Observer.
//
// The context is not cancelled when the consume loop is asked to stop: in-flight jobs may finish
// for ConsumeConfig.ShutdownTimeout, and only then is it cancelled.
type Handler interface {
	Handle(ctx context.Context, d *Delivery) Result
}

// Result is what a Handler made of one delivery.
type Result struct {
	Outcome Outcome
	// Err says why, for every outcome but done.
	Err error
	// Attrs go on the job's end-of-job log line: what the handler learned (run id, method, ...).
	Attrs []slog.Attr
}

// HandlerFunc adapts a function that returns an error to Handler: nil is done, an error wrapped
// by Reject is rejected, any other error a retry.
type HandlerFunc func(ctx context.Context, d *Delivery) error

// Handle calls f and classifies its error. A HandlerFunc records nothing, so on an Exhausted
// delivery any error but a rejection is the job's dead letter.
func (f HandlerFunc) Handle(ctx context.Context, d *Delivery) Result {
	res := resultOf(f(ctx, d))
	if d.Exhausted && res.Outcome == OutcomeRetry {
		res.Outcome = OutcomeDead
	}
	return res
}

func resultOf(err error) Result {
	switch {
	case err == nil:
		return Result{Outcome: OutcomeDone}
	case errors.Is(err, ErrReject):
		return Result{Outcome: OutcomeRejected, Err: err}
	default:
		return Result{Outcome: OutcomeRetry, Err: err}
	}
}

// ErrReject marks a permanent outcome for a HandlerFunc: the message is terminated and never
// retried (bad input, an unknown method, a failure no retry can fix). Test for it with errors.Is.
var ErrReject = errors.New("job rejected")

// Reject wraps err as a permanent outcome: errors.Is(Reject(err), ErrReject) is true, and err
// stays reachable for errors.Is and errors.As. Reject(nil) is ErrReject itself.
func Reject(err error) error {
	if err == nil {
		return ErrReject
	}
	return &rejectError{err: err}
}

type rejectError struct{ err error }

func (e *rejectError) Error() string   { return e.err.Error() }
func (e *rejectError) Unwrap() []error { return []error{e.err, ErrReject} }

// Outcome is what became of one delivery of a job. It is the one vocabulary of job outcomes: a
// Handler returns it, the consume loop settles the message by it, the store records it (the
// messages and message_attempts tables, the job_outcomes view) and metrics count it.
type Outcome string

const (
	OutcomeDone        Outcome = "done"        // the result is stored (or was already); acked
	OutcomeRejected    Outcome = "rejected"    // bad input, never retried; terminated
	OutcomeFailed      Outcome = "failed"      // a permanent error, stored with its run; terminated
	OutcomeDead        Outcome = "dead"        // attempts exhausted; terminated
	OutcomeRetry       Outcome = "retry"       // this attempt failed; nakked with a backoff delay
	OutcomeInterrupted Outcome = "interrupted" // shutdown cut the attempt short; nakked for another worker
	// OutcomeDuplicate: another message of the job stored its run (a copy published again, or
	// re-enqueued after JetStream forgot the job id); acked without running, and counted apart
	// so that counts by outcome count jobs.
	OutcomeDuplicate Outcome = "duplicate"
)

// Final reports whether o ends the job: no other attempt follows. Anything but the four final
// outcomes (an empty one too) leaves the job to another attempt.
func (o Outcome) Final() bool {
	switch o {
	case OutcomeDone, OutcomeRejected, OutcomeFailed, OutcomeDead, OutcomeDuplicate:
		return true
	}
	return false
}

// ErrHold marks a failed attempt as an outage of something the job depends on, not a failure
// of the job. Test for it with errors.Is.
var ErrHold = errors.New("job held until the service it needs is back")

// Hold wraps err, the failure of an attempt, as an outage behind a closed Gate: a Handler
// returns it with OutcomeRetry (HandlerFunc does so for any error). The consume loop then keeps
// the message (its heartbeat goes on, so no redelivery happens and no attempt is counted),
// waits for every gate to open, and runs the handler again on the same delivery. Without gates,
// or when the loop is stopping, it is a plain retry. errors.Is(Hold(err), err's targets) still
// holds. Hold(nil) is ErrHold itself.
func Hold(err error) error {
	if err == nil {
		return ErrHold
	}
	return &holdError{err: err}
}

type holdError struct{ err error }

func (e *holdError) Error() string   { return e.err.Error() }
func (e *holdError) Unwrap() []error { return []error{e.err, ErrHold} }
