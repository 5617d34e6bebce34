package search_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
)

// apiServer is an httptest server that answers every request with one scripted response and
// keeps the requests it got.
type apiServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	status   int
	header   http.Header
	body     string
}

func newAPIServer(t *testing.T, status int, header http.Header, body string) *apiServer {
	t.Helper()
	s := &apiServer{status: status, header: header, body: body}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		status, header, body := s.status, s.header, s.body
		s.mu.Unlock()
		for k, vs := range header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

// answer changes what the server answers from now on.
func (s *apiServer) answer(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

func (s *apiServer) last(t *testing.T) *http.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		t.Fatal("the server got no request")
	}
	return s.requests[len(s.requests)-1]
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSearxNGMapsTheQueryAndFiltersTheResults(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t, http.StatusOK, nil, fixture(t, "searxng_results.json"))
	s, err := search.NewSearxNG(search.SearxNGOpts{URL: srv.URL + "/searx/"})
	if err != nil {
		t.Fatal(err)
	}
	q := pipeline.SearchQuery{
		Query: "Severn flood Shrewsbury", Language: "en", From: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC),
		ExcludeDomains: []string{"excluded.com"}, ExcludeURLs: []string{"https://www.theguardian.com/uk/severn"}, Limit: 3,
	}
	resp, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	req := srv.last(t)
	params := req.URL.Query()
	if req.URL.Path != "/searx/search" || params.Get("format") != "json" || params.Get("language") != "en" ||
		params.Get("q") != "Severn flood Shrewsbury -site:excluded.com" || params.Has("time_range") {
		t.Fatalf("request %s", req.URL)
	}
	got := urls(resp.Results)
	want := []string{"https://www.bbc.co.uk/news/uk-england-shropshire-51633234", "https://www.shropshirestar.com/news/severn", "https://third.example.net/a"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
	first := resp.Results[0]
	published := time.Date(2020, 2, 25, 0, 0, 0, 0, time.UTC)
	if first.Title != "Severn floods: Shrewsbury & Bewdley" || first.Domain != "bbc.co.uk" || first.Provider != search.ProviderSearxNG ||
		first.Rank != 1 || first.PublishedAt == nil || !first.PublishedAt.Equal(published) || first.Score != 3 {
		t.Fatalf("first result %+v", first)
	}
	if first.Snippet != "The River Severn burst its banks in Shrewsbury after heavy rain." {
		t.Fatalf("snippet %q: markup, scripts and encoded scripts must go", first.Snippet)
	}
	if resp.Results[1].PublishedAt != nil || resp.Results[2].Rank != 3 {
		t.Fatalf("results %+v", resp.Results)
	}
}

