package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// JobResult is what `enqueue --wait` shows of one job: its outcome and, once done, its result.
type JobResult struct {
	JobID       string     `db:"job_id"`
	Status      string     `db:"status"`
	Reason      *string    `db:"reason"`
	Method      *string    `db:"method"`
	Model       *string    `db:"model"`
	RunStatus   *string    `db:"run_status"`
	Result      *string    `db:"result_status"`
	RevisedText *string    `db:"revised_text"`
	Checked     *int       `db:"checked"`
	FinishedAt  *time.Time `db:"finished_at"`
}

// Final reports whether the job has its outcome (anything but pending).
func (r JobResult) Final() bool { return r.Status != OutcomePending }

// JobResults returns the latest outcome of each job id that has one; a job with no row yet (not
// received by a worker) is missing from the result.
func (s *Store) JobResults(ctx context.Context, jobIDs []string) (map[string]JobResult, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (o.job_id) o.job_id, o.status, o.reason, r.method, r.model, r.status AS run_status,
		       r.result_status, r.revised_text,
		       (SELECT count(*)::int FROM checks c WHERE c.run_id = r.id) AS checked, o.finished_at
		FROM job_outcomes o
		LEFT JOIN runs r ON r.id = o.run_id
		WHERE o.job_id = ANY ($1)
		ORDER BY o.job_id, (o.status = 'done') DESC, o.last_received_at DESC`, jobIDs)
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
