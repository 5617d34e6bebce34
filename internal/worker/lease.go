package worker

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// Leases are the per-job leases of the Store (the job_leases table): at most one delivery of a
// job runs it at a time.
type Leases interface {
	// TakeLease takes the job's lease unless another holds it (then holder says who).
	TakeLease(ctx context.Context, l store.Lease) (taken bool, holder store.LeaseHolder, err error)
	// RenewLease extends a lease held by l.Token; false when it lapsed and another took it.
	RenewLease(ctx context.Context, l store.Lease) (bool, error)
	// ReleaseLease gives the lease back.
	ReleaseLease(ctx context.Context, l store.Lease) error
}

// The lease's timing. A lease lasts Config.LeaseTTL without a renewal (the consumer's AckWait in
// cmd/worker, else defaultLeaseTTL) and is renewed every third of it, as the consume loop
// heartbeats every third of AckWait: a holder whose worker was killed blocks the job's other
// deliveries until about when the server redelivers its message. A delivery that finds the
// lease held looks again after leaseWaitFirst, doubling up to leaseWaitMax: what it waits for is
// a whole run.
const (
	defaultLeaseTTL = 30 * time.Second
	leaseWaitFirst  = 100 * time.Millisecond
	leaseWaitMax    = 2 * time.Second
)

// lease is one holding of a job's lease, renewed in the background until it is released.
type lease struct {
	store Leases
	l     store.Lease
	stop  chan struct{}
	done  sync.WaitGroup
}

// takeLease takes the job's lease before its method runs. When another delivery of the job holds
// it (copies published together, a redelivery while the first delivery still runs), it waits
// for it: the consume loop's heartbeat keeps this delivery alive meanwhile. Once it holds the
// lease it looks for the job's run again, since a holder before it may have stored it: then the
// delivery is a duplicate and the lease is given back at once. ok is false when the job must
// not run here; res is then the delivery's result.
func (e *Executor) takeLease(ctx context.Context, log *slog.Logger, sd store.Delivery, attrs []slog.Attr) (_ *lease, res jobs.Result, ok bool) {
	l := store.Lease{
		JobID: sd.JobID, Worker: e.cfg.Worker, StreamSeq: sd.StreamSeq, TTL: e.cfg.LeaseTTL,
		Token: fmt.Sprintf("%s seq %d attempt %d %016x", e.cfg.Worker, sd.StreamSeq, sd.Attempt, rand.Uint64()),
	}
	wait, waited := leaseWaitFirst, false
	for {
		taken, holder, err := e.cfg.Store.TakeLease(ctx, l)
		if err != nil {
			return nil, e.retry(ctx, log, sd, err, attrs), false
		}
		if taken {
			break
		}
		if !waited {
			log.Info("waiting for another delivery of this job, which is running it",
				"holder", holder.Worker, "holder_stream_seq", holder.StreamSeq, "lease_expires", holder.Expires)
			waited = true
		}
		select {
		case <-ctx.Done():
			return nil, e.retry(ctx, log, sd, fmt.Errorf("waiting for the lease of job %s: %w", sd.JobID, ctx.Err()), attrs), false
		case <-time.After(wait):
		}
		wait = min(2*wait, leaseWaitMax)
	}
	held := &lease{store: e.cfg.Store, l: l, stop: make(chan struct{})}
	held.done.Add(1)
	go held.renew(ctx, log)
	// Looked for again even when the lease was free: the holder before may have stored the run
	// and released the lease between the executor's first look and this take.
	runID, found, err := e.cfg.Store.StoredRun(ctx, sd.JobID)
	if err != nil {
		held.release(ctx, log)
		return nil, e.retry(ctx, log, sd, err, attrs), false
	}
	if found {
		held.release(ctx, log)
		return nil, e.doneDuplicate(ctx, log, sd, runID, attrs), false
	}
	return held, jobs.Result{}, true
}

// renew extends the lease every third of its life until it is released. A renewal that fails
// is logged, not fatal: a lease that lapses lets another delivery run the job too, and its run,
// keyed by job id, is still stored once.
func (h *lease) renew(ctx context.Context, log *slog.Logger) {
	defer h.done.Done()
	tick := time.NewTicker(h.l.TTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
		wctx, cancel := recordContext(ctx)
		still, err := h.store.RenewLease(wctx, h.l)
		cancel()
		switch {
		case err != nil:
			log.Warn("cannot renew the job's lease; another delivery may run the job if it lapses", "error", err)
		case !still:
			log.Warn("the job's lease lapsed and another delivery took it; this run goes on, and the job's run is stored once")
		}
	}
}

// release stops the renewals and gives the lease back, once the outcome is recorded: a delivery
// waiting for it then finds the job's run. A failed release is logged: the lease lapses by
// itself.
func (h *lease) release(ctx context.Context, log *slog.Logger) {
	close(h.stop)
	h.done.Wait()
	wctx, cancel := recordContext(ctx)
	defer cancel()
	if err := h.store.ReleaseLease(wctx, h.l); err != nil {
		log.Warn("cannot release the job's lease; it lapses by itself", "error", err, "lapses_after", h.l.TTL)
	}
}

// doneDuplicate acknowledges a delivery of a job whose run is already stored (a redelivery, a
// copy published again outside the dedupe window, a copy that waited for the job's lease),
// without running it again. The store records it as a duplicate of the job's run, or leaves its
// outcome as it was when this message has one already; either way the message is acknowledged.
func (e *Executor) doneDuplicate(ctx context.Context, log *slog.Logger, sd store.Delivery, runID int64, attrs []slog.Attr) jobs.Result {
	wctx, cancel := recordContext(ctx)
	defer cancel()
	attrs = append(attrs, slog.Int64("run_id", runID), slog.Bool("duplicate", true))
	dup, err := e.cfg.Store.MarkDuplicate(wctx, sd, runID)
	if err != nil {
		log.Warn("cannot record the duplicate; acknowledging anyway (the job's run is stored)", "error", err)
		return jobs.Result{Outcome: jobs.OutcomeDone, Attrs: attrs}
	}
	attrs = append(attrs, slog.String("recorded", string(dup.Status)), slog.String("run_status", dup.RunStatus))
	if dup.RunStatus == store.RunFailed {
		log.Info("not running a job whose run failed", "reason", dup.Reason)
	}
	if dup.Status == jobs.OutcomeDuplicate {
		return jobs.Result{Outcome: jobs.OutcomeDuplicate, Attrs: attrs}
	}
	return jobs.Result{Outcome: jobs.OutcomeDone, Attrs: attrs}
}
