package store

import (
	"context"
	"fmt"
	"time"
)

// RunTiming is when one done run of a subject was received, run and stored, and what it cost:
// what the benchmark measures latency and throughput from.
type RunTiming struct {
	// Received is when the message arrived; Stored when its outcome was written.
	Received, Stored time.Time
	// Started and Ran bound the method's run.
	Started, Ran  time.Time
	Calls, Tokens int64
	// Critical is the sum over the run's steps of each step's slowest model call: the run's
	// critical path through the model.
	Critical time.Duration
}

// RunTimings returns the timing of every done run on subject.
func (s *Store) RunTimings(ctx context.Context, subject string) ([]RunTiming, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT r.received_at, m.finished_at, r.started_at, r.finished_at, r.model_calls, r.total_tokens,
		       (SELECT coalesce(sum(slowest), 0) FROM (SELECT max(c.latency_ms) AS slowest FROM model_calls c
		         WHERE c.run_id = r.id GROUP BY c.step) rounds) AS critical_ms
		FROM runs r JOIN messages m ON m.run_id = r.id AND m.job_id = r.job_id
		WHERE r.subject = $1 AND r.status = 'done' AND m.status = 'done'`, subject)
	if err != nil {
		return nil, fmt.Errorf("store: reading run timings: %w", err)
	}
	defer rows.Close()
	var out []RunTiming
	for rows.Next() {
		var t RunTiming
		var criticalMS float64
		if err := rows.Scan(&t.Received, &t.Stored, &t.Started, &t.Ran, &t.Calls, &t.Tokens, &criticalMS); err != nil {
			return nil, fmt.Errorf("store: reading run timings: %w", err)
		}
		t.Critical = time.Duration(criticalMS * float64(time.Millisecond))
		out = append(out, t)
	}
	return out, rows.Err()
}

// ModelCallsBetween counts the model calls of subject's runs that started in (from, to].
func (s *Store) ModelCallsBetween(ctx context.Context, subject string, from, to time.Time) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FROM model_calls c JOIN runs r ON r.id = c.run_id
		WHERE r.subject = $1 AND c.started_at > $2 AND c.started_at <= $3`, subject, from, to).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: counting model calls: %w", err)
	}
	return n, nil
}
