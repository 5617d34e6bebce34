// Package breaker is a circuit breaker on a service that every job needs (the model endpoint):
// when several jobs in a row fail because the service is down, its key refused or its quota
// gone, the breaker opens. While it is open the worker takes no new job (the Breaker is a
// jobs.Gate), the jobs whose run failed on the outage are held instead of spending an attempt
// (the executor asks Observe), and Run probes the service with a growing backoff. When a probe
// succeeds the breaker is half-open: jobs flow again, and the first of them that meets the
// outage opens it again at once (the probes then go on from the wait they had reached), while
// the first that reaches the service closes it.
//
// Jobs that fail the same way again and again are not an outage: something in their input makes
// the service fail (a prompt the model chokes on answers HTTP 500 every time, while every other
// prompt is answered). With Config.Confirm, the breaker opens only on evidence that the service
// is down for everyone: before it counts a failure as an outage it asks the service a known-good
// request, and when that is answered the failure is the job's own, which spends the job's
// attempts like any other, and that job's failures are not asked about again. Without Confirm,
// Threshold distinct jobs in a row open it.
//
// It knows nothing of models or NATS: Config.Classify says which failures are outages,
// Config.Probe how to check the service and Config.Confirm how to ask it a known-good request.
package breaker

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// State is where a Breaker stands.
type State string

const (
	Closed   State = "closed"    // jobs flow; outages are counted
	Open     State = "open"      // no job is taken; the service is probed
	HalfOpen State = "half-open" // a probe succeeded; jobs flow, and one outage opens it again
)

// Defaults of Config.
const (
	DefaultThreshold = 3
	DefaultProbeMin  = time.Second
	DefaultProbeMax  = 30 * time.Second
)

// Config says what a Breaker counts and how it checks the service.
type Config struct {
	// Name says what the breaker guards, in logs and errors ("model endpoint").
	Name string
	// Threshold is how many distinct jobs in a row must meet an outage for the breaker to open
	// (default 3). The same job failing again does not count twice: one job's bad luck is not
	// an outage.
	Threshold int
	// Classify names the outage err is ("connection_refused", "unauthorized", "quota",
	// "server_error"), or returns "" when err is the job's own failure: the service answered.
	Classify func(err error) string
	// Probe checks the service with one cheap request; nil means it answers.
	Probe func(ctx context.Context) error
	// Confirm, when set, asks the service a known-good request, one that no job's input can make
	// fail: nil means it answered. Observe asks it (one request at a time, shared by every job
	// that fails meanwhile) before it counts a failure as an outage: when Threshold distinct
	// jobs in a row have failed, when a job fails again, and on any failure while half-open. The
	// breaker opens only when Confirm fails too. nil: it opens on Threshold alone.
	Confirm func(ctx context.Context) error
	// ProbeMin and ProbeMax bound the wait between probes while open: ProbeMin, doubling up to
	// ProbeMax, plus up to a tenth of jitter (1s, 30s).
	ProbeMin, ProbeMax time.Duration
	Logger             *slog.Logger
	// OnChange, when set, is told every transition, with the reason of the outage (empty when
	// closed), for metrics. It is called with the breaker's lock released, in order.
	OnChange func(s State, reason string)
}

// Breaker is a circuit breaker; see the package comment. Its methods are safe for concurrent
// use.
type Breaker struct {
	cfg Config

	// changes serializes OnChange calls in the order of the transitions.
	changes sync.Mutex

	mu     sync.Mutex
	state  State
	reason string
	// lastErr is the failure that opened the breaker, then the last failed probe's.
	lastErr error
	since   time.Time
	// probeWait is the wait before the next probe: ProbeMin, doubled after each probe up to
	// ProbeMax. It starts over only when the breaker closes, not when it opens again from
	// half-open: a probe that succeeds while jobs still fail (a database whose disk is full
	// answers its ping) must not let a job spend its calls at every ProbeMin.
	probeWait time.Duration
	// streak holds the jobs of the current run of outages while closed.
	streak map[string]bool
	// suspects are the jobs that met an outage and have not reached the service since: a second
	// outage of one of them asks Confirm (with Confirm set).
	suspects map[string]bool
	// own are the jobs whose outage Confirm showed to be their own failure: the service
	// answered a known-good request meanwhile. Their failures are not outages any more (nor
	// asked about again) until they reach the service.
	own map[string]bool
	// confirming is the Confirm request in flight, nil when none is.
	confirming *confirmation
	// opened is closed when the breaker stops being open; a fresh one is made when it opens.
	opened chan struct{}
	// tripped wakes Run when the breaker opens.
	tripped chan struct{}
	// transitions are queued for OnChange, told in order by notify.
	transitions []change
}

type change struct {
	state  State
	reason string
}

// confirmation is one Confirm request and the jobs' failure that asked it.
type confirmation struct {
	// reason and err are the outage of the job that asked first: the breaker opens with them
	// when the service does not answer.
	reason string
	err    error
	jobs   map[string]bool
	// answered is Confirm's finding, set before done is closed.
	answered error
	done     chan struct{}
}

