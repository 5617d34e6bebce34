package worker

import (
	"context"

	"github.com/corroborate/corroborate/internal/store"
)

// Store is what the executor needs of the database: *store.Store satisfies it, and unit tests
// use a fake.
type Store interface {
	// StoredRun returns the id of the run stored for a job, and whether there is one.
	StoredRun(ctx context.Context, jobID string) (runID int64, found bool, err error)
	// SaveRun writes a finished (done or failed) run and its message's outcome in one
	// transaction; a job that already has a run writes nothing twice.
	SaveRun(ctx context.Context, rec store.RunRecord) (store.Saved, error)
	// RecordOutcome records the outcome of an attempt that stored no run (rejected, dead, retry).
	RecordOutcome(ctx context.Context, o store.MessageOutcome) error
	// MarkDuplicate records a delivery of a job whose run is already stored: a duplicate, or,
	// when it is the message that has the job's outcome, that outcome unchanged.
	MarkDuplicate(ctx context.Context, d store.Delivery, runID int64) (store.Duplicate, error)
	Leases
	// Attempts counts the recorded attempts of a message other than delivery number delivery.
	Attempts(ctx context.Context, jobID string, streamSeq uint64, delivery int) (store.Attempts, error)
	JointAgreements
}

// JointAgreements reads how often recent cove-joint runs agreed with their drafts, for the
// MethodChooser.
type JointAgreements interface {
	RecentJointAgreement(ctx context.Context, model string, window int) (store.JointAgreement, error)
}

var _ Store = (*store.Store)(nil)
