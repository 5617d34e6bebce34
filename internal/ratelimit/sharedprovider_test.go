package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/ratelimit"
	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// TestWorkersShareOneProviderBudget: three workers, each configured with the provider's whole
// limit, call one provider through a shared budget. Unshared, each would run at the full rate and
// together at three times it; shared, the provider refuses (almost) nothing.
func TestWorkersShareOneProviderBudget(t *testing.T) {
	t.Parallel()
	js, err := jetstream.New(testenv.NATS(t))
	if err != nil {
		t.Fatal(err)
	}
	bucket := fmt.Sprintf("ratelimit_provider_test_%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = js.DeleteKeyValue(context.Background(), bucket) })
	shared, err := ratelimit.OpenShared(context.Background(), js, ratelimit.SharedConfig{Bucket: bucket, Window: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	const rpm = 2400
	p := ratelimittest.Start(ratelimittest.Config{RPM: rpm, Burst: time.Second, Latency: ratelimittest.Uniform(5*time.Millisecond, 20*time.Millisecond)})
	defer p.Close()
	var workers []worker
	for range 3 {
		workers = append(workers, newWorker(t, p, ratelimit.Config{RequestsPerMinute: rpm, Shared: shared}))
	}

	start := time.Now()
	var wg sync.WaitGroup
	errs := make([][]error, len(workers))
	for i, w := range workers {
		wg.Go(func() { _, errs[i] = load(w, 60, 8, smallRequest) })
	}
	wg.Wait()
	took := time.Since(start)
	for i, e := range errs {
		if len(e) > 0 {
			t.Errorf("worker %d: %d calls failed, first: %v", i, len(e), e[0])
		}
	}
	ps := p.Stats()
	if ps.Accepted != 180 {
		t.Errorf("provider accepted %d calls, want all 180", ps.Accepted)
	}
	if ps.Limited > 2 {
		t.Errorf("provider answered %d of %d requests with 429, want (almost) none", ps.Limited, ps.Requests)
	}
	// 180 calls at 40 a second, the provider's 40 at once at the start included: about 3.5s. Three
	// unshared limiters would each take their own 2400 a minute and be refused.
	if took < 2500*time.Millisecond {
		t.Errorf("180 calls took %s, faster than the shared limit allows", took)
	}
	var leases int64
	for _, w := range workers {
		leases += w.lim.Stats().Leases
	}
	t.Logf("180 calls by 3 workers in %s: %d 429s, %d leases", took.Round(time.Millisecond), ps.Limited, leases)
}
