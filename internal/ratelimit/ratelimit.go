// Package ratelimit keeps Corroborate's calls to a provider (the model endpoint, a search API)
// just under the provider's limits: requests per minute, tokens per minute and concurrent
// requests, for one worker or for many sharing one budget. Model and Searcher wrap the
// pipeline's interfaces with a Limiter; Do wraps any other call.
//
// # Limits and estimates
//
// A Limiter paces requests and tokens with golang.org/x/time/rate limiters (bursts of up to one
// second of budget) and bounds concurrent calls. A call's tokens are estimated before it is
// sent, by OpenAI's rule of thumb: prompt bytes / 4, plus the reply's share (see EstimateTokens):
// Model takes the reply bound (max tokens) until it knows how long the replies to the call's
// step are, then the longest recent one with a margin (see replyLengths), since a bound ten times
// the reply would make a token limit bite ten times too early. The estimate is corrected from the
// usage the reply reports: a call that used less leaves the difference as credit for the next
// calls, one that used more leaves a debt they pay. Every limit is optional; 0 means unknown, to
// be learned.
//
// # Adapting to the provider
//
// The Limiter learns from every response, successful or not, which it sees through
// ObserveResponse: wire it as llm.Config.OnResponse or search.WebOpts.OnResponse.
// Do hands the call a context that carries a record of the call; ObserveResponse fills it in,
// and Do judges the call by the record and the error when the call returns. So the package
// needs neither openai-go nor the llm package's error types, and a search provider takes part
// the same way as the model.
//
// x-ratelimit-limit-requests and -tokens give the ceilings (read as per minute; the lower of the
// configured and the announced limit wins); the pace runs Headroom below them.
// x-ratelimit-remaining-* at 0 pauses every caller until the dimension has refilled by
// x-ratelimit-reset-*, and a remaining count below what the local limiter would allow drains it
// to match. Absent, -1 or unparsable headers are ignored (see Signals).
//
// A 429 that is a rate limit pauses every caller of the provider (for Retry-After-Ms or
// Retry-After when sent, else until the exhausted dimension refills, else for an exponential
// backoff from Pause), empties the local limiter of the exhausted dimension, and cuts its pace to
// Decrease times what it was; the pace then climbs back over Recovery: additive increase,
// multiplicative decrease (AIMD). Only calls admitted after the last cut can cause another, so a
// burst of 429s from calls already in flight is one cut, not twenty. With no ceiling known, the
// pace is unlimited until the first 429, but the calls in flight start from one and grow by one
// for each success (slow start: see awaitProbe), so that the first 429 comes near the limit rather
// than at several times it. That 429 sets the pace from the rate actually sent over the last few
// seconds (the busiest second: see meter.peak); after each cut it climbs back within a sixth of
// Recovery to just below the rate that was refused (or, for one worker, what the provider
// typically accepted in a second lately, when that was more: see pace.decrease) and then probes
// above it (see pace), so it converges on the provider's limit from 429s alone. A storm of 429s (a
// provider refusing everything for a while, with or without Retry-After) does not ratchet that
// estimate down: with no ceiling known a cut needs a success since the last one (the first cut a
// success at all: a storm from the very first request teaches nothing of the limit), and after
// stormRow 429s in a row one call goes at a time, after each pause, until one succeeds. The call
// that got the 429 is retried by Do itself, up to MaxRetries times after the pause, so that the
// job does not spend a delivery attempt on it. A 429 for an exhausted quota (insufficient_quota,
// which internal/llm returns wrapped by pipeline.Permanent) is never retried and changes nothing:
// it waits on billing, not on the clock.
//
// # One budget for many workers
//
// With Config.Shared, the workers that name one JetStream KV bucket share each provider's
// budget, with no process in charge:
//
//  1. Time is cut into windows (SharedConfig.Window, aligned on the Unix epoch, so that every
//     worker agrees on them from its own clock). Window i of provider p has the key
//     "p.<window ms>.i"; its value counts the requests and tokens all workers together have
//     taken from it, and a pause. A window's budget is its share of the per-minute pace, in
//     whole units spread evenly over the windows (windowBudget).
//  2. A worker does not touch KV per call. It leases a batch, up to LeaseFraction of the
//     window's budget (less near the window's end, at least what the call needs), by
//     compare-and-swap: kv.Create for a window nobody has touched yet, kv.Update with the
//     revision it holds otherwise, and on ErrKeyExists or ErrKeyRevisionMismatch it reads the
//     key again and retries. It spends the batch locally and leases again when it runs out.
//     A window gives out its budget as the window goes by, a lease's share ahead of the clock
//     (see leaseAsk.due), so that the fleet's sends are as even as a provider's refill; a call
//     the window cannot cover yet waits until enough falls due, or for the next window.
//  3. What a worker leased and did not use lapses with its window: a worker that dies returns
//     its lease by expiry within one window. The keys themselves expire with the bucket's TTL.
//  4. A call larger than what a window has left takes it anyway when something is left; the
//     overshoot is carried into the next window when that window's key is created, so that it
//     is paid for rather than forgotten. Token corrections stay with the worker that made them:
//     refunds as credit on its lease (at most one batch survives a window's end), debts paid
//     by its next lease.
//  5. A worker that gets a 429 writes its pause into the window's key (and the next window
//     inherits it), so that every worker pauses, not only the one that was refused. It writes
//     its cut of the pace there too, and the others adopt it at their next lease: every worker
//     then has the same pace, so they agree on each window's budget.
//  6. With no pace known nothing is leased, but every worker still adds what it sends to the
//     window's key (countBatch calls at a time), and a worker that meets a 429 cuts from the
//     fleet's rate those keys show (see Shared.peak), not from its own share of it: the limit
//     learned from 429s alone is the fleet's.
//
// With synchronised clocks the workers together stay within each window's budget; clock skew lets
// windows overlap by the skew. At most a lease's share of a window goes out at once (a quarter of a
// second's budget by default), so the provider must accept that much in one burst: OpenAI's budget
// holds a minute, and DefaultWindow, a second, also suits providers that quantise their limits per
// second. When KV cannot be reached, calls go ahead on their local limits (adaptive to 429s) rather
// than stop, and the failure shows in Stats.LeaseErrors.
//
// # Fairness and priority
//
// Calls waiting for a Limiter are admitted one at a time, in an order fair between jobs: the
// jobs with waiting calls (WithJob) take turns, so that a statement with 40 claims does not
// starve one with two. Calls in the Urgent lane (WithPriority) are admitted before any Backlog
// call waiting at the same time.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Dimensions of a budget, as array indexes.
const (
	requests = 0
	tokens   = 1
)