// remembered bounds suspects and own: past it they start over, which costs at most one more
// Confirm per job.
const remembered = 4096

// remember adds job to set, starting the set over when it holds remembered jobs.
func remember(set map[string]bool, job string) {
	if len(set) >= remembered {
		clear(set)
	}
	set[job] = true
}

// New returns a closed Breaker with cfg's defaults applied. Call Run for it to probe.
func New(cfg Config) *Breaker {
	cfg.Name = cmp.Or(cfg.Name, "service")
	if cfg.Threshold <= 0 {
		cfg.Threshold = DefaultThreshold
	}
	cfg.ProbeMin = cmp.Or(cfg.ProbeMin, DefaultProbeMin)
	cfg.ProbeMax = max(cmp.Or(cfg.ProbeMax, DefaultProbeMax), cfg.ProbeMin)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Classify == nil {
		cfg.Classify = func(error) string { return "" }
	}
	opened := make(chan struct{})
	close(opened)
	return &Breaker{cfg: cfg, state: Closed, probeWait: cfg.ProbeMin, streak: map[string]bool{},
		suspects: map[string]bool{}, own: map[string]bool{}, opened: opened, tripped: make(chan struct{}, 1)}
}

// Observe records how a job's run ended: err nil when it reached the service, else its error.
// It reports whether err is an outage of the service, and whether the breaker is open now: an
// outage while open should be held, not retried (its attempt was lost to the outage, not to the
// job). Only a success closes an open or half-open breaker.
func (b *Breaker) Observe(job string, err error) (outage, open bool) {
	reason := ""
	if err != nil {
		reason = b.cfg.Classify(err)
	}
	b.mu.Lock()
	switch {
	case err == nil:
		// The service answered: it is up.
		clear(b.streak)
		delete(b.suspects, job)
		delete(b.own, job)
		if b.state != Closed {
			b.setLocked(Closed, "", nil)
		}
		b.mu.Unlock()
		b.notify()
		return false, false
	case reason == "":
		// The job's own failure. It ends a streak, but proves too little to close an open
		// breaker: a call cut short as the service went down can fail in ways no outage names.
		if b.state == Closed {
			clear(b.streak)
		}
		open := b.state == Open
		b.mu.Unlock()
		return false, open
	}
	if b.cfg.Confirm != nil && b.state != Open {
		return b.observeConfirmed(job, reason, err)
	}
	switch b.state {
	case Open:
		b.mu.Unlock()
		return true, true
	case HalfOpen:
		b.openLocked(reason, err, 1)
	default:
		b.streak[job] = true
		if len(b.streak) < b.cfg.Threshold {
			b.mu.Unlock()
			return true, false
		}
		b.openLocked(reason, err, len(b.streak))
	}
	b.mu.Unlock()
	b.notify()
	return true, true
}

// observeConfirmed is Observe for an outage while not open, with Confirm set; b.mu is held and
// released here. The failure counts as an outage only when the service does not answer a
// known-good request either.
func (b *Breaker) observeConfirmed(job, reason string, err error) (outage, open bool) {
	if b.own[job] {
		// Its failure was shown to be its own: the job spends its attempts, the breaker stays.
		b.mu.Unlock()
		return false, false
	}
	if b.state == Closed {
		b.streak[job] = true
	}
	ask := b.confirming != nil || b.state == HalfOpen || b.suspects[job] || len(b.streak) >= b.cfg.Threshold
	if !ask {
		// Its first failure, the streak too short to suspect the service: retried like any
		// transient failure, as without Confirm.
		remember(b.suspects, job)
		b.mu.Unlock()
		return true, false
	}
	c := b.confirming
	if c == nil {
		c = &confirmation{reason: reason, err: err, jobs: map[string]bool{}, done: make(chan struct{})}
		b.confirming = c
		go b.confirm(c)
	}
	c.jobs[job] = true
	b.mu.Unlock()
	<-c.done
	if c.answered != nil {
		// The service is down for everyone: confirm opened the breaker.
		return true, true
	}
	return false, b.isOpen()
}

// confirmTimeout bounds a Confirm request: a known-good request that takes longer is not answered.
const confirmTimeout = 10 * time.Second

// confirm asks Confirm, records what it found for the jobs waiting on c, and opens the breaker
// when the service did not answer.
func (b *Breaker) confirm(c *confirmation) {
	ctx, cancel := context.WithTimeout(context.Background(), confirmTimeout)
	c.answered = b.cfg.Confirm(ctx)
	cancel()
	b.mu.Lock()
	b.confirming = nil
	if c.answered == nil {
		// The jobs' failures are their own: they no longer make a streak.
		for job := range c.jobs {
			delete(b.suspects, job)
			delete(b.streak, job)
			remember(b.own, job)
		}
		b.cfg.Logger.Info(b.cfg.Name+" answers a known-good request: the failures are the jobs' own, not an outage",
			"reason", c.reason, "jobs", len(c.jobs), "error", c.err)
	} else if b.state != Open {
		b.openLocked(c.reason, fmt.Errorf("%w (and a known-good request failed too: %v)", c.err, c.answered), len(c.jobs))
	}
	b.mu.Unlock()
	close(c.done)
	b.notify()
}

