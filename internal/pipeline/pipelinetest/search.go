package pipelinetest

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// StubEvidenceSearcher is the stub Searcher of the open-book tests: canned results per query text, an
// error per query text, and every query it was sent.
type StubEvidenceSearcher struct {
	Results map[string][]pipeline.SearchResult
	Errs    map[string]error

	mu      sync.Mutex
	queries []pipeline.SearchQuery
}

func (s *StubEvidenceSearcher) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	if err := s.Errs[q.Query]; err != nil {
		return pipeline.SearchResponse{Provider: "stub"}, err
	}
	var out []pipeline.SearchResult
	for i, r := range s.Results[q.Query] {
		r.Rank, r.Provider = i+1, "stub"
		out = append(out, r)
	}
	return pipeline.SearchResponse{Results: out, Provider: "stub"}, nil
}

func (s *StubEvidenceSearcher) Sent() []pipeline.SearchQuery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

// SearchResult is a search result on url's domain, published by publisher.
func SearchResult(url, publisher, snippet string) pipeline.SearchResult {
	domain := strings.TrimPrefix(strings.SplitN(strings.SplitN(url, "://", 2)[1], "/", 2)[0], "www.")
	return pipeline.SearchResult{URL: url, Title: "Page on " + domain, Snippet: snippet, Domain: domain, Publisher: publisher}
}
