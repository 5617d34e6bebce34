package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// Database is the executor's view of a circuit breaker on the database (internal/breaker in
// cmd/worker, classifying with store.OutageReason). Observe is told how each of the executor's
// store calls ended (err nil: the database answered) and says whether the failure was an outage
// of the database; Health is non-nil while the breaker is open.
//
// While it is open no outcome can be stored, and a message is never acked or terminated unless
// its outcome is stored: every attempt that ends without a final outcome is held (a retry
// wrapped by jobs.Hold), so that the consume loop keeps its delivery alive and runs it again once
// the database answers. The outage spends none of the job's attempts: none is recorded, and
// attempts are counted from those recorded (see countAttempts).
type Database interface {
	Observe(job string, err error) (outage, open bool)
	Health() error
}

// observedStore tells a Database how the executor's store calls ended. Only the writes of an
// outcome (a run, a message's outcome, a duplicate) can show the database is back: reads, and
// the lease's small writes and deletes, succeed on a database that cannot store outcomes (a full
// disk answers them, a read-only standby answers reads), so of those only an outage is told.
// Told their successes too, the breaker closed on a full disk between a job's failed write and
// its hold, and the job went back to the stream as a plain retry.
type observedStore struct {
	Store
	db Database
}

// observe tells the Database how a write of an outcome ended, and marks an outage.
func (s observedStore) observe(job string, err error) error {
	s.db.Observe(job, err)
	return markOutage(err)
}

// observeOutage tells the Database of a call that failed on an outage (see observedStore), and
// marks it.
func (s observedStore) observeOutage(job string, err error) error {
	if store.OutageReason(err) != "" {
		s.db.Observe(job, err)
	}
	return markOutage(err)
}

// databaseOutage marks an error of a store call that is the database's outage. The mark, not
// the error's kind, is what makes an attempt the database's (see holdForDatabase): a model call
// refused or timed out fails with the same kinds of error, and is the job's failure.
type databaseOutage struct{ err error }

func (e *databaseOutage) Error() string { return e.err.Error() }
func (e *databaseOutage) Unwrap() error { return e.err }

func markOutage(err error) error {
	if store.OutageReason(err) == "" {
		return err
	}
	return &databaseOutage{err: err}
}

// isDatabaseOutage reports whether err came from a store call that met the database's outage.
func isDatabaseOutage(err error) bool {
	var outage *databaseOutage
	return errors.As(err, &outage)
}

func (s observedStore) StoredRun(ctx context.Context, jobID string) (int64, bool, error) {
	id, found, err := s.Store.StoredRun(ctx, jobID)
	return id, found, s.observeOutage(jobID, err)
}

func (s observedStore) SaveRun(ctx context.Context, rec store.RunRecord) (store.Saved, error) {
	saved, err := s.Store.SaveRun(ctx, rec)
	return saved, s.observe(rec.Delivery.JobID, err)
}

func (s observedStore) RecordOutcome(ctx context.Context, o store.MessageOutcome) error {
	return s.observe(o.Delivery.JobID, s.Store.RecordOutcome(ctx, o))
}

func (s observedStore) MarkDuplicate(ctx context.Context, d store.Delivery, runID int64) (store.Duplicate, error) {
	dup, err := s.Store.MarkDuplicate(ctx, d, runID)
	return dup, s.observe(d.JobID, err)
}

func (s observedStore) TakeLease(ctx context.Context, l store.Lease) (bool, store.LeaseHolder, error) {
	taken, holder, err := s.Store.TakeLease(ctx, l)
	return taken, holder, s.observeOutage(l.JobID, err)
}

func (s observedStore) RenewLease(ctx context.Context, l store.Lease) (bool, error) {
	renewed, err := s.Store.RenewLease(ctx, l)
	return renewed, s.observeOutage(l.JobID, err)
}

func (s observedStore) ReleaseLease(ctx context.Context, l store.Lease) error {
	return s.observeOutage(l.JobID, s.Store.ReleaseLease(ctx, l))
}

func (s observedStore) Attempts(ctx context.Context, jobID string, streamSeq uint64, delivery int) (store.Attempts, error) {
	a, err := s.Store.Attempts(ctx, jobID, streamSeq, delivery)
	return a, s.observeOutage(jobID, err)
}

func (s observedStore) RecentJointAgreement(ctx context.Context, model string, window int) (store.JointAgreement, error) {
	a, err := s.Store.RecentJointAgreement(ctx, model, window)
	return a, s.observeOutage("", err)
}

// holdOnDatabaseOutage holds an attempt that ended without a final outcome while the database
// is down (see Database); any other result is returned as it is.
func (e *Executor) holdOnDatabaseOutage(res jobs.Result) jobs.Result {
	if e.cfg.Database == nil || res.Outcome != jobs.OutcomeRetry || errors.Is(res.Err, jobs.ErrHold) {
		return res
	}
	down := e.cfg.Database.Health()
	if down == nil {
		return res
	}
	cause := res.Err
	if cause == nil {
		cause = down
	}
	res.Err = jobs.Hold(fmt.Errorf("%w (held: %v)", cause, down))
	return res
}
