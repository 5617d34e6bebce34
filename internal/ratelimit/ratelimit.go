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
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Dimensions of a budget, as array indexes.
const (
	requests = 0
	tokens   = 1
)

// Defaults of Config, applied by New.
const (
	DefaultMaxRetries = 3
	DefaultDecrease   = 0.7
	DefaultRecovery   = 30 * time.Second
	DefaultHeadroom   = 0.03
	DefaultPause      = time.Second
	DefaultMaxPause   = 30 * time.Second
	// DefaultMaxTokens is the reply bound assumed for a request that sets none; it matches
	// llm.DefaultMaxTokens.
	DefaultMaxTokens = 1024
)

// burstWindow is how much budget the local limiters let go at once: a second's worth (rounded
// down), so that a provider whose budget holds only a second (some quantise their per-minute
// limits that way) is not overrun by the first burst.
const burstWindow = time.Second

// Config configures a Limiter for one provider.
type Config struct {
	// Name names the provider in errors, logs, stats and shared-budget keys ("model",
	// "search-web"); empty means "model".
	Name string
	// RequestsPerMinute, TokensPerMinute and MaxConcurrent are the limits; 0 means unknown:
	// requests and tokens are then learned from headers and 429s, concurrency is unbounded.
	RequestsPerMinute int
	TokensPerMinute   int
	MaxConcurrent     int
	// DefaultMaxTokens is the reply bound used to estimate a request that sets none (the model
	// client's own default); 0 means DefaultMaxTokens.
	DefaultMaxTokens int
	// MaxRetries is how often a call answered by a transient 429 is retried here, after the
	// pause, before its error is returned; 0 means DefaultMaxRetries, negative means never.
	MaxRetries int
	// Decrease is the factor a 429 cuts the pace by, in (0, 1); 0 means DefaultDecrease.
	Decrease float64
	// Recovery is how long the pace takes to climb back after a cut; 0 means DefaultRecovery.
	Recovery time.Duration
	// Headroom is how far below a known ceiling the pace runs, as a fraction in [0, 0.5); 0
	// means DefaultHeadroom.
	Headroom float64
	// Pause is the first pause after a 429 that says nothing of when to come back, doubled for
	// each 429 in a row up to MaxPause; 0 means DefaultPause and DefaultMaxPause.
	Pause, MaxPause time.Duration
	// Shared, when set, is the budget this Limiter shares with other workers' Limiters of the
	// same Name.
	Shared *Shared
	// Clock tells the time and sleeps; nil means the system clock. Tests give a fake one.
	Clock Clock
	// Logger receives warnings (the shared budget unreachable); nil means none.
	Logger *slog.Logger
}

// WithDefaults returns c with every unset field at its default: the one place defaults live.
func (c Config) WithDefaults() Config {
	c.Name = cmp.Or(c.Name, "model")
	c.DefaultMaxTokens = cmp.Or(c.DefaultMaxTokens, DefaultMaxTokens)
	c.MaxRetries = cmp.Or(c.MaxRetries, DefaultMaxRetries)
	c.Decrease = cmp.Or(c.Decrease, DefaultDecrease)
	c.Recovery = cmp.Or(c.Recovery, DefaultRecovery)
	c.Headroom = cmp.Or(c.Headroom, DefaultHeadroom)
	c.Pause = cmp.Or(c.Pause, DefaultPause)
	c.MaxPause = cmp.Or(c.MaxPause, max(DefaultMaxPause, c.Pause))
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Validate lists every problem of a defaulted c in one error.
func (c Config) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.RequestsPerMinute < 0 {
		bad("requests per minute %d is negative", c.RequestsPerMinute)
	}
	if c.TokensPerMinute < 0 {
		bad("tokens per minute %d is negative", c.TokensPerMinute)
	}
	if c.MaxConcurrent < 0 {
		bad("max concurrent %d is negative", c.MaxConcurrent)
	}
	if c.DefaultMaxTokens < 0 {
		bad("default max tokens %d is negative", c.DefaultMaxTokens)
	}
	if !(c.Decrease > 0 && c.Decrease < 1) {
		bad("decrease %g must be between 0 and 1", c.Decrease)
	}
	if c.Recovery < 0 {
		bad("recovery %s is negative", c.Recovery)
	}
	if !(c.Headroom >= 0 && c.Headroom < 0.5) {
		bad("headroom %g must be in [0, 0.5)", c.Headroom)
	}
	if c.Pause < 0 || c.MaxPause < c.Pause {
		bad("pause %s must be positive and at most max pause %s", c.Pause, c.MaxPause)
	}
	if len(problems) > 0 {
		return fmt.Errorf("ratelimit %s: invalid configuration: %s", c.Name, strings.Join(problems, "; "))
	}
	return nil
}

