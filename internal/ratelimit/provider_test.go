package ratelimit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit"
	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// worker is one worker's model against a simulated provider: a limiter around a real client.
type worker struct {
	lim   *ratelimit.Limiter
	model pipeline.Model
}

func newWorker(t *testing.T, p *ratelimittest.Provider, cfg ratelimit.Config) worker {
	t.Helper()
	lim, err := ratelimit.New(cfg)
	if err != nil {
		t.Fatalf("ratelimit.New: %v", err)
	}
	client, err := llm.New(llm.Config{BaseURL: p.URL(), Model: "sim", OnResponse: lim.ObserveResponse})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return worker{lim: lim, model: ratelimit.Model(client, lim)}
}

// load makes calls model calls from concurrency goroutines, each job's calls under its own job
// key, and returns how long they took and the errors.
func load(w worker, calls, concurrency int, req pipeline.ModelRequest) (time.Duration, []error) {
	start := time.Now()
	next := make(chan int)
	go func() {
		for i := range calls {
			next <- i
		}
		close(next)
	}()
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for i := range next {
				ctx := ratelimit.WithJob(context.Background(), fmt.Sprintf("job-%d", i%7))
				if _, err := w.model.Complete(ctx, req); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), errs
}

var smallRequest = pipeline.ModelRequest{Step: "verify", Prompt: "Is the sky blue?", MaxTokens: 64}

func TestStaysUnderConfiguredLimits(t *testing.T) {
	t.Parallel()
	p := ratelimittest.Start(ratelimittest.Config{RPM: 1200, Burst: time.Second, Latency: ratelimittest.Uniform(5*time.Millisecond, 20*time.Millisecond)})
	defer p.Close()
	w := newWorker(t, p, ratelimit.Config{RequestsPerMinute: 1200})

	took, errs := load(w, 60, 16, smallRequest)
	if len(errs) > 0 {
		t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
	}
	ps := p.Stats()
	if ps.Limited != 0 {
		t.Errorf("the provider answered %d of %d requests with 429, want none", ps.Limited, ps.Requests)
	}
	// 20 at once, then 40 at 19.4 a second: paced, not in one burst.
	if took < 1800*time.Millisecond {
		t.Errorf("60 calls at 1200/min took %s, want about 2s", took)
	}
	if s := w.lim.Stats(); s.Succeeded != 60 || s.RateLimited != 0 || s.Waits == 0 {
		t.Errorf("limiter stats = %+v, want 60 successes, no 429, some waits", s)
	}
}

func TestLearnsLimitsFromHeaders(t *testing.T) {
	t.Parallel()
	// The provider holds two seconds, as in TestTokenLimitFollowsRepliesNotTheirBound: with one,
	// admission-to-arrival jitter on a loaded machine (CI, -race, packages in parallel) once had
	// one call of the paced phase arrive before the provider's bucket held it.
	p := ratelimittest.Start(ratelimittest.Config{RPM: 1200, TPM: 600000, Burst: 2 * time.Second, Latency: ratelimittest.Uniform(5*time.Millisecond, 20*time.Millisecond)})
	defer p.Close()
	w := newWorker(t, p, ratelimit.Config{}) // nothing configured

	_, errs := load(w, 40, 16, smallRequest)
	if len(errs) > 0 {
		t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
	}
	s := w.lim.Stats()
	if s.RequestLimit != 1200 || s.TokenLimit != 600000 {
		t.Errorf("learned limits %g, %g; want 1200, 600000", s.RequestLimit, s.TokenLimit)
	}
	warmup := p.Stats().Limited

	// Learned, the limiter keeps to them: no 429 from here on.
	took, errs := load(w, 60, 16, smallRequest)
	if len(errs) > 0 {
		t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
	}
	if limited := p.Stats().Limited - warmup; limited != 0 {
		t.Errorf("after learning the limits, %d requests were answered 429, want none", limited)
	}
	if took < 1500*time.Millisecond {
		t.Errorf("60 calls at a learned 1200/min took %s, want about 2-3s", took)
	}
	t.Logf("429s while learning: %d of %d requests", warmup, p.Stats().Requests)
}

// maxConvergedLimitedShare is the share of requests answered 429 above which a limiter learning
// from 429s alone did not converge (TestConvergesFrom429sAlone).
const maxConvergedLimitedShare = 0.25

