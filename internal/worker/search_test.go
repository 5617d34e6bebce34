package worker

import (
	"context"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// recordingSearcher keeps the queries it is sent.
type recordingSearcher struct{ queries []pipeline.SearchQuery }

func (r *recordingSearcher) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	r.queries = append(r.queries, q)
	return pipeline.SearchResponse{Provider: "recording"}, nil
}

// A re-verification asks for fresh results for what drifts with time, and only for that.
func TestReverifyBypassesTheCacheForFreshnessSensitiveQueries(t *testing.T) {
	t.Parallel()
	rec := &recordingSearcher{}
	yes := true
	s := searcherFor(rec, jobs.MessageOptions{Reverify: &yes})
	for _, q := range []string{"What is the latest stable version of Go as of December 2026?", "When was the Eiffel Tower completed?"} {
		if _, err := s.Search(context.Background(), pipeline.SearchQuery{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	if !rec.queries[0].NoCache || rec.queries[1].NoCache {
		t.Fatalf("fresh results for the latest version only: %+v", rec.queries)
	}
	if searcherFor(rec, jobs.MessageOptions{}) != pipeline.Searcher(rec) {
		t.Fatal("a first verification uses the searcher as it is")
	}
}

// cachedPages is a page reader with a cache it can read past, as pagefetch.Fetcher.
type cachedPages struct{ fresh bool }

func (c cachedPages) ReadPage(_ context.Context, url string) pipeline.Page {
	return pipeline.Page{URL: url, Cached: !c.fresh}
}

func (c cachedPages) Fresh() pipeline.PageReader { return cachedPages{fresh: true} }

// A re-verification reads pages anew; a first verification may use the page cache.
func TestReverifyReadsPagesAnew(t *testing.T) {
	t.Parallel()
	yes := true
	p := evidence.PageReading{Reader: cachedPages{}, PerHop: 2}
	if got := pagesFor(p, jobs.MessageOptions{Reverify: &yes}); got.Reader.ReadPage(context.Background(), "u").Cached || got.PerHop != 2 {
		t.Error("a re-verification read a page from the cache")
	}
	if got := pagesFor(p, jobs.MessageOptions{}); !got.Reader.ReadPage(context.Background(), "u").Cached {
		t.Error("a first verification does not use the reader as it is")
	}
	if got := pagesFor(evidence.PageReading{}, jobs.MessageOptions{Reverify: &yes}); got.Reader != nil {
		t.Error("no reader must stay no reader")
	}
}