// Clock is the time source of a Limiter.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx ends (returning its error).
	Sleep(ctx context.Context, d time.Duration) error
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Limiter keeps the calls to one provider within its limits; see the package comment. It is
// safe for concurrent use. A nil *Limiter limits nothing.
type Limiter struct {
	cfg    Config
	params [2]paceParams
	slots  chan struct{} // a slot per concurrent call; nil when unbounded

	mu       sync.Mutex
	limiters [2]*rate.Limiter // nil until the dimension first has a pace
	queue    queue
	headBusy bool // a call is the head: it waits for budget while the queue waits for it
	pace     [2]pace
	meter    [2]meter
	// accepted meters the requests the provider accepted, once a cut was made: before, a
	// provider's full bucket takes a burst that says nothing of its steady rate.
	accepted meter
	applied  [2]float64 // the pace last given to limiters, per minute; +Inf: not limiting
	maxTake  int64      // the largest token reservation so far, for the token burst
	credit   int64      // tokens: + left by calls that used less than estimated, - owed
	lastEst  int64
	paused   time.Time // every caller waits until then
	epoch    uint64    // counts cuts, this Limiter's and those adopted from the shared budget
	in429Row int
	rowStart time.Time // when the first of the 429s in a row came
	// okSinceCut is set by a success of a call admitted since the last cut. With no ceiling
	// known, a 429 cuts only after one: a provider that refuses everything for a while (a storm)
	// gets one cut, not one for each of the few calls sent between pauses, each from the trickle
	// the pauses left (which ratcheted the pace down to nearly nothing). Before the first cut it
	// is set by any success: a storm from the first request gets no cut at all.
	okSinceCut bool
	// gated counts the calls in flight that awaitProbe admitted, at most gateCap of them while no
	// pace is known (slow start: 1, the probe, then one more for each success) and one during a
	// storm. gateWake, when set, is closed when one of them returns.
	gated    int
	gateCap  int
	gateWake chan struct{}
	lease    leaseState
	counted  sendCount // sends not yet counted in the shared budget, while nothing is leased
	kvDown   time.Time // the shared budget is skipped until then
	lastTick time.Time // see tickLocked
	stats    Stats
}

// leaseState is what a Limiter holds of the shared budget's current window.
type leaseState struct {
	window int64
	have   [2]int64 // leased and not spent; tokens may be negative (a debt)
	state  windowState
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
		l.applied[d] = math.Inf(1)
	}
	// A token pace is never cut below what one ordinary call needs per minute.
	l.params[tokens].floor = float64(cfg.DefaultMaxTokens)
	l.pace[requests].configured = float64(cfg.RequestsPerMinute)
	l.pace[tokens].configured = float64(cfg.TokensPerMinute)
	if cfg.MaxConcurrent > 0 {
		l.slots = make(chan struct{}, cfg.MaxConcurrent)
	}
	l.stats.Name = cfg.Name
	l.gateCap = 1
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

func (l *Limiter) count(f func(*Stats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}

// grant is an admitted call: what it was charged and in which epoch (number of cuts) it went.
type grant struct {
	epoch  uint64
	tokens int64
	probe  bool
}

// admit waits for the call's turn in the queue, then, as the head, for its budget.
func (l *Limiter) admit(ctx context.Context, est int64, retry bool) (grant, error) {
	start := l.clock().Now()
	w := &waiter{job: JobFrom(ctx), prio: PriorityFrom(ctx), retry: retry, turn: make(chan struct{})}
	l.mu.Lock()
	l.queue.push(w)
	if !l.headBusy {
		l.promoteLocked()
	}
	l.mu.Unlock()
	waited := false
	select {
	case <-w.turn:
	default:
		waited = true
		select {
		case <-w.turn:
		case <-ctx.Done():
			l.mu.Lock()
			removed := l.queue.remove(w)
			l.mu.Unlock()
			if !removed { // it became the head meanwhile: pass the turn on
				l.passTurn()
			}
			return grant{}, ctx.Err()
		}
	}
	defer l.passTurn()

	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		default:
			waited = true
			select {
			case l.slots <- struct{}{}:
			case <-ctx.Done():
				return grant{}, ctx.Err()
			}
		}
	}
	probe, err := l.awaitProbe(ctx, &waited)
	if err != nil {
		l.releaseSlot()
		return grant{}, err
	}
	if err := l.awaitBudget(ctx, est, &waited); err != nil {
		l.releaseSlot()
		if probe {
			l.mu.Lock()
			l.ungateLocked()
			l.mu.Unlock()
		}
		return grant{}, err
	}
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.meter[requests].add(now, 1)
	l.meter[tokens].add(now, float64(est))
	l.lastEst = est
	l.stats.Calls++
	l.stats.InFlight++
	l.stats.TokensEstimated += est
	if waited {
		l.stats.Waits++
		l.stats.WaitTime += now.Sub(start)
	}
	return grant{epoch: l.epoch, tokens: est, probe: probe}, nil
}

