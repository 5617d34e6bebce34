package search

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Brave Search API settings.
const (
	ProviderBrave = "brave"
	// DefaultBraveURL is the web search endpoint.
	DefaultBraveURL = "https://api.search.brave.com/res/v1/web/search"
	// EnvBraveAPIKey is the one place the key comes from: keys do not belong on command lines.
	EnvBraveAPIKey = "BRAVE_API_KEY"
	// braveMaxCount is the most results one request returns; braveMaxQuery and braveMaxWords
	// bound the query the API takes.
	braveMaxCount = 20
	braveMaxQuery = 400
	braveMaxWords = 50
)

// braveLanguages maps ISO 639-1 codes to Brave's search_lang values where they differ; a code in
// neither this map nor braveSameLanguages is not sent (Brave rejects unknown ones).
var braveLanguages = map[string]string{"ja": "jp", "zh": "zh-hans", "pt": "pt-br", "no": "nb", "nn": "nb"}

var braveSameLanguages = map[string]bool{
	"ar": true, "eu": true, "bn": true, "bg": true, "ca": true, "hr": true, "cs": true, "da": true,
	"nl": true, "en": true, "et": true, "fi": true, "fr": true, "gl": true, "de": true, "gu": true,
	"he": true, "hi": true, "hu": true, "is": true, "it": true, "kn": true, "ko": true, "lv": true,
	"lt": true, "ms": true, "ml": true, "mr": true, "nb": true, "pl": true, "pa": true, "ro": true,
	"ru": true, "sr": true, "sk": true, "sl": true, "es": true, "sv": true, "ta": true, "te": true,
	"th": true, "tr": true, "uk": true, "vi": true,
}

// Brave searches with the Brave Search API (web search). It implements pipeline.Searcher.
//
// What the API offers is used: search_lang for the language, freshness as a custom date range
// (YYYY-MM-DDtoYYYY-MM-DD) for From and To, "-site:" operators for excluded domains (as many as
// the API's 400-character query allows). The rest is filtered after retrieval: excluded domains,
// URLs and publishers (profile.name), and dates known to be outside the range. The query is cut
// to the API's 50 words and 400 characters.
type Brave struct {
	endpoint string
	key      string
	web      webClient
	now      func() time.Time
}

// BraveOpts configures Brave.
type BraveOpts struct {
	// APIKey is sent as X-Subscription-Token; it comes from BRAVE_API_KEY.
	APIKey string
	// URL is the endpoint; empty means DefaultBraveURL (tests and proxies set it).
	URL string
	WebOpts
}

// NewBrave returns the Brave provider, or an error when the key is missing or the URL is bad.
func NewBrave(opts BraveOpts) (*Brave, error) {
	key := strings.TrimSpace(opts.APIKey)
	if key == "" {
		return nil, fmt.Errorf("search: Brave needs an API key: set %s", EnvBraveAPIKey)
	}
	endpoint := cmp.Or(strings.TrimSpace(opts.URL), DefaultBraveURL)
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("search: Brave URL %q is not an http(s) URL", opts.URL)
	}
	return &Brave{endpoint: endpoint, key: key, web: newWebClient(ProviderBrave, key, opts.WebOpts), now: time.Now}, nil
}

// Name returns ProviderBrave.
func (b *Brave) Name() string { return ProviderBrave }

// braveResponse is the part of the web search answer that is read.
type braveResponse struct {
	Type string `json:"type"`
	Web  *struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Age         string `json:"age"`
			PageAge     string `json:"page_age"`
			Language    string `json:"language"`
			MetaURL     struct {
				Hostname string `json:"hostname"`
			} `json:"meta_url"`
			Profile struct {
				Name string `json:"name"`
			} `json:"profile"`
		} `json:"results"`
	} `json:"web"`
}

