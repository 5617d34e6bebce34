package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// fakeOutages answers Observe as told, and keeps what it was told.
type fakeOutages struct {
	outage, open bool
	seen         []error
}

func (f *fakeOutages) Observe(job string, err error) (bool, bool) {
	f.seen = append(f.seen, err)
	if err == nil {
		return false, false
	}
	return f.outage, f.open
}

// A run that failed while the breaker is open is held: a retry wrapped by jobs.Hold, recorded
// as such, neither failed nor dead, even on the last attempt and for a permanent error.
func TestExecutorHoldsRunsFailedOnAnOpenBreaker(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		err   error
		final bool
	}{
		{"transient", errors.New("connection refused"), false},
		{"permanent", pipeline.Permanent(errors.New("HTTP 401: key refused")), false},
		{"last attempt", errors.New("connection refused"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := &fakeOutages{outage: true, open: true}
			b := newBench(t, func(c *Config) { c.Outages = out })
			b.method.err = tt.err
			d := job(t, pipeline.MethodFactored)
			if tt.final {
				d.NumDelivered, d.Final = 3, true
			}
			res := b.exec.Handle(t.Context(), d)
			if res.Outcome != jobs.OutcomeRetry || !errors.Is(res.Err, jobs.ErrHold) || !errors.Is(res.Err, tt.err) {
				t.Fatalf("result %s %v, want a held retry", res.Outcome, res.Err)
			}
			if len(b.store.saved) != 0 {
				t.Errorf("a held job stored a run: %+v", b.store.saved)
			}
			// Recorded interrupted: the attempt the outage cut short is not one of the job's own.
			if len(b.store.outcomes) != 1 || b.store.outcomes[0].Status != jobs.OutcomeInterrupted || !strings.Contains(b.store.outcomes[0].Reason, "held") {
				t.Errorf("recorded %+v, want one interrupted attempt saying it is held", b.store.outcomes)
			}
			if len(out.seen) != 1 || out.seen[0] != tt.err {
				t.Errorf("the breaker was told %v", out.seen)
			}
		})
	}
}

// Below the breaker's threshold an outage is retried, even a permanent error such as a refused
// key (it is the endpoint's failure, not the job's); a failure that is no outage keeps its
// outcome; a success is reported.
func TestExecutorRetriesOutagesWhileTheBreakerIsClosed(t *testing.T) {
	t.Parallel()
	out := &fakeOutages{outage: true}
	b := newBench(t, func(c *Config) { c.Outages = out })
	b.method.err = pipeline.Permanent(errors.New("HTTP 401: key refused"))
	if res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored)); res.Outcome != jobs.OutcomeRetry || errors.Is(res.Err, jobs.ErrHold) {
		t.Fatalf("a refused key below the threshold: %s %v, want a plain retry", res.Outcome, res.Err)
	}
	out.outage = false
	if res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored)); res.Outcome != jobs.OutcomeFailed {
		t.Fatalf("a permanent failure that is no outage: %s %v, want failed", res.Outcome, res.Err)
	}
	b.method.err = nil
	if res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored)); res.Outcome != jobs.OutcomeDone {
		t.Fatalf("a run ok: %s %v", res.Outcome, res.Err)
	}
	if len(out.seen) != 3 || out.seen[2] != nil {
		t.Fatalf("the breaker was told %v, want two failures then the success", out.seen)
	}
}

// An outage on a job's last attempt, before the breaker has opened, is the endpoint's failure,
// not the job's: the job is held on its delivery (and runs again once the endpoint answers),
// never dead. A retry a few milliseconds after its failure can meet the outage again before
// enough jobs have failed to open the breaker.
func TestExecutorHoldsAnOutageOnTheLastAttempt(t *testing.T) {
	t.Parallel()
	out := &fakeOutages{outage: true}
	b := newBench(t, func(c *Config) { c.Outages = out })
	b.method.err = errors.New("HTTP 503")
	d := job(t, pipeline.MethodFactored)
	d.NumDelivered, d.Final = 3, true
	res := b.exec.Handle(t.Context(), d)
	if res.Outcome != jobs.OutcomeRetry || !errors.Is(res.Err, jobs.ErrHold) {
		t.Fatalf("an outage on the last attempt: %s %v, want held", res.Outcome, res.Err)
	}
	for _, o := range b.store.outcomes {
		if o.Status == jobs.OutcomeDead {
			t.Errorf("recorded %+v: the job must not be dead", o)
		}
	}
}

