package pagefetch

import (
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// pageCache keeps pages read, by URL, for ttl after they were fetched, holding at most maxBytes
// of text: past it the oldest pages go first. A negative ttl keeps nothing. Only pages read are
// kept: a failure is tried again, since what failed (a timeout, a 503) may not fail next time.
type pageCache struct {
	ttl      time.Duration
	maxBytes int

	mu    sync.Mutex
	pages map[string]pipeline.Page
	bytes int
}

func newPageCache(ttl time.Duration, maxBytes int) *pageCache {
	return &pageCache{ttl: ttl, maxBytes: maxBytes, pages: map[string]pipeline.Page{}}
}

func (c *pageCache) get(key string, now time.Time) (pipeline.Page, bool) {
	if c.ttl < 0 {
		return pipeline.Page{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pages[key]
	if !ok {
		return pipeline.Page{}, false
	}
	if now.Sub(p.FetchedAt) >= c.ttl {
		c.removeLocked(key)
		return pipeline.Page{}, false
	}
	return p, true
}

func (c *pageCache) put(key string, p pipeline.Page) {
	if c.ttl < 0 || len(p.Text) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	for c.bytes+len(p.Text) > c.maxBytes {
		oldest := ""
		for k, q := range c.pages {
			if oldest == "" || q.FetchedAt.Before(c.pages[oldest].FetchedAt) {
				oldest = k
			}
		}
		c.removeLocked(oldest)
	}
	c.pages[key] = p
	c.bytes += len(p.Text)
}

func (c *pageCache) removeLocked(key string) {
	if p, ok := c.pages[key]; ok {
		c.bytes -= len(p.Text)
		delete(c.pages, key)
	}
}
