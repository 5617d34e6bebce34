// Package reverify holds the rules of nightly re-verification: which job id a statement's
// re-verification gets on a given night (so that running it twice the same night queues it
// once), and the job message that checks a statement again the way its latest job asked. The
// statements themselves are selected in PostgreSQL (store.ReverifyCandidates).
package reverify

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// Cutoff is the time before which a statement's latest run must have finished to be verified
// again: now minus olderThan. Its date (local time) names the night in the job ids.
func Cutoff(now time.Time, olderThan time.Duration) time.Time { return now.Add(-olderThan) }

// JobID is the job id of a statement's re-verification on the night of cutoff:
// reverify:<statement_id>:<YYYY-MM-DD>. JetStream drops a repeat inside its dedupe window, and a
// worker never runs a stored job id again, so one night queues a statement once.
func JobID(statementID int64, cutoff time.Time) string {
	return fmt.Sprintf("reverify:%d:%s", statementID, cutoff.Format(time.DateOnly))
}

// Job is one statement to verify again: the candidate it comes from, its job id and its
// message, encoded once for publishing.
type Job struct {
	Candidate store.ReverifyCandidate
	ID        string
	Message   jobs.Encoded
}

// Skip is a candidate whose message could not be built, and why.
type Skip struct {
	Candidate store.ReverifyCandidate
	Err       error
}

// Plan turns the candidates of the night of cutoff into jobs. A statement stored before a
// validation rule existed may break it now: it is skipped with its reason, so that one old
// record does not stop the night.
func Plan(candidates []store.ReverifyCandidate, cutoff time.Time, validation jobs.ValidationConfig) ([]Job, []Skip) {
	var todo []Job
	var skipped []Skip
	for _, c := range candidates {
		msg, err := Message(c, validation)
		if err != nil {
			skipped = append(skipped, Skip{Candidate: c, Err: err})
			continue
		}
		todo = append(todo, Job{Candidate: c, ID: JobID(c.StatementID, cutoff), Message: msg})
	}
	return todo, skipped
}

// Message is the job message that verifies c again: its statement, the method and options its
// latest job asked for, and options.reverify. It is checked by jobs.Decode, as the worker will
// check it, and encoded once.
func Message(c store.ReverifyCandidate, validation jobs.ValidationConfig) (jobs.Encoded, error) {
	var opts jobs.MessageOptions
	if len(c.Options) > 0 {
		if err := json.Unmarshal(c.Options, &opts); err != nil {
			return jobs.Encoded{}, fmt.Errorf("the options of run %d cannot be read back: %w", c.RunID, err)
		}
	}
	yes := true
	opts.Reverify = &yes
	// A job asks for a method by name; one that names none (or one this version no longer
	// knows) is verified again with the method that ran.
	method := c.RequestedMethod
	if !jobs.KnownMethod(method) {
		method = c.Method
	}
	m := jobs.Message{V: jobs.Version, Text: c.Text, Question: c.Question, ID: c.ExternalID, Method: method, Language: c.Language, Options: opts}
	return jobs.EncodeMessage(m, validation)
}

// RecheckJobID is the job id of the re-check an editor asked for on the claims of run (report
// review recheck, or the review page): recheck:<statement_id>:<run_id>. Asking again before the
// new run lands queues nothing twice; once it lands, its claims have a run of their own.
func RecheckJobID(statementID, runID int64) string {
	return fmt.Sprintf("recheck:%d:%d", statementID, runID)
}
