package ratelimit

import (
	"context"
	"time"
)

// leaseState is what a Limiter holds of the shared budget's current window.
type leaseState struct {
	window int64
	have   [2]int64 // leased and not spent; tokens may be negative (a debt)
	state  windowState
}

// takeShared waits until the shared budget's current window covers one request and est tokens,
// and takes them from the lease, leasing more when it runs out.
func (l *Limiter) takeShared(ctx context.Context, est int64, waited *bool) error {
	s := l.cfg.Shared
	for {
		now := l.clock().Now()
		idx := s.windowIndex(now)
		l.mu.Lock()
		if now.Before(l.fleet.kvDown) {
			l.mu.Unlock()
			return nil
		}
		paces := [2]float64{l.pace[requests].rate(now, l.params[requests]), l.pace[tokens].rate(now, l.params[tokens])}
		budgetOf := func(i int64) [2]int64 {
			return [2]int64{windowBudget(paces[requests], s.cfg.Window, i), windowBudget(paces[tokens], s.cfg.Window, i)}
		}
		budget := budgetOf(idx)
		l.rolloverLocked(idx, budget)
		if budget == [2]int64{unlimited, unlimited} {
			flush := l.fleet.counted.add(idx, est)
			l.mu.Unlock()
			for _, f := range flush {
				l.flushCount(ctx, f, budgetOf)
			}
			return nil
		}
		costs := [2]int64{1, est}
		var need [2]int64
		for d := range need {
			if budget[d] != unlimited {
				need[d] = max(costs[d]-l.fleet.lease.have[d], 0)
			}
		}
		if need == [2]int64{} {
			for d := range costs {
				if budget[d] != unlimited {
					l.fleet.lease.have[d] -= costs[d]
				}
			}
			l.mu.Unlock()
			return nil
		}
		share := min(s.cfg.LeaseFraction, s.windowStart(idx+1).Sub(now).Seconds()/s.cfg.Window.Seconds())
		var want [2]int64
		for d := range want {
			if budget[d] != unlimited {
				want[d] = max(need[d], int64(float64(budget[d])*share))
			}
		}
		known := l.fleet.lease.state
		l.mu.Unlock()

		elapsed := float64(now.Sub(s.windowStart(idx))) / float64(s.cfg.Window)
		ask := leaseAsk{need: need, want: want, budget: budget, elapsed: elapsed, lead: s.cfg.LeaseFraction}
		var got [2]int64
		kvCtx, cancel := context.WithTimeout(ctx, s.opTimeout())
		st, changed, conflicts, err := s.change(kvCtx, l.cfg.Name, idx, budgetOf, known, func(doc *windowDoc) bool {
			if doc.pausedUntil().After(now) {
				return false
			}
			var ok bool
			got, ok = ask.grant(doc)
			return ok
		})
		cancel()

		l.mu.Lock()
		l.stats.LeaseConflicts += int64(conflicts)
		if err != nil {
			if ctx.Err() != nil {
				l.mu.Unlock()
				return ctx.Err()
			}
			l.stats.LeaseErrors++
			l.fleet.kvDown = now.Add(kvRetryAfter(s.cfg.Window))
			l.mu.Unlock()
			l.cfg.Logger.Warn("shared rate-limit budget unavailable: going on with local limits for a while",
				"provider", l.cfg.Name, "retry_in", kvRetryAfter(s.cfg.Window), "error", err)
			return nil
		}
		if l.fleet.lease.window == idx {
			l.fleet.lease.state = st
			if changed {
				l.fleet.lease.have[requests] += got[requests]
				l.fleet.lease.have[tokens] += got[tokens]
			}
		}
		if changed {
			l.stats.Leases++
		}
		pause := st.doc.pausedUntil()
		l.adoptLocked(st.doc, l.tickLocked())
		l.mu.Unlock()
		if changed {
			continue
		}
		// Paused, or not enough of the window is due yet, or it is spent: wait for the pause's
		// end, for enough to fall due, or for the next window.
		*waited = true
		until := s.windowStart(idx + 1)
		if at, ok := ask.dueAt(st.doc); ok {
			// A millisecond past the point, and never a busy loop on a doc that moved meanwhile.
			until = s.windowStart(idx).Add(time.Duration(at * float64(s.cfg.Window)))
			if until.Before(now) {
				until = now
			}
			until = until.Add(time.Millisecond)
		}
		if pause.After(now) {
			until = pause
		}
		if err := l.clock().Sleep(ctx, until.Sub(now)); err != nil {
			return err
		}
	}
}

