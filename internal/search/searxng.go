package search

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// ProviderSearxNG names SearxNG in results and records.
const ProviderSearxNG = "searxng"

// SearxNG searches through a SearxNG instance's JSON API (GET /search?format=json), which must
// have the json format enabled in its settings.yml. It implements pipeline.Searcher.
//
// What the API offers is used: language (its language parameter), date range (time_range day,
// month or year: the narrowest that covers From) and domain exclusion ("-site:" operators in the
// query, which the engines behind SearxNG may or may not honour). The rest, and whatever an engine
// ignored, is filtered after retrieval: excluded domains, URLs and publishers, and dates known to
// be outside the range. One page of results is asked for.
type SearxNG struct {
	base *url.URL
	web  webClient
	now  func() time.Time
}

// SearxNGOpts configures SearxNG.
type SearxNGOpts struct {
	// URL is the instance's base URL, such as http://localhost:8080 (requests go to URL/search).
	URL string
	WebOpts
}

// NewSearxNG returns the SearxNG provider, or an error when the URL is not an http(s) URL.
func NewSearxNG(opts SearxNGOpts) (*SearxNG, error) {
	u, err := url.Parse(strings.TrimSpace(opts.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("search: SearxNG URL %q is not an http(s) URL such as http://localhost:8080", opts.URL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return &SearxNG{base: u, web: newWebClient(ProviderSearxNG, "", opts.WebOpts), now: time.Now}, nil
}

// Name returns ProviderSearxNG.
func (s *SearxNG) Name() string { return ProviderSearxNG }

// searxngResponse is the part of SearxNG's JSON answer that is read.
type searxngResponse struct {
	Query   string `json:"query"`
	Results []struct {
		URL           string   `json:"url"`
		Title         string   `json:"title"`
		Content       string   `json:"content"`
		Engine        string   `json:"engine"`
		Engines       []string `json:"engines"`
		PublishedDate *string  `json:"publishedDate"`
		Score         float64  `json:"score"`
	} `json:"results"`
	UnresponsiveEngines [][]any `json:"unresponsive_engines"`
}

// Search asks SearxNG for q.
func (s *SearxNG) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	resp := pipeline.SearchResponse{Provider: ProviderSearxNG}
	text := cleanQuery(q.Query)
	if text == "" {
		return resp, nil
	}
	params := url.Values{}
	params.Set("q", text+siteExclusions(q.ExcludeDomains, 400))
	params.Set("format", "json")
	params.Set("pageno", "1")
	params.Set("safesearch", "0")
	if lang := strings.ToLower(strings.TrimSpace(q.Language)); lang != "" {
		params.Set("language", lang)
	}
	if tr := searxngTimeRange(q.From, s.now()); tr != "" {
		params.Set("time_range", tr)
	}
	endpoint := *s.base
	endpoint.Path += "/search"
	endpoint.RawQuery = params.Encode()
	req, err := http.NewRequest(http.MethodGet, endpoint.String(), nil)
	if err != nil {
		return resp, fmt.Errorf("search: searxng: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	var body searxngResponse
	if err := s.web.getJSON(ctx, req, &body, nil); err != nil {
		return resp, err
	}
	if body.Results == nil && body.Query == "" {
		return resp, &APIError{Provider: ProviderSearxNG, Endpoint: s.base.String() + "/search", StatusCode: http.StatusOK,
			Kind: ErrBadResponse, Message: `no "results" in the answer`}
	}
	if len(body.Results) == 0 && len(body.UnresponsiveEngines) > 0 {
		// No results because the engines failed is not "nothing found": say so, and keep it out
		// of the cache.
		var engines []string
		for _, e := range body.UnresponsiveEngines {
			parts := make([]string, len(e))
			for i, v := range e {
				parts[i] = fmt.Sprint(v)
			}
			if len(parts) > 0 {
				engines = append(engines, strings.Join(parts, " "))
			}
		}
		return resp, &APIError{Provider: ProviderSearxNG, Endpoint: s.base.String() + "/search", StatusCode: http.StatusOK,
			Kind: ErrUnavailable, Message: "no results, and these engines did not answer: " + truncateRunes(strings.Join(engines, "; "), 300)}
	}
	now := s.now()
	in := make([]webResult, 0, len(body.Results))
	for _, r := range body.Results {
		w := webResult{URL: r.URL, Title: r.Title, Snippet: r.Content, Score: r.Score}
		if r.PublishedDate != nil {
			w.PublishedAt = looseDate(*r.PublishedDate, now)
		}
		in = append(in, w)
	}
	resp.Results = finish(ProviderSearxNG, q, in)
	return resp, nil
}

// searxngTimeRange is the narrowest of SearxNG's time ranges that reaches back to from; "" when
// from is unset or older than a year.
func searxngTimeRange(from, now time.Time) string {
	if from.IsZero() {
		return ""
	}
	switch age := now.Sub(from); {
	case age <= 24*time.Hour:
		return "day"
	case age <= 31*24*time.Hour:
		return "month"
	case age <= 366*24*time.Hour:
		return "year"
	}
	return ""
}
