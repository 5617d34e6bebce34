package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
)

// RetrySelection chooses the failed work that `enqueue retry` publishes again.
type RetrySelection struct {
	// Statuses are the outcomes to retry: failed, dead, or both.
	Statuses []jobs.Outcome
	// Since keeps messages that ended at or after it.
	Since time.Time
	// JobIDs, when given, keeps only these jobs.
	JobIDs []string
	// Limit bounds how many (0: all), oldest first.
	Limit int
}

// RetryCandidate is one failed or dead message with what it carried.
type RetryCandidate struct {
	JobID      string       `db:"job_id"`
	Status     jobs.Outcome `db:"status"`
	Reason     string       `db:"reason"`
	Payload    []byte       `db:"payload"`
	FinishedAt time.Time    `db:"finished_at"`
}

// RetryableOutcomes are the outcomes a retry may run again. A rejected message is not among
// them: its input broke a rule, and the same input would be rejected again.
var RetryableOutcomes = []jobs.Outcome{jobs.OutcomeFailed, jobs.OutcomeDead}

// RetryCandidates returns the messages sel selects, oldest first: those that ended failed or
// dead, kept their payload, and have no retry that ended done (a job fixed by an earlier retry
// is not run a third time).
func (s *Store) RetryCandidates(ctx context.Context, sel RetrySelection) ([]RetryCandidate, error) {
	if len(sel.Statuses) == 0 {
		return nil, errors.New("store: a retry needs the outcomes to retry (failed, dead)")
	}
	statuses := make([]string, len(sel.Statuses))
	for i, st := range sel.Statuses {
		if !slices.Contains(RetryableOutcomes, st) {
			return nil, fmt.Errorf("store: %q work cannot be retried: only %s can", st, joinOutcomes(RetryableOutcomes))
		}
		statuses[i] = string(st)
	}
	var c conds
	c.add("m.status = ANY(?)", statuses)
	if !sel.Since.IsZero() {
		c.add("m.finished_at >= ?", sel.Since)
	}
	if len(sel.JobIDs) > 0 {
		c.add("m.job_id = ANY(?)", sel.JobIDs)
	}
	q := `SELECT m.job_id, m.status, coalesce(m.reason, '') AS reason, m.payload, m.finished_at
		FROM messages m ` + c.where() + `
		  AND m.payload IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM messages r WHERE r.retry_of = m.job_id AND r.status = 'done')
		ORDER BY m.finished_at, m.job_id` + ReportFilter{Limit: sel.Limit}.page()
	return queryAll[RetryCandidate](ctx, s, "retry candidates", q, c.args...)
}

func joinOutcomes(os []jobs.Outcome) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}