// awaitProbe holds calls back while nothing is known of the provider's limits (none configured,
// none learned, no cut yet) and during a storm, and reports whether this call is one of those
// it lets through (counted in gated until it returns). The first call goes alone (the probe):
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
		case l.in429Row >= stormRow:
			limit = 1
		case l.paceUnknownLocked():
			limit = l.gateCap
		}
		if limit == 0 {
			l.mu.Unlock()
			return false, nil
		}
		if l.gated < limit {
			l.gated++
			l.mu.Unlock()
			return true, nil
		}
		if l.gateWake == nil {
			l.gateWake = make(chan struct{})
		}
		wake := l.gateWake
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

// stormPatience is how long a call goes on retrying through a storm (see weatheringStorm).
const stormPatience = 2 * time.Minute

// weatheringStorm reports whether a call that met a 429 should be retried beyond MaxRetries: in
// a storm (stormRow 429s in a row, one call going at a time) that began less than stormPatience
// ago. The storm is the provider's, not the job's: failing the one call that probes it would
// only send its job to wait out a retry delay after the storm has ended (the calls queued behind
// it wait without spending retries). A longer storm fails calls as before, so that the jobs'
// retries and the worker's circuit breaker take over. It applies only with no ceiling known
// (configured or announced): a provider with known limits that refuses calls in a row is held to
// MaxRetries, as configured.
func (l *Limiter) weatheringStorm() bool {
	if l.cfg.MaxRetries < 0 {
		return false
	}
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	unknown := l.pace[requests].ceiling() == 0 && l.pace[tokens].ceiling() == 0
	return unknown && l.in429Row >= stormRow && now.Sub(l.rowStart) < stormPatience
}

// stormRow is how many 429s in a row, with no success between, make a storm: then, as for the
// first call, one call goes at a time (after each pause) until one succeeds, so that a provider
// refusing everything gets one request per pause rather than a burst of them.
const stormRow = 3

// ungateLocked ends a call awaitProbe let through and lets the calls it holds look again.
func (l *Limiter) ungateLocked() {
	l.gated--
	if l.gateWake != nil {
		close(l.gateWake)
		l.gateWake = nil
	}
}

func (l *Limiter) clock() Clock { return l.cfg.Clock }

// tickLocked is the time now for the local limiters: never earlier than a time they were given
// before. x/time/rate takes the time of each call as its own and would, given an earlier one
// (read before another goroutine's later one took the lock), count the refill in between twice.
func (l *Limiter) tickLocked() time.Time {
	now := l.clock().Now()
	if now.Before(l.lastTick) {
		now = l.lastTick
	}
	l.lastTick = now
	return now
}

// promoteLocked makes the next waiter the head, if any waits.
func (l *Limiter) promoteLocked() {
	w := l.queue.pop()
	l.headBusy = w != nil
	if w != nil {
		close(w.turn)
	}
}

func (l *Limiter) passTurn() {
	l.mu.Lock()
	l.promoteLocked()
	l.mu.Unlock()
}

func (l *Limiter) releaseSlot() {
	if l.slots != nil {
		<-l.slots
	}
}

// maxSlice bounds one sleep for the local pace: a longer wait is taken in slices, each with the
// pace as it is then, so that a pace that recovers or is learned meanwhile shortens the wait.
const maxSlice = time.Second

// awaitBudget waits out any pause, then the local pace, then the shared budget.
func (l *Limiter) awaitBudget(ctx context.Context, est int64, waited *bool) error {
	for {
		if err := l.awaitPause(ctx, waited); err != nil {
			return err
		}
		delay, undo := l.reserve(est)
		if delay <= 0 {
			break
		}
		*waited = true
		if delay <= maxSlice {
			if err := l.clock().Sleep(ctx, delay); err != nil {
				undo()
				return err
			}
			break
		}
		undo()
		if err := l.clock().Sleep(ctx, maxSlice); err != nil {
			return err
		}
	}
	if l.cfg.Shared != nil {
		if err := l.takeShared(ctx, est, waited); err != nil {
			return err
		}
	}
	// A 429 may have come back while this call waited.
	return l.awaitPause(ctx, waited)
}

