package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/testenv"
)

func TestWindowBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		perMinute float64
		window    time.Duration
	}{
		{15, 2 * time.Second}, // less than one a window
		{1000, 2 * time.Second},
		{600, 250 * time.Millisecond},
		{90000, time.Second},
	}
	for _, tt := range tests {
		perMinute := int64(60 / tt.window.Seconds())
		for _, start := range []int64{0, 877_000_123, -5} {
			var sum int64
			for i := range perMinute {
				b := windowBudget(tt.perMinute, tt.window, start+i)
				if b < 0 {
					t.Fatalf("budget(%g/min, %s, %d) = %d", tt.perMinute, tt.window, start+i, b)
				}
				sum += b
			}
			// A minute of windows adds up to the rate, give or take one for rounding at the edges.
			if diff := sum - int64(tt.perMinute); diff < -1 || diff > 1 {
				t.Errorf("%g/min in %s windows from %d: a minute's windows add up to %d", tt.perMinute, tt.window, start, sum)
			}
		}
	}
	if b := windowBudget(math.Inf(1), time.Second, 7); b != unlimited {
		t.Errorf("budget of an unlimited pace = %d, want unlimited", b)
	}
}

func TestLeaseGrant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		ask      leaseAsk
		doc      windowDoc
		want     [2]int64
		wantOK   bool
		wantUsed windowDoc
	}{
		{"a batch from a fresh window",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{5, 1000}, budget: [2]int64{20, 4000}, lead: 1},
			windowDoc{}, [2]int64{5, 1000}, true, windowDoc{R: 5, T: 1000}},
		{"what is left, when less than the batch",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{5, 1000}, budget: [2]int64{20, 4000}, lead: 1},
			windowDoc{R: 18, T: 3800}, [2]int64{2, 200}, true, windowDoc{R: 20, T: 4000}},
		{"no request left",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{5, 1000}, budget: [2]int64{20, 4000}, lead: 1},
			windowDoc{R: 20, T: 0}, [2]int64{}, false, windowDoc{R: 20}},
		{"a token need larger than what is left overshoots",
			leaseAsk{need: [2]int64{1, 3000}, want: [2]int64{5, 3000}, budget: [2]int64{20, 4000}, lead: 1},
			windowDoc{R: 3, T: 3500}, [2]int64{5, 3000}, true, windowDoc{R: 8, T: 6500}},
		{"no token left at all",
			leaseAsk{need: [2]int64{1, 10}, want: [2]int64{5, 10}, budget: [2]int64{20, 4000}, lead: 1},
			windowDoc{R: 3, T: 4200}, [2]int64{}, false, windowDoc{R: 3, T: 4200}},
		{"an unlimited dimension is not leased",
			leaseAsk{need: [2]int64{1, 0}, want: [2]int64{4, 0}, budget: [2]int64{20, unlimited}, lead: 1},
			windowDoc{T: 99}, [2]int64{4, 0}, true, windowDoc{R: 4, T: 99}},
		{"topping up only tokens when no request is needed",
			leaseAsk{need: [2]int64{0, 50}, want: [2]int64{5, 500}, budget: [2]int64{20, 4000}, lead: 1},
			windowDoc{R: 20, T: 100}, [2]int64{0, 500}, true, windowDoc{R: 20, T: 600}},
		{"spread: a lease's share at the window's start",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{5, 1000}, budget: [2]int64{40, 4000}, lead: 0.25},
			windowDoc{R: 8, T: 0}, [2]int64{2, 1000}, true, windowDoc{R: 10, T: 1000}},
		{"spread: nothing more due yet",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{5, 1000}, budget: [2]int64{40, 4000}, elapsed: 0.1, lead: 0.25},
			windowDoc{R: 14, T: 1000}, [2]int64{}, false, windowDoc{R: 14, T: 1000}},
		{"spread: half the window gone",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{10, 1000}, budget: [2]int64{40, 4000}, elapsed: 0.5, lead: 0.25},
			windowDoc{R: 14, T: 1000}, [2]int64{10, 1000}, true, windowDoc{R: 24, T: 2000}},
		{"spread: the whole budget due by the window's end",
			leaseAsk{need: [2]int64{1, 100}, want: [2]int64{10, 1000}, budget: [2]int64{40, 4000}, elapsed: 0.8, lead: 0.25},
			windowDoc{R: 35, T: 3500}, [2]int64{5, 500}, true, windowDoc{R: 40, T: 4000}},
	}
	for _, tt := range tests {
		doc := tt.doc
		got, ok := tt.ask.grant(&doc)
		if got != tt.want || ok != tt.wantOK || doc != tt.wantUsed {
			t.Errorf("%s: grant = %v, %v, window %+v; want %v, %v, %+v", tt.name, got, ok, doc, tt.want, tt.wantOK, tt.wantUsed)
		}
	}
}

