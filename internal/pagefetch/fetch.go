// Package pagefetch reads the web pages behind search results, safely: it implements
// pipeline.PageReader over HTTP. The URLs come from the web and the statements that led to them
// are untrusted, so every read is bounded and fenced in by construction:
//
//   - only http and https, only public addresses: the address policy (PublicOnly) is applied by
//     the dialer to the IP a socket is about to connect to, after DNS, for the page, each
//     redirect and robots.txt alike, so that neither a redirect nor DNS rebinding reaches
//     loopback, private, link-local (cloud metadata), CGNAT or other internal addresses; no proxy
//     from the environment is used (it would be the address checked, not the page's);
//   - limits on the body's size, the read's total time (robots.txt included) and the redirects
//     followed (a loop ends there);
//   - robots.txt honoured for the User-Agent, which names the project;
//   - a per-host rate limit (ratelimit.Hosts), learning from each site's 429s as the model's
//     and the search provider's limits do;
//   - a page cache keyed by URL with a freshness window, so that a page many claims cite is
//     fetched once.
//
// The main text is extracted with codeberg.org/readeck/go-readability/v2 (HTML) and
// github.com/ledongthuc/pdf (PDF); plain text is taken as it is.
package pagefetch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit"
)

// UserAgent names the project to the sites it reads, with where to learn what it is.
const UserAgent = "Corroborate/1 (+https://github.com/corroborate/corroborate)"

// Defaults of Config, applied by New.
const (
	DefaultMaxBytes     = 5 << 20
	DefaultTimeout      = 15 * time.Second
	DefaultMaxRedirects = 5
	DefaultCacheTTL     = 24 * time.Hour
	// DefaultCacheBytes bounds the text the page cache holds.
	DefaultCacheBytes = 64 << 20
	// robotsTTL is how long a site's robots.txt is trusted, as crawlers commonly do.
	robotsTTL = 24 * time.Hour
	// maxRobotsBytes bounds a robots.txt (Google reads the first 500 KiB).
	maxRobotsBytes = 500 << 10
)

// Config configures a Fetcher. The zero value is a production Fetcher with no per-host limit.
type Config struct {
	// UserAgent is sent with every request and matched against robots.txt; "" means UserAgent.
	UserAgent string
	// MaxBytes bounds a page's body; 0 means DefaultMaxBytes. A larger page is PageTooLarge.
	MaxBytes int64
	// Timeout bounds one read, robots.txt, redirects and body included; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRedirects bounds the redirects one read follows; 0 means DefaultMaxRedirects, negative
	// means none.
	MaxRedirects int
	// CacheTTL is how long a page read stays fresh in the cache; 0 means DefaultCacheTTL,
	// negative turns the cache off. CacheBytes bounds the text it holds; 0 means
	// DefaultCacheBytes.
	CacheTTL   time.Duration
	CacheBytes int
	// Hosts, when set, limits the requests to each host (robots.txt and redirects included).
	Hosts *ratelimit.Hosts
	// Policy decides which addresses may be reached; nil means PublicOnly. Tests allow their
	// own httptest server's address and keep PublicOnly for every other.
	Policy AddressPolicy
	// Resolve, when set, resolves host names instead of the system resolver, for tests that
	// point a name at an address. The policy applies to what it returns as to any address.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Now tells the time of a fetch and of the cache; nil means time.Now.
	Now func() time.Time
}