// reserve takes one request and est tokens from the local limiters at the pace now, and returns
// how long until they are there, and how to give them back.
func (l *Limiter) reserve(est int64) (time.Duration, func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.tickLocked()
	l.applyPaceLocked(now)
	// Credit left by calls that used less than estimated pays first; a debt adds to the take.
	take, creditUsed := int64(0), int64(0)
	if !math.IsInf(l.applied[tokens], 1) {
		if l.credit >= est {
			creditUsed, take = est, 0
		} else {
			creditUsed, take = l.credit, est-l.credit
		}
		l.credit -= creditUsed
		if take > l.maxTake {
			l.maxTake = take
			l.limiters[tokens].SetBurstAt(now, max(l.limiters[tokens].Burst(), int(take)))
		}
	}
	var reservations []*rate.Reservation
	if !math.IsInf(l.applied[requests], 1) {
		reservations = append(reservations, l.limiters[requests].ReserveN(now, 1))
	}
	if take > 0 {
		reservations = append(reservations, l.limiters[tokens].ReserveN(now, int(take)))
	}
	var delay time.Duration
	for _, r := range reservations {
		if r.OK() {
			delay = max(delay, r.DelayFrom(now))
		}
	}
	undo := func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		at := l.tickLocked()
		for _, r := range reservations {
			r.CancelAt(at)
		}
		l.credit += creditUsed
	}
	return delay, undo
}

func (l *Limiter) awaitPause(ctx context.Context, waited *bool) error {
	for {
		now := l.clock().Now()
		l.mu.Lock()
		until := l.paused
		l.mu.Unlock()
		if !now.Before(until) {
			return ctx.Err()
		}
		*waited = true
		if err := l.clock().Sleep(ctx, until.Sub(now)); err != nil {
			return err
		}
	}
}

// applyPaceLocked gives the local limiters the pace at now. A limiter is made when its
// dimension first has a pace, and is skipped while the pace is unlimited.
func (l *Limiter) applyPaceLocked(now time.Time) {
	for d := range l.pace {
		r := l.pace[d].rate(now, l.params[d])
		if r == l.applied[d] {
			continue
		}
		l.applied[d] = r
		if math.IsInf(r, 1) {
			continue
		}
		perSecond := r / 60
		// Rounded down: a provider whose budget holds exactly one second must still have
		// something left when the requests of a full local burst arrive unevenly.
		burst := max(1, int(perSecond*burstWindow.Seconds()))
		if d == tokens {
			burst = max(burst, int(l.maxTake))
		}
		if l.limiters[d] == nil {
			l.limiters[d] = rate.NewLimiter(rate.Limit(perSecond), burst) // full, like the provider's
			continue
		}
		l.limiters[d].SetLimitAt(now, rate.Limit(perSecond))
		l.limiters[d].SetBurstAt(now, burst)
	}
}

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
		l.gateCap++ // slow start: see awaitProbe
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
		l.in429Row = 0
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
		if l.in429Row == 0 {
			l.rowStart = now
		}
		l.in429Row++
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