// rolloverLocked starts the lease of window idx when the clock has moved past the lease's
// window: the requests left lapse; tokens carry over as a debt, or as credit up to one lease.
func (l *Limiter) rolloverLocked(idx int64, budget [2]int64) {
	if l.fleet.lease.window == idx {
		return
	}
	carry := l.fleet.lease.have[tokens]
	if carry > 0 {
		limit := int64(0)
		if budget[tokens] != unlimited {
			limit = int64(float64(budget[tokens]) * l.cfg.Shared.cfg.LeaseFraction)
		}
		carry = min(carry, limit)
	}
	l.fleet.lease = leaseState{window: idx, have: [2]int64{0, carry}}
}

// countBatch is how many sends a worker counts locally, while nothing is leased, before it adds
// them to the shared window: the fleet's rate is known at the next cut within a few calls per
// worker, for one KV write per batch.
const countBatch = 4

// sendCount is the sends a Limiter made in one window of the shared budget and has not yet
// added to it: with no pace known nothing is leased, but the fleet's sends are still counted,
// so that the first 429 cuts from the fleet's rate (see measure).
type sendCount struct {
	window int64
	n      [2]int64 // requests, tokens
}

// add counts one send of est tokens in window idx and returns what is due for the shared
// budget: an earlier window's count, and this one's when it reached countBatch.
func (c *sendCount) add(idx, est int64) []sendCount {
	var due []sendCount
	if c.window != idx {
		if c.n[requests] > 0 {
			due = append(due, *c)
		}
		*c = sendCount{window: idx}
	}
	c.n[requests]++
	c.n[tokens] += est
	if c.n[requests] >= countBatch {
		due = append(due, *c)
		c.n = [2]int64{}
	}
	return due
}

// flushCount adds f to its window of the shared budget, and takes in the pause and cut the window
// carries. It is best effort: counts lost make the fleet's rate look lower at the next cut.
func (l *Limiter) flushCount(ctx context.Context, f sendCount, budgetOf func(int64) [2]int64) {
	s := l.cfg.Shared
	kvCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opTimeout())
	defer cancel()
	st, _, conflicts, err := s.change(kvCtx, l.cfg.Name, f.window, budgetOf, windowState{}, func(doc *windowDoc) bool {
		doc.R += f.n[requests]
		doc.T += f.n[tokens]
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.countKVLocked(conflicts, err) {
		l.adoptLocked(st.doc, l.tickLocked())
	}
}

// countKVLocked counts a best-effort write to the shared budget in Stats and reports whether it
// succeeded.
func (l *Limiter) countKVLocked(conflicts int, err error) bool {
	l.stats.LeaseConflicts += int64(conflicts)
	if err != nil {
		l.stats.LeaseErrors++
	}
	return err == nil
}

// share writes a pause (when until is set) and this Limiter's cuts (when set) into the shared
// budget's current window, so that the other workers pause too and pace as this one now does.
// It is best effort: a worker that misses it meets its own 429.
func (l *Limiter) share(ctx context.Context, until time.Time, cuts *[2]paceCut) {
	s := l.cfg.Shared
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opTimeout())
	defer cancel()
	now := l.clock().Now()
	idx := s.windowIndex(now)
	l.mu.Lock()
	paces := [2]float64{l.pace[requests].rate(now, l.params[requests]), l.pace[tokens].rate(now, l.params[tokens])}
	var known windowState
	if l.fleet.lease.window == idx {
		known = l.fleet.lease.state
	}
	l.mu.Unlock()
	budgetOf := func(i int64) [2]int64 {
		return [2]int64{windowBudget(paces[requests], s.cfg.Window, i), windowBudget(paces[tokens], s.cfg.Window, i)}
	}
	ms := until.UnixMilli()
	st, _, conflicts, err := s.change(ctx, l.cfg.Name, idx, budgetOf, known, func(doc *windowDoc) bool {
		changed := false
		if !until.IsZero() && doc.P < ms {
			doc.P = ms
			changed = true
		}
		if cuts != nil {
			if doc.C == nil {
				doc.C = &[2]paceCut{}
			}
			for d := range cuts {
				if cuts[d].At > doc.C[d].At {
					doc.C[d] = cuts[d]
					changed = true
				}
			}
		}
		return changed
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.countKVLocked(conflicts, err) && l.fleet.lease.window == idx {
		l.fleet.lease.state = st
	}
}

// adoptLocked takes in what a window of the shared budget says: a pause, and a cut newer than
// this Limiter's (which opens an epoch, as its own cuts do).
func (l *Limiter) adoptLocked(doc windowDoc, now time.Time) {
	if pause := doc.pausedUntil(); pause.After(l.paused) {
		l.paused = pause
	}
	if doc.C == nil {
		return
	}
	adopted := false
	for d := range l.pace {
		if l.pace[d].adopt(doc.C[d]) {
			adopted = true
		}
	}
	if adopted {
		l.epoch++
		l.okSinceCut = false
		l.applyPaceLocked(now)
	}
}