// TestConvergesFrom429sAlone: a provider that sends no rate-limit headers (or garbage) teaches
// the limiter by its 429s: every call still succeeds, and the pace settles near the limit.
func TestConvergesFrom429sAlone(t *testing.T) {
	t.Parallel()
	for _, mode := range []ratelimittest.Headers{ratelimittest.HeadersNone, ratelimittest.HeadersGarbage} {
		t.Run(fmt.Sprintf("headers-%d", mode), func(t *testing.T) {
			t.Parallel()
			const rpm = 2400
			p := ratelimittest.Start(ratelimittest.Config{RPM: rpm, Burst: time.Second, Headers: mode, Latency: ratelimittest.Uniform(5*time.Millisecond, 15*time.Millisecond)})
			defer p.Close()
			w := newWorker(t, p, ratelimit.Config{Recovery: 2 * time.Second, MaxRetries: 20})

			took, errs := load(w, 240, 16, smallRequest)
			if len(errs) > 0 {
				t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
			}
			ps, s := p.Stats(), w.lim.Stats()
			if s.RequestLimit != 0 {
				t.Errorf("learned a request limit of %g from headers that say nothing", s.RequestLimit)
			}
			if ps.Limited == 0 {
				// The load never outran the provider: on a loaded machine (CI's -race with the
				// relay beside it) 240 calls once took 5.9s, the provider's own pace, and no
				// 429 came. There was nothing to converge from; the limiter must not have cut.
				if s.Decreases != 0 {
					t.Errorf("no 429 was sent, yet the limiter cut %d times: %+v", s.Decreases, s)
				}
				t.Logf("%d calls in %s, none answered 429: the load stayed under the provider's pace", 240, took)
				return
			}
			if s.Decreases == 0 || s.RequestsPerMinute == 0 {
				t.Errorf("stats = %+v, want cuts and a finite pace", s)
			}
			if s.RequestsPerMinute < 0.5*rpm || s.RequestsPerMinute > 1.5*rpm {
				t.Errorf("pace after %d calls = %.0f/min, want near the provider's %d", ps.Requests, s.RequestsPerMinute, rpm)
			}
			// How few 429s a converged limiter costs is a performance target, measured where timing
			// is the subject: the benchmark's header-less rows (docs/benchmarks.md, `cmd/bench
			// --provider-headers none`). On a quiet machine this load sees under 10%; on a loaded
			// one (CI's -race beside a relay run and its helper sessions, 2026-12-06) it saw 11%.
			// Here the share only tells a limiter that converged from one that did not: without
			// cuts, 16 callers at this latency outrun 2,400 a minute many times over, and most of
			// their requests are answered 429.
			if share := float64(ps.Limited) / float64(ps.Requests); share > maxConvergedLimitedShare {
				t.Errorf("%d of %d requests answered 429 (%.0f%%), want under %.0f%%: the limiter did not converge", ps.Limited, ps.Requests, 100*share, 100*maxConvergedLimitedShare)
			}
			t.Logf("%d calls in %s: %d requests, %d answered 429; %d cuts; pace %.0f/min", 240, took, ps.Requests, ps.Limited, s.Decreases, s.RequestsPerMinute)
		})
	}
}

