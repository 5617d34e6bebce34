package search

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Provider is a Searcher with a name, the name it goes by in results, records and the cache.
type Provider interface {
	pipeline.Searcher
	Name() string
}

// DefaultCacheTTL is how long cached web results are used.
const DefaultCacheTTL = 24 * time.Hour

// CacheOpts tunes a Cache.
type CacheOpts struct {
	// TTL is how long results are used; 0 means DefaultCacheTTL.
	TTL time.Duration
	// Now tells the time; nil means time.Now. Tests move it.
	Now func() time.Time
	// Logger hears about cache reads and writes that failed (the search itself goes on without
	// the cache); nil means slog.Default().
	Logger *slog.Logger
}

// Cache keeps a provider's results in search_cache, keyed by provider, query and options, for
// TTL. A query with NoCache set skips the lookup and refreshes the entry with what the provider
// returns, so that re-verification sees today's web. Errors are never cached, and a cache that
// cannot be read or written only costs a provider call: the search does not fail for it.
type Cache struct {
	pool     *pgxpool.Pool
	provider Provider
	opts     CacheOpts
}

// NewCache puts a cache in front of p.
func NewCache(pool *pgxpool.Pool, p Provider, opts CacheOpts) *Cache {
	opts.TTL = cmp.Or(opts.TTL, DefaultCacheTTL)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Cache{pool: pool, provider: p, opts: opts}
}

// Name is the provider's name.
func (c *Cache) Name() string { return c.provider.Name() }

// Search answers from the cache when it holds a live entry for q, else asks the provider and
// caches its answer. Cached answers say so (SearchResponse.Cached).
func (c *Cache) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	name := c.provider.Name()
	key, options := cacheKey(q)
	if !q.NoCache {
		var raw []byte
		err := c.pool.QueryRow(ctx, `
			SELECT results FROM search_cache
			WHERE provider = $1 AND cache_key = $2 AND expires_at > $3`,
			name, key, c.opts.Now()).Scan(&raw)
		switch {
		case err == nil:
			var results []pipeline.SearchResult
			if err := json.Unmarshal(raw, &results); err == nil {
				return pipeline.SearchResponse{Results: results, Provider: name, Cached: true}, nil
			}
			c.opts.Logger.Warn("search cache: unreadable entry; asking the provider", "provider", name, "key", key)
		case errors.Is(err, pgx.ErrNoRows):
		case ctx.Err() != nil:
			return pipeline.SearchResponse{Provider: name}, ctx.Err()
		default:
			c.opts.Logger.Warn("search cache: lookup failed; asking the provider", "provider", name, "error", err)
		}
	}
	resp, err := c.provider.Search(ctx, q)
	if err != nil {
		return resp, err
	}
	if err := c.store(ctx, name, key, q, options, resp.Results); err != nil {
		c.opts.Logger.Warn("search cache: storing results failed", "provider", name, "error", err)
	}
	return resp, nil
}

func (c *Cache) store(ctx context.Context, name, key string, q pipeline.SearchQuery, options []byte, results []pipeline.SearchResult) error {
	if results == nil {
		results = []pipeline.SearchResult{}
	}
	raw, err := json.Marshal(results)
	if err != nil {
		return err
	}
	now := c.opts.Now()
	_, err = c.pool.Exec(ctx, `
		INSERT INTO search_cache (provider, cache_key, query, options, results, fetched_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (provider, cache_key) DO UPDATE SET
			query = EXCLUDED.query, options = EXCLUDED.options, results = EXCLUDED.results,
			fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at`,
		name, key, cleanQuery(q.Query), options, raw, now, now.Add(c.opts.TTL))
	return err
}

// Purge deletes the expired entries of every provider and returns how many went.
func (c *Cache) Purge(ctx context.Context) (int64, error) {
	tag, err := c.pool.Exec(ctx, `DELETE FROM search_cache WHERE expires_at <= $1`, c.opts.Now())
	if err != nil {
		return 0, fmt.Errorf("search cache: purging: %w", err)
	}
	return tag.RowsAffected(), nil
}

// cacheForm is a query in canonical form: two queries that must get the same results have the
// same form. NoCache is not part of it.
type cacheForm struct {
	Query             string     `json:"query,omitempty"`
	Language          string     `json:"language,omitempty"`
	From              *time.Time `json:"from,omitempty"`
	To                *time.Time `json:"to,omitempty"`
	ExcludeDomains    []string   `json:"exclude_domains,omitempty"`
	ExcludeURLs       []string   `json:"exclude_urls,omitempty"`
	ExcludePublishers []string   `json:"exclude_publishers,omitempty"`
	Limit             int        `json:"limit"`
}

// cacheKey returns the cache key of q and its options as JSON, for the options column.
func cacheKey(q pipeline.SearchQuery) (string, []byte) {
	f := cacheForm{
		Query:             strings.Join(strings.Fields(cleanQuery(q.Query)), " "),
		Language:          strings.ToLower(strings.TrimSpace(q.Language)),
		ExcludeDomains:    sortedUnique(normalizeDomains(q.ExcludeDomains)),
		ExcludePublishers: sortedUnique(lowerAll(q.ExcludePublishers)),
		Limit:             cmp.Or(max(q.Limit, 0), pipeline.DefaultSearchLimit),
	}
	for _, u := range q.ExcludeURLs {
		if n, err := NormalizeURL(u); err == nil {
			f.ExcludeURLs = append(f.ExcludeURLs, n)
		} else if u = strings.TrimSpace(u); u != "" {
			f.ExcludeURLs = append(f.ExcludeURLs, u)
		}
	}
	f.ExcludeURLs = sortedUnique(f.ExcludeURLs)
	if !q.From.IsZero() {
		t := q.From.UTC()
		f.From = &t
	}
	if !q.To.IsZero() {
		t := q.To.UTC()
		f.To = &t
	}
	raw, _ := json.Marshal(f) // a struct of strings, times and ints always marshals
	sum := sha256.Sum256(raw)
	options := f
	options.Query = ""
	rawOptions, _ := json.Marshal(options)
	return hex.EncodeToString(sum[:]), rawOptions
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
