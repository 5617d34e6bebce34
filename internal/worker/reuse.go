package worker

import (
	"context"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// ClaimLookup is one job's lookup of claims verified before (issue 16, item 4): *store.ClaimReuse
// satisfies it. Release gives up the leases of the claims the job verified itself; the executor
// calls it once the job's outcome is recorded, so that jobs waiting for those claims find them.
type ClaimLookup interface {
	pipeline.VerifiedClaims
	Release(ctx context.Context) error
}

// claimLookup returns the claim lookup of a job and the function to call when the job's outcome
// is recorded; nil (and a no-op) when the job may not reuse: the worker has no window, the job
// says "reuse": false, or it is a re-verification (which exists to check again).
func (e *Executor) claimLookup(ctx context.Context, jobID string, o jobs.MessageOptions) (pipeline.VerifiedClaims, func()) {
	if e.cfg.Claims == nil || e.cfg.ReuseWithin <= 0 || (o.Reuse != nil && !*o.Reuse) || (o.Reverify != nil && *o.Reverify) {
		return nil, func() {}
	}
	l := e.cfg.Claims(jobID, e.cfg.ReuseWithin)
	return l, func() {
		wctx, cancel := recordContext(ctx)
		defer cancel()
		if err := l.Release(wctx); err != nil {
			// The leases expire on their own (store.DefaultLeaseTTL): a waiting job pays then.
			e.cfg.Logger.Warn("cannot release the job's claim leases", "job_id", jobID, "error", err)
		}
	}
}
