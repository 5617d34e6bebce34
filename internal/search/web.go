package search

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit/retryafter"
)

// Kinds of web search failure, for errors.Is. Every failure with an HTTP answer is an *APIError
// that wraps one of them.
var (
	// ErrUnauthorized: the API refused the key (or, for SearxNG, the JSON format is off). It is
	// permanent: the error is also wrapped by pipeline.Permanent.
	ErrUnauthorized = errors.New("the search API refused the request's credentials")
	// ErrRateLimited: slow down; APIError.RetryAfter says for how long when the API said.
	ErrRateLimited = errors.New("the search API is rate limiting")
	// ErrUnavailable: a server error (5xx) or no answer; worth retrying later.
	ErrUnavailable = errors.New("the search API is unavailable")
	// ErrRejected: the API rejected the request itself (4xx): permanent.
	ErrRejected = errors.New("the search API rejected the request")
	// ErrBadResponse: an answer that is not the API's JSON, or too large.
	ErrBadResponse = errors.New("the search API sent a response that cannot be read")
)

// Defaults of the web providers.
const (
	DefaultTimeout = 15 * time.Second
	// DefaultMaxResponseBytes bounds a response body; a search page is tens of kilobytes.
	DefaultMaxResponseBytes = 4 << 20
)

// APIError is a web search call that got an HTTP answer it could not use: who answered, what
// status and code, what they said, and how long they asked the caller to wait.
type APIError struct {
	Provider string
	// Endpoint is the URL called, without its query string.
	Endpoint   string
	StatusCode int
	// Code is the API's own error code when it sent one (Brave: "SUBSCRIPTION_TOKEN_INVALID",
	// "RATE_LIMITED").
	Code    string
	Message string
	// RetryAfter is the wait the API asked for (Retry-After, or Brave's X-RateLimit-Reset), 0
	// when none.
	RetryAfter time.Duration
	// Kind is one of the Err sentinels.
	Kind error
}

func (e *APIError) Unwrap() error { return e.Kind }

