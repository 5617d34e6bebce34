package pagefetch

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit"
)

// site is a local test server the fetcher may reach: the policy allows its one address and
// port, and keeps PublicOnly for every other, so that a redirect to any other local address is
// refused as it would be in production.
type site struct {
	*httptest.Server
	hits    atomic.Int64 // requests other than robots.txt
	agents  sync.Map     // User-Agent headers seen
	robots  string       // robots.txt body; "" answers 404
	handler http.HandlerFunc
}

func newSite(t *testing.T, robots string, handler http.HandlerFunc) *site {
	t.Helper()
	s := &site{robots: robots, handler: handler}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.agents.Store(r.UserAgent(), true)
		if r.URL.Path == "/robots.txt" {
			if s.robots == "" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprint(w, s.robots)
			return
		}
		s.hits.Add(1)
		s.handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) addr(t *testing.T) netip.AddrPort {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// allowing is PublicOnly plus the given test servers.
func allowing(addrs ...netip.AddrPort) AddressPolicy {
	return func(a netip.AddrPort) bool {
		for _, ok := range addrs {
			if a == ok {
				return true
			}
		}
		return PublicOnly(a)
	}
}

// fakeNow is a clock tests move by hand.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeNow) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeNow) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var epoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func newFetcher(t *testing.T, cfg Config) *Fetcher {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = (&fakeNow{t: epoch}).Now
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const articleHTML = `<!doctype html><html><head><title>Bridge history</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a> | Subscribe now!</nav>
<article><h1>The history of the bridge</h1>
<p>The bridge was designed by a team of engineers over several years, and its plans changed many times before construction began in the spring.</p>
<p>Work went on through two hard winters. The crews worked in shifts around the clock, and the steel came by rail from mills far to the east of the river.</p>
<p>The main span was completed on 14 May 1937, and the bridge opened to traffic two weeks later after a ceremony attended by thousands.</p>
</article>
<footer>Copyright the bridge society. Cookie settings.</footer></body></html>`

func TestReadPageExtractsTheMainText(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/article", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	f := newFetcher(t, Config{Policy: allowing(s.addr(t))})
	p := f.ReadPage(context.Background(), s.URL+"/old#top")
	if p.Failure != "" {
		t.Fatalf("the page was not read: %s: %s", p.Failure, p.Error)
	}
	if !strings.Contains(p.Text, "The main span was completed on 14 May 1937") {
		t.Errorf("the deciding sentence is not in the text:\n%s", p.Text)
	}
	if strings.Contains(p.Text, "Cookie settings") || strings.Contains(p.Text, "Subscribe now") {
		t.Errorf("boilerplate was kept:\n%s", p.Text)
	}
	if p.Status != 200 || p.FinalURL != s.URL+"/article" || p.ContentType != "text/html" || !p.FetchedAt.Equal(epoch) {
		t.Errorf("status %d, final URL %q, type %q, fetched at %s", p.Status, p.FinalURL, p.ContentType, p.FetchedAt)
	}
	if len(p.TextSHA256) != 64 || p.URL != s.URL+"/old#top" {
		t.Errorf("hash %q, URL %q", p.TextSHA256, p.URL)
	}
	if _, ok := s.agents.Load(UserAgent); !ok {
		t.Errorf("the User-Agent %q, naming the project, was not sent", UserAgent)
	}
}

func TestReadPageRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	// internal is a service on loopback that no read may reach: its port is not the allowed one.
	var internalHits atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		internalHits.Add(1)
		fmt.Fprint(w, "secret credentials")
	}))
	t.Cleanup(internal.Close)
	internalPort := internal.Listener.Addr().(interface{ String() string }).String()
	_, port, _ := strings.Cut(internalPort, ":")

	redirectTo := map[string]string{
		"/to-loopback": internal.URL + "/",
		"/to-10":       "http://10.0.0.1/admin",
		"/to-metadata": "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
		"/to-rebind":   "http://rebind.test:" + port + "/",
		"/to-ipv6-ula": "http://[fd00::1]/",
		"/to-mapped":   "http://[::ffff:127.0.0.1]:" + port + "/",
		"/to-cgnat":    "http://100.64.0.1/",
		"/to-file":     "file:///etc/passwd",
	}
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, redirectTo[r.URL.Path], http.StatusFound)
	})
	// rebind.test resolves to loopback, as a name an attacker controls can.
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "rebind.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), Resolve: resolve, Timeout: 5 * time.Second})
	cases := []struct {
		url, want string
	}{
		{s.URL + "/to-loopback", pipeline.PageAddressRefused},
		{s.URL + "/to-10", pipeline.PageAddressRefused},
		{s.URL + "/to-metadata", pipeline.PageAddressRefused},
		{s.URL + "/to-rebind", pipeline.PageAddressRefused},
		{s.URL + "/to-ipv6-ula", pipeline.PageAddressRefused},
		{s.URL + "/to-mapped", pipeline.PageAddressRefused},
		{s.URL + "/to-cgnat", pipeline.PageAddressRefused},
		{s.URL + "/to-file", pipeline.PageSchemeRefused},
		{internal.URL + "/", pipeline.PageAddressRefused},
		{"http://rebind.test:" + port + "/", pipeline.PageAddressRefused},
		{"http://169.254.169.254/latest/meta-data/", pipeline.PageAddressRefused},
		{"ftp://example.org/file", pipeline.PageSchemeRefused},
	}
	for _, c := range cases {
		p := f.ReadPage(context.Background(), c.url)
		if p.Failure != c.want || p.Text != "" {
			t.Errorf("%s: failure %q (%s), want %q", c.url, p.Failure, p.Error, c.want)
		}
		if p.Error == "" {
			t.Errorf("%s: no error message recorded", c.url)
		}
	}
	// The system resolver too: localhost resolves to loopback, refused at connect time.
	system := newFetcher(t, Config{Policy: allowing(s.addr(t)), Timeout: 5 * time.Second})
	for _, u := range []string{"http://localhost:" + port + "/", s.URL + "/to-loopback"} {
		if p := system.ReadPage(context.Background(), u); p.Failure != pipeline.PageAddressRefused {
			t.Errorf("%s with the system resolver: failure %q (%s), want address_refused", u, p.Failure, p.Error)
		}
	}
	if n := internalHits.Load(); n != 0 {
		t.Errorf("the internal service was reached %d times", n)
	}
}

