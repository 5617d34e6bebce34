// Package retry holds the rules of running failed work again (enqueue retry): which job id a
// retry gets, and the message it publishes. The failed and dead messages themselves are selected
// in PostgreSQL (store.RetryCandidates).
package retry

import (
	"fmt"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// JobID is the job id of the retry of job original on the night of now (local date):
// retry:<original>:<YYYY-MM-DD>. Running a retry twice the same night publishes nothing twice
// (JetStream drops the repeat inside its dedupe window, and a worker never runs a stored job id
// again); the next night's retry of a job still failing is a new job.
func JobID(original string, now time.Time) string {
	return fmt.Sprintf("retry:%s:%s", original, now.Format(time.DateOnly))
}

// Job is one retry to publish.
type Job struct {
	Candidate store.RetryCandidate
	ID        string
	Message   jobs.Encoded
}

// Skip is a candidate that cannot be retried, and why.
type Skip struct {
	Candidate store.RetryCandidate
	Err       error
}

// Plan makes the retries of candidates: each message as it was received, with retry_of naming
// the job it retries and, when method is not "", that method instead of its own. A payload that
// does not decode (a message dead before any worker could read it) is skipped with the reason.
func Plan(candidates []store.RetryCandidate, method string, now time.Time, validation jobs.ValidationConfig) ([]Job, []Skip) {
	var todo []Job
	var skipped []Skip
	for _, c := range candidates {
		msg, err := Message(c, method, validation)
		if err != nil {
			skipped = append(skipped, Skip{Candidate: c, Err: err})
			continue
		}
		todo = append(todo, Job{Candidate: c, ID: JobID(c.JobID, now), Message: msg})
	}
	return todo, skipped
}

// Message is the message that runs c again.
func Message(c store.RetryCandidate, method string, validation jobs.ValidationConfig) (jobs.Encoded, error) {
	m, err := jobs.Decode(c.Payload, validation)
	if err != nil {
		return jobs.Encoded{}, fmt.Errorf("its payload is not a valid job message, so there is nothing to run again: %w", err)
	}
	m.RetryOf = c.JobID
	if method != "" {
		m.Method = method
	}
	return jobs.EncodeMessage(m, validation)
}
