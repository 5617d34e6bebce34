package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
)

// JobResult is what `enqueue --wait` shows of one job: its outcome and, once done, its result.
type JobResult struct {
	JobID       string       `db:"job_id"`
	Status      jobs.Outcome `db:"status"`
	Reason      *string      `db:"reason"`
	Method      *string      `db:"method"`
	Model       *string      `db:"model"`
	RunStatus   *string      `db:"run_status"`
	Result      *string      `db:"result_status"`
	RevisedText *string      `db:"revised_text"`
	Checked     *int         `db:"checked"`
	FinishedAt  *time.Time   `db:"finished_at"`
}

// Final reports whether the job has its outcome (anything but pending).
func (r JobResult) Final() bool { return r.Status != MessagePending }

// heldMark joins an attempt's number to why it is held, in HeldReason's reasons.
const heldMark = " held: "

// HeldReason is the recorded reason of an attempt that a worker holds on its delivery, without
// spending it, because a service the job needs is down (the model endpoint, the database): why
// says which, and that the job runs again when it is back. JobResult.Held reads it back.
func HeldReason(attempt int, why string) string {
	return fmt.Sprintf("attempt %d%s%s", attempt, heldMark, why)
}

// Held reports why the job is held, when its latest attempt is (see HeldReason): it has no
// outcome yet, and will have one when the service it waits for is back.
func (r JobResult) Held() (why string, held bool) {
	if r.Status != MessagePending || r.Reason == nil || !strings.HasPrefix(*r.Reason, "attempt ") {
		return "", false
	}
	_, why, held = strings.Cut(*r.Reason, heldMark)
	return why, held
}

// JobResults returns the latest outcome of each job id that has one; a job with no row yet (not
// received by a worker) is missing from the result. A job's done message comes first, and a
// duplicate last: a copy of a failed job shows the failure, not the copy.
func (s *Store) JobResults(ctx context.Context, jobIDs []string) (map[string]JobResult, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (o.job_id) o.job_id, o.status, o.reason, r.method, r.model, r.status AS run_status,
		       r.result_status, r.revised_text,
		       (SELECT count(*)::int FROM checks c WHERE c.run_id = r.id) AS checked, o.finished_at
		FROM job_outcomes o
		LEFT JOIN runs r ON r.id = o.run_id
		WHERE o.job_id = ANY ($1)
		ORDER BY o.job_id, (o.status = 'done') DESC, (o.status = 'duplicate') ASC, o.last_received_at DESC`, jobIDs)
	if err != nil {
		return nil, fmt.Errorf("store: reading job outcomes: %w", err)
	}
	results, err := pgx.CollectRows(rows, pgx.RowToStructByName[JobResult])
	if err != nil {
		return nil, fmt.Errorf("store: reading job outcomes: %w", err)
	}
	out := make(map[string]JobResult, len(results))
	for _, r := range results {
		out[r.JobID] = r
	}
	return out, nil
}
