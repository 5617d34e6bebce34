package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
)

// MessagePending is the status of a message in messages (and job_outcomes) between attempts: its
// last attempt ended in a retry or was interrupted, so it has no final outcome yet. Every other
// status is a final jobs.Outcome.
const MessagePending jobs.Outcome = "pending"

// recordAttempt adds one handled attempt of a message to message_attempts, in the transaction
// that records the message's outcome, so that each attempt's reason is kept where messages keeps
// only the latest. Recording the same attempt again (same job, stream sequence and delivery
// number) keeps the later word.
func recordAttempt(ctx context.Context, tx pgx.Tx, d Delivery, outcome jobs.Outcome, reason string) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO message_attempts (job_id, stream_seq, attempt, outcome, reason, worker, received_at)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), $7)
		ON CONFLICT (job_id, stream_seq, attempt) DO UPDATE SET
			outcome = EXCLUDED.outcome,
			reason = EXCLUDED.reason,
			worker = EXCLUDED.worker,
			finished_at = EXCLUDED.finished_at`,
		d.JobID, int64(d.StreamSeq), max(d.Attempt, 1), outcome, reason, d.Worker, cmpTime(d.ReceivedAt))
	if err != nil {
		return fmt.Errorf("message attempt %d: %w", max(d.Attempt, 1), err)
	}
	return nil
}

// Attempts is what message_attempts knows of a message's earlier deliveries.
type Attempts struct {
	// Spent counts the attempts that failed on the job's own account (outcome retry): those are
	// what MaxDeliver limits.
	Spent int
	// Handled counts the deliveries a worker took to an outcome of any kind, so that a delivery
	// number past Handled+1 tells of deliveries nobody handled (a crash, a delivery lost).
	Handled int
	// Last is the highest attempt number recorded (0: none): a delivery whose count is not past
	// it is recorded under Last+1, so that it overwrites no earlier attempt's record.
	Last int
}

// Attempts counts the recorded attempts of a message (job and stream sequence) other than
// attempt own, the one being handled when it was recorded before (a held job runs again on its
// delivery and must not count itself); own 0 counts them all.
func (s *Store) Attempts(ctx context.Context, jobID string, streamSeq uint64, own int) (Attempts, error) {
	var a Attempts
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE outcome = 'retry'), count(*), coalesce(max(attempt), 0)
		FROM message_attempts WHERE job_id = $1 AND stream_seq = $2 AND attempt <> $3`,
		jobID, int64(streamSeq), own).Scan(&a.Spent, &a.Handled, &a.Last)
	if err != nil {
		return Attempts{}, fmt.Errorf("store: counting the attempts of job %s: %w", jobID, err)
	}
	return a, nil
}