func TestPublicOnly(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"93.184.215.14:80": true, "[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443": true,
		"127.0.0.1:80": false, "127.8.9.1:80": false, "[::1]:80": false, "10.1.2.3:80": false,
		"172.16.0.1:80": false, "192.168.1.1:80": false, "169.254.169.254:80": false, "[fe80::1]:80": false,
		"[fc00::1]:80": false, "[fd12::1]:80": false, "0.0.0.0:80": false, "[::]:80": false,
		"224.0.0.1:80": false, "[ff02::1]:80": false, "100.64.0.1:80": false, "100.127.255.254:80": false,
		"[::ffff:10.0.0.1]:80": false, "[::ffff:8.8.8.8]:53": true, "255.255.255.255:80": false,
		"[64:ff9b::7f00:1]:80": false, "[2002:7f00:1::]:80": false,
	} {
		if got := PublicOnly(netip.MustParseAddrPort(addr)); got != want {
			t.Errorf("PublicOnly(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestReadPageBoundsALargePage(t *testing.T) {
	t.Parallel()
	const pageBytes = 50_000_000
	var written atomic.Int64
	chunk := bytes.Repeat([]byte("<p>filler text of a very large page</p>\n"), 1024)
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", fmt.Sprint(pageBytes))
		}
		for written.Load() < pageBytes {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	// The default limit, 5 MiB, against a 50 MB page.
	f := newFetcher(t, Config{Policy: allowing(s.addr(t))})
	for _, path := range []string{"/streamed", "/declared"} {
		written.Store(0)
		start := time.Now()
		p := f.ReadPage(context.Background(), s.URL+path)
		if p.Failure != pipeline.PageTooLarge || p.Text != "" {
			t.Errorf("%s: a 50 MB page: failure %q (%s), want too_large", path, p.Failure, p.Error)
		}
		// Figures, not assertions: what the server managed to write before the read stopped
		// depends on socket buffers.
		t.Logf("%s: refused after %s; the server had written %.1f MB of %d MB", path, time.Since(start).Round(time.Millisecond),
			float64(written.Load())/1e6, pageBytes/1_000_000)
	}
}

func TestReadPageBoundsASlowPage(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(200)
		for {
			if _, err := fmt.Fprint(w, "<p>a byte at a time</p>"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), Timeout: 300 * time.Millisecond})
	start := time.Now()
	p := f.ReadPage(context.Background(), s.URL+"/slow")
	if p.Failure != pipeline.PageTimeout {
		t.Errorf("a page that never ends: failure %q (%s), want timeout", p.Failure, p.Error)
	}
	// A generous bound: the point is that the read ends near its limit, not with the page.
	d := time.Since(start)
	if d > 5*time.Second {
		t.Errorf("the read took %s with a limit of 300ms", d)
	}
	t.Logf("a page that never ends: refused as %s after %s (limit 300ms)", p.Failure, d.Round(time.Millisecond))
}

func TestReadPageBoundsARedirectLoop(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		next := map[string]string{"/a": "/b", "/b": "/a"}[r.URL.Path]
		http.Redirect(w, r, next, http.StatusFound)
	})
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), MaxRedirects: 5})
	p := f.ReadPage(context.Background(), s.URL+"/a")
	if p.Failure != pipeline.PageTooManyRedirects {
		t.Errorf("a redirect loop: failure %q (%s), want too_many_redirects", p.Failure, p.Error)
	}
	if n := s.hits.Load(); n != 6 {
		t.Errorf("the loop was followed %d times, want the first request and 5 redirects", n)
	}
}

