package breaker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	errDown  = errors.New("connection refused")
	errJob   = errors.New("the reply was not JSON")
	errProbe = errors.New("probe: connection refused")
)

// classify calls errDown an outage and anything else the job's own failure.
func classify(err error) string {
	if errors.Is(err, errDown) {
		return "connection_refused"
	}
	return ""
}

// changes records the breaker's transitions.
type changes struct {
	mu  sync.Mutex
	got []string
}

func (c *changes) add(s State, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, string(s)+":"+reason)
}

func (c *changes) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// probe is a scripted probe: it fails until up is set.
type probe struct {
	mu    sync.Mutex
	up    bool
	times []time.Time
}

func (p *probe) run(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.times = append(p.times, time.Now())
	if p.up {
		return nil
	}
	return errProbe
}

func (p *probe) setUp() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = true
}

func (p *probe) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.times)
}

func newTest(t *testing.T, p *probe, ch *changes) *Breaker {
	t.Helper()
	b := New(Config{
		Name: "model", Threshold: 3, Classify: classify, Probe: p.run,
		ProbeMin: 10 * time.Millisecond, ProbeMax: 40 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), OnChange: ch.add,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return b
}

func isOpen(b *Breaker) bool {
	s, _ := b.State()
	return s == Open
}

// blocked reports whether Wait blocks for a while.
func blocked(b *Breaker) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	return b.Wait(ctx) != nil
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The breaker opens after Threshold distinct jobs in a row met an outage: the same job failing
// again does not count twice, and a job that reached the service ends the streak.
func TestOpensAfterSeveralJobsInARow(t *testing.T) {
	t.Parallel()
	p, ch := &probe{}, &changes{}
	b := newTest(t, p, ch)

	for _, step := range []struct {
		job            string
		err            error
		outage, opened bool
	}{
		{"a", errDown, true, false},
		{"a", errDown, true, false}, // the same job again
		{"b", errDown, true, false},
		{"c", errJob, false, false}, // the service answered: the streak ends
		{"d", errDown, true, false},
		{"e", errDown, true, false},
		{"f", nil, false, false}, // a success ends it too
		{"g", errDown, true, false},
		{"h", errDown, true, false},
		{"i", errDown, true, true}, // third distinct job in a row
		{"j", errDown, true, true}, // held while open
	} {
		outage, open := b.Observe(step.job, step.err)
		if outage != step.outage || open != step.opened {
			t.Fatalf("job %s with %v: outage %v open %v, want %v %v", step.job, step.err, outage, open, step.outage, step.opened)
		}
	}
	if !isOpen(b) || !blocked(b) {
		t.Fatal("an open breaker must block Wait")
	}
	if err := b.Health(); err == nil || !strings.Contains(err.Error(), "connection_refused") {
		t.Fatalf("Health while open: %v", err)
	}
	if got := ch.list(); !slices.Equal(got, []string{"open:connection_refused"}) {
		t.Fatalf("transitions %q", got)
	}
}

// Open, probe with backoff until the service answers, then half-open (consumption resumes), then
// closed after a job reaches the service; a failure while half-open opens it again at once.
func TestProbesThenHalfOpenThenClosed(t *testing.T) {
	t.Parallel()
	p, ch := &probe{}, &changes{}
	b := newTest(t, p, ch)
	for _, job := range []string{"a", "b", "c"} {
		b.Observe(job, errDown)
	}
	eventually(t, "four failed probes", func() bool { return p.count() >= 4 })
	if !isOpen(b) || !blocked(b) {
		t.Fatal("failed probes must keep the breaker open")
	}
	p.setUp()
	eventually(t, "half-open after a probe succeeds", func() bool { s, _ := b.State(); return s == HalfOpen })
	if blocked(b) || b.Health() != nil {
		t.Fatal("a half-open breaker lets jobs through and reports healthy")
	}
	// The first job after the probe fails the same way: open again at once, no threshold.
	if outage, open := b.Observe("d", errDown); !outage || !open {
		t.Fatalf("a failure while half-open: outage %v open %v, want both", outage, open)
	}
	if outage, open := b.Observe("d2", errJob); outage || !open || !isOpen(b) {
		t.Fatalf("a job's own failure while open: outage %v open %v; it must neither count as an outage nor close the breaker", outage, open)
	}
	eventually(t, "half-open again", func() bool { s, _ := b.State(); return s == HalfOpen })
	if _, open := b.Observe("d3", errJob); open {
		t.Fatal("a job's own failure while half-open reopened the breaker")
	}
	if s, _ := b.State(); s != HalfOpen {
		t.Fatalf("state %s after a job's own failure while half-open, want half-open still", s)
	}
	if outage, open := b.Observe("e", nil); outage || open {
		t.Fatal("a success is no outage")
	}
	if s, _ := b.State(); s != Closed {
		t.Fatalf("state %s after a success, want closed", s)
	}
	want := []string{"open:connection_refused", "half-open:connection_refused", "open:connection_refused", "half-open:connection_refused", "closed:"}
	if got := ch.list(); !slices.Equal(got, want) {
		t.Fatalf("transitions %q, want %q", got, want)
	}
	// A closed breaker needs a full streak again.
	for _, job := range []string{"f", "g"} {
		if _, open := b.Observe(job, errDown); open {
			t.Fatal("a closed breaker opened before the threshold")
		}
	}
}

// Probe intervals grow from ProbeMin and stay within ProbeMax (plus jitter).
func TestProbeBackoff(t *testing.T) {
	t.Parallel()
	p, ch := &probe{}, &changes{}
	b := newTest(t, p, ch)
	for _, job := range []string{"a", "b", "c"} {
		b.Observe(job, errDown)
	}
	eventually(t, "six probes", func() bool { return p.count() >= 6 })
	p.mu.Lock()
	times := slices.Clone(p.times)
	p.mu.Unlock()
	for i := 2; i < len(times); i++ {
		gap := times[i].Sub(times[i-1])
		if gap < 9*time.Millisecond || gap > 200*time.Millisecond {
			t.Errorf("probe %d came %s after the last; want within [10ms, 40ms + jitter + scheduling]", i, gap)
		}
	}
	if last := times[len(times)-1].Sub(times[len(times)-2]); last < 35*time.Millisecond {
		t.Errorf("the probe interval did not grow to ProbeMax: last gap %s", last)
	}
}

// A probe that succeeds while the jobs still fail (a database whose disk is full answers its
// ping, a model endpoint that lists its models but refuses completions) does not make the
// breaker probe at ProbeMin for ever: reopened from half-open, it goes on from the wait it had
// reached, doubling, and only a success that closes it starts over. Before, every reopening
// started from ProbeMin, and each half-open spent a job's model calls: with a full disk, 28 jobs
// in 5 s.
func TestProbeBackoffSurvivesAFailedHalfOpen(t *testing.T) {
	t.Parallel()
	p, ch := &probe{}, &changes{}
	p.setUp()
	var b *Breaker
	b = New(Config{
		Name: "database", Threshold: 1, Classify: classify, Probe: p.run,
		ProbeMin: 10 * time.Millisecond, ProbeMax: 80 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnChange: func(s State, reason string) {
			ch.add(s, reason)
			if s == HalfOpen {
				go b.Observe("next", errDown) // the first job after the probe meets the outage
			}
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	opened := time.Now()
	b.Observe("a", errDown)
	eventually(t, "five probes", func() bool { return p.count() >= 5 })
	p.mu.Lock()
	times := slices.Clone(p.times)
	p.mu.Unlock()
	// Timers never fire early: 10 + 20 + 40 + 80 + 80 ms at least before the fifth probe, where
	// starting over at each reopening takes 5 x 10 ms.
	if took := times[4].Sub(opened); took < 230*time.Millisecond {
		t.Errorf("five probes within %s of opening, each half-open failing: the wait started over at each reopening", took)
	}
	if s, _ := b.State(); s == Closed {
		t.Fatal("closed without a success")
	}
	b.Observe("c", nil)
	b.mu.Lock()
	wait := b.probeWait
	b.mu.Unlock()
	if wait != 10*time.Millisecond {
		t.Errorf("closed by a success, the next outage's first probe waits %s, want ProbeMin (10ms)", wait)
	}
}

// Wait returns when ctx ends while the breaker is open.
func TestWaitEndsWithItsContext(t *testing.T) {
	t.Parallel()
	b := newTest(t, &probe{}, &changes{})
	for _, job := range []string{"a", "b", "c"} {
		b.Observe(job, errDown)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := b.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on an open breaker: %v", err)
	}
}

// confirmer is a scripted Confirm: the service answers a known-good request until down is set.
type confirmer struct {
	mu    sync.Mutex
	down  bool
	asked int
}

func (c *confirmer) run(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	if c.down {
		return errProbe
	}
	return nil
}

func (c *confirmer) set(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

func (c *confirmer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

// Issue 24: jobs whose own input makes the service fail (a prompt the model answers with HTTP 500
// every time) are not an outage. With Confirm, a streak of such failures, or one job failing
// again, asks the service a known-good request; it answers, so those jobs' failures are their own
// (they spend their attempts) and are not asked about again; only when the known-good request
// fails too does the breaker open. Before, three such jobs opened it, and the same jobs met at
// every half-open opened it again.
func TestFailuresOfTheSameJobsDoNotOpen(t *testing.T) {
	t.Parallel()
	p, ch, c := &probe{}, &changes{}, &confirmer{}
	b := New(Config{
		Name: "model", Threshold: 3, Classify: classify, Probe: p.run, Confirm: c.run,
		ProbeMin: 10 * time.Millisecond, ProbeMax: 40 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), OnChange: ch.add,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	for _, step := range []struct {
		job            string
		err            error
		outage, opened bool
		asked          int // Confirm requests so far
	}{
		{"a", errDown, true, false, 0},  // a first failure: retried as before
		{"b", errDown, true, false, 0},  //
		{"c", errDown, false, false, 1}, // three in a row: the service answers, c's failure is its own
		{"a", errDown, false, false, 2}, // a fails again: asked, its own
		{"a", errDown, false, false, 2}, // and never asked about again
		{"c", errDown, false, false, 2},
		{"d", nil, false, false, 2},
		{"b", errDown, false, false, 3}, // b again, after a success in between: still a suspect
		{"c", nil, false, false, 3},     // c reaches the service: no longer known to fail
		{"c", errDown, true, false, 3},  // so its next failure is a first one again
	} {
		outage, open := b.Observe(step.job, step.err)
		if outage != step.outage || open != step.opened || c.count() != step.asked {
			t.Fatalf("job %s with %v: outage %v open %v after %d known-good requests, want %v %v after %d",
				step.job, step.err, outage, open, c.count(), step.outage, step.opened, step.asked)
		}
	}
	if got := ch.list(); len(got) != 0 {
		t.Fatalf("transitions %q while only some jobs failed, want none", got)
	}

	// Now the service is down for everyone: the known-good request fails and the breaker opens,
	// the jobs of the failures held (outage and open).
	c.set(true)
	for _, step := range []struct {
		job            string
		outage, opened bool
	}{
		{"e", true, false},
		{"f", true, true}, // the third in a row (c, e, f): asked, and it fails
		{"a", true, true}, // open: every outage is held, a's too
	} {
		if outage, open := b.Observe(step.job, errDown); outage != step.outage || open != step.opened {
			t.Fatalf("job %s while down: outage %v open %v, want %v %v", step.job, outage, open, step.outage, step.opened)
		}
	}
	if got := ch.list(); !slices.Equal(got, []string{"open:connection_refused"}) {
		t.Fatalf("transitions %q", got)
	}
	if err := b.Health(); err == nil || !strings.Contains(err.Error(), "known-good request failed") {
		t.Fatalf("Health while open: %v, want it to say the known-good request failed", err)
	}

	// Half-open, a failure is asked about too: the service answers, so it was the job's own.
	c.set(false)
	p.setUp()
	eventually(t, "half-open after a probe succeeds", func() bool { s, _ := b.State(); return s == HalfOpen })
	if outage, open := b.Observe("g", errDown); outage || open {
		t.Fatalf("a failure while half-open that the service does not share: outage %v open %v, want neither", outage, open)
	}
	if s, _ := b.State(); s != HalfOpen {
		t.Fatalf("state %s, want half-open until a job reaches the service", s)
	}
}

// Jobs that fail at the same time share one known-good request.
func TestConcurrentFailuresShareOneConfirm(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var asked sync.WaitGroup
	asked.Add(1)
	var once sync.Once
	var n int
	var mu sync.Mutex
	b := New(Config{
		Name: "model", Threshold: 1, Classify: classify,
		Confirm: func(context.Context) error {
			mu.Lock()
			n++
			mu.Unlock()
			once.Do(asked.Done)
			<-release
			return errProbe
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	var wg sync.WaitGroup
	results := make([][2]bool, 8)
	for i := range results {
		wg.Go(func() {
			outage, open := b.Observe(string(rune('a'+i)), errDown)
			results[i] = [2]bool{outage, open}
		})
	}
	asked.Wait()
	time.Sleep(20 * time.Millisecond) // the others join the request in flight
	close(release)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if n > 2 {
		t.Errorf("%d known-good requests for 8 jobs failing together, want 1 (2 when one came after the first ended)", n)
	}
	for i, r := range results {
		if !r[0] || !r[1] {
			t.Errorf("job %d: outage %v open %v, want both: the service is down", i, r[0], r[1])
		}
	}
}
