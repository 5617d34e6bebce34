package search_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
)

// countingLimit stands in for the worker's rate limiter: it counts the searches it lets through.
type countingLimit struct {
	next  pipeline.Searcher
	calls *atomic.Int32
}

func (c countingLimit) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	c.calls.Add(1)
	return c.next.Search(ctx, q)
}

// Config.Limit sits inside the cache: a cached answer costs no request, so it spends no rate.
func TestLimitWrapsTheWebProviderInsideTheCache(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	srv := newAPIServer(t, http.StatusOK, nil, fixture(t, "searxng_results.json"))
	var calls atomic.Int32
	s, err := search.New(search.Config{
		Provider: search.ProviderSearxNG, SearxNGURL: srv.URL + "/searx/",
		Limit: func(next pipeline.Searcher) pipeline.Searcher { return countingLimit{next: next, calls: &calls} },
	}, b.pool)
	if err != nil {
		t.Fatal(err)
	}
	q := pipeline.SearchQuery{Query: "Severn flood Shrewsbury", Language: "en"}
	for range 3 {
		resp, err := s.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Provider != search.ProviderSearxNG || len(resp.Results) == 0 {
			t.Fatalf("response %+v", resp)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("the limiter saw %d searches of 3, want 1 (two came from the cache)", calls.Load())
	}
}