// fakeDatabase is a breaker on the database as internal/breaker is one with a threshold of one:
// an outage opens it, and a call the database answered closes it. seen counts what it was told.
type fakeDatabase struct {
	mu   sync.Mutex
	down error
	seen int
}

func (f *fakeDatabase) Observe(job string, err error) (bool, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen++
	outage := store.OutageReason(err) != ""
	if outage {
		f.down = err
	} else {
		f.down = nil
	}
	return outage, outage
}

func (f *fakeDatabase) Health() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down
}

// Issue 14, item 1: while the database is down no outcome can be stored, so no attempt ends:
// each is held (the loop keeps its delivery), whether the run, its record or the dead letter
// failed to be written; a final outcome that was stored before is returned as it is.
func TestExecutorHoldsJobsWhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	refused := fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)
	for _, tt := range []struct {
		name      string
		configure func(b *bench, d *jobs.Delivery)
	}{
		{"the stored-run check", func(b *bench, d *jobs.Delivery) { b.store.storedRunErr = refused }},
		{"the attempts count", func(b *bench, d *jobs.Delivery) { b.store.attemptsErr = refused; d.MaxAttempts = 3 }},
		{"the run's write", func(b *bench, d *jobs.Delivery) { b.store.saveErr = refused }},
		{"a dead letter's record", func(b *bench, d *jobs.Delivery) {
			b.store.recordErr = refused
			d.NumDelivered, d.Exhausted = 4, true
		}},
		{"a failed attempt's record", func(b *bench, d *jobs.Delivery) {
			b.method.err = errors.New("HTTP 500")
			b.store.recordErr = refused
			d.NumDelivered, d.Final = 3, true
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := &fakeDatabase{}
			b := newBench(t, func(c *Config) { c.Database = db })
			d := job(t, pipeline.MethodFactored)
			tt.configure(b, d)
			res := b.exec.Handle(t.Context(), d)
			if res.Outcome != jobs.OutcomeRetry || !errors.Is(res.Err, jobs.ErrHold) || !errors.Is(res.Err, syscall.ECONNREFUSED) {
				t.Fatalf("result %s %v, want a held retry", res.Outcome, res.Err)
			}
			if db.seen == 0 {
				t.Error("the database breaker was told nothing")
			}
		})
	}
	// The database up: a failure is a plain retry, and outcomes stand.
	db := &fakeDatabase{}
	b := newBench(t, func(c *Config) { c.Database = db })
	b.method.err = errors.New("HTTP 500")
	if res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored)); res.Outcome != jobs.OutcomeRetry || errors.Is(res.Err, jobs.ErrHold) {
		t.Fatalf("a model failure with the database up: %s %v, want a plain retry", res.Outcome, res.Err)
	}
}

// A full disk: the database answers reads, and deletes that free space, but refuses every write
// that needs more. The run's write and its retry's record fail with disk_full, and the job must
// be held. Before, the reads of the job and the release of its lease, which succeed on a full
// disk, told the breaker the database was back, and the job went back to the stream as a plain
// retry (TestFullDiskLosesNothing: 46 of 200 jobs delivered again, one attempt spent).
func TestExecutorHoldsJobsWhileTheDiskIsFull(t *testing.T) {
	t.Parallel()
	full := fmt.Errorf("saving the run: %w", &pgconn.PgError{Code: "53100", Message: `could not extend file "base/5/16778": No space left on device`})
	db := &fakeDatabase{}
	b := newBench(t, func(c *Config) { c.Database = db })
	b.store.saveErr, b.store.recordErr = full, full
	res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeRetry || !errors.Is(res.Err, jobs.ErrHold) {
		t.Fatalf("result %s %v, want a held retry", res.Outcome, res.Err)
	}
	if db.Health() == nil {
		t.Error("the breaker closed on calls that succeed on a full disk")
	}
}

