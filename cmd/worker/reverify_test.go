package main

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
	h := &handler{searcher: rec}
	yes := true
	s := h.searcherFor(jobs.MessageOptions{Reverify: &yes})
	for _, q := range []string{"What is the latest stable version of Go as of December 2026?", "When was the Eiffel Tower completed?"} {
		if _, err := s.Search(context.Background(), pipeline.SearchQuery{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	if !rec.queries[0].NoCache || rec.queries[1].NoCache {
		t.Fatalf("fresh results for the latest version only: %+v", rec.queries)
	}
	if h.searcherFor(jobs.MessageOptions{}) != pipeline.Searcher(rec) {
		t.Fatal("a first verification uses the searcher as it is")
	}
}

func TestReverifyJobIsStoredAsOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	yes := true
	first := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	again := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored, Options: jobs.MessageOptions{Reverify: &yes}})
	b.runWorkers(t, 1)
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1 AND NOT reverify`, first); n != 1 {
		t.Fatal("the first run is not stored as a first verification")
	}
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1 AND reverify`, again); n != 1 {
		t.Fatal("the re-verification is not stored as one")
	}
	if n := b.count(t, `SELECT count(*) FROM statement_results WHERE job_id = $1 AND reverify`, again); n != 1 {
		t.Fatal("statement_results does not show the re-verification as the latest run")
	}
}
