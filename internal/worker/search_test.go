package worker

import (
	"context"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
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