// TestTokenLimitFollowsRepliesNotTheirBound: calls bounded at 1024 reply tokens that reply with
// 10 run at the pace of what they use, for one worker and for two sharing one budget. Estimated
// at their bound they would get 2 calls a second of this limit; they use 60 tokens, 33 a
// second's worth, and the request limit (20 a second) is what binds.
//
// What the limiters admit is checked by counts, which no timing changes: the tokens they
// estimated (the replies', not the bound's), and, shared, what each window of the budget gave
// out (at most the provider's second). The provider, which counts requests as they arrive, holds
// two seconds of budget: the limiters pace admissions with one request and 3% of headroom, and
// on a loaded machine the time from admission to arrival varies by more than that (one of 121
// requests was refused), while a shared window's budget may leave at its end and the next one's
// at its start, two windows' worth in a moment. Two seconds absorbs both; a limiter that let
// through twice the rate would still meet 429s within a fraction of a second.
func TestTokenLimitFollowsRepliesNotTheirBound(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			t.Parallel()
			var shared *ratelimit.Shared
			var kv jetstream.KeyValue
			if workers > 1 {
				js, err := jetstream.New(testenv.NATS(t))
				if err != nil {
					t.Fatal(err)
				}
				bucket := fmt.Sprintf("ratelimit_bound_test_%d", time.Now().UnixNano())
				t.Cleanup(func() { _ = js.DeleteKeyValue(context.Background(), bucket) })
				if shared, err = ratelimit.OpenShared(context.Background(), js, ratelimit.SharedConfig{Bucket: bucket}); err != nil {
					t.Fatal(err)
				}
				if kv, err = js.KeyValue(context.Background(), bucket); err != nil {
					t.Fatal(err)
				}
			}
			const rpm, tpm = 1200, 120000
			p := ratelimittest.Start(ratelimittest.Config{RPM: rpm, TPM: tpm, Burst: 2 * time.Second, ReplyTokens: 10,
				Latency: ratelimittest.Fixed(50 * time.Millisecond)})
			defer p.Close()
			req := pipeline.ModelRequest{Step: "verify", Prompt: strings.Repeat("word", 50), MaxTokens: 1024}
			var ws []worker
			for range workers {
				ws = append(ws, newWorker(t, p, ratelimit.Config{RequestsPerMinute: rpm, TokensPerMinute: tpm, Shared: shared}))
			}
			const calls = 120
			start := time.Now()
			var wg sync.WaitGroup
			errs := make([][]error, workers)
			for i, w := range ws {
				wg.Go(func() { _, errs[i] = load(w, calls/workers, 8, req) })
			}
			wg.Wait()
			took := time.Since(start)
			for i, e := range errs {
				if len(e) > 0 {
					t.Errorf("worker %d: %d calls failed, first: %v", i, len(e), e[0])
				}
			}
			ps := p.Stats()
			if ps.Limited > 0 {
				t.Errorf("the provider answered %d of %d requests with 429, want none", ps.Limited, ps.Requests)
			}
			// A step's calls are estimated at the bound (50 prompt tokens + 1024) until two of its
			// replies are known; each goroutine has one call out at a time, so that is at most 8 + 1
			// calls a worker. Every later call is estimated at 50 + 10 and a quarter + 16. At the
			// bound all 120 would be estimated at 1074.
			var estimated, used int64
			for _, w := range ws {
				s := w.lim.Stats()
				estimated, used = estimated+s.TokensEstimated, used+s.TokensUsed
			}
			if maxEstimate := int64(workers*9*1074 + (calls-workers*9)*80); estimated > maxEstimate || used != ps.Tokens {
				t.Errorf("tokens estimated %d (want at most %d, the replies' size), used %d (the provider counted %d)", estimated, maxEstimate, used, ps.Tokens)
			}
			if kv != nil {
				// Together the two workers took no window's budget twice: no window of the shared
				// budget gave out more than the provider's second, and all calls were counted.
				granted := sharedRequests(t, kv)
				var total int64
				for key, r := range granted {
					total += r
					if r > rpm/60 {
						t.Errorf("window %s gave out %d requests, more than the provider's %d a second", key, r, rpm/60)
					}
				}
				if total < calls {
					t.Errorf("the shared windows gave out %d requests for %d calls", total, calls)
				}
			}
			// 120 calls at 20 a second, a second's burst at the start: about 5s (two workers
			// sharing took up to 12s on a loaded machine); at their bound's estimate, about a
			// minute. The estimates above are the exact check; this bound only needs to tell 5s
			// from a minute.
			if took > 30*time.Second {
				t.Errorf("%d calls took %s; the token pace followed the estimates at the reply bound, not the usage", calls, took)
			}
			t.Logf("%d calls by %d worker(s) in %s", calls, workers, took.Round(time.Millisecond))
		})
	}
}

// TestFirstCallLearnsBeforeTheRest: with nothing configured, 16 calls arriving at once would all
// be sent before any response told the limits, and a provider whose budget holds a second (10
// requests here) would refuse 6. The first call goes alone; its headers announce the limit, and
// the others are paced by it.
func TestFirstCallLearnsBeforeTheRest(t *testing.T) {
	t.Parallel()
	p := ratelimittest.Start(ratelimittest.Config{RPM: 600, Burst: time.Second, Latency: ratelimittest.Fixed(20 * time.Millisecond)})
	defer p.Close()
	w := newWorker(t, p, ratelimit.Config{}) // nothing configured
	_, errs := load(w, 16, 16, smallRequest)
	if len(errs) > 0 {
		t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
	}
	if ps := p.Stats(); ps.Limited != 0 || ps.MaxInFlight > 10 {
		t.Errorf("provider: %d of %d requests answered 429, %d in flight at most; want none refused", ps.Limited, ps.Requests, ps.MaxInFlight)
	}
	if s := w.lim.Stats(); s.RequestLimit != 600 {
		t.Errorf("learned request limit %g, want 600", s.RequestLimit)
	}
}

// sharedRequests reads the requests every window of a shared budget gave out, by key.
func sharedRequests(t *testing.T, kv jetstream.KeyValue) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	keys, err := kv.Keys(ctx)
	if err != nil {
		t.Fatalf("listing the shared budget's windows: %v", err)
	}
	out := map[string]int64{}
	for _, k := range keys {
		e, err := kv.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			R int64 `json:"r"`
		}
		if err := json.Unmarshal(e.Value(), &doc); err != nil {
			t.Fatalf("window %s holds %q: %v", k, e.Value(), err)
		}
		out[k] = doc.R
	}
	return out
}
