package ratelimit

import "context"

// awaitProbe holds calls back while nothing is known of the provider's limits (none configured,
// none learned, no cut yet) and during a storm, and reports whether this call is one of those
// it lets through (counted in gate.inFlight until it returns). The first call goes alone (the probe):
// its response usually announces the limits (x-ratelimit-limit-*), so the calls behind it are
// paced from the start. Sent together before any response, they would be counted by no pace
// and, with a shared budget, by no window, and many workers starting at once could overrun a
// provider whose budget holds a second. When the response announces nothing (a provider without
// rate-limit headers), the calls in flight grow by one for each success, doubling every round
// trip (TCP's slow start), until the first 429 gives a pace: without it, every worker of a fleet
// sent all its calls at once after its probe, far above the limit, and the first 429s met a
// rate several times the limit, which took several cuts (and many 429s) to come down from.
// During a storm (stormRow 429s in a row) calls go one at a time, until one succeeds. A call
// that fails with no response at all frees its place for the next.
func (l *Limiter) awaitProbe(ctx context.Context, waited *bool) (bool, error) {
	for {
		l.mu.Lock()
		limit := 0 // no gate
		switch {
		case l.row429.n >= stormRow:
			limit = 1
		case l.paceUnknownLocked():
			limit = l.gate.cap
		}
		if limit == 0 {
			l.mu.Unlock()
			return false, nil
		}
		if l.gate.inFlight < limit {
			l.gate.inFlight++
			l.mu.Unlock()
			return true, nil
		}
		if l.gate.wake == nil {
			l.gate.wake = make(chan struct{})
		}
		wake := l.gate.wake
		l.mu.Unlock()
		*waited = true
		select {
		case <-wake:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// paceUnknownLocked reports whether no dimension has a pace: no ceiling configured or learned,
// and no cut.
func (l *Limiter) paceUnknownLocked() bool {
	for d := range l.pace {
		if l.pace[d].ceiling() > 0 || l.pace[d].cut {
			return false
		}
	}
	return true
}

// ungateLocked ends a call awaitProbe let through and lets the calls it holds look again.
func (l *Limiter) ungateLocked() {
	l.gate.inFlight--
	if l.gate.wake != nil {
		close(l.gate.wake)
		l.gate.wake = nil
	}
}