// TestLeaseDueAt: when a window refuses a lease for now, dueAt says when enough falls due, and
// that it never will when the window is spent.
func TestLeaseDueAt(t *testing.T) {
	t.Parallel()
	ask := leaseAsk{need: [2]int64{1, 100}, want: [2]int64{5, 1000}, budget: [2]int64{40, 4000}, elapsed: 0.1, lead: 0.25}
	doc := windowDoc{R: 14, T: 1000}
	at, ok := ask.dueAt(doc)
	if !ok || math.Abs(at-(14.0/40-0.25)) > 1e-9 {
		t.Fatalf("dueAt = %g, %v; want %g, true", at, ok, 14.0/40-0.25)
	}
	later := ask
	later.elapsed = at + 1e-6
	if _, ok := later.grant(&doc); !ok {
		t.Errorf("just after %g of the window the lease is still refused", at)
	}
	if _, ok := ask.dueAt(windowDoc{R: 40}); ok {
		t.Error("a spent window says its budget falls due later")
	}
	if at, ok := ask.dueAt(windowDoc{R: 3, T: 200}); !ok || at != ask.elapsed {
		t.Errorf("dueAt of a window with enough due = %g, %v; want now (%g)", at, ok, ask.elapsed)
	}
}

var bucketSeq atomic.Int64