func TestSearxNGTimeRange(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t, http.StatusOK, nil, `{"query": "q", "results": []}`)
	s, err := search.NewSearxNG(search.SearxNGOpts{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, tc := range []struct {
		from time.Time
		want string
	}{
		{now.Add(-2 * time.Hour), "day"},
		{now.AddDate(0, 0, -10), "month"},
		{now.AddDate(0, -6, 0), "year"},
		{now.AddDate(-3, 0, 0), ""},
		{time.Time{}, ""},
	} {
		resp, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q", From: tc.from})
		if err != nil || len(resp.Results) != 0 {
			t.Fatalf("from %v: %+v, %v", tc.from, resp, err)
		}
		if got := srv.last(t).URL.Query().Get("time_range"); got != tc.want {
			t.Errorf("from %v: time_range %q, want %q", tc.from, got, tc.want)
		}
	}
}

func TestBraveMapsTheQueryAndFiltersTheResults(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t, http.StatusOK, nil, fixture(t, "brave_results.json"))
	b, err := search.NewBrave(search.BraveOpts{APIKey: "brave-key-123", URL: srv.URL + "/res/v1/web/search"})
	if err != nil {
		t.Fatal(err)
	}
	q := pipeline.SearchQuery{
		Query: "Severn flood Shrewsbury", Language: "en",
		From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC),
		ExcludeDomains: []string{"excluded.com"}, ExcludePublishers: []string{"The Guardian"},
	}
	resp, err := b.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	req := srv.last(t)
	params := req.URL.Query()
	if req.Header.Get("X-Subscription-Token") != "brave-key-123" || req.Header.Get("Accept") != "application/json" {
		t.Fatalf("headers %v", req.Header)
	}
	if params.Get("q") != "Severn flood Shrewsbury -site:excluded.com" || params.Get("search_lang") != "en" ||
		params.Get("freshness") != "2024-01-01to2024-01-31" || params.Get("count") != "20" {
		t.Fatalf("request %s", req.URL)
	}
	got := urls(resp.Results)
	want := []string{"https://www.bbc.co.uk/news/uk-england-shropshire-51633234", "https://check-for-flooding.service.gov.uk/target-area/011WAFSE"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got %v, want %v", got, want)
	}
	first := resp.Results[0]
	if first.Title != "Severn floods: Shrewsbury under water" || first.Publisher != "BBC" || first.Domain != "bbc.co.uk" ||
		first.PublishedAt == nil || !first.PublishedAt.Equal(time.Date(2024, 1, 12, 9, 30, 0, 0, time.UTC)) || first.Provider != search.ProviderBrave {
		t.Fatalf("first result %+v", first)
	}
	if first.Snippet != "The River Severn burst its banks in Shrewsbury & Bewdley after heavy rain." {
		t.Fatalf("snippet %q", first.Snippet)
	}
	if second := resp.Results[1]; second.Domain != "check-for-flooding.service.gov.uk" || second.Publisher != "GOV.UK" || second.Rank != 2 {
		t.Fatalf("second result %+v", second)
	}
}

func TestBraveLanguageAndQueryBounds(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t, http.StatusOK, nil, `{"type": "search", "query": {"original": "q"}}`)
	b, err := search.NewBrave(search.BraveOpts{APIKey: "k", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 80)
	for _, tc := range []struct{ language, want string }{{"ja", "jp"}, {"pt-BR", "pt-br"}, {"de", "de"}, {"xx", ""}, {"", ""}} {
		resp, err := b.Search(context.Background(), pipeline.SearchQuery{Query: long, Language: tc.language, ExcludeDomains: []string{"a.com"}})
		if err != nil || len(resp.Results) != 0 {
			t.Fatalf("%s: %+v, %v", tc.language, resp, err)
		}
		params := srv.last(t).URL.Query()
		if params.Get("search_lang") != tc.want {
			t.Errorf("language %q: search_lang %q, want %q", tc.language, params.Get("search_lang"), tc.want)
		}
		if q := params.Get("q"); len(strings.Fields(q)) > 50 || len(q) > 400 || !strings.HasSuffix(q, " -site:a.com") {
			t.Errorf("query of %d words, %d bytes sent: the API takes 50 and 400", len(strings.Fields(q)), len(q))
		}
	}
}