// Limiter keeps the calls to one provider within its limits; see the package comment. It is
// safe for concurrent use. A nil *Limiter limits nothing.
//
// Everything below mu is guarded by it, one mutex for all, because one response changes several
// concepts at once (a 429 ends the slow start, counts a row, pauses, cuts the pace and drains the
// buckets); what belongs to one concept alone is grouped in a struct named for it.
type Limiter struct {
	cfg    Config
	params [2]paceParams
	slots  chan struct{} // a slot per concurrent call; nil when unbounded

	mu       sync.Mutex
	queue    queue
	headBusy bool // a call is the head: it waits for budget while the queue waits for it
	pace     [2]pace
	meter    [2]meter
	// accepted meters the requests the provider accepted, once a cut was made: before, a
	// provider's full bucket takes a burst that says nothing of its steady rate.
	accepted meter
	buckets  localBuckets
	lastEst  int64
	paused   time.Time // every caller waits until then
	epoch    uint64    // counts cuts, this Limiter's and those adopted from the shared budget
	row429   row429
	// okSinceCut is set by a success of a call admitted since the last cut. With no ceiling
	// known, a 429 cuts only after one: a provider that refuses everything for a while (a storm)
	// gets one cut, not one for each of the few calls sent between pauses, each from the trickle
	// the pauses left (which ratcheted the pace down to nearly nothing). Before the first cut it
	// is set by any success: a storm from the first request gets no cut at all.
	okSinceCut bool
	gate       gate
	fleet      fleetState
	stats      Stats
}

