package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// fakeClock is a clock whose Sleep moves time on at once: a test of pacing runs in no time and
// reads how long the calls would have waited.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

func newLimiter(t *testing.T, cfg Config) *Limiter {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}

// ok is a call that succeeds and reports used tokens.
func ok(used int64) func(context.Context) (int64, error) {
	return func(context.Context) (int64, error) { return used, nil }
}

func TestPacesRequests(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{RequestsPerMinute: 60, Headroom: 1e-9, Clock: clock})
	start := clock.Now()
	for range 31 {
		if err := l.Do(context.Background(), 0, ok(0)); err != nil {
			t.Fatal(err)
		}
	}
	// A burst of one, then one a second.
	if elapsed := clock.Now().Sub(start); elapsed < 29*time.Second || elapsed > 31*time.Second {
		t.Errorf("31 calls at 60/min took %s, want about 30s", elapsed)
	}
	s := l.Stats()
	if s.Calls != 31 || s.Succeeded != 31 || s.Waits != 30 {
		t.Errorf("stats: calls %d, succeeded %d, waits %d; want 31, 31, 30", s.Calls, s.Succeeded, s.Waits)
	}
	if s.RequestLimit != 60 || !near(s.RequestsPerMinute, 60) {
		t.Errorf("stats: limit %g, pace %g; want 60, 60", s.RequestLimit, s.RequestsPerMinute)
	}
}

func TestPacesTokens(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{TokensPerMinute: 6000, Headroom: 1e-9, Clock: clock}) // 100 a second
	start := clock.Now()
	for range 20 {
		if err := l.Do(context.Background(), 200, ok(200)); err != nil {
			t.Fatal(err)
		}
	}
	// 4000 tokens, less the bucket of one second (100) full at the start, at 100 a second.
	if elapsed := clock.Now().Sub(start); elapsed < 38*time.Second || elapsed > 40*time.Second {
		t.Errorf("20 calls of 200 tokens at 6000/min took %s, want about 39s", elapsed)
	}
	if s := l.Stats(); s.TokensEstimated != 4000 || s.TokensUsed != 4000 {
		t.Errorf("tokens estimated %d, used %d; want 4000, 4000", s.TokensEstimated, s.TokensUsed)
	}
}

// TestTokenCorrection: calls estimated at 1000 tokens that use 100 leave the difference as
// credit, so the pace follows real usage, not the estimate; a call that used more than its
// estimate leaves a debt the next call pays.
func TestTokenCorrection(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{TokensPerMinute: 6000, Headroom: 1e-9, Clock: clock})
	start := clock.Now()
	for range 20 {
		if err := l.Do(context.Background(), 1000, ok(100)); err != nil {
			t.Fatal(err)
		}
	}
	// Estimates alone would take 19000 tokens / 100 a second = 190s; usage is 2000 tokens.
	if elapsed := clock.Now().Sub(start); elapsed > 30*time.Second {
		t.Errorf("20 calls using 100 tokens each took %s, want well under the 190s their estimates would", elapsed)
	}
	if s := l.Stats(); s.TokensEstimated != 20000 || s.TokensUsed != 2000 {
		t.Errorf("tokens estimated %d, used %d; want 20000, 2000", s.TokensEstimated, s.TokensUsed)
	}

}

// TestTokenDebt: a call that used more than its estimate leaves a debt the next call pays.
func TestTokenDebt(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{TokensPerMinute: 6000, Headroom: 1e-9, Clock: clock})
	// The first call takes the full bucket (100) and uses 2000 more than it said.
	if err := l.Do(context.Background(), 100, ok(2100)); err != nil {
		t.Fatal(err)
	}
	before := clock.Now()
	if err := l.Do(context.Background(), 1, ok(1)); err != nil {
		t.Fatal(err)
	}
	if waited := clock.Now().Sub(before); waited < 19*time.Second || waited > 21*time.Second {
		t.Errorf("after a call that used 2000 tokens more than estimated, the next waited %s, want 20s at 100 a second", waited)
	}
}