// withDefaults returns c with every unset field at its default: the one place defaults live.
func (c Config) withDefaults() Config {
	c.UserAgent = cmp.Or(c.UserAgent, UserAgent)
	c.MaxBytes = cmp.Or(c.MaxBytes, DefaultMaxBytes)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.MaxRedirects = cmp.Or(c.MaxRedirects, DefaultMaxRedirects)
	c.CacheTTL = cmp.Or(c.CacheTTL, DefaultCacheTTL)
	c.CacheBytes = cmp.Or(c.CacheBytes, DefaultCacheBytes)
	if c.Policy == nil {
		c.Policy = PublicOnly
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate lists every problem of c in one error.
func (c Config) Validate() error {
	var problems []string
	if c.MaxBytes < 0 {
		problems = append(problems, fmt.Sprintf("max bytes %d is negative", c.MaxBytes))
	}
	if c.Timeout < 0 {
		problems = append(problems, fmt.Sprintf("timeout %s is negative", c.Timeout))
	}
	if c.CacheBytes < 0 {
		problems = append(problems, fmt.Sprintf("cache bytes %d is negative", c.CacheBytes))
	}
	if len(problems) > 0 {
		return fmt.Errorf("page fetching: invalid configuration: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Fetcher reads pages under its Config. It is safe for concurrent use; make one per worker, so
// that its cache and robots.txt knowledge serve every job.
type Fetcher struct {
	cfg    Config
	client *http.Client
	cache  *pageCache
	robots *robotsCache
}

// Errors the redirect check returns, classified into Page failures.
var (
	errTooManyRedirects = errors.New("too many redirects")
	errSchemeRefused    = errors.New("scheme refused")
	errRobots           = errors.New("disallowed by robots.txt")
)

// New returns a Fetcher for cfg, after applying defaults and checking the result.
func New(cfg Config) (*Fetcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	dialer := &net.Dialer{Timeout: cfg.Timeout, Control: control(cfg.Policy)}
	dial := dialer.DialContext
	if cfg.Resolve != nil {
		dial = resolvingDial(dialer, cfg.Resolve)
	}
	transport := &http.Transport{
		// No proxy: with one, the dialer would check the proxy's address, not the page's.
		Proxy:                 nil,
		DialContext:           dial,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	f := &Fetcher{cfg: cfg, cache: newPageCache(cfg.CacheTTL, cfg.CacheBytes), robots: newRobotsCache()}
	f.client = &http.Client{
		Transport:     limitedTransport{next: transport, hosts: cfg.Hosts},
		CheckRedirect: f.checkRedirect,
	}
	return f, nil
}

// resolvingDial dials through resolve instead of the system resolver: each address it returns
// is dialled in turn, through dialer, whose Control applies the policy to it.
func resolvingDial(dialer *net.Dialer, resolve func(context.Context, string) ([]netip.Addr, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return dialer.DialContext(ctx, network, address)
		}
		addrs, err := resolve(ctx, host)
		if err != nil {
			return nil, &net.DNSError{Err: err.Error(), Name: host}
		}
		var first error
		for _, a := range addrs {
			conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return conn, nil
			}
			first = cmp.Or(first, err)
		}
		return nil, cmp.Or(first, error(&net.DNSError{Err: "no addresses", Name: host}))
	}
}

// checkRedirect bounds the redirects of a read and holds each to the rules of the first request:
// http or https, and robots.txt of the site it leads to. The address policy needs no check here:
// the dialer applies it to every connection.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > max(f.cfg.MaxRedirects, 0) {
		return fmt.Errorf("%w: more than %d redirects, the last to %s", errTooManyRedirects, max(f.cfg.MaxRedirects, 0), req.URL.Redacted())
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: a redirect to %s", errSchemeRefused, req.URL.Redacted())
	}
	if !f.robotsAllow(req.Context(), req.URL) {
		return fmt.Errorf("%w: a redirect to %s", errRobots, req.URL.Redacted())
	}
	return nil
}

// ReadPage fetches rawURL and extracts its main text; see the package comment for the rules.
// A page that cannot be read comes back with its Failure and Error set.
func (f *Fetcher) ReadPage(ctx context.Context, rawURL string) pipeline.Page {
	return f.read(ctx, rawURL, false)
}

// Fresh returns a reader over f that never answers from the page cache (but refreshes it): a
// re-verification checks the world now, not a page read yesterday.
func (f *Fetcher) Fresh() pipeline.PageReader { return freshReader{f} }

type freshReader struct{ f *Fetcher }

func (r freshReader) ReadPage(ctx context.Context, rawURL string) pipeline.Page {
	return r.f.read(ctx, rawURL, true)
}

// read is ReadPage, with the cache skipped when fresh is set.
func (f *Fetcher) read(ctx context.Context, rawURL string, fresh bool) pipeline.Page {
	page := pipeline.Page{URL: rawURL}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	switch {
	case err != nil || u.Host == "":
		return failed(page, pipeline.PageSchemeRefused, fmt.Sprintf("%q is not an absolute URL", rawURL))
	case u.Scheme != "http" && u.Scheme != "https":
		return failed(page, pipeline.PageSchemeRefused, fmt.Sprintf("%s: only http and https pages are read", u.Redacted()))
	}
	u.Fragment, u.RawFragment = "", ""
	key := u.String()
	now := f.cfg.Now()
	if cached, ok := f.cache.get(key, now); ok && !fresh {
		cached.URL, cached.Cached = rawURL, true
		return cached
	}
	page.FetchedAt = now

	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	if !f.robotsAllow(ctx, u) {
		if ctx.Err() != nil {
			return failed(page, pipeline.PageTimeout, fmt.Sprintf("%s: robots.txt not read within %s", u.Redacted(), f.cfg.Timeout))
		}
		return failed(page, pipeline.PageRobotsDisallowed, fmt.Sprintf("%s: the site's robots.txt disallows it for %s", u.Redacted(), f.cfg.UserAgent))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, key, nil)
	if err != nil {
		return failed(page, pipeline.PageSchemeRefused, fmt.Sprintf("%s: %v", u.Redacted(), err))
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8")
	resp, err := f.client.Do(req)
	if err != nil {
		return failed(page, classify(err), err.Error())
	}
	defer resp.Body.Close()
	page.Status, page.FinalURL = resp.StatusCode, resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return failed(page, pipeline.PageHTTPError, fmt.Sprintf("%s answered %s", page.FinalURL, resp.Status))
	}
	if resp.ContentLength > f.cfg.MaxBytes {
		return failed(page, pipeline.PageTooLarge, fmt.Sprintf("%s is %d bytes, more than the limit of %d", page.FinalURL, resp.ContentLength, f.cfg.MaxBytes))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return failed(page, classify(err), fmt.Sprintf("reading %s: %v", page.FinalURL, err))
	}
	if int64(len(body)) > f.cfg.MaxBytes {
		return failed(page, pipeline.PageTooLarge, fmt.Sprintf("%s is larger than the limit of %d bytes; reading stopped there", page.FinalURL, f.cfg.MaxBytes))
	}
	text, mediaType, err := extractText(body, resp.Header.Get("Content-Type"), resp.Request.URL)
	page.ContentType = mediaType
	if err != nil {
		reason := pipeline.PageNoText
		if errors.Is(err, errUnsupportedType) {
			reason = pipeline.PageUnsupportedType
		}
		return failed(page, reason, fmt.Sprintf("%s: %v", page.FinalURL, err))
	}
	sum := sha256.Sum256([]byte(text))
	page.Text, page.TextSHA256 = text, hex.EncodeToString(sum[:])
	f.cache.put(key, page)
	return page
}

func failed(p pipeline.Page, reason, msg string) pipeline.Page {
	p.Failure, p.Error = reason, msg
	return p
}

// classify says why a request failed, in the words of pipeline.Page.Failure.
func classify(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, errAddressRefused):
		return pipeline.PageAddressRefused
	case errors.Is(err, errTooManyRedirects):
		return pipeline.PageTooManyRedirects
	case errors.Is(err, errSchemeRefused):
		return pipeline.PageSchemeRefused
	case errors.Is(err, errRobots):
		return pipeline.PageRobotsDisallowed
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return pipeline.PageTimeout
	}
	return pipeline.PageNetworkError
}