// waitAfter429 is the pause after a 429: what the server asked for; else what the exhausted
// dimension needs to refill, but at least an exponential backoff once 429s come in a row (a
// provider whose budget comes back all at once at its reset, not gradually, would otherwise
// refuse every early try); else the backoff.
func (l *Limiter) waitAfter429(sig Signals, est int64) time.Duration {
	if sig.RetryAfter > 0 {
		return sig.RetryAfter
	}
	backoff := l.cfg.Pause
	for i := 1; i < l.in429Row && backoff < l.cfg.MaxPause; i++ {
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
	if l.in429Row > 1 {
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
	useShared := l.cfg.Shared != nil && !now.Before(l.kvDown)
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

// exhaustedBy tells which dimensions a 429 with these headers was for: the ones with nothing
// remaining, else requests.
func exhaustedBy(sig Signals) [2]bool {
	exhausted := [2]bool{sig.RemainingRequests == 0, sig.RemainingTokens == 0}
	if !exhausted[requests] && !exhausted[tokens] {
		exhausted[requests] = true
	}
	return exhausted
}

// drainLocked takes from dimension d's local limiter what it holds beyond left: the provider
// said it has no more than that, and a full local bucket would send it a burst it refuses.
func (l *Limiter) drainLocked(d int, now time.Time, left int64) {
	if math.IsInf(l.applied[d], 1) {
		return
	}
	lim := l.limiters[d]
	if excess := lim.TokensAt(now) - float64(left); excess >= 1 {
		lim.ReserveN(now, int(excess))
	}
}

// correctLocked books the difference between a call's estimate and its reported usage (delta >
// 0: it used less): as local credit, capped at one burst, and on the shared lease.
func (l *Limiter) correctLocked(now time.Time, delta int64) {
	l.meter[tokens].add(now, float64(-delta))
	if !math.IsInf(l.applied[tokens], 1) {
		l.credit = min(l.credit+delta, int64(l.limiters[tokens].Burst()))
	}
	if l.cfg.Shared != nil {
		l.lease.have[tokens] += delta
	}
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

// takeShared waits until the shared budget's current window covers one request and est tokens,
// and takes them from the lease, leasing more when it runs out.
func (l *Limiter) takeShared(ctx context.Context, est int64, waited *bool) error {
	s := l.cfg.Shared
	for {
		now := l.clock().Now()
		idx := s.windowIndex(now)
		l.mu.Lock()
		if now.Before(l.kvDown) {
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
			flush := l.counted.add(idx, est)
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
				need[d] = max(costs[d]-l.lease.have[d], 0)
			}
		}
		if need == [2]int64{} {
			for d := range costs {
				if budget[d] != unlimited {
					l.lease.have[d] -= costs[d]
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
		known := l.lease.state
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
			l.kvDown = now.Add(kvRetryAfter(s.cfg.Window))
			l.mu.Unlock()
			l.cfg.Logger.Warn("shared rate-limit budget unavailable: going on with local limits for a while",
				"provider", l.cfg.Name, "retry_in", kvRetryAfter(s.cfg.Window), "error", err)
			return nil
		}
		if l.lease.window == idx {
			l.lease.state = st
			if changed {
				l.lease.have[requests] += got[requests]
				l.lease.have[tokens] += got[tokens]
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
	if l.lease.window == idx {
		return
	}
	carry := l.lease.have[tokens]
	if carry > 0 {
		limit := int64(0)
		if budget[tokens] != unlimited {
			limit = int64(float64(budget[tokens]) * l.cfg.Shared.cfg.LeaseFraction)
		}
		carry = min(carry, limit)
	}
	l.lease = leaseState{window: idx, have: [2]int64{0, carry}}
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
	if l.lease.window == idx {
		known = l.lease.state
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
	if l.countKVLocked(conflicts, err) && l.lease.window == idx {
		l.lease.state = st
	}
}

// Stats are a Limiter's counters and its current pace, for metrics. Counters only grow.
type Stats struct {
	Name string
	// Calls counts admitted attempts (a retried call counts each attempt); Succeeded and
	// Failed count calls as Do returned them.
	Calls, Succeeded, Failed int64
	// RateLimited counts 429 answers that were rate limits; QuotaExhausted those that were an
	// exhausted quota; Retries the attempts Do made again after a 429.
	RateLimited, QuotaExhausted, Retries int64
	// Waits counts admissions that had to wait, for WaitTime in all.
	Waits    int64
	WaitTime time.Duration
	// Pauses counts the times every caller was paused; Decreases the cuts of the pace.
	Pauses, Decreases int64
	// TokensEstimated is the sum of estimates; TokensUsed of reported usage (the estimate where
	// a call reported none).
	TokensEstimated, TokensUsed int64
	// Leases, LeaseConflicts and LeaseErrors count the shared budget's leases taken, the
	// compare-and-swaps lost, and the failures to reach it.
	Leases, LeaseConflicts, LeaseErrors int64

	// InFlight and Queued are the calls running and waiting now.
	InFlight, Queued int
	// RequestsPerMinute and TokensPerMinute are the pace now, 0 when unlimited.
	RequestsPerMinute, TokensPerMinute float64
	// RequestLimit and TokenLimit are the ceilings in force (configured or learned), 0 when
	// unknown.
	RequestLimit, TokenLimit float64
	// PausedUntil is when the current pause ends; zero or past when none.
	PausedUntil time.Time
}

// Stats returns the Limiter's counters and state now.
func (l *Limiter) Stats() Stats {
	if l == nil {
		return Stats{}
	}
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Queued = l.queue.len()
	finite := func(r float64) float64 {
		if math.IsInf(r, 1) {
			return 0
		}
		return r
	}
	s.RequestsPerMinute = finite(l.pace[requests].rate(now, l.params[requests]))
	s.TokensPerMinute = finite(l.pace[tokens].rate(now, l.params[tokens]))
	s.RequestLimit = l.pace[requests].ceiling()
	s.TokenLimit = l.pace[tokens].ceiling()
	s.PausedUntil = l.paused
	return s
}
