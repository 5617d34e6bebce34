package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// A job that runs holds its lease while it runs and gives it back once its outcome is recorded.
func TestExecutorHoldsTheLeaseWhileTheJobRuns(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	var heldWhileRunning bool
	b.method.cancel = func() {
		b.store.mu.Lock()
		defer b.store.mu.Unlock()
		_, heldWhileRunning = b.store.leases["job-1"]
	}
	if res := b.exec.Handle(context.Background(), job(t, pipeline.MethodFactored)); res.Outcome != jobs.OutcomeDone {
		t.Fatalf("outcome %s (%v), want done", res.Outcome, res.Err)
	}
	if !heldWhileRunning || b.store.taken != 1 || b.store.released != 1 || len(b.store.leases) != 0 {
		t.Errorf("held while running %v, taken %d, released %d, left %v: want one lease held during the run and given back",
			heldWhileRunning, b.store.taken, b.store.released, b.store.leases)
	}
}

// A delivery of a job whose lease another delivery holds waits for it; once it has the lease it
// finds the run the other stored, and is a duplicate: the method does not run again.
func TestExecutorWaitsForTheLeaseThenFindsTheRun(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	b.store.leases = map[string]string{"job-1": "another delivery"}
	go func() {
		// The other delivery stores its run and gives the lease back once this one waits.
		for {
			b.store.mu.Lock()
			if b.store.waits > 0 {
				b.store.storedRun = 9
				delete(b.store.leases, "job-1")
				b.store.mu.Unlock()
				return
			}
			b.store.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}()
	res := b.exec.Handle(context.Background(), job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeDuplicate {
		t.Fatalf("outcome %s (%v), want duplicate", res.Outcome, res.Err)
	}
	if dup, ok := attr(res, "duplicate"); !ok || !dup.Bool() {
		t.Errorf("attrs %v: want duplicate", res.Attrs)
	}
	if len(b.method.ran) != 0 || len(b.store.saved) != 0 {
		t.Errorf("ran %d, saved %d: a job whose run another delivery stored ran again", len(b.method.ran), len(b.store.saved))
	}
	if len(b.store.marked) != 1 || b.store.marked[0] != 9 || len(b.store.leases) != 0 {
		t.Errorf("marked %v, leases left %v: want a duplicate of run 9 and the lease given back", b.store.marked, b.store.leases)
	}
}

// A lease that cannot be taken (the database is unreachable) is a retry, and nothing runs.
func TestExecutorRetriesWhenTheLeaseCannotBeTaken(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	b.store.leaseErr = errors.New("connection refused")
	res := b.exec.Handle(context.Background(), job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeRetry || len(b.method.ran) != 0 {
		t.Fatalf("outcome %s (%v), ran %d: want a retry and no run", res.Outcome, res.Err, len(b.method.ran))
	}
}

// Shutdown while waiting for the lease interrupts the delivery: it goes back for another worker.
func TestExecutorWaitingForTheLeaseIsInterruptedByShutdown(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	b.store.leases = map[string]string{"job-1": "another delivery"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			b.store.mu.Lock()
			waits := b.store.waits
			b.store.mu.Unlock()
			if waits > 0 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	res := b.exec.Handle(ctx, job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeInterrupted || len(b.method.ran) != 0 {
		t.Fatalf("outcome %s (%v), ran %d: want interrupted and no run", res.Outcome, res.Err, len(b.method.ran))
	}
}

// A run stored by another delivery between the executor's first look and its taking the free
// lease (the other delivery released it just before) is found: the job does not run twice.
func TestExecutorLooksForTheRunAgainOnceItHoldsTheLease(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	b.store.storedLater = 9
	res := b.exec.Handle(context.Background(), job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeDuplicate || len(b.method.ran) != 0 {
		t.Fatalf("outcome %s (%v), ran %d: want duplicate, not run", res.Outcome, res.Err, len(b.method.ran))
	}
	if len(b.store.marked) != 1 || b.store.marked[0] != 9 || len(b.store.leases) != 0 {
		t.Errorf("marked %v, leases left %v: want a duplicate of run 9 and the lease given back", b.store.marked, b.store.leases)
	}
}