// limitedTransport sends each request within its host's Limiter, and lets the Limiter see the
// response, so that a site's 429 and Retry-After pace the next requests to that site.
type limitedTransport struct {
	next  http.RoundTripper
	hosts *ratelimit.Hosts
}

func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	l := t.hosts.For(req.URL.Hostname())
	if l == nil {
		return t.next.RoundTrip(req)
	}
	var resp *http.Response
	err := l.Do(req.Context(), 0, func(ctx context.Context) (int64, error) {
		if resp != nil {
			resp.Body.Close() // a 429 Do retries
			resp = nil
		}
		var err error
		resp, err = t.next.RoundTrip(req.WithContext(ctx))
		if err != nil {
			return 0, err
		}
		l.ObserveResponse(ctx, resp.StatusCode, resp.Header)
		if resp.StatusCode == http.StatusTooManyRequests {
			// Do pauses the site and retries only a call that failed with a 429.
			return 0, errRateLimited
		}
		return 0, nil
	})
	switch {
	case errors.Is(err, errRateLimited) && resp != nil:
		// Still refused after the retries: the page's answer is the site's 429 (http_error).
		return resp, nil
	case err != nil:
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	return resp, nil
}

// errRateLimited is a site's 429, as the host's Limiter must see it: a failed call.
var errRateLimited = errors.New("the site answered 429 Too Many Requests")

// hostKey is what robots.txt is kept by: scheme, host and port, as RFC 9309 scopes it.
func hostKey(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
