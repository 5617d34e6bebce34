package ratelimit

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// finish learns from a call that returned: it releases its slot, reads the headers of its last
// response, corrects its token estimate, and on a transient 429 pauses and cuts. It reports
// whether the call should be retried and, when this call paused every caller, until when.
func (l *Limiter) finish(ctx context.Context, g grant, obs *observation, used int64, callErr error) (retry bool, newPause time.Time, cut *pendingCut) {
	l.releaseSlot()
	status, header, earlier429 := obs.result()

	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.tickLocked()
	sig := ParseSignals(header, now)
	l.stats.InFlight--
	if callErr == nil {
		l.gate.cap++ // slow start: see awaitProbe
	}
	if g.probe {
		l.ungateLocked()
	}
	pausedBefore := l.paused
	l.learnLocked(sig, now)
	if earlier429 > 0 {
		// The client retried 429s on its own before this answer: they still count.
		l.stats.RateLimited += int64(earlier429)
		cut = l.claimCutLocked(g, sig, now)
	}
	switch {
	case callErr == nil:
		l.stats.Succeeded++
		l.row429.n = 0
		if l.epoch > 0 {
			l.accepted.add(now, 1)
		}
		if g.epoch == l.epoch {
			l.okSinceCut = true
		}
		if used > 0 {
			l.correctLocked(now, g.tokens-used)
			l.stats.TokensUsed += used
		} else {
			l.stats.TokensUsed += g.tokens
		}
	case status != http.StatusTooManyRequests:
	case pipeline.IsPermanent(callErr):
		l.stats.QuotaExhausted++
	case ctx.Err() == nil:
		l.stats.RateLimited++
		if l.row429.n == 0 {
			l.row429.start = now
		}
		l.row429.n++
		l.pauseLocked(now, l.waitAfter429(sig, g.tokens))
		if cut == nil {
			cut = l.claimCutLocked(g, sig, now)
		}
		for d, empty := range exhaustedBy(sig) {
			if empty {
				l.drainLocked(d, now, 0)
			}
		}
		retry = true
	}
	if l.paused.After(pausedBefore) {
		newPause = l.paused
	}
	return retry, newPause, cut
}

// learnLocked takes in what a response's headers say: the ceilings, and a pause when a
// dimension has nothing left; when the provider has less left than the local limiter would
// allow, the local limiter is drained to match.
func (l *Limiter) learnLocked(sig Signals, now time.Time) {
	if sig.LimitRequests > 0 {
		l.pace[requests].learned = float64(sig.LimitRequests)
	}
	if sig.LimitTokens > 0 {
		l.pace[tokens].learned = float64(sig.LimitTokens)
	}
	l.applyPaceLocked(now)
	need := [2]int64{1, max(l.lastEst, 1)}
	remaining := [2]int64{sig.RemainingRequests, sig.RemainingTokens}
	reset := [2]time.Duration{sig.ResetRequests, sig.ResetTokens}
	for d := range remaining {
		if remaining[d] < 0 {
			continue
		}
		if remaining[d] == 0 {
			l.pauseLocked(now, refillWait(reset[d], l.pace[d].ceiling(), need[d], l.cfg.MaxPause))
		}
		l.drainLocked(d, now, remaining[d])
	}
}

// refillWait is how long a dimension with nothing left needs to get need back: reset is when
// it is full again, so with the limit known a part of reset is enough.
func refillWait(reset time.Duration, limit float64, need int64, maxWait time.Duration) time.Duration {
	if reset <= 0 {
		return 0
	}
	if limit <= 0 {
		return min(reset, maxWait)
	}
	part := time.Duration(float64(reset) * min(1, float64(need)/limit))
	return max(part, 10*time.Millisecond)
}

// observation is what ObserveResponse saw of one attempt of a call.
type observation struct {
	l          *Limiter
	mu         sync.Mutex
	status     int
	header     http.Header
	earlier429 int
}

type observationKey struct{}

func (o *observation) result() (int, http.Header, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.status, o.header, o.earlier429
}

// ObserveResponse shows the Limiter an HTTP response of its provider: set it as
// llm.Config.OnResponse or search.WebOpts.OnResponse. For a call made through Do (ctx is the one Do gave
// the call) the response is kept for Do to judge when the call returns; any other response
// only teaches the Limiter its headers.
func (l *Limiter) ObserveResponse(ctx context.Context, status int, header http.Header) {
	if l == nil {
		return
	}
	if o, ok := ctx.Value(observationKey{}).(*observation); ok && o.l == l {
		o.mu.Lock()
		if o.status == http.StatusTooManyRequests {
			o.earlier429++
		}
		o.status, o.header = status, header.Clone()
		o.mu.Unlock()
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.tickLocked()
	l.learnLocked(ParseSignals(header, now), now)
}
