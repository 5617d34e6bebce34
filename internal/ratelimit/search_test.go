package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit"
)

// webSearcher is a search provider over HTTP, the way a web search API adapter is built: it
// shows every response to its onResponse hook (search.WebOpts.OnResponse), here the limiter's.
type webSearcher struct {
	url        string
	onResponse func(ctx context.Context, status int, header http.Header)
}

func (w webSearcher) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url+"?q="+q.Query, nil)
	if err != nil {
		return pipeline.SearchResponse{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return pipeline.SearchResponse{}, err
	}
	defer resp.Body.Close()
	w.onResponse(ctx, resp.StatusCode, resp.Header)
	if resp.StatusCode != http.StatusOK {
		return pipeline.SearchResponse{Provider: "web"}, fmt.Errorf("web search: HTTP %d", resp.StatusCode)
	}
	return pipeline.SearchResponse{Provider: "web", Results: []pipeline.SearchResult{{URL: "https://example.org/" + q.Query, Rank: 1}}}, nil
}

func TestSearcherRetries429SeenThroughObserveResponse(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("X-Ratelimit-Limit-Requests", "600")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	lim, err := ratelimit.New(ratelimit.Config{Name: "search-web"})
	if err != nil {
		t.Fatal(err)
	}
	s := ratelimit.Searcher(webSearcher{url: srv.URL, onResponse: lim.ObserveResponse}, lim)

	start := time.Now()
	resp, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "moon"})
	if err != nil || len(resp.Results) != 1 {
		t.Fatalf("Search = %+v, %v; want one result after the retry", resp, err)
	}
	if waited := time.Since(start); waited < 60*time.Millisecond {
		t.Errorf("retried after %s, want at least the 60ms asked for", waited)
	}
	st := lim.Stats()
	if hits.Load() != 2 || st.RateLimited != 1 || st.Retries != 1 || st.RequestLimit != 600 || st.TokensEstimated != 0 {
		t.Errorf("%d hits, stats %+v; want 2 hits, one 429 retried, the limit 600 learned, no tokens", hits.Load(), st)
	}
	if got := ratelimit.Searcher(s, nil); got != s {
		t.Error("Searcher(s, nil) is not s")
	}
}
