package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// A copy of a job whose run is stored, with a statement of its own (another producer reference:
// the job id does not include it), writes nothing: not its statement either. The old SaveRun
// committed the copy's statement with no run.
func TestSaveRunOfACopyLeavesNoStatementWithoutARun(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	first := sampleRecord(newJobID(t))
	saved, err := s.SaveRun(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	copyOf := first
	copyOf.Delivery.StreamSeq++
	copyOf.Statement.ExternalID = "another producer's reference " + newJobID(t)
	again, err := s.SaveRun(ctx, copyOf)
	if err != nil {
		t.Fatal(err)
	}
	if !again.AlreadyStored || again.RunID != saved.RunID {
		t.Fatalf("the copy's save: %+v, want already stored as run %d", again, saved.RunID)
	}
	var statements int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM statements WHERE external_id = $1`, copyOf.Statement.ExternalID).Scan(&statements); err != nil {
		t.Fatal(err)
	}
	if statements != 0 {
		t.Errorf("the copy left %d statements without a run", statements)
	}
	var status jobs.Outcome
	var runID int64
	err = s.Pool().QueryRow(ctx, `SELECT status, run_id FROM job_outcomes WHERE job_id = $1 AND stream_seq = $2`,
		copyOf.Delivery.JobID, int64(copyOf.Delivery.StreamSeq)).Scan(&status, &runID)
	if err != nil {
		t.Fatal(err)
	}
	if status != store.MessageDuplicate || runID != saved.RunID {
		t.Errorf("the copy's message: %s run %d, want duplicate of run %d", status, runID, saved.RunID)
	}
}

// A delivery of a job with a stored run: another message is a duplicate pointing at the run; the
// message that stored it, delivered again, keeps its outcome (and its handled attempts grow).
func TestMarkDuplicate(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	saved, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	redelivered := rec.Delivery
	redelivered.Attempt = 2
	dup, err := s.MarkDuplicate(ctx, redelivered, saved.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if dup.Status != jobs.OutcomeDone || dup.RunStatus != store.RunDone {
		t.Errorf("the redelivered message that stored the run: %+v, want its outcome done kept", dup)
	}
	other := rec.Delivery
	other.StreamSeq += 1000
	if dup, err = s.MarkDuplicate(ctx, other, saved.RunID); err != nil {
		t.Fatal(err)
	}
	if dup.Status != store.MessageDuplicate || !strings.Contains(dup.Reason, "duplicate of job") {
		t.Errorf("another message of the job: %+v, want a duplicate", dup)
	}
	rows, err := s.Pool().Query(ctx, `SELECT status, run_id, handled_attempts FROM job_outcomes WHERE job_id = $1 ORDER BY stream_seq`, rec.Delivery.JobID)
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		status   string
		runID    int64
		attempts int
	}
	var got []outcome
	for rows.Next() {
		var o outcome
		if err := rows.Scan(&o.status, &o.runID, &o.attempts); err != nil {
			t.Fatal(err)
		}
		got = append(got, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []outcome{{"done", saved.RunID, 2}, {"duplicate", saved.RunID, 1}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("job_outcomes of the job: %+v, want %+v", got, want)
	}

	// A copy of a failed job says why it does not run, and how to run it again.
	failed := sampleRecord(newJobID(t))
	failed.Status, failed.Error = store.RunFailed, "model not found"
	if saved, err = s.SaveRun(ctx, failed); err != nil {
		t.Fatal(err)
	}
	other = failed.Delivery
	other.StreamSeq += 1000
	if dup, err = s.MarkDuplicate(ctx, other, saved.RunID); err != nil {
		t.Fatal(err)
	}
	if dup.Status != store.MessageDuplicate || dup.RunStatus != store.RunFailed || !strings.Contains(dup.Reason, "enqueue retry --ids") {
		t.Errorf("a copy of a failed job: %+v, want a duplicate whose reason says how to retry", dup)
	}
	// enqueue --wait shows the job's failure, not its copy.
	results, err := s.JobResults(ctx, []string{failed.Delivery.JobID})
	if err != nil {
		t.Fatal(err)
	}
	if r := results[failed.Delivery.JobID]; r.Status != jobs.OutcomeFailed {
		t.Errorf("the job's result for --wait: %s, want failed", r.Status)
	}
}

// A job's lease: one holder at a time, renewed and released only by its holder, taken over once
// it lapses.
func TestJobLeases(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	job := newJobID(t)
	first := store.Lease{JobID: job, Token: "first", Worker: "host/1", StreamSeq: 7, TTL: time.Minute}
	second := store.Lease{JobID: job, Token: "second", Worker: "host/2", StreamSeq: 8, TTL: time.Minute}
	if taken, _, err := s.TakeLease(ctx, first); err != nil || !taken {
		t.Fatalf("the first take: %v, %v", taken, err)
	}
	taken, holder, err := s.TakeLease(ctx, second)
	if err != nil || taken {
		t.Fatalf("a second holder took a held lease: %v, %v", taken, err)
	}
	if holder.Worker != "host/1" || holder.StreamSeq != 7 || holder.Expires.IsZero() {
		t.Errorf("holder %+v, want host/1's message 7", holder)
	}
	if still, err := s.RenewLease(ctx, second); err != nil || still {
		t.Errorf("another's renewal: %v, %v; want refused", still, err)
	}
	if err := s.ReleaseLease(ctx, second); err != nil {
		t.Fatal(err)
	}
	if still, err := s.RenewLease(ctx, first); err != nil || !still {
		t.Errorf("the holder's renewal after another's release: %v, %v; want the lease still held", still, err)
	}
	if err := s.ReleaseLease(ctx, first); err != nil {
		t.Fatal(err)
	}
	if taken, _, err := s.TakeLease(ctx, second); err != nil || !taken {
		t.Fatalf("the take after a release: %v, %v", taken, err)
	}

	// A lease that lapsed (its holder was killed) is taken over, and its old holder can no
	// longer renew it.
	lapsing := store.Lease{JobID: newJobID(t), Token: "killed", TTL: time.Millisecond}
	if taken, _, err := s.TakeLease(ctx, lapsing); err != nil || !taken {
		t.Fatalf("%v, %v", taken, err)
	}
	time.Sleep(50 * time.Millisecond)
	next := store.Lease{JobID: lapsing.JobID, Token: "next", TTL: time.Minute}
	if taken, _, err := s.TakeLease(ctx, next); err != nil || !taken {
		t.Fatalf("a lapsed lease was not taken over: %v, %v", taken, err)
	}
	if still, err := s.RenewLease(ctx, lapsing); err != nil || still {
		t.Errorf("the lapsed holder renewed a lease taken over: %v, %v", still, err)
	}
}

// A message whose run is stored keeps its outcome: a late delivery of it that the consume loop
// dead-letters (its acknowledgement was lost until the attempts ran out) does not turn a done job
// dead. The attempt is still kept.
func TestAStoredRunsMessageIsNotTurnedDead(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	if _, err := s.SaveRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	late := rec.Delivery
	late.Attempt = 4
	if err := s.RecordOutcome(ctx, store.MessageOutcome{Delivery: late, Status: jobs.OutcomeDead, Reason: "delivery attempts exhausted"}); err != nil {
		t.Fatal(err)
	}
	var status string
	var attempts, handled int
	err := s.Pool().QueryRow(ctx, `SELECT status, attempts, handled_attempts FROM job_outcomes WHERE job_id = $1`, rec.Delivery.JobID).Scan(&status, &attempts, &handled)
	if err != nil {
		t.Fatal(err)
	}
	if status != "done" || attempts != 4 || handled != 2 {
		t.Errorf("the done message after a late dead-letter: %s, attempts %d, handled %d; want done, 4, 2", status, attempts, handled)
	}
}