func TestReadPageHonoursRobots(t *testing.T) {
	t.Parallel()
	s := newSite(t, "User-agent: *\nAllow: /\n\nUser-agent: Corroborate\nDisallow: /private\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-private" {
			http.Redirect(w, r, "/private/redirected", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "The main span was completed on 14 May 1937.")
	})
	f := newFetcher(t, Config{Policy: allowing(s.addr(t))})
	for _, path := range []string{"/private/page", "/to-private"} {
		p := f.ReadPage(context.Background(), s.URL+path)
		if p.Failure != pipeline.PageRobotsDisallowed {
			t.Errorf("%s: failure %q (%s), want robots_disallowed", path, p.Failure, p.Error)
		}
	}
	if n := s.hits.Load(); n != 1 {
		t.Errorf("the disallowed pages were requested: %d requests, want only the redirect", n)
	}
	if p := f.ReadPage(context.Background(), s.URL+"/public"); p.Failure != "" || !strings.Contains(p.Text, "14 May 1937") {
		t.Errorf("an allowed page: %q (%s), text %q", p.Failure, p.Error, p.Text)
	}
}

// A redirect to another site is held to that site's robots.txt.
func TestReadPageHonoursRobotsOfARedirectsSite(t *testing.T) {
	t.Parallel()
	other := newSite(t, "User-agent: *\nDisallow: /private/\n", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "must not be read")
	})
	first := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/private/page", http.StatusFound)
	})
	f := newFetcher(t, Config{Policy: allowing(first.addr(t), other.addr(t))})
	if p := f.ReadPage(context.Background(), first.URL+"/moved"); p.Failure != pipeline.PageRobotsDisallowed {
		t.Errorf("a redirect to a page the other site disallows: %q (%s)", p.Failure, p.Error)
	}
	if n := other.hits.Load(); n != 0 {
		t.Errorf("the other site's disallowed page was requested %d times", n)
	}
}

func TestReadPageCachesForTheFreshnessWindow(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "The main span was completed on 14 May 1937.")
	})
	clock := &fakeNow{t: epoch}
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), CacheTTL: time.Hour, Now: clock.Now})
	first := f.ReadPage(context.Background(), s.URL+"/p")
	clock.Advance(59 * time.Minute)
	second := f.ReadPage(context.Background(), s.URL+"/p")
	if s.hits.Load() != 1 || first.Cached || !second.Cached || !second.FetchedAt.Equal(epoch) || second.TextSHA256 != first.TextSHA256 {
		t.Errorf("within the window: %d requests, cached %v then %v, fetched at %s", s.hits.Load(), first.Cached, second.Cached, second.FetchedAt)
	}
	clock.Advance(2 * time.Minute)
	third := f.ReadPage(context.Background(), s.URL+"/p")
	if s.hits.Load() != 2 || third.Cached || !third.FetchedAt.Equal(epoch.Add(61*time.Minute)) {
		t.Errorf("past the window: %d requests, cached %v, fetched at %s", s.hits.Load(), third.Cached, third.FetchedAt)
	}
}

