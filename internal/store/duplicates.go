package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
)

// MessageDuplicate is the status of a message (in messages, job_outcomes and message_attempts)
// whose job already had its run stored by another message: jobs.OutcomeDuplicate. Its run_id is
// the job's run.
const MessageDuplicate = jobs.OutcomeDuplicate

// Duplicate says what MarkDuplicate recorded.
type Duplicate struct {
	// Status is the message's status: MessageDuplicate, or the outcome it already had when it is
	// the message whose outcome is recorded (a redelivery of it, which changes nothing).
	Status jobs.Outcome
	// Reason says why the message was not run, naming the job's run and how it ended.
	Reason string
	// RunStatus is how the job's run ended: RunDone or RunFailed.
	RunStatus string
}

// MarkDuplicate records a delivery of a job whose run (runID) is already stored, without running
// it. A message that has its own final outcome (a redelivery of the message that stored the run,
// say after its acknowledgement was lost) keeps it; any other message of the job is recorded
// MessageDuplicate, so that each job counts one outcome in job_outcomes. A copy of a failed job is
// a duplicate too, and its reason says how to run the job again: a job id runs once, and `enqueue
// retry` publishes a failed job again as a new job.
func (s *Store) MarkDuplicate(ctx context.Context, d Delivery, runID int64) (Duplicate, error) {
	var dup Duplicate
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		dup, err = markDuplicate(ctx, tx, d, runID)
		return err
	})
	if err != nil {
		return Duplicate{}, fmt.Errorf("store: recording the duplicate delivery of job %s: %w", d.JobID, err)
	}
	return dup, nil
}

func markDuplicate(ctx context.Context, tx pgx.Tx, d Delivery, runID int64) (Duplicate, error) {
	var runStatus string
	var runSeq *int64
	err := tx.QueryRow(ctx, `SELECT status, stream_seq FROM runs WHERE id = $1`, runID).Scan(&runStatus, &runSeq)
	if err != nil {
		return Duplicate{}, fmt.Errorf("the stored run %d: %w", runID, err)
	}
	var own jobs.Outcome
	err = tx.QueryRow(ctx, `SELECT status FROM messages WHERE job_id = $1 AND stream_seq = $2 FOR UPDATE`,
		d.JobID, int64(d.StreamSeq)).Scan(&own)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Duplicate{}, fmt.Errorf("the message's row: %w", err)
	}
	if own != "" && own != MessagePending {
		// This message already has its outcome: a redelivery after it was recorded.
		reason := fmt.Sprintf("redelivered after its outcome (%s) was recorded; not run again", own)
		_, err := tx.Exec(ctx, `
			UPDATE messages SET attempts = GREATEST(attempts, $3), last_received_at = $4
			WHERE job_id = $1 AND stream_seq = $2`, d.JobID, int64(d.StreamSeq), max(d.Attempt, 1), cmpTime(d.ReceivedAt))
		if err != nil {
			return Duplicate{}, fmt.Errorf("message outcome: %w", err)
		}
		if err := recordAttempt(ctx, tx, d, MessageDuplicate, reason); err != nil {
			return Duplicate{}, err
		}
		return Duplicate{Status: own, Reason: reason, RunStatus: runStatus}, nil
	}

	from := ""
	if runSeq != nil {
		from = fmt.Sprintf(", stored from stream sequence %d", *runSeq)
	}
	reason := fmt.Sprintf("a duplicate of job %s, whose run %d is stored (done%s); not run again", d.JobID, runID, from)
	if runStatus == RunFailed {
		reason = fmt.Sprintf("a duplicate of job %s, whose run %d failed (its error is on the job's failed row%s); a job id "+
			"runs once: to run it again, `echo '%s' | enqueue retry --ids - --since 0` publishes it as a new job", d.JobID, runID, from, d.JobID)
	}
	if err := writeMessage(ctx, tx, d, MessageDuplicate, MessageDuplicate, reason, runID); err != nil {
		return Duplicate{}, err
	}
	return Duplicate{Status: MessageDuplicate, Reason: reason, RunStatus: runStatus}, nil
}