// localBuckets are the local limiters that hold calls to the pace (see buckets.go).
type localBuckets struct {
	limiters [2]*rate.Limiter // nil until the dimension first has a pace
	applied  [2]float64       // the pace last given to limiters, per minute; +Inf: not limiting
	maxTake  int64            // the largest token reservation so far, for the token burst
	credit   int64            // tokens: + left by calls that used less than estimated, - owed
	lastTick time.Time        // see tickLocked
}

// row429 is the 429s that came in a row, with no success between (see storm.go).
type row429 struct {
	n     int
	start time.Time // when the first of them came
}

// gate counts the calls in flight that awaitProbe admitted, at most cap of them while no pace is
// known (slow start: 1, the probe, then one more for each success) and one during a storm. wake,
// when set, is closed when one of them returns.
type gate struct {
	inFlight int
	cap      int
	wake     chan struct{}
}

// fleetState is what a Limiter holds of the budget it shares with other workers (see lease.go).
type fleetState struct {
	lease   leaseState
	counted sendCount // sends not yet counted in the shared budget, while nothing is leased
	kvDown  time.Time // the shared budget is skipped until then
}

// New returns a Limiter for cfg, after applying defaults and checking the result.
func New(cfg Config) (*Limiter, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Limiter{cfg: cfg}
	for d := range l.params {
		l.params[d] = paceParams{decrease: cfg.Decrease, recovery: cfg.Recovery, headroom: cfg.Headroom, floor: 1}
		l.buckets.applied[d] = math.Inf(1)
	}
	// A token pace is never cut below what one ordinary call needs per minute.
	l.params[tokens].floor = float64(cfg.DefaultMaxTokens)
	l.pace[requests].configured = float64(cfg.RequestsPerMinute)
	l.pace[tokens].configured = float64(cfg.TokensPerMinute)
	if cfg.MaxConcurrent > 0 {
		l.slots = make(chan struct{}, cfg.MaxConcurrent)
	}
	l.stats.Name = cfg.Name
	l.gate.cap = 1
	return l, nil
}

// Name is the provider's name.
func (l *Limiter) Name() string { return l.cfg.Name }

// EstimateTokens is the token cost assumed for a request before it is sent: prompt bytes / 4,
// rounded up, plus the reply bound. Bytes over-count most non-English text a little, which the
// correction from reported usage repays.
func EstimateTokens(prompt string, maxTokens int) int64 {
	return int64((len(prompt)+3)/4) + int64(max(maxTokens, 0))
}

// Do runs call within the limits: it waits its turn and its budget, runs call with a context
// through which ObserveResponse reports the call's responses, learns from them, and retries a
// call answered by a transient 429 after the pause. estTokens is the call's estimated token
// cost (0 for calls that only count as requests); call returns the tokens it used according to
// the provider, or 0 when it does not know. Do returns call's last error, or the context's
// error wrapped when it ended while waiting.
func (l *Limiter) Do(ctx context.Context, estTokens int64, call func(ctx context.Context) (usedTokens int64, err error)) error {
	if l == nil {
		_, err := call(ctx)
		return err
	}
	estTokens = max(estTokens, 0)
	for attempt := 0; ; attempt++ {
		g, err := l.admit(ctx, estTokens, attempt > 0)
		if err != nil {
			return fmt.Errorf("ratelimit %s: waiting for budget: %w", l.cfg.Name, err)
		}
		obs := &observation{l: l}
		used, callErr := call(context.WithValue(ctx, observationKey{}, obs))
		retry, newPause, cut := l.finish(ctx, g, obs, used, callErr)
		var cuts *[2]paceCut
		if cut != nil {
			cuts = l.applyCut(ctx, *cut)
		}
		if !newPause.IsZero() || cuts != nil {
			l.share(ctx, newPause, cuts)
		}
		if retry && (attempt < l.cfg.MaxRetries || l.weatheringStorm()) {
			l.count(func(s *Stats) { s.Retries++ })
			continue
		}
		if callErr != nil {
			l.count(func(s *Stats) { s.Failed++ })
		}
		return callErr
	}
}

func (l *Limiter) clock() Clock { return l.cfg.Clock }
