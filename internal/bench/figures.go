package bench

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
	"github.com/corroborate/corroborate/internal/store"
)

// result is what one run measured.
type result struct {
	scenario
	wall time.Duration
	// Steady state: between the 10th and the 90th percentile of finish times.
	stmtsPerMin, callsPerMin    float64
	callsPerStmt, tokensPerStmt float64
	bound                       float64 // statements per minute; 0 when the provider had no limits
	provider                    ratelimittest.Stats
	p50, p95                    time.Duration // received -> finished (stored)
	critical                    time.Duration // rounds x median latency
	ownCriticalP50, overheadP50 time.Duration // per statement: its model rounds' latencies; latency minus that
	ownRatioP95                 float64       // p95 of latency / own critical path
	peakRSS                     int64         // bytes, the largest of the workers
	overheadMean                time.Duration
	// The overhead's parts, p50: received -> method started (decode, stored-run check), in the
	// method outside its model rounds, method done -> result stored (the run's transaction).
	beforeP50, inMethodP50, storeP50 time.Duration
	// recovery is, in a storm run, how long after the storm's end the provider accepted 90% of
	// the bound's calls over 10 s; -1 when it did not before the backlog ran out.
	recovery time.Duration
}

func (r result) summary() string {
	s := fmt.Sprintf("%.0f statements/min, %.0f calls/min, p50 %s p95 %s, 429s %d of %d calls (%d for requests, %d for tokens), peak RSS %.0f MiB, wall %s",
		r.stmtsPerMin, r.callsPerMin, r.p50.Round(time.Millisecond), r.p95.Round(time.Millisecond), r.provider.Limited, r.provider.Requests,
		r.provider.LimitedRequests, r.provider.LimitedTokens,
		float64(r.peakRSS)/(1<<20), r.wall.Round(100*time.Millisecond))
	if r.bound > 0 {
		s += fmt.Sprintf(", bound %.0f/min, ratio %.3f", r.bound, r.stmtsPerMin/r.bound)
	}
	return s
}

// steadyState sorts stmts by the time each was stored and returns the steady state of the run:
// the window between the 10th and the 90th percentile of those times, and the statements per
// minute stored within it. The first and last tenth are the ramp up and the tail, where fewer
// workers are busy than the run has.
func steadyState(stmts []store.RunTiming) (from, to time.Time, perMinute float64, err error) {
	if len(stmts) == 0 {
		return from, to, 0, errors.New("no statement has a done run")
	}
	slices.SortFunc(stmts, func(a, b store.RunTiming) int { return a.Stored.Compare(b.Stored) })
	lo, hi := stmts[len(stmts)/10], stmts[len(stmts)*9/10]
	window := hi.Stored.Sub(lo.Stored)
	if window <= 0 {
		return from, to, 0, errors.New("no steady state: the statements finished all at once")
	}
	return lo.Stored, hi.Stored, float64(len(stmts)*9/10-len(stmts)/10) / window.Minutes(), nil
}

// statementFigures fills res with what the stored statements say one by one: calls and tokens
// per statement, the bound they imply, latency percentiles and the overhead beside the model's
// own critical path. stmts is not empty.
func statementFigures(res *result, stmts []store.RunTiming, cfg Config) {
	var latencies, own, overheads, before, inMethod, storing []time.Duration
	var ratios []float64
	var sumCalls, sumTokens int64
	var sumOverhead time.Duration
	for _, s := range stmts {
		l := s.Stored.Sub(s.Received)
		latencies = append(latencies, l)
		own = append(own, s.Critical)
		overheads = append(overheads, l-s.Critical)
		before = append(before, s.Started.Sub(s.Received))
		inMethod = append(inMethod, s.Ran.Sub(s.Started)-s.Critical)
		storing = append(storing, s.Stored.Sub(s.Ran))
		sumOverhead += l - s.Critical
		if s.Critical > 0 {
			ratios = append(ratios, float64(l)/float64(s.Critical))
		}
		sumCalls += s.Calls
		sumTokens += s.Tokens
	}
	res.callsPerStmt = float64(sumCalls) / float64(len(stmts))
	res.tokensPerStmt = float64(sumTokens) / float64(len(stmts))
	if res.mode != modeUnbound {
		res.bound = bound(cfg.RPM, cfg.TPM, res.callsPerStmt, res.tokensPerStmt)
	}
	res.p50, res.p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
	res.critical = 3 * cfg.Latency
	res.ownCriticalP50 = percentile(own, 0.5)
	res.overheadP50 = percentile(overheads, 0.5)
	res.overheadMean = sumOverhead / time.Duration(len(stmts))
	res.beforeP50, res.inMethodP50, res.storeP50 = percentile(before, 0.5), percentile(inMethod, 0.5), percentile(storing, 0.5)
	slices.Sort(ratios)
	if len(ratios) > 0 {
		res.ownRatioP95 = ratios[int(0.95*float64(len(ratios)-1))]
	}
}

// bound is the most statements a minute a provider of rpm requests and tpm tokens a minute can
// serve, when a statement takes callsPerStmt calls and tokensPerStmt tokens: whichever limit
// binds first.
func bound(rpm, tpm int, callsPerStmt, tokensPerStmt float64) float64 {
	return min(float64(rpm)/callsPerStmt, float64(tpm)/tokensPerStmt)
}

// percentile is the p-th percentile of ds (nearest rank below), 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

// acceptedCounter counts the requests a provider accepted in [from, to): the simulated
// provider's timeline, or a test's.
type acceptedCounter interface {
	AcceptedBetween(from, to time.Time) int
}

// recovery is how long after the storm's end (in steps of half a second) the provider first
// accepted want calls within 10 s, or -1 when it did not before end (or there was no storm).
func recovery(p acceptedCounter, stormEnd, end time.Time, want float64) time.Duration {
	if stormEnd.IsZero() {
		return -1
	}
	for after := time.Duration(0); stormEnd.Add(after + 10*time.Second).Before(end); after += 500 * time.Millisecond {
		from := stormEnd.Add(after)
		if float64(p.AcceptedBetween(from, from.Add(10*time.Second))) >= want {
			return after
		}
	}
	return -1
}