// braveError is Brave's error body: {"type":"ErrorResponse","error":{"status","code","detail"}}.
type braveError struct {
	Error struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

// Search asks Brave for q.
func (b *Brave) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	resp := pipeline.SearchResponse{Provider: ProviderBrave}
	query := braveQuery(cleanQuery(q.Query), q.ExcludeDomains)
	if query == "" {
		return resp, nil
	}
	params := url.Values{}
	params.Set("q", query)
	params.Set("count", strconv.Itoa(braveMaxCount))
	params.Set("safesearch", "off")
	params.Set("text_decorations", "false")
	params.Set("result_filter", "web")
	if lang := braveLanguage(q.Language); lang != "" {
		params.Set("search_lang", lang)
	}
	if f := braveFreshness(q.From, q.To, b.now()); f != "" {
		params.Set("freshness", f)
	}
	req, err := http.NewRequest(http.MethodGet, b.endpoint+"?"+params.Encode(), nil)
	if err != nil {
		return resp, fmt.Errorf("search: brave: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", b.key)
	var body braveResponse
	if err := b.web.getJSON(ctx, req, &body, decodeBraveError); err != nil {
		return resp, err
	}
	if body.Type == "" && body.Web == nil {
		return resp, &APIError{Provider: ProviderBrave, Endpoint: b.endpoint, StatusCode: http.StatusOK,
			Kind: ErrBadResponse, Message: `neither "type" nor "web" in the answer`}
	}
	if body.Web == nil {
		return resp, nil // no web results for the query
	}
	now := b.now()
	in := make([]webResult, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		w := webResult{URL: r.URL, Title: r.Title, Snippet: r.Description, Domain: r.MetaURL.Hostname, Publisher: r.Profile.Name}
		if w.PublishedAt = looseDate(r.PageAge, now); w.PublishedAt == nil {
			w.PublishedAt = looseDate(r.Age, now)
		}
		in = append(in, w)
	}
	resp.Results = finish(ProviderBrave, q, in)
	return resp, nil
}

func decodeBraveError(body []byte) (code, message string) {
	var e braveError
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	return e.Error.Code, e.Error.Detail
}

// braveQuery is the q the API gets: the text cut to what the API takes, then "-site:"
// operators for the excluded domains while they fit (each is a word too); finish filters the
// domains that did not. "" when the text is empty.
func braveQuery(text string, excludeDomains []string) string {
	domains := normalizeDomains(excludeDomains)
	ops := min(len(domains), braveMaxWords/5)
	text = braveQueryText(text, braveMaxWords-ops)
	if text == "" {
		return ""
	}
	return text + siteExclusions(domains[:ops], braveMaxQuery-len(text))
}

// braveQueryText cuts text to maxWords words and the characters the API takes.
func braveQueryText(query string, maxWords int) string {
	words := strings.Fields(query)
	if len(words) > maxWords {
		words = words[:maxWords]
	}
	out := strings.Join(words, " ")
	for len(out) > braveMaxQuery && len(words) > 1 {
		words = words[:len(words)-1]
		out = strings.Join(words, " ")
	}
	if len(out) > braveMaxQuery {
		out = text.Truncate(out, braveMaxQuery)
	}
	return out
}

// braveLanguage is Brave's search_lang for an ISO 639-1 code, "" for none it knows.
func braveLanguage(language string) string {
	code := strings.ToLower(strings.TrimSpace(language))
	if i := strings.IndexAny(code, "-_"); i >= 0 {
		code = code[:i]
	}
	if l, ok := braveLanguages[code]; ok {
		return l
	}
	if braveSameLanguages[code] {
		return code
	}
	return ""
}

// braveFreshness is the custom range "FROMtoTO" (dates, inclusive) for [from, to); "" when both
// are open.
func braveFreshness(from, to, now time.Time) string {
	if from.IsZero() && to.IsZero() {
		return ""
	}
	start := "1970-01-01"
	if !from.IsZero() {
		start = from.UTC().Format(time.DateOnly)
	}
	end := now.UTC().Format(time.DateOnly)
	if !to.IsZero() {
		end = to.Add(-time.Nanosecond).UTC().Format(time.DateOnly)
	}
	return start + "to" + end
}
