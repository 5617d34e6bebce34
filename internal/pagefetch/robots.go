package pagefetch

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// robotsCache keeps each site's robots.txt (by hostKey) for robotsTTL.
type robotsCache struct {
	mu    sync.Mutex
	sites map[string]robotsEntry
}

type robotsEntry struct {
	data *robotstxt.RobotsData // nil: no rules known, everything allowed
	at   time.Time
}

func newRobotsCache() *robotsCache { return &robotsCache{sites: map[string]robotsEntry{}} }

// maxRobotsSites bounds the robots.txt files kept; past it the cache starts again.
const maxRobotsSites = 4096

// robotsAllow reports whether the site's robots.txt lets our User-Agent read u. The rules are
// read through the same client rules as a page (address policy, time, size, host limit), but
// with no robots check of their own redirects. As RFC 9309 says, a robots.txt that is missing
// (4xx) allows everything and one the server fails on (5xx) disallows everything; one that
// cannot be fetched at all allows (an address the policy refuses is refused again, and
// recorded as such, by the page's own request).
func (f *Fetcher) robotsAllow(ctx context.Context, u *url.URL) bool {
	key := hostKey(u)
	now := f.cfg.Now()
	f.robots.mu.Lock()
	e, ok := f.robots.sites[key]
	f.robots.mu.Unlock()
	if !ok || now.Sub(e.at) > robotsTTL {
		data, err := f.fetchRobots(ctx, u)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			data = nil
		}
		e = robotsEntry{data: data, at: now}
		f.robots.mu.Lock()
		if len(f.robots.sites) >= maxRobotsSites {
			clear(f.robots.sites)
		}
		f.robots.sites[key] = e
		f.robots.mu.Unlock()
	}
	if e.data == nil {
		return true
	}
	path := u.EscapedPath()
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return e.data.TestAgent(cmpPath(path), f.cfg.UserAgent)
}

func cmpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// fetchRobots reads the robots.txt of u's site.
func (f *Fetcher) fetchRobots(ctx context.Context, u *url.URL) (*robotstxt.RobotsData, error) {
	robotsURL := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, robotsURL.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	client := &http.Client{Transport: f.client.Transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > max(f.cfg.MaxRedirects, 0) {
			return errTooManyRedirects
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return errSchemeRefused
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
	if err != nil {
		return nil, err
	}
	return robotstxt.FromStatusAndBytes(resp.StatusCode, body)
}
