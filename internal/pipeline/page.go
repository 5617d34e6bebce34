package pipeline

import (
	"context"
	"time"
)

// PageReader reads the page behind a search result: it fetches the URL and returns the page's
// main text, or says why it could not. internal/pagefetch implements it over HTTP, under its
// safety rules (public addresses only, robots.txt, size, time and redirect limits); the methods
// call it for the results a hop keeps, so that the judge reads the page, not the snippet.
//
// ReadPage never returns an error: a page that could not be read is a Page with its Failure
// set, which is evidence of what was tried, stored with the run like a page that was read.
type PageReader interface {
	ReadPage(ctx context.Context, url string) Page
}

// Why a page was not read (Page.Failure). The words are stored in evidence.page_failure.
const (
	// PageAddressRefused: the URL's host is, or resolved to, a loopback, private, link-local,
	// metadata, multicast or otherwise non-public address (checked at connect time, redirects
	// included).
	PageAddressRefused = "address_refused"
	// PageSchemeRefused: the URL (or a redirect) is not an absolute http or https URL.
	PageSchemeRefused = "scheme_refused"
	// PageRobotsDisallowed: the site's robots.txt disallows the path for our User-Agent.
	PageRobotsDisallowed = "robots_disallowed"
	// PageTooLarge: the body is larger than the size limit.
	PageTooLarge = "too_large"
	// PageTimeout: the page (robots.txt included) took longer than the time limit.
	PageTimeout = "timeout"
	// PageTooManyRedirects: more redirects than the limit (a loop ends here too).
	PageTooManyRedirects = "too_many_redirects"
	// PageHTTPError: the server answered with a status other than 2xx.
	PageHTTPError = "http_error"
	// PageUnsupportedType: the body is neither HTML, PDF nor plain text.
	PageUnsupportedType = "unsupported_type"
	// PageNoText: the page was read but its main text could not be extracted (empty, or a
	// document the extractor cannot parse).
	PageNoText = "no_text"
	// PageNetworkError: the connection failed (DNS, refused, reset, TLS).
	PageNetworkError = "network_error"
)

// Page is what reading one URL gave: the page's main text with where and when it was read, or
// the reason it was not.
type Page struct {
	// URL is the URL asked for; FinalURL the one the text came from, after redirects.
	URL, FinalURL string
	// Status is the final HTTP status, 0 when no response came.
	Status int
	// ContentType is the response's media type ("text/html", "application/pdf").
	ContentType string
	// FetchedAt is when the page was fetched (the first time, for a page from the cache).
	FetchedAt time.Time
	// Text is the page's main text, plain: paragraphs separated by blank lines.
	Text string
	// TextSHA256 is the hex SHA-256 of Text, so that a verdict says which text it read.
	TextSHA256 string
	// Failure is one of the Page* reasons when the page was not read, "" when it was; Error
	// says what happened in words.
	Failure string
	Error   string
	// Cached is true when the page came from the page cache.
	Cached bool
}

// Read reports whether the page's text was read.
func (p Page) Read() bool { return p.Failure == "" && p.Text != "" }

// Passage is a part of a page's main text, with its byte offsets [Start, End) in Page.Text.
type Passage struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Text  string `json:"text"`
}