func TestFreshSkipsTheCacheAndRefreshesIt(t *testing.T) {
	t.Parallel()
	var version atomic.Int64
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "Version %d of the page.", version.Add(1))
	})
	f := newFetcher(t, Config{Policy: allowing(s.addr(t))})
	first := f.ReadPage(context.Background(), s.URL+"/p")
	fresh := f.Fresh().ReadPage(context.Background(), s.URL+"/p")
	after := f.ReadPage(context.Background(), s.URL+"/p")
	if first.Text != "Version 1 of the page." || fresh.Cached || fresh.Text != "Version 2 of the page." || !after.Cached || after.Text != fresh.Text {
		t.Errorf("first %q, fresh %q (cached %v), then %q (cached %v)", first.Text, fresh.Text, fresh.Cached, after.Text, after.Cached)
	}
}

func TestReadPageGoesThroughTheHostsLimiter(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "The main span was completed on 14 May 1937.")
	})
	hosts, err := ratelimit.NewHosts(ratelimit.Config{Name: "page", RequestsPerMinute: 6000})
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), Hosts: hosts, CacheTTL: -1})
	for range 3 {
		if p := f.ReadPage(context.Background(), s.URL+"/p"); p.Failure != "" {
			t.Fatalf("%s: %s", p.Failure, p.Error)
		}
	}
	// robots.txt once (it is kept), the page three times (the cache is off).
	if st := hosts.For("127.0.0.1").Stats(); st.Calls != 4 || st.Succeeded != 4 {
		t.Errorf("the host's limiter saw %d calls (%d succeeded), want 4", st.Calls, st.Succeeded)
	}
}

func TestReadPageUnsupportedAndErrorStatus(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
		}
	})
	f := newFetcher(t, Config{Policy: allowing(s.addr(t))})
	if p := f.ReadPage(context.Background(), s.URL+"/image"); p.Failure != pipeline.PageUnsupportedType || p.Status != 200 {
		t.Errorf("an image: %q %d (%s)", p.Failure, p.Status, p.Error)
	}
	if p := f.ReadPage(context.Background(), s.URL+"/gone"); p.Failure != pipeline.PageHTTPError || p.Status != 410 {
		t.Errorf("a 410: %q %d (%s)", p.Failure, p.Status, p.Error)
	}
}

// instantClock is a ratelimit.Clock whose Sleep moves its time on at once: a pause a site asks
// for is kept without the test waiting for it.
type instantClock struct{ fakeNow }

func (c *instantClock) Sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

// A site's 429 and its Retry-After pause that site's limiter, and the read is retried after the
// pause rather than failed.
func TestReadPageWaitsOutASitesRateLimit(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) == 1 {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "The main span was completed on 14 May 1937.")
	})
	clock := &instantClock{fakeNow{t: epoch}}
	hosts, err := ratelimit.NewHosts(ratelimit.Config{Name: "page", Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), Hosts: hosts, Now: clock.Now})
	p := f.ReadPage(context.Background(), s.URL+"/p")
	if p.Failure != "" || p.Status != 200 {
		t.Fatalf("the read after the pause: %q %d (%s)", p.Failure, p.Status, p.Error)
	}
	st := hosts.For("127.0.0.1").Stats()
	if st.RateLimited != 1 || st.Retries != 1 || !st.PausedUntil.Equal(epoch.Add(30*time.Second)) {
		t.Errorf("the site's limiter: %d rate limited, %d retries, paused until %s; want 1, 1, %s", st.RateLimited, st.Retries, st.PausedUntil, epoch.Add(30*time.Second))
	}
}

// A site that refuses every request ends the read within its limits: the site's 429 after the
// limiter's retries, or the time limit, never a read that goes on.
func TestReadPageEndsOnASiteThatAlwaysRefuses(t *testing.T) {
	t.Parallel()
	s := newSite(t, "", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "slow down", http.StatusTooManyRequests)
	})
	clock := &instantClock{fakeNow{t: epoch}}
	hosts, err := ratelimit.NewHosts(ratelimit.Config{Name: "page", Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher(t, Config{Policy: allowing(s.addr(t)), Hosts: hosts, Now: clock.Now, Timeout: 2 * time.Second})
	p := f.ReadPage(context.Background(), s.URL+"/p")
	if p.Failure != pipeline.PageHTTPError && p.Failure != pipeline.PageTimeout {
		t.Errorf("a site that always answers 429: %q %d (%s)", p.Failure, p.Status, p.Error)
	}
	t.Logf("%s after %d requests (%s)", p.Failure, s.hits.Load(), p.Error)
}
