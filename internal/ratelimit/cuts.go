package ratelimit

import (
	"context"
	"time"
)

// waitAfter429 is the pause after a 429: what the server asked for; else what the exhausted
// dimension needs to refill, but at least an exponential backoff once 429s come in a row (a
// provider whose budget comes back all at once at its reset, not gradually, would otherwise
// refuse every early try); else the backoff.
func (l *Limiter) waitAfter429(sig Signals, est int64) time.Duration {
	if sig.RetryAfter > 0 {
		return sig.RetryAfter
	}
	backoff := l.cfg.Pause
	for i := 1; i < l.row429.n && backoff < l.cfg.MaxPause; i++ {
		backoff *= 2
	}
	backoff = min(backoff, l.cfg.MaxPause)
	var refill time.Duration
	switch {
	case sig.RemainingTokens == 0 && sig.ResetTokens > 0:
		refill = refillWait(sig.ResetTokens, l.pace[tokens].ceiling(), max(est, 1), l.cfg.MaxPause)
	case sig.RemainingRequests == 0 && sig.ResetRequests > 0:
		refill = refillWait(sig.ResetRequests, l.pace[requests].ceiling(), 1, l.cfg.MaxPause)
	default:
		return backoff
	}
	if l.row429.n > 1 {
		return max(refill, backoff)
	}
	return refill
}

func (l *Limiter) pauseLocked(now time.Time, d time.Duration) {
	if d <= 0 {
		return
	}
	if until := now.Add(d); until.After(l.paused) {
		if !now.Before(l.paused) {
			l.stats.Pauses++
		}
		l.paused = until
	}
}

// pendingCut is a cut that finish claimed and applyCut carries out: the dimensions to cut, when,
// and the epoch it opened.
type pendingCut struct {
	dims  [2]bool
	at    time.Time
	epoch uint64
}

// claimCutLocked claims the multiplicative decrease after a 429 of a call admitted in epoch
// g.epoch: calls admitted before the last cut were sent at the old pace, and their 429s are the
// same congestion. The dimensions the headers show exhausted are cut; requests when they do not
// say, which slows the tokens sent as much. With no ceiling known, a success must have come since
// the last cut (see okSinceCut), the first cut included: a provider that refuses the very first
// requests, before it accepted any, is in a storm, not at a limit the rate sent so far could
// show (one request, about 60 a minute: cut from it, the pace crept up from there long after the
// storm, and 40 jobs took 2m13s after a 30 s storm instead of seconds). The cut is applied by applyCut, outside the lock, because with a
// shared budget it measures the fleet's rate there.
func (l *Limiter) claimCutLocked(g grant, sig Signals, now time.Time) *pendingCut {
	if g.epoch != l.epoch {
		return nil
	}
	exhausted := exhaustedBy(sig)
	unknown := false
	for d := range exhausted {
		unknown = unknown || exhausted[d] && l.pace[d].ceiling() == 0
	}
	if unknown && !l.okSinceCut {
		return nil
	}
	l.epoch++
	l.okSinceCut = false
	l.stats.Decreases++
	return &pendingCut{dims: exhausted, at: now, epoch: l.epoch}
}

// applyCut cuts the pace of c's dimensions from the rate sent lately (the fleet's, with a shared
// budget) and returns the cuts to share, or nil when another cut came first.
func (l *Limiter) applyCut(ctx context.Context, c pendingCut) *[2]paceCut {
	lately := l.measure(ctx, c.at)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epoch != c.epoch {
		return nil
	}
	for d := range l.pace {
		if c.dims[d] {
			l.pace[d].decrease(c.at, lately[d], l.params[d])
		}
	}
	l.applyPaceLocked(l.tickLocked())
	return &[2]paceCut{l.pace[requests].lastCut(), l.pace[tokens].lastCut()}
}

// measure is what each dimension's calls did lately (see traffic): this worker's, or with a
// shared budget the whole fleet's as its windows counted what it sent, so that a limit learned
// from 429s is the fleet's and not one worker's share of it. Accepted counts requests only (a
// 429 without headers says nothing of tokens), and only this worker's: the windows count what
// the fleet leased, not what the provider accepted, and scaling this worker's acceptance by them
// overestimated it (in TestFleetLearnsFrom429sAlone, 0.9% to 1.1% of calls answered 429 instead
// of 0.15%), so a fleet's cut goes without it.
func (l *Limiter) measure(ctx context.Context, now time.Time) [2]traffic {
	l.mu.Lock()
	local := [2]traffic{
		{sent: l.meter[requests].peak(now), accepted: l.accepted.typical(now)},
		{sent: l.meter[tokens].peak(now)},
	}
	useShared := l.cfg.Shared != nil && !now.Before(l.fleet.kvDown)
	l.mu.Unlock()
	if !useShared {
		return local
	}
	kvCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.Shared.opTimeout())
	defer cancel()
	fleet, err := l.cfg.Shared.peak(kvCtx, l.cfg.Name, now)
	if err != nil {
		l.count(func(s *Stats) { s.LeaseErrors++ })
		return local
	}
	return [2]traffic{{sent: max(fleet[requests], local[requests].sent)}, {sent: max(fleet[tokens], local[tokens].sent)}}
}

// exhaustedBy tells which dimensions a 429 with these headers was for: the ones with nothing
// remaining, else requests.
func exhaustedBy(sig Signals) [2]bool {
	exhausted := [2]bool{sig.RemainingRequests == 0, sig.RemainingTokens == 0}
	if !exhausted[requests] && !exhausted[tokens] {
		exhausted[requests] = true
	}
	return exhausted
}
