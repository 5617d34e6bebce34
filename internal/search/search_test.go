package search_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
)

func TestNewListsEveryProblem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  search.Config
		says []string
	}{
		{"unknown provider", search.Config{Provider: "google", Timeout: -time.Second},
			[]string{`"google" is not one of postgres, searxng, brave`, "CORROBORATE_SEARCH", "timeout -1s is negative"}},
		{"postgres without a database, bad ranking", search.Config{Corpus: search.CorpusOpts{Ranking: "pagerank"}},
			[]string{"needs the database: set DATABASE_URL", `ranking "pagerank"`}},
		{"searxng without URL nor database", search.Config{Provider: "searxng"},
			[]string{"CORROBORATE_SEARXNG_URL", "cache needs the database"}},
		{"searxng with a bad URL", search.Config{Provider: "searxng", SearxNGURL: "localhost:8080", CacheTTL: -1},
			[]string{`"localhost:8080" is not an http(s) URL`}},
		{"brave without key", search.Config{Provider: "brave", CacheTTL: -1, MaxResponseBytes: -5},
			[]string{"set BRAVE_API_KEY", "response bound -5 is negative"}},
	}
	for _, tc := range cases {
		_, err := search.New(tc.cfg, nil)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, want := range tc.says {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not say %q", tc.name, err, want)
			}
		}
	}
}

func TestNewSelectsTheProvider(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	srv := newAPIServer(t, http.StatusOK, nil, `{"query": "q", "results": [{"url": "https://example.org/a", "title": "A", "content": "a"}]}`)
	cases := []struct {
		cfg      search.Config
		provider string
		cached   bool
	}{
		{search.Config{}, search.ProviderPostgres, false},
		{search.Config{Provider: "searxng", SearxNGURL: srv.URL}, search.ProviderSearxNG, true},
		{search.Config{Provider: "SearxNG", SearxNGURL: srv.URL, CacheTTL: -1}, search.ProviderSearxNG, false},
		{search.Config{Provider: "brave", BraveAPIKey: "k", BraveURL: srv.URL}, search.ProviderBrave, true},
	}
	for i, tc := range cases {
		s, err := search.New(tc.cfg, b.pool)
		if err != nil {
			t.Fatalf("%+v: %v", tc.cfg, err)
		}
		_, isCache := s.(*search.Cache)
		if p, ok := s.(search.Provider); !ok || p.Name() != tc.provider || isCache != tc.cached {
			t.Fatalf("case %d: %T, want %s (cached %v)", i, s, tc.provider, tc.cached)
		}
		q := pipeline.SearchQuery{Query: fmt.Sprintf("query %d", i)}
		first, err := s.Search(context.Background(), q)
		if err != nil && tc.provider != search.ProviderBrave {
			t.Fatalf("case %d: %v", i, err)
		}
		if tc.cached {
			// Brave's answer is SearxNG's shape here, so it fails, and failures are not cached:
			// only SearxNG's second search comes from the cache.
			second, _ := s.Search(context.Background(), q)
			if want := tc.provider == search.ProviderSearxNG; second.Cached != want || first.Cached {
				t.Fatalf("case %d: cached %v then %v", i, first.Cached, second.Cached)
			}
		}
	}
}

func TestDefineFlagsReadsTheEnvironment(t *testing.T) {
	t.Setenv("CORROBORATE_SEARCH", "brave")
	t.Setenv("CORROBORATE_SEARCH_CACHE_TTL", "2h")
	t.Setenv(search.EnvBraveAPIKey, "from-env")
	var cfg search.Config
	fs := envflag.New("test", "test")
	cfg.DefineFlags(fs)
	if err := fs.Parse([]string{"--search-timeout", "3s"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Provider != "brave" || cfg.CacheTTL != 2*time.Hour || cfg.Timeout != 3*time.Second || cfg.BraveAPIKey != "from-env" ||
		cfg.BraveURL != search.DefaultBraveURL || cfg.Corpus.Ranking != search.RankingBM25Title {
		t.Fatalf("config %+v", cfg)
	}
	if fs.Lookup("brave-api-key") != nil {
		t.Fatal("the API key must not be a flag: command lines are visible to every user")
	}
}

// TestSearchRecorderRecordsEveryCall runs the recorder over a real provider (SearxNG on an
// httptest server, behind the cache), from many goroutines, with a failure among the calls.
func TestSearchRecorderRecordsEveryCall(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	srv := newAPIServer(t, http.StatusOK, nil, `{"query": "q", "results": [{"url": "https://example.org/a", "title": "A", "content": "a"}]}`)
	s, err := search.New(search.Config{Provider: "searxng", SearxNGURL: srv.URL}, b.pool)
	if err != nil {
		t.Fatal(err)
	}
	rec := pipeline.NewSearchRecorder(s)
	for i := range 4 {
		if _, err := rec.Search(context.Background(), pipeline.SearchQuery{Query: fmt.Sprintf("query %d", i), Language: "en", Limit: 3}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = rec.Search(context.Background(), pipeline.SearchQuery{Query: fmt.Sprintf("query %d", i%4), Language: "en", Limit: 3})
		}()
	}
	wg.Wait()
	calls := rec.Calls()
	if len(calls) != 12 {
		t.Fatalf("%d calls recorded", len(calls))
	}
	cached := 0
	for i, c := range calls {
		if c.Seq != i+1 || c.Provider != search.ProviderSearxNG || c.Error != "" || len(c.Results) != 1 ||
			c.Options.Language != "en" || c.Options.Limit != 3 || c.StartedAt.IsZero() || c.Latency <= 0 {
			t.Fatalf("call %d: %+v", i, c)
		}
		if c.Cached {
			cached++
		}
	}
	if cached != 8 {
		t.Fatalf("%d of the 8 repeated queries were answered from the cache", cached)
	}

	srv.answer(http.StatusUnauthorized, `{}`)
	_, seq, err := rec.SearchSeq(context.Background(), pipeline.SearchQuery{Query: "refused", NoCache: true})
	if !errors.Is(err, search.ErrUnauthorized) || seq != 13 {
		t.Fatalf("seq %d, %v", seq, err)
	}
	last := rec.Calls()[12]
	if last.Provider != search.ProviderSearxNG || !strings.Contains(last.Error, "HTTP 401") || len(last.Results) != 0 || !last.Options.NoCache {
		t.Fatalf("failed call recorded as %+v", last)
	}
}