func TestUnlimitedDoesNotWait(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{Clock: clock})
	start := clock.Now()
	for range 100 {
		if err := l.Do(context.Background(), 5000, ok(5000)); err != nil {
			t.Fatal(err)
		}
	}
	if clock.Now() != start {
		t.Errorf("with no limits, 100 calls waited %s", clock.Now().Sub(start))
	}
	if s := l.Stats(); s.Waits != 0 || s.RequestsPerMinute != 0 || s.TokensPerMinute != 0 {
		t.Errorf("stats = %+v, want no waits and an unlimited pace (0)", s)
	}
}

func TestMaxConcurrent(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Config{MaxConcurrent: 3})
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			err := l.Do(context.Background(), 0, func(context.Context) (int64, error) {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return 0, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrency = %d, want 3", p)
	}
	if s := l.Stats(); s.InFlight != 0 || s.Queued != 0 || s.Succeeded != 24 {
		t.Errorf("after all calls: in flight %d, queued %d, succeeded %d; want 0, 0, 24", s.InFlight, s.Queued, s.Succeeded)
	}
}

// order runs a blocker that holds the only slot, queues the calls one after another, releases
// the blocker and returns the labels in the order the calls ran.
func order(t *testing.T, calls []labelled) []string {
	t.Helper()
	l := newLimiter(t, Config{MaxConcurrent: 1})
	release := make(chan struct{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = l.Do(context.Background(), 0, func(context.Context) (int64, error) {
			close(started)
			<-release
			return 0, nil
		})
	})
	<-started
	var mu sync.Mutex
	var ran []string
	for i, c := range calls {
		wg.Go(func() {
			err := l.Do(c.ctx, 0, func(context.Context) (int64, error) {
				mu.Lock()
				ran = append(ran, c.label)
				mu.Unlock()
				return 0, nil
			})
			if err != nil {
				t.Error(err)
			}
		})
		// Wait until it waits, so that the queue order is the order of calls.
		waitFor(t, func() bool { return l.queuedOrHead() == i+1 })
	}
	close(release)
	wg.Wait()
	return ran
}

type labelled struct {
	label string
	ctx   context.Context
}

// queuedOrHead counts the calls waiting, the head included.
func (l *Limiter) queuedOrHead() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.queue.len()
	if l.headBusy {
		n++
	}
	return n
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFairBetweenJobs(t *testing.T) {
	t.Parallel()
	var calls []labelled
	for i := range 12 {
		calls = append(calls, labelled{fmt.Sprintf("big-%d", i), WithJob(context.Background(), "big")})
	}
	calls = append(calls, labelled{"small", WithJob(context.Background(), "small")})
	ran := order(t, calls)
	if len(ran) != 13 {
		t.Fatalf("ran %d calls, want 13", len(ran))
	}
	// big-0 is the head when small arrives; small goes right after it.
	if pos := slices.Index(ran, "small"); pos != 1 {
		t.Errorf("the small job ran at position %d of %q, want 1", pos, ran)
	}
	var bigs []string
	for _, r := range ran {
		if r != "small" {
			bigs = append(bigs, r)
		}
	}
	if !slices.IsSortedFunc(bigs, func(a, b string) int {
		var x, y int
		fmt.Sscanf(a, "big-%d", &x)
		fmt.Sscanf(b, "big-%d", &y)
		return x - y
	}) {
		t.Errorf("a job's own calls ran out of order: %q", bigs)
	}
}

func TestUrgentFirst(t *testing.T) {
	t.Parallel()
	backlog := WithJob(context.Background(), "nightly")
	urgent := WithPriority(WithJob(context.Background(), "breaking"), Urgent)
	ran := order(t, []labelled{
		{"backlog-0", backlog}, {"backlog-1", backlog}, {"backlog-2", backlog},
		{"urgent-0", urgent}, {"urgent-1", urgent},
	})
	// backlog-0 is already the head when the urgent calls arrive.
	want := []string{"backlog-0", "urgent-0", "urgent-1", "backlog-1", "backlog-2"}
	if !slices.Equal(ran, want) {
		t.Errorf("order = %q, want %q", ran, want)
	}
}