func (e *APIError) Error() string {
	said := ""
	if e.StatusCode != 0 {
		said = fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	if e.Code != "" {
		said = strings.TrimSpace(said + " " + e.Code)
	}
	if e.Message != "" {
		if said != "" {
			said += ": "
		}
		said += e.Message
	}
	var what string
	switch e.Kind {
	case ErrUnauthorized:
		what = e.authAdvice()
	case ErrRateLimited:
		what = "rate limited"
		if e.RetryAfter > 0 {
			what += fmt.Sprintf("; retry after %s", roundWait(e.RetryAfter))
		}
		what += "; lower the search rate or raise the plan's limit"
	case ErrUnavailable:
		what = "unavailable; retry later"
	case ErrRejected:
		what = "the request was rejected; check the search configuration"
	case ErrBadResponse:
		what = "the response is not the API's JSON; check that the URL points at the API"
	default:
		what = "failed"
	}
	return fmt.Sprintf("search: %s at %s: %s (%s)", e.Provider, e.Endpoint, what, said)
}

func (e *APIError) authAdvice() string {
	switch e.Provider {
	case ProviderBrave:
		return "the API key was refused; check " + EnvBraveAPIKey
	case ProviderSearxNG:
		return "access denied; enable the json format in SearxNG's settings.yml (search: formats: [html, json]) and check any proxy in front of it"
	}
	return "access denied"
}

func roundWait(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// webClient is what the web providers share: the HTTP client, the body bound, the response
// hook.
type webClient struct {
	provider   string
	http       *http.Client
	maxBytes   int64
	timeout    time.Duration
	onResponse func(ctx context.Context, status int, header http.Header)
	// secret is removed from anything an error repeats, should a server echo it.
	secret string
}

// WebOpts are the settings every web provider takes.
type WebOpts struct {
	// HTTPClient makes the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Timeout bounds each request; 0 means DefaultTimeout. A sooner context deadline wins.
	Timeout time.Duration
	// MaxResponseBytes bounds a response body; 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// OnResponse, when set, sees every HTTP answer (status and header) before its body is read:
	// how a rate limiter sees rate-limit headers and every 429. It must return quickly and must
	// not keep the header.
	OnResponse func(ctx context.Context, status int, header http.Header)
}

func newWebClient(provider, secret string, o WebOpts) webClient {
	c := webClient{
		provider: provider, http: o.HTTPClient, maxBytes: cmp.Or(o.MaxResponseBytes, DefaultMaxResponseBytes),
		timeout: cmp.Or(o.Timeout, DefaultTimeout), onResponse: o.OnResponse, secret: secret,
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	return c
}

// getJSON sends req and decodes a 200 answer's JSON into out. Every failure is an *APIError
// (wrapped by pipeline.Permanent when retrying cannot help) or a transport error wrapping
// ErrUnavailable; decodeError reads the API's own error body.
func (c webClient) getJSON(ctx context.Context, req *http.Request, out any, decodeError func(body []byte) (code, message string)) error {
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req = req.WithContext(callCtx)
	endpoint := req.URL.Scheme + "://" + req.URL.Host + req.URL.Path
	resp, err := c.http.Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("search: %s at %s: %w", c.provider, endpoint, ctx.Err())
		case callCtx.Err() != nil:
			return fmt.Errorf("search: %s at %s: no answer within %s: %w", c.provider, endpoint, c.timeout, ErrUnavailable)
		}
		return fmt.Errorf("search: %s at %s: request failed (is it running and reachable?): %w: %w", c.provider, endpoint, ErrUnavailable, c.redactErr(err))
	}
	defer resp.Body.Close()
	if c.onResponse != nil {
		c.onResponse(ctx, resp.StatusCode, resp.Header)
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	apiErr := &APIError{Provider: c.provider, Endpoint: endpoint, StatusCode: resp.StatusCode}
	if readErr != nil {
		return fmt.Errorf("search: %s at %s: reading the response: %w: %w", c.provider, endpoint, ErrUnavailable, c.redactErr(readErr))
	}
	if int64(len(body)) > c.maxBytes {
		apiErr.Kind, apiErr.Message = ErrBadResponse, fmt.Sprintf("the response is larger than %d bytes", c.maxBytes)
		return apiErr
	}
	if resp.StatusCode != http.StatusOK {
		code, message := "", ""
		if decodeError != nil {
			code, message = decodeError(body)
		}
		if message == "" {
			message = strings.Join(strings.Fields(plainText(string(body), 300)), " ")
		}
		apiErr.Code, apiErr.Message = c.redact(code), c.redact(message)
		apiErr.RetryAfter = retryWait(resp.Header, time.Now())
		switch s := resp.StatusCode; {
		case s == http.StatusUnauthorized || s == http.StatusForbidden || strings.Contains(strings.ToUpper(code), "TOKEN"):
			apiErr.Kind = ErrUnauthorized
			return pipeline.Permanent(apiErr)
		case s == http.StatusTooManyRequests && strings.Contains(strings.ToUpper(code), "QUOTA"):
			apiErr.Kind = ErrRateLimited
			return pipeline.Permanent(apiErr)
		case s == http.StatusTooManyRequests:
			apiErr.Kind = ErrRateLimited
		case s >= 500:
			apiErr.Kind = ErrUnavailable
		case s == http.StatusRequestTimeout:
			apiErr.Kind = ErrUnavailable
		case s >= 400:
			apiErr.Kind = ErrRejected
			return pipeline.Permanent(apiErr)
		default:
			apiErr.Kind = ErrBadResponse
		}
		return apiErr
	}
	if err := json.Unmarshal(body, out); err != nil {
		apiErr.Kind = ErrBadResponse
		apiErr.Message = fmt.Sprintf("malformed JSON: %v (the body starts %q)", err, truncateRunes(strings.Join(strings.Fields(string(body)), " "), 80))
		apiErr.Message = c.redact(apiErr.Message)
		return apiErr
	}
	return nil
}

func (c webClient) redact(s string) string {
	if c.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, c.secret, "[redacted]")
}

func (c webClient) redactErr(err error) error {
	if c.secret == "" || !strings.Contains(err.Error(), c.secret) {
		return err
	}
	return errors.New(c.redact(err.Error()))
}

// retryWait is the wait a search API asked for: Retry-After-Ms or Retry-After, as
// retryafter.Parse reads them, else the first figure of Brave's X-RateLimit-Reset (seconds until
// its per-second window resets); 0 when none asks for a wait. Waits are capped at retryafter.Max.
func retryWait(h http.Header, now time.Time) time.Duration {
	if d := retryafter.Parse(h, now); d > 0 {
		return d
	}
	if v := h.Get("X-RateLimit-Reset"); v != "" {
		first, _, _ := strings.Cut(v, ",")
		if s, err := strconv.ParseFloat(strings.TrimSpace(first), 64); err == nil {
			return retryafter.Seconds(s)
		}
	}
	return 0
}

// webResult is a result as a web provider gives it, before filtering.
type webResult struct {
	URL, Title, Snippet, Domain, Publisher string
	PublishedAt                            *time.Time
	Score                                  float64
}

// finish turns a provider's results, in its order, into the answer to q: plain-text titles and
// snippets, http(s) URLs only, each URL once, and what the API could not be told to leave out
// left out after retrieval (excluded domains and their subdomains, URLs, publishers, dates known
// to be outside the range; a result of unknown date is kept, the API having applied its own
// date filter). At most the query's limit, ranked from 1.
func finish(provider string, q pipeline.SearchQuery, in []webResult) []pipeline.SearchResult {
	limit := q.Limit
	if limit <= 0 {
		limit = pipeline.DefaultSearchLimit
	}
	excluded := ExclusionsOf(q)
	seen := map[string]bool{}
	out := []pipeline.SearchResult{}
	for _, r := range in {
		if len(out) == limit {
			break
		}
		if len(r.URL) > maxURLBytes {
			continue
		}
		u, err := NormalizeURL(r.URL)
		if err != nil || seen[u] {
			continue
		}
		seen[u] = true
		domain := Domain(u)
		if r.Domain != "" {
			domain = Domain(r.Domain)
		}
		publisher := plainText(r.Publisher, maxTitleRunes)
		if excluded.Exclude(u, domain, publisher) {
			continue
		}
		if t := r.PublishedAt; t != nil && ((!q.From.IsZero() && t.Before(q.From)) || (!q.To.IsZero() && !t.Before(q.To))) {
			continue
		}
		out = append(out, pipeline.SearchResult{
			URL: u, Title: plainText(r.Title, maxTitleRunes), Snippet: plainText(r.Snippet, maxSnippetRunes),
			Domain: domain, Publisher: publisher, PublishedAt: r.PublishedAt, Provider: provider,
			Rank: len(out) + 1, Score: r.Score,
		})
	}
	return out
}

// Exclusions are a query's exclusions made ready to test results against: its domains
// normalised, its URLs with their variants (urlVariants), its publishers in lower case. A
// provider that cannot apply them all, and a harness that makes results of its own (evaluate's
// oracle), test each result with Exclude.
type Exclusions struct {
	domains    []string
	urls       map[string]bool
	publishers []string
}

// ExclusionsOf is q's exclusions, ready to test.
func ExclusionsOf(q pipeline.SearchQuery) Exclusions {
	e := Exclusions{domains: normalizeDomains(q.ExcludeDomains), urls: map[string]bool{}, publishers: lowerAll(q.ExcludePublishers)}
	for _, u := range q.ExcludeURLs {
		for _, v := range urlVariants(u) {
			e.urls[v] = true
		}
	}
	return e
}

// Exclude reports whether a result at normalisedURL (NormalizeURL), on domain ("" for its
// URL's), by publisher ("" for none), is excluded: its URL or a variant of it, its domain or
// its URL's, or a domain either is under, or its publisher.
func (e Exclusions) Exclude(normalisedURL, domain, publisher string) bool {
	return e.urls[normalisedURL] || domainExcluded(domain, e.domains) || domainExcluded(Domain(normalisedURL), e.domains) ||
		publisher != "" && slices.Contains(e.publishers, strings.ToLower(publisher))
}

func domainExcluded(domain string, excluded []string) bool {
	for _, e := range excluded {
		if domain == e || strings.HasSuffix(domain, "."+e) {
			return true
		}
	}
	return false
}

// siteExclusions returns "-site:" operators for the domains, as many as fit in room bytes; the
// ones that do not fit are left to finish.
func siteExclusions(domains []string, room int) string {
	var b strings.Builder
	for _, d := range normalizeDomains(domains) {
		op := " -site:" + d
		if b.Len()+len(op) > room {
			break
		}
		b.WriteString(op)
	}
	return b.String()
}

// looseDate reads the dates web APIs send: RFC 3339, ISO 8601 without a zone (read as UTC), a
// plain date, "January 2, 2006", or a relative age such as "3 days ago" (from now). nil when it
// is none of these.
func looseDate(s string, now time.Time) *time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", time.DateOnly, "January 2, 2006", "Jan 2, 2006", "2 January 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 3 && f[2] == "ago" {
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 0 || n > 10000 {
			return nil
		}
		unit := map[string]time.Duration{"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "year": 365 * 24 * time.Hour}[strings.TrimSuffix(f[1], "s")]
		if unit == 0 {
			return nil
		}
		t := now.Add(-time.Duration(n) * unit).UTC()
		return &t
	}
	return nil
}
