package store_test

import (
	"context"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// Every handled attempt keeps its own row and reason: two retries then done leave three rows,
// where messages (and job_outcomes.reason) keep only the latest word.
func TestEveryAttemptKeepsItsReason(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	rec.Delivery.Worker = "host-a/1"

	retries := []string{"attempt 1 failed, will retry: HTTP 500", "attempt 2 failed, will retry: connection reset"}
	for i, reason := range retries {
		d := rec.Delivery
		d.Attempt = i + 1
		if err := s.RecordOutcome(ctx, store.MessageOutcome{Delivery: d, Status: jobs.OutcomeRetry, Reason: reason}); err != nil {
			t.Fatal(err)
		}
		var status jobs.Outcome
		if err := s.Pool().QueryRow(ctx, `SELECT status FROM job_outcomes WHERE job_id = $1`, d.JobID).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status != store.MessagePending {
			t.Fatalf("after retry %d the message is %q, want %q", i+1, status, store.MessagePending)
		}
	}
	rec.Delivery.Attempt = 3
	rec.Delivery.Worker = "host-b/2"
	if _, err := s.SaveRun(ctx, rec); err != nil {
		t.Fatal(err)
	}

	rows, err := s.Pool().Query(ctx, `SELECT attempt, outcome, coalesce(reason, ''), worker FROM message_attempts
		WHERE job_id = $1 AND stream_seq = $2 ORDER BY attempt`, rec.Delivery.JobID, int64(rec.Delivery.StreamSeq))
	if err != nil {
		t.Fatal(err)
	}
	type attempt struct {
		n       int
		outcome jobs.Outcome
		reason  string
		worker  string
	}
	var got []attempt
	for rows.Next() {
		var a attempt
		if err := rows.Scan(&a.n, &a.outcome, &a.reason, &a.worker); err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []attempt{
		{1, jobs.OutcomeRetry, retries[0], "host-a/1"},
		{2, jobs.OutcomeRetry, retries[1], "host-a/1"},
		{3, jobs.OutcomeDone, "", "host-b/2"},
	}
	if len(got) != len(want) {
		t.Fatalf("attempts %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("attempt %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}

	var status jobs.Outcome
	var handled, attempts int
	if err := s.Pool().QueryRow(ctx, `SELECT status, attempts, handled_attempts FROM job_outcomes WHERE job_id = $1`, rec.Delivery.JobID).
		Scan(&status, &attempts, &handled); err != nil {
		t.Fatal(err)
	}
	if status != jobs.OutcomeDone || attempts != 3 || handled != 3 {
		t.Fatalf("job_outcomes: status %q, attempts %d, handled_attempts %d; want done, 3, 3", status, attempts, handled)
	}
}

// Attempts counts what was recorded of a message's other attempts: own 0 counts them all, and an
// attempt run again on its delivery (held) leaves its own record out; Last is the highest number.
func TestAttemptsCountsTheOtherAttempts(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	d := sampleRecord(newJobID(t)).Delivery
	for i, status := range []jobs.Outcome{jobs.OutcomeRetry, jobs.OutcomeInterrupted, jobs.OutcomeRetry} {
		d.Attempt = i + 1
		if err := s.RecordOutcome(ctx, store.MessageOutcome{Delivery: d, Status: status, Reason: "attempt"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		own  int
		want store.Attempts
	}{
		{0, store.Attempts{Spent: 2, Handled: 3, Last: 3}},
		{3, store.Attempts{Spent: 1, Handled: 2, Last: 2}},
		{2, store.Attempts{Spent: 2, Handled: 2, Last: 3}},
	} {
		got, err := s.Attempts(ctx, d.JobID, d.StreamSeq, c.own)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("Attempts(own %d) = %+v, want %+v", c.own, got, c.want)
		}
	}
}