// The run's write fails on a full disk while the small record of its retry still fits: the
// attempt is the database's, not the job's. It is recorded as interrupted (it spends no attempt)
// and held, and that record does not close the breaker: it shows the database can write a row,
// not that it can store runs. Before, it was recorded as a retry (an attempt spent), whose
// success closed the breaker, and the job went back to the stream (TestFullDiskLosesNothing:
// 19 attempts spent, 19 jobs delivered again).
func TestExecutorHoldsARunTheDatabaseCouldNotStore(t *testing.T) {
	t.Parallel()
	full := fmt.Errorf("saving the run: %w", &pgconn.PgError{Code: "53100", Message: `could not extend file "base/5/16778": No space left on device`})
	db := &fakeDatabase{}
	b := newBench(t, func(c *Config) { c.Database = db })
	b.store.saveErr = full
	res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeRetry || !errors.Is(res.Err, jobs.ErrHold) {
		t.Fatalf("result %s %v, want a held retry", res.Outcome, res.Err)
	}
	if len(b.store.outcomes) != 1 || b.store.outcomes[0].Status != jobs.OutcomeInterrupted {
		t.Errorf("recorded %+v, want one interrupted attempt (no attempt spent)", b.store.outcomes)
	}
	if db.Health() == nil {
		t.Error("the record of the hold closed the breaker")
	}
}

// A run that finished but could not be stored (the database went down under its write) is kept
// with the held delivery and stored when the database is back, without running the method again:
// an outage costs no model calls. Before, each held job ran its whole method again on resuming
// (in TestDatabaseOutageLosesNothing, every job held through the outage paid its calls twice).
func TestHeldRunIsStoredWithoutRunningAgain(t *testing.T) {
	t.Parallel()
	refused := fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)
	db := &fakeDatabase{}
	b := newBench(t, func(c *Config) { c.Database = db })
	b.store.saveErr = refused
	d := job(t, pipeline.MethodFactored)
	if res := b.exec.Handle(t.Context(), d); !errors.Is(res.Err, jobs.ErrHold) {
		t.Fatalf("with the database down: %s %v, want a held retry", res.Outcome, res.Err)
	}
	b.store.mu.Lock()
	b.store.saveErr = nil
	b.store.mu.Unlock()
	if res := b.exec.Handle(t.Context(), d); res.Outcome != jobs.OutcomeDone {
		t.Fatalf("with the database back: %s %v, want done", res.Outcome, res.Err)
	}
	if len(b.method.ran) != 1 {
		t.Errorf("the method ran %d times, want once: the run kept with its delivery is stored as it was", len(b.method.ran))
	}
	if len(b.store.saved) != 1 {
		t.Errorf("%d runs stored, want 1", len(b.store.saved))
	}
}

// A method that fails on the network (the model endpoint timing out or refusing connections) is
// the model's failure, not the database's, even though the same kinds of error name a database
// outage: it is a plain retry that spends an attempt (the model's breaker decides on holds), not
// held for the database, which would run it again and again for ever without spending any.
func TestModelNetworkFailureIsNotADatabaseOutage(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		fmt.Errorf("model: plan: %w", context.DeadlineExceeded),
		fmt.Errorf("model: plan: dial tcp 127.0.0.1:9: %w", syscall.ECONNREFUSED),
	} {
		db := &fakeDatabase{}
		b := newBench(t, func(c *Config) { c.Database = db })
		b.method.err = err
		res := b.exec.Handle(t.Context(), job(t, pipeline.MethodFactored))
		if res.Outcome != jobs.OutcomeRetry || errors.Is(res.Err, jobs.ErrHold) {
			t.Errorf("%v: result %s %v, want a plain retry", err, res.Outcome, res.Err)
		}
		if len(b.store.outcomes) != 1 || b.store.outcomes[0].Status != jobs.OutcomeRetry {
			t.Errorf("%v: recorded %+v, want one retry", err, b.store.outcomes)
		}
	}
}
