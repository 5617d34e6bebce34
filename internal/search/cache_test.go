package search_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
)

// stubProvider answers every query with one result naming the query and the call, or with err.
type stubProvider struct {
	name  string
	calls atomic.Int64
	err   error
}

func (s *stubProvider) Name() string { return s.name }

func (s *stubProvider) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	n := s.calls.Add(1)
	resp := pipeline.SearchResponse{Provider: s.name}
	if s.err != nil {
		return resp, s.err
	}
	published := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	resp.Results = []pipeline.SearchResult{{
		URL: "https://example.org/" + fmt.Sprint(n), Title: q.Query, Snippet: "call " + fmt.Sprint(n),
		Domain: "example.org", Publisher: "Example", PublishedAt: &published, Provider: s.name, Rank: 1, Score: 1.5,
	}}
	return resp, nil
}

// clock is a settable time for the cache.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func newCache(t *testing.T, ttl time.Duration) (*search.Cache, *stubProvider, *clock) {
	t.Helper()
	b := setup(t, search.CorpusOpts{})
	p := &stubProvider{name: "stub"}
	clk := &clock{now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
	return search.NewCache(b.pool, p, search.CacheOpts{TTL: ttl, Now: clk.Now}), p, clk
}

func TestCacheHitExpiryAndBypass(t *testing.T) {
	t.Parallel()
	cache, provider, clk := newCache(t, time.Hour)
	ctx := context.Background()
	q := pipeline.SearchQuery{Query: "severn  floods", Language: "en", ExcludeDomains: []string{"b.com", "a.com"}, Limit: 5}

	first, err := cache.Search(ctx, q)
	if err != nil || first.Cached || provider.calls.Load() != 1 {
		t.Fatalf("first search: %+v, %v, %d calls", first, err, provider.calls.Load())
	}
	// The same query, written differently (spaces, order of exclusions, case of a domain): a hit.
	same := pipeline.SearchQuery{Query: " severn floods ", Language: "EN", ExcludeDomains: []string{"A.com", "b.com"}, Limit: 5}
	hit, err := cache.Search(ctx, same)
	if err != nil || !hit.Cached || hit.Provider != "stub" || provider.calls.Load() != 1 {
		t.Fatalf("second search: %+v, %v, %d calls", hit, err, provider.calls.Load())
	}
	if len(hit.Results) != 1 || !sameResult(hit.Results[0], first.Results[0]) {
		t.Fatalf("cached results %+v differ from %+v", hit.Results, first.Results)
	}

	// Other options are another entry.
	for _, other := range []pipeline.SearchQuery{
		{Query: q.Query, Language: "en", ExcludeDomains: q.ExcludeDomains, Limit: 6},
		{Query: q.Query, Language: "fr", ExcludeDomains: q.ExcludeDomains, Limit: 5},
		{Query: q.Query, Language: "en", Limit: 5},
		{Query: q.Query, Language: "en", ExcludeDomains: q.ExcludeDomains, Limit: 5, From: clk.Now().AddDate(-1, 0, 0)},
	} {
		before := provider.calls.Load()
		resp, err := cache.Search(ctx, other)
		if err != nil || resp.Cached || provider.calls.Load() != before+1 {
			t.Fatalf("%+v: served from the cache entry of another query", other)
		}
	}

	// NoCache asks the provider, and refreshes the entry for the next one.
	before := provider.calls.Load()
	fresh, err := cache.Search(ctx, pipeline.SearchQuery{Query: q.Query, Language: "en", ExcludeDomains: q.ExcludeDomains, Limit: 5, NoCache: true})
	if err != nil || fresh.Cached || provider.calls.Load() != before+1 {
		t.Fatalf("NoCache: %+v, %v", fresh, err)
	}
	again, err := cache.Search(ctx, q)
	if err != nil || !again.Cached || again.Results[0].Snippet != fresh.Results[0].Snippet {
		t.Fatalf("after NoCache the entry holds %+v, want %+v", again.Results, fresh.Results)
	}

	// Past the TTL the entry is dead: the provider is asked again.
	clk.advance(time.Hour + time.Second)
	before = provider.calls.Load()
	expired, err := cache.Search(ctx, q)
	if err != nil || expired.Cached || provider.calls.Load() != before+1 {
		t.Fatalf("after the TTL: %+v, %v", expired, err)
	}
	// Purge removes what is dead at the cache's clock and keeps what is live.
	clk.advance(30 * time.Minute)
	n, err := cache.Purge(ctx)
	if err != nil || n == 0 {
		t.Fatalf("purge: %d, %v", n, err)
	}
	live, err := cache.Search(ctx, q)
	if err != nil || !live.Cached {
		t.Fatalf("the live entry was purged: %+v, %v", live, err)
	}
}

func sameResult(a, b pipeline.SearchResult) bool {
	return a.URL == b.URL && a.Title == b.Title && a.Snippet == b.Snippet && a.Domain == b.Domain &&
		a.Publisher == b.Publisher && a.Provider == b.Provider && a.Rank == b.Rank && a.Score == b.Score &&
		a.PublishedAt != nil && b.PublishedAt != nil && a.PublishedAt.Equal(*b.PublishedAt)
}

func TestCacheNeverCachesErrors(t *testing.T) {
	t.Parallel()
	cache, provider, _ := newCache(t, time.Hour)
	provider.err = errors.New("HTTP 500")
	q := pipeline.SearchQuery{Query: "failing query"}
	for i := range 2 {
		resp, err := cache.Search(context.Background(), q)
		if err == nil || resp.Cached || resp.Provider != "stub" {
			t.Fatalf("call %d: %+v, %v", i, resp, err)
		}
	}
	if provider.calls.Load() != 2 {
		t.Fatalf("the failure was cached: %d provider calls", provider.calls.Load())
	}
	provider.err = nil
	if resp, err := cache.Search(context.Background(), q); err != nil || resp.Cached {
		t.Fatalf("after recovery: %+v, %v", resp, err)
	}
}

func TestCacheWithoutItsTableStillSearches(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	if _, err := b.pool.Exec(context.Background(), `DROP TABLE search_cache`); err != nil {
		t.Fatal(err)
	}
	provider := &stubProvider{name: "stub"}
	var logged strings.Builder
	cache := search.NewCache(b.pool, provider, search.CacheOpts{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	resp, err := cache.Search(context.Background(), pipeline.SearchQuery{Query: "q"})
	if err != nil || len(resp.Results) != 1 || resp.Cached {
		t.Fatalf("a broken cache must cost only the provider call: %+v, %v", resp, err)
	}
	if !strings.Contains(logged.String(), "lookup failed") || !strings.Contains(logged.String(), "storing results failed") {
		t.Fatalf("the cache's failures must be logged; logged %q", logged.String())
	}
}