// openShared opens a fresh bucket for one test on the test NATS.
func openShared(t *testing.T, cfg SharedConfig) (*Shared, jetstream.JetStream) {
	t.Helper()
	js, err := jetstream.New(testenv.NATS(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bucket = fmt.Sprintf("ratelimit_test_%d_%d", time.Now().UnixNano(), bucketSeq.Add(1))
	ctx := context.Background()
	s, err := OpenShared(ctx, js, cfg)
	if err != nil {
		t.Fatalf("OpenShared: %v", err)
	}
	t.Cleanup(func() { _ = js.DeleteKeyValue(context.Background(), cfg.Bucket) })
	return s, js
}

// windows reads every window the provider's key space holds: index -> value.
func windows(t *testing.T, s *Shared, provider string) map[int64]windowDoc {
	t.Helper()
	ctx := context.Background()
	keys, err := s.kv.Keys(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoKeysFound) {
		t.Fatal(err)
	}
	out := map[int64]windowDoc{}
	prefix := s.key(provider, 0)
	prefix = prefix[:len(prefix)-1]
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		var idx int64
		fmt.Sscanf(k[len(prefix):], "%d", &idx)
		e, err := s.kv.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		var doc windowDoc
		if err := json.Unmarshal(e.Value(), &doc); err != nil {
			t.Fatalf("%s holds %q: %v", k, e.Value(), err)
		}
		out[idx] = doc
	}
	return out
}

// TestSharedBudgetHoldsAcrossLimiters: three limiters, each allowed the whole rate on its own,
// share one budget: no window gives out more than its budget, and together they run at the
// shared rate, not three times it.
func TestSharedBudgetHoldsAcrossLimiters(t *testing.T) {
	t.Parallel()
	const rpm, tpm = 2400, 240000 // 10 requests and 1000 tokens a 250ms window
	s, _ := openShared(t, SharedConfig{Window: 250 * time.Millisecond})
	var limiters []*Limiter
	for range 3 {
		limiters = append(limiters, newLimiter(t, Config{Name: "model", RequestsPerMinute: rpm, TokensPerMinute: tpm, Headroom: 1e-9, Shared: s}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var calls atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for _, l := range limiters {
		for range 8 {
			wg.Go(func() {
				for ctx.Err() == nil {
					err := l.Do(ctx, 60, ok(60))
					if err == nil {
						calls.Add(1)
					} else if !errors.Is(err, context.DeadlineExceeded) {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(start)

	var leased int64
	for idx, doc := range windows(t, s, "model") {
		budget := [2]int64{windowBudget(rpm, s.cfg.Window, idx), windowBudget(tpm, s.cfg.Window, idx)}
		if doc.R > budget[requests] {
			t.Errorf("window %d gave out %d requests, budget %d", idx, doc.R, budget[requests])
		}
		// Tokens may overshoot by one call, carried into the next window.
		if doc.T > budget[tokens]+60 {
			t.Errorf("window %d gave out %d tokens, budget %d", idx, doc.T, budget[tokens])
		}
		leased += doc.R
	}
	n := calls.Load()
	if n > leased {
		t.Errorf("%d calls ran on %d leased requests", n, leased)
	}
	// The shared rate, plus the first window: far below the 3x that three unshared limiters do.
	bound := int64(elapsed.Seconds()*rpm/60) + 10
	if n > bound {
		t.Errorf("%d calls in %s, more than the shared budget allows (%d)", n, elapsed, bound)
	}
	if n < bound/3 {
		t.Errorf("only %d calls in %s; the shared budget allows %d", n, elapsed, bound)
	}
	var leases, conflicts int64
	for _, l := range limiters {
		st := l.Stats()
		leases += st.Leases
		conflicts += st.LeaseConflicts
		if st.LeaseErrors != 0 {
			t.Errorf("%d lease errors", st.LeaseErrors)
		}
	}
	// Leases are batches: fewer KV writes than calls.
	if leases >= n {
		t.Errorf("%d leases for %d calls, want fewer leases than calls", leases, n)
	}
	t.Logf("%d calls in %s (budget %d), %d leases, %d conflicts", n, elapsed.Round(time.Millisecond), bound, leases, conflicts)
}

// TestSharedWindowIsSpreadOverTheWindow: workers sharing a budget send each window's budget
// spread over the window, not in one burst at its start. A provider's bucket refills
// continuously; one that holds about a second of its limit refused the burst at a window's start
// whenever it had not refilled since the last (after a 429, or with a pace a little over its
// limit), and those 429s, read as a limit lower than it was, held the fleet far under the limit
// (4 workers learning from 429s alone ran at 82% of the bound in cmd/bench, sending each window's
// budget within a tenth of a second). Four limiters call one after another on a fake clock.
func TestSharedWindowIsSpreadOverTheWindow(t *testing.T) {
	t.Parallel()
	const rpm = 2400
	clock := newFakeClock()
	s, _ := openShared(t, SharedConfig{})
	var limiters []*Limiter
	for range 4 {
		limiters = append(limiters, newLimiter(t, Config{Clock: clock, RequestsPerMinute: rpm, Shared: s}))
	}
	perTenth := map[int64]int{}
	start := clock.Now()
	end := start.Add(10 * time.Second)
	for i := 0; clock.Now().Before(end); i++ {
		l := limiters[i%len(limiters)]
		err := l.Do(context.Background(), 0, func(context.Context) (int64, error) {
			perTenth[tenths(clock.Now())]++
			return 0, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	perWindow := rpm * (1 - DefaultHeadroom) / 60 // the default window is a second
	busiest, sent := 0, 0
	for _, n := range perTenth {
		busiest = max(busiest, n)
		sent += n
	}
	// At a window's start a lease's share of it may go at once, then the rest as it falls due.
	if limit := int(math.Ceil(perWindow*(DefaultLeaseFraction+0.1))) + 1; busiest > limit {
		t.Errorf("%d calls sent within one tenth of a second, want at most %d of a window's %.0f", busiest, limit, perWindow)
	}
	if want := 0.95 * 10 * perWindow; float64(sent) < want {
		t.Errorf("%d calls in 10 s, want at least %.0f: spreading must not cost throughput", sent, want)
	}
	t.Logf("%d calls in 10 s, at most %d in a tenth of a second", sent, busiest)
}

// TestSharedPeak: the fleet's rate at a cut is the busiest window of the last few, the current
// one slid back over the previous one.
func TestSharedPeak(t *testing.T) {
	t.Parallel()
	s, _ := openShared(t, SharedConfig{Window: time.Second})
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 250_000_000) // a quarter into window idx
	idx := s.windowIndex(now)
	put := func(i int64, doc windowDoc) {
		v, _ := json.Marshal(doc)
		if _, err := s.kv.Put(ctx, s.key("model", i), v); err != nil {
			t.Fatal(err)
		}
	}
	put(idx-3, windowDoc{R: 30, T: 3000})
	put(idx-1, windowDoc{R: 20, T: 100})
	put(idx, windowDoc{R: 25, T: 50})
	got, err := s.peak(ctx, "model", now)
	if err != nil {
		t.Fatal(err)
	}
	// Requests: 25 now and three quarters of the previous 20 make 40 in the last second.
	if want := [2]float64{40 * 60, 3000 * 60}; got != want {
		t.Errorf("peak = %v, want %v", got, want)
	}
	put(idx-7, windowDoc{R: 1000})
	if got, _ := s.peak(ctx, "model", now); got[requests] != 40*60 {
		t.Errorf("a window older than %ds counted: peak %v", peakSeconds, got)
	}
}

// TestDeadWorkersLeaseLapses: a worker that leased most of a window's budget and died holds it
// only until the window ends: then the others get the whole budget.
func TestDeadWorkersLeaseLapses(t *testing.T) {
	t.Parallel()
	s, _ := openShared(t, SharedConfig{Window: 200 * time.Millisecond, LeaseFraction: 1})
	cfg := Config{RequestsPerMinute: 1200, Headroom: 1e-9, Shared: s} // 4 a window
	dead, alive := newLimiter(t, cfg), newLimiter(t, cfg)

	// Start early in a window, so that the dead worker's lease is most of its budget.
	w := s.cfg.Window
	time.Sleep(time.Until(time.Now().Truncate(w).Add(w + 5*time.Millisecond)))
	if err := dead.Do(context.Background(), 0, ok(0)); err != nil {
		t.Fatal(err)
	}
	deadWindow := s.windowIndex(time.Now())
	if st := dead.Stats(); st.Leases != 1 {
		t.Fatalf("the first worker took %d leases, want 1", st.Leases)
	}
	// The dead worker never calls again. The other makes a window's worth of calls.
	ctx, cancel := context.WithTimeout(context.Background(), 10*w)
	defer cancel()
	for i := range 4 {
		if err := alive.Do(ctx, 0, ok(0)); err != nil {
			t.Fatalf("call %d of the other worker never got budget: %v", i, err)
		}
	}
	docs := windows(t, s, "model")
	if got := docs[deadWindow].R; got != 4 {
		t.Errorf("the dead worker's window gave out %d requests, want its budget of 4", got)
	}
	var after int64
	for idx, doc := range docs {
		if idx > deadWindow {
			after += doc.R
		}
	}
	if after == 0 {
		t.Error("no later window gave out anything: the other worker went within the dead worker's window")
	}
	if st := alive.Stats(); st.Waits == 0 || st.Succeeded != 4 {
		t.Errorf("the other worker's stats = %+v, want it to wait for the next window and succeed 4 times", st)
	}
}

// TestSharedPause: a 429 one worker gets pauses the others through the bucket.
func TestSharedPause(t *testing.T) {
	t.Parallel()
	s, _ := openShared(t, SharedConfig{Window: 100 * time.Millisecond})
	a := newLimiter(t, Config{RequestsPerMinute: 60000, Shared: s})
	b := newLimiter(t, Config{RequestsPerMinute: 60000, Shared: s})
	if err := b.Do(context.Background(), 0, ok(0)); err != nil {
		t.Fatal(err)
	}
	h := map[string][]string{"Retry-After-Ms": {"400"}}
	refused := errors.New("429")
	_ = a.Do(context.Background(), 0, func(ctx context.Context) (int64, error) {
		a.ObserveResponse(ctx, 429, h)
		return 0, refused
	}) // retried after the pause; the retry also "fails" the same way until MaxRetries
	start := time.Now()
	if err := b.Do(context.Background(), 0, ok(0)); err != nil {
		t.Fatal(err)
	}
	// a's pauses run past now; b learns of them from its next lease.
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("b went %s after a's 429 with Retry-After-Ms 400, want it paused too", waited)
	}
	if st := a.Stats(); st.RateLimited != int64(DefaultMaxRetries+1) || st.Pauses == 0 {
		t.Errorf("a's stats = %+v, want %d 429s and a pause", st, DefaultMaxRetries+1)
	}
}

// TestSharedBudgetUnreachable: when the bucket is gone, calls go ahead on local limits.
func TestSharedBudgetUnreachable(t *testing.T) {
	t.Parallel()
	s, js := openShared(t, SharedConfig{Window: 100 * time.Millisecond})
	l := newLimiter(t, Config{RequestsPerMinute: 60000, Shared: s})
	if err := js.DeleteKeyValue(context.Background(), s.cfg.Bucket); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 3 {
		if err := l.Do(ctx, 0, ok(0)); err != nil {
			t.Fatalf("with the bucket gone: %v", err)
		}
	}
	if st := l.Stats(); st.LeaseErrors == 0 || st.Succeeded != 3 {
		t.Errorf("stats = %+v, want lease errors and 3 successes", st)
	}
}

func TestSharedConfigValidate(t *testing.T) {
	t.Parallel()
	for _, cfg := range []SharedConfig{
		{},
		{Bucket: "has.dot"},
		{Bucket: "b", Window: time.Millisecond},
		{Bucket: "b", LeaseFraction: 2},
		{Bucket: "b", Window: time.Second, TTL: time.Second},
	} {
		if err := cfg.WithDefaults().Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", cfg)
		}
	}
	if err := (SharedConfig{Bucket: "corroborate-budget"}).WithDefaults().Validate(); err != nil {
		t.Errorf("a plain bucket name: %v", err)
	}
}
