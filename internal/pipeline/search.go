package pipeline

import (
	"context"
	"sync"
	"time"
)

// Searcher finds evidence for a query. internal/search implements it over the PostgreSQL corpus
// and web search APIs, with a result cache in front of the web ones; tests use a stub.
//
// A Searcher returns at most Limit results, ranked best first, that already obey the query's
// language, date range and exclusions. When it fails it returns an error and, where it can, a
// response that names its Provider, so that the failed call is recorded with who failed. A failure
// no retry can fix (a refused API key) is wrapped by Permanent.
type Searcher interface {
	Search(ctx context.Context, q SearchQuery) (SearchResponse, error)
}

// DefaultSearchLimit is the number of results a query with no Limit asks for.
const DefaultSearchLimit = 10

// SearchQuery is one search: the query text and how to search with it.
type SearchQuery struct {
	// Query is the text to search for: keywords or a whole natural-language claim.
	Query string
	// Language is the ISO 639-1 code of the query and of the results wanted ("en"); empty means
	// any language.
	Language string
	// From and To bound the results' published dates, From inclusive, To exclusive; the zero time
	// leaves that side open. A result whose date is unknown cannot be shown to be in range: the
	// corpus leaves it out of a bounded search, and web providers, whose engines apply their own
	// date filter, keep it (see internal/search).
	From, To time.Time
	// ExcludeDomains are domains whose results (their subdomains' too) must not be returned:
	// source independence.
	ExcludeDomains []string
	// ExcludeURLs are documents already used; ExcludePublishers are publishers (case-insensitive)
	// already used.
	ExcludeURLs       []string
	ExcludePublishers []string
	// Limit caps the results; 0 means DefaultSearchLimit.
	Limit int
	// NoCache asks for fresh results: a cached answer is not used (re-verification).
	NoCache bool
}

// Options returns the query without its text, as a search call records it.
func (q SearchQuery) Options() SearchOptions {
	return SearchOptions{
		Language: q.Language, From: q.From, To: q.To,
		ExcludeDomains: q.ExcludeDomains, ExcludeURLs: q.ExcludeURLs, ExcludePublishers: q.ExcludePublishers,
		Limit: q.Limit, NoCache: q.NoCache,
	}
}

// SearchOptions is a SearchQuery without its text. Its JSON form is what search_calls.options
// holds.
type SearchOptions struct {
	Language          string    `json:"language,omitempty"`
	From              time.Time `json:"from,omitzero"`
	To                time.Time `json:"to,omitzero"`
	ExcludeDomains    []string  `json:"exclude_domains,omitempty"`
	ExcludeURLs       []string  `json:"exclude_urls,omitempty"`
	ExcludePublishers []string  `json:"exclude_publishers,omitempty"`
	Limit             int       `json:"limit,omitempty"`
	NoCache           bool      `json:"no_cache,omitempty"`
}

// SearchResponse is what one search returned.
type SearchResponse struct {
	Results []SearchResult
	// Provider names who answered: "postgres", "searxng", "brave".
	Provider string
	// Cached is true when the results came from the search cache, not from the provider.
	Cached bool
}

// SearchResult is one ranked result. Its JSON form is what search_calls.results and the search
// cache hold.
type SearchResult struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	// Snippet is plain text (no markup) from the document, around the query's terms where the
	// provider can tell.
	Snippet string `json:"snippet"`
	// Domain is the URL's lower-case host without "www.".
	Domain string `json:"domain"`
	// Publisher is the page's own publisher name, as the provider or the corpus metadata gives it.
	Publisher string `json:"publisher,omitempty"`
	// Organisation owns the result's registrable domain, from the editors' source_owners table
	// (internal/search.WithOrganisations fills it); empty when the table does not know the domain.
	// Independence compares it as a publisher: apnews.com and ap.org are one organisation.
	Organisation string `json:"organisation,omitempty"`
	// PublishedAt is nil when the provider does not know the date.
	PublishedAt *time.Time `json:"published_at,omitempty"`
	Provider    string     `json:"provider"`
	// Rank is the result's position, from 1.
	Rank int `json:"rank"`
	// Score is the provider's own relevance score (BM25 for the corpus), 0 when it gives none;
	// scores of different providers do not compare.
	Score float64 `json:"score,omitempty"`
}

// SearchCall is one search as it was made, for the run's record (search_calls).
type SearchCall struct {
	Seq       int
	Provider  string
	Query     string
	Options   SearchOptions
	Results   []SearchResult
	Cached    bool
	StartedAt time.Time
	Latency   time.Duration
	Error     string
}

// SearchRecorder wraps a Searcher and keeps every call made through it, in the order the calls
// started, so that a run stores its whole search trace (Result.Searches) with its model calls. A
// method makes one per run, as it does for model calls. It is safe for concurrent use by the
// parallel verifiers of one run, and is itself a Searcher.
type SearchRecorder struct {
	searcher Searcher

	mu    sync.Mutex
	calls []SearchCall
}

// NewSearchRecorder returns a recorder over s.
func NewSearchRecorder(s Searcher) *SearchRecorder { return &SearchRecorder{searcher: s} }

// Search runs q and records the call, failed or not.
func (r *SearchRecorder) Search(ctx context.Context, q SearchQuery) (SearchResponse, error) {
	resp, _, err := r.SearchSeq(ctx, q)
	return resp, err
}

// SearchSeq runs q, records the call and returns its sequence number (from 1) with its answer,
// for evidence that must point at the search that found it.
func (r *SearchRecorder) SearchSeq(ctx context.Context, q SearchQuery) (SearchResponse, int, error) {
	r.mu.Lock()
	seq := len(r.calls) + 1
	r.calls = append(r.calls, SearchCall{Seq: seq, Query: q.Query, Options: q.Options(), StartedAt: time.Now()})
	r.mu.Unlock()

	start := time.Now()
	resp, err := r.searcher.Search(ctx, q)
	latency := time.Since(start)

	r.mu.Lock()
	c := &r.calls[seq-1]
	c.Provider = resp.Provider
	c.Results = resp.Results
	c.Cached = resp.Cached
	c.Latency = latency
	if err != nil {
		c.Error = err.Error()
	}
	r.mu.Unlock()
	return resp, seq, err
}

// Calls returns a copy of the calls recorded so far.
func (r *SearchRecorder) Calls() []SearchCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]SearchCall(nil), r.calls...)
}