func TestWebProviderErrors(t *testing.T) {
	t.Parallel()
	const key = "secret-brave-key"
	huge := `{"query": "q", "results": [` + strings.Repeat(`{"url": "https://example.org/", "title": "padding"},`, 2000) + `{}]}`
	cases := []struct {
		name string
		// only, when set, is the one provider the case is about.
		only      string
		status    int
		header    http.Header
		body      string
		kind      error
		permanent bool
		retry     time.Duration
		slack     time.Duration
		// retryDateIn, when set, answers Retry-After with the HTTP date this long after the
		// request's subtest starts.
		retryDateIn time.Duration
		says        []string
	}{
		{name: "401", status: 401, body: `{"type":"ErrorResponse","error":{"status":401,"code":"UNAUTHORIZED","detail":"key ` + key + ` refused"}}`,
			kind: search.ErrUnauthorized, permanent: true, says: []string{"HTTP 401"}},
		{name: "422 invalid token", only: search.ProviderBrave, status: 422, body: fixture(t, "brave_error_token.json"),
			kind: search.ErrUnauthorized, permanent: true, says: []string{"SUBSCRIPTION_TOKEN_INVALID"}},
		{name: "429 with Retry-After", status: 429, header: http.Header{"Retry-After": {"7"}}, body: fixture(t, "brave_error_rate.json"),
			kind: search.ErrRateLimited, retry: 7 * time.Second, says: []string{"HTTP 429", "retry after 7s"}},
		{name: "429 with an HTTP date", status: 429, retryDateIn: 90 * time.Second,
			// The date is written when the subtest runs, not when the table is built: a parallel
			// subtest can wait a minute on a loaded machine. HTTP dates have whole seconds, and the
			// request itself may wait a few on a loaded machine: 80 to 90 s.
			kind: search.ErrRateLimited, retry: 80 * time.Second, slack: 10 * time.Second, says: []string{"rate limited"}},
		{name: "429 with Brave's reset header", status: 429, header: http.Header{"X-Ratelimit-Reset": {"1, 1419704"}, "X-Ratelimit-Remaining": {"0, 1943"}},
			kind: search.ErrRateLimited, retry: time.Second},
		{name: "429 quota exhausted", only: search.ProviderBrave, status: 429, body: `{"type":"ErrorResponse","error":{"status":429,"code":"QUOTA_LIMITED","detail":"Monthly quota exceeded."}}`,
			kind: search.ErrRateLimited, permanent: true, says: []string{"QUOTA_LIMITED"}},
		{name: "500", status: 500, body: "<html><body><h1>Internal Server Error</h1></body></html>",
			kind: search.ErrUnavailable, says: []string{"HTTP 500", "Internal Server Error"}},
		{name: "503", status: 503, kind: search.ErrUnavailable},
		{name: "400", status: 400, body: `{"type":"ErrorResponse","error":{"status":400,"code":"VALIDATION","detail":"Unable to validate request parameter(s)"}}`,
			kind: search.ErrRejected, permanent: true},
		{name: "malformed JSON", status: 200, body: `{"results": [{"url": "https://example.org", "title": `,
			kind: search.ErrBadResponse, says: []string{"malformed JSON"}},
		{name: "an HTML page with 200", status: 200, header: http.Header{"Content-Type": {"text/html"}}, body: "<!doctype html><title>Login</title>",
			kind: search.ErrBadResponse},
		{name: "JSON of another API", status: 200, body: `{"hello": "world"}`, kind: search.ErrBadResponse},
		{name: "huge body", status: 200, body: huge, kind: search.ErrBadResponse, says: []string{"larger than 65536 bytes"}},
	}
	for _, provider := range []string{search.ProviderSearxNG, search.ProviderBrave} {
		for _, tc := range cases {
			if tc.only != "" && tc.only != provider {
				continue
			}
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				header := tc.header
				if tc.retryDateIn > 0 {
					header = http.Header{"Retry-After": {time.Now().Add(tc.retryDateIn).UTC().Format(http.TimeFormat)}}
				}
				srv := newAPIServer(t, tc.status, header, tc.body)
				var seen []int
				var mu sync.Mutex
				web := search.WebOpts{MaxResponseBytes: 64 << 10, OnResponse: func(_ context.Context, status int, _ http.Header) {
					mu.Lock()
					seen = append(seen, status)
					mu.Unlock()
				}}
				var s search.Provider
				if provider == search.ProviderBrave {
					s = must(search.NewBrave(search.BraveOpts{APIKey: key, URL: srv.URL, WebOpts: web}))
				} else {
					s = must(search.NewSearxNG(search.SearxNGOpts{URL: srv.URL, WebOpts: web}))
				}
				resp, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "severn"})
				if err == nil {
					t.Fatalf("no error; results %+v", resp.Results)
				}
				if resp.Provider != provider || len(resp.Results) != 0 {
					t.Fatalf("response %+v", resp)
				}
				if !errors.Is(err, tc.kind) {
					t.Fatalf("%v is not %v", err, tc.kind)
				}
				var apiErr *search.APIError
				if !errors.As(err, &apiErr) || apiErr.Provider != provider || apiErr.StatusCode != tc.status {
					t.Fatalf("%v: no APIError of %s with status %d", err, provider, tc.status)
				}
				if pipeline.IsPermanent(err) != tc.permanent {
					t.Fatalf("%v: permanent %v, want %v", err, pipeline.IsPermanent(err), tc.permanent)
				}
				if retry := apiErr.RetryAfter; retry < tc.retry || retry > tc.retry+max(tc.slack, time.Second) || tc.retry == 0 && retry != 0 {
					t.Fatalf("%v: retry after %v, want %v", err, retry, tc.retry)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "search: "+provider+" at ") || (provider == search.ProviderBrave && strings.Contains(msg, key)) {
					t.Fatalf("message %q must name the provider and never the key", msg)
				}
				for _, want := range tc.says {
					if !strings.Contains(msg, want) {
						t.Fatalf("message %q does not say %q", msg, want)
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if len(seen) != 1 || seen[0] != tc.status {
					t.Fatalf("OnResponse saw %v", seen)
				}
			})
		}
	}
}