func TestCancelWhileQueued(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Config{MaxConcurrent: 1})
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- l.Do(context.Background(), 0, func(context.Context) (int64, error) {
			close(started)
			<-release
			return 0, nil
		})
	}()
	<-started
	// The contexts end by cancel, once their calls are seen waiting: a deadline could pass
	// before a loaded machine even queued the call.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	head := make(chan error, 1)
	go func() { head <- l.Do(ctx, 0, ok(0)) }() // becomes the head, waiting for the slot
	waitFor(t, func() bool { return l.queuedOrHead() == 1 })
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	queued := make(chan error, 1)
	go func() { queued <- l.Do(ctx2, 0, ok(0)) }()
	waitFor(t, func() bool { return l.queuedOrHead() == 2 })
	cancel2()
	if err := <-queued; !errors.Is(err, context.Canceled) {
		t.Errorf("queued call whose context ended: err = %v, want Canceled", err)
	}
	cancel()
	if err := <-head; !errors.Is(err, context.Canceled) {
		t.Errorf("head whose context ended: err = %v, want Canceled", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Nothing is left holding the queue: a new call goes through.
	if err := l.Do(context.Background(), 0, ok(0)); err != nil {
		t.Errorf("after the cancellations: %v", err)
	}
}

// TestObserveWithoutDo: responses of calls not made through Do still teach the limiter.
func TestObserveWithoutDo(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{Clock: clock})
	h := http.Header{}
	h.Set("X-Ratelimit-Limit-Requests", "300")
	h.Set("X-Ratelimit-Limit-Tokens", "90000")
	h.Set("X-Ratelimit-Remaining-Requests", "0")
	h.Set("X-Ratelimit-Reset-Requests", "1m0s")
	l.ObserveResponse(context.Background(), 200, h)
	s := l.Stats()
	if s.RequestLimit != 300 || s.TokenLimit != 90000 {
		t.Errorf("learned limits %g, %g; want 300, 90000", s.RequestLimit, s.TokenLimit)
	}
	// Nothing left: a pause until one request has refilled, 1m / 300 = 200ms.
	if got := s.PausedUntil.Sub(clock.Now()); got != 200*time.Millisecond {
		t.Errorf("paused for %s, want 200ms", got)
	}
	// A nil limiter is a no-op everywhere.
	var none *Limiter
	none.ObserveResponse(context.Background(), 429, h)
	if err := none.Do(context.Background(), 1, ok(1)); err != nil {
		t.Errorf("nil limiter Do: %v", err)
	}
	if none.Stats() != (Stats{}) {
		t.Error("nil limiter has stats")
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Name: "m", RequestsPerMinute: -1, TokensPerMinute: -2, MaxConcurrent: -3, Decrease: 1.5, Headroom: 0.9})
	if err == nil {
		t.Fatal("New accepted a bad configuration")
	}
	for _, want := range []string{"requests per minute -1", "tokens per minute -2", "max concurrent -3", "decrease 1.5", "headroom 0.9"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestWaitAfter429(t *testing.T) {
	t.Parallel()
	l := newLimiter(t, Config{RequestsPerMinute: 600, TokensPerMinute: 60000, Pause: 100 * time.Millisecond, MaxPause: time.Second})
	none := Signals{RemainingRequests: -1, RemainingTokens: -1}
	tests := []struct {
		name  string
		inRow int
		sig   Signals
		want  time.Duration
	}{
		{"Retry-After wins", 5, Signals{RetryAfter: 3 * time.Second, RemainingRequests: 0, ResetRequests: time.Minute}, 3 * time.Second},
		{"nothing said: the first pause", 1, none, 100 * time.Millisecond},
		{"nothing said, third in a row: doubled twice", 3, none, 400 * time.Millisecond},
		{"nothing said, many in a row: capped", 30, none, time.Second},
		// Requests refill at 600 a minute: one takes 1/600 of the minute the reset names.
		{"requests exhausted: until one refills", 1, Signals{RemainingRequests: 0, RemainingTokens: -1, ResetRequests: time.Minute}, 100 * time.Millisecond},
		{"tokens exhausted: until the call's tokens refill", 1, Signals{RemainingRequests: 5, RemainingTokens: 0, ResetTokens: time.Minute}, 500 * time.Millisecond},
		{"refill too soon again: at least the backoff", 4, Signals{RemainingRequests: 0, RemainingTokens: -1, ResetRequests: time.Minute}, 800 * time.Millisecond},
	}
	for _, tt := range tests {
		l.row429.n = tt.inRow
		if got := l.waitAfter429(tt.sig, 500); got != tt.want {
			t.Errorf("%s: wait = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// tokenProvider is a model provider with a token limit on a fake clock: a bucket of perMinute
// tokens holding one second of them, charging each call's usage (its prompt's tokens and a
// 30-token reply) when it arrives, and refusing with a 429 a call that does not fit. Calls
// take no time, so what it refuses depends on the limiter's decisions alone.
type tokenProvider struct {
	clock     *fakeClock
	l         *Limiter
	perMinute float64
	level     float64
	last      time.Time
	tokens    int64 // charged
	refused   int
}

const tokenProviderReply = 30

func (p *tokenProvider) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	now := p.clock.Now()
	p.level = min(p.perMinute/60, p.level+now.Sub(p.last).Seconds()*p.perMinute/60)
	p.last = now
	prompt := EstimateTokens(req.Prompt, 0)
	cost := float64(prompt + tokenProviderReply)
	if p.level < cost {
		p.refused++
		wait := time.Duration((cost - p.level) / (p.perMinute / 60) * float64(time.Second))
		p.l.ObserveResponse(ctx, http.StatusTooManyRequests, http.Header{"Retry-After-Ms": {fmt.Sprint(wait.Milliseconds() + 1)}})
		return pipeline.ModelReply{}, errors.New("429 rate limited")
	}
	p.level -= cost
	p.tokens += int64(cost)
	p.l.ObserveResponse(ctx, http.StatusOK, http.Header{})
	return pipeline.ModelReply{Text: "yes", PromptTokens: prompt, CompletionTokens: tokenProviderReply}, nil
}

// TestStaysUnderConfiguredTokens: 80 calls through Model against a provider of 120,000 tokens a
// minute, the limit configured, stay under it with no 429, and the pace follows the usage the
// replies report, not the estimates. On a fake clock: the same test against the simulated HTTP
// provider counted 1 or 2 429s in about 1 run in 6 under -race on a loaded machine, when the
// scheduler delayed some requests and sent them on together.
func TestStaysUnderConfiguredTokens(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	l := newLimiter(t, Config{TokensPerMinute: 120000, Clock: clock})
	p := &tokenProvider{clock: clock, l: l, perMinute: 120000, level: 2000, last: clock.Now()}
	m := Model(p, l)
	// 50 prompt tokens and 30 reply tokens used; 150 estimated while no reply is known, then 103
	// (the longest reply, a quarter more, and 16).
	req := pipeline.ModelRequest{Step: "verify", Prompt: strings.Repeat("word", 50), MaxTokens: 100}
	start := clock.Now()
	for i := range 80 {
		if _, err := m.Complete(WithJob(context.Background(), fmt.Sprintf("job-%d", i%7)), req); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	took := clock.Now().Sub(start)
	t.Logf("80 calls: %s of the fake clock, %d tokens charged, %d estimated", took, p.tokens, l.Stats().TokensEstimated)
	if p.refused != 0 {
		t.Errorf("the provider answered %d requests with 429, want none", p.refused)
	}
	s := l.Stats()
	if s.TokensUsed != p.tokens || s.TokensEstimated < 80*103 || s.TokensEstimated >= 80*150 {
		t.Errorf("tokens used %d (provider counted %d), estimated %d (want %d..%d)", s.TokensUsed, p.tokens, s.TokensEstimated, 80*103, 80*150)
	}
	// 6400 tokens used, 1940 at once, then 1940 a second: 2.3s. Paced by the estimates (8334
	// tokens) it would take 3.3s.
	if took < 2200*time.Millisecond || took > 2400*time.Millisecond {
		t.Errorf("80 calls took %s of the fake clock, want 2.3s", took)
	}
}