func (b *Breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state == Open
}

// openLocked opens the breaker; jobs is how many jobs in a row met the outage.
func (b *Breaker) openLocked(reason string, err error, jobs int) {
	from := b.state
	b.setLocked(Open, reason, err)
	clear(b.streak)
	b.opened = make(chan struct{})
	select {
	case b.tripped <- struct{}{}:
	default:
	}
	b.cfg.Logger.Warn(b.cfg.Name+" breaker open: taking no new jobs until it answers again",
		"reason", reason, "from", string(from), "jobs_in_a_row", jobs, "error", err)
}

// setLocked moves to s and queues the transition for OnChange.
func (b *Breaker) setLocked(s State, reason string, err error) {
	if s == Closed && b.state != Closed {
		b.probeWait = b.cfg.ProbeMin
		b.cfg.Logger.Info(b.cfg.Name+" breaker closed: jobs reach it again", "was", string(b.state), "reason", b.reason,
			"down_for", time.Since(b.since).Round(time.Millisecond).String())
	}
	if b.state == Open && s != Open {
		close(b.opened)
	}
	if s == Open && b.state == Closed || b.since.IsZero() {
		b.since = time.Now()
	}
	b.state, b.reason = s, reason
	if err != nil {
		b.lastErr = err
	}
	b.transitions = append(b.transitions, change{s, reason})
}

// notify tells OnChange the queued transitions, in order.
func (b *Breaker) notify() {
	b.changes.Lock()
	defer b.changes.Unlock()
	b.mu.Lock()
	queued := b.transitions
	b.transitions = nil
	b.mu.Unlock()
	if b.cfg.OnChange == nil {
		return
	}
	for _, c := range queued {
		b.cfg.OnChange(c.state, c.reason)
	}
}

// Wait returns nil at once unless the breaker is open; while it is, Wait blocks until a probe
// succeeds (nil) or ctx ends (ctx.Err()). It makes the Breaker a jobs.Gate.
func (b *Breaker) Wait(ctx context.Context) error {
	b.mu.Lock()
	opened := b.opened
	b.mu.Unlock()
	select {
	case <-opened:
		return nil
	default:
	}
	select {
	case <-opened:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// State returns where the breaker stands and the reason of the outage (empty when closed).
func (b *Breaker) State() (State, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state, b.reason
}

// Health is nil unless the breaker is open; then it says since when, why, and what the last
// probe met. For /healthz.
func (b *Breaker) Health() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state != Open {
		return nil
	}
	return fmt.Errorf("%s unavailable since %s (%s), taking no jobs: %v", b.cfg.Name, b.since.UTC().Format(time.RFC3339), b.reason, b.lastErr)
}

// Run probes the service while the breaker is open, until ctx ends: after ProbeMin, then
// doubling up to ProbeMax (see probeWait). A probe that succeeds makes it half-open.
func (b *Breaker) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.tripped:
		}
		b.probe(ctx)
	}
}

// nextWait returns the wait before the next probe and doubles the one after it.
func (b *Breaker) nextWait() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	wait := b.probeWait
	b.probeWait = min(wait*2, b.cfg.ProbeMax)
	return wait
}

// probe probes until the service answers, the breaker is no longer open, or ctx ends.
func (b *Breaker) probe(ctx context.Context) {
	for n := 1; ; n++ {
		wait := b.nextWait()
		t := time.NewTimer(wait + rand.N(wait/10+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if s, _ := b.State(); s != Open {
			return // a job reached the service meanwhile
		}
		if b.cfg.Probe == nil {
			b.halfOpen(n)
			return
		}
		pctx, cancel := context.WithTimeout(ctx, max(b.cfg.ProbeMax, 10*time.Second))
		err := b.cfg.Probe(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			b.halfOpen(n)
			return
		}
		b.mu.Lock()
		b.lastErr = err
		next := b.probeWait
		b.mu.Unlock()
		b.cfg.Logger.Info(b.cfg.Name+" still unavailable", "probe", n, "next_probe_in", next.String(), "error", err)
	}
}

func (b *Breaker) halfOpen(probes int) {
	b.mu.Lock()
	if b.state != Open {
		b.mu.Unlock()
		return
	}
	reason := b.reason
	b.setLocked(HalfOpen, reason, nil)
	b.mu.Unlock()
	b.cfg.Logger.Info(b.cfg.Name+" breaker half-open: a probe succeeded; taking jobs again", "reason", reason, "probes", probes)
	b.notify()
}