func TestSearxNGWithEveryEngineDownIsUnavailable(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t, http.StatusOK, nil, `{"query": "q", "number_of_results": 0, "results": [], "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": [["google", "timeout"], ["bing", "HTTP error"]]}`)
	s := must(search.NewSearxNG(search.SearxNGOpts{URL: srv.URL}))
	_, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q"})
	if !errors.Is(err, search.ErrUnavailable) || pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "google timeout; bing HTTP error") {
		t.Fatalf("got %v", err)
	}
}

func TestSearxNGForbiddenSaysToEnableJSON(t *testing.T) {
	t.Parallel()
	srv := newAPIServer(t, http.StatusForbidden, http.Header{"Content-Type": {"text/html"}}, "<html><title>403 Forbidden</title></html>")
	s := must(search.NewSearxNG(search.SearxNGOpts{URL: srv.URL}))
	_, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q"})
	if !errors.Is(err, search.ErrUnauthorized) || !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "settings.yml") {
		t.Fatalf("got %v", err)
	}
}

func TestWebProviderUnreachableOrSlow(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	for _, tc := range []struct {
		name, url, says string
	}{
		{"refused", closed.URL, "request failed"},
		{"timeout", slow.URL, "no answer within 100ms"},
	} {
		s := must(search.NewSearxNG(search.SearxNGOpts{URL: tc.url, WebOpts: search.WebOpts{Timeout: 100 * time.Millisecond}}))
		_, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q"})
		if !errors.Is(err, search.ErrUnavailable) || pipeline.IsPermanent(err) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v", tc.name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := must(search.NewSearxNG(search.SearxNGOpts{URL: slow.URL}))
	if _, err := s.Search(ctx, pipeline.SearchQuery{Query: "q"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

func TestWebProvidersNeedTheirSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		says string
	}{
		{"searxng without URL", second(search.NewSearxNG(search.SearxNGOpts{})), "not an http(s) URL"},
		{"searxng with a relative URL", second(search.NewSearxNG(search.SearxNGOpts{URL: "localhost:8080"})), "not an http(s) URL"},
		{"brave without key", second(search.NewBrave(search.BraveOpts{})), "BRAVE_API_KEY"},
		{"brave with a bad URL", second(search.NewBrave(search.BraveOpts{APIKey: "k", URL: "::"})), "not an http(s) URL"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.says) {
			t.Errorf("%s: got %v, want it to say %q", tc.name, tc.err, tc.says)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func second[T any](_ T, err error) error { return err }
