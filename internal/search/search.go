// Package search is Corroborate's evidence-search room: the providers that implement
// pipeline.Searcher. The PostgreSQL corpus (the default: a newsroom loads its archive into the
// documents table and it is searched with full-text search ranked by BM25 inside PostgreSQL),
// SearxNG and Brave Search over HTTP, and a result cache in PostgreSQL in front of the web ones.
//
// Search calls are recorded for the run by pipeline.SearchRecorder, which a method wraps around
// the Searcher it is given (one per run, like its model calls), so that the record is made where
// the run's result is assembled; this package only says, in every response and even with an
// error, which provider answered and whether the answer came from the cache.
package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Providers New knows.
var ProviderNames = []string{ProviderPostgres, ProviderSearxNG, ProviderBrave}

// Config selects and configures the search provider.
type Config struct {
	// Provider is "postgres" (the default), "searxng" or "brave".
	Provider string
	// SearxNGURL is the SearxNG instance's base URL (searxng).
	SearxNGURL string
	// BraveAPIKey is Brave's key (brave). It comes from the BRAVE_API_KEY environment variable
	// only: DefineFlags reads it, there is no flag.
	BraveAPIKey string
	// BraveURL overrides Brave's endpoint (tests, proxies).
	BraveURL string
	// CacheTTL is how long web results are cached in PostgreSQL; 0 means DefaultCacheTTL, a
	// negative value turns the cache off. The corpus is never cached: it lives in the same
	// database, and a cache would only hide documents loaded since.
	CacheTTL time.Duration
	// Timeout bounds each web request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes bounds a web response body; 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Corpus tunes the PostgreSQL corpus.
	Corpus CorpusOpts
	// Limit, when set, wraps the web provider inside the cache, so that a cached answer costs no
	// request: the worker puts its search rate limiter here (internal/ratelimit).
	Limit func(pipeline.Searcher) pipeline.Searcher
	// HTTPClient and OnResponse are passed to the web providers (see WebOpts).
	HTTPClient *http.Client
	OnResponse func(ctx context.Context, status int, header http.Header)
	Logger     *slog.Logger
}

// DefineFlags defines the search flags, each with its environment twin, on s, and reads
// BRAVE_API_KEY, which has no flag.
func (c *Config) DefineFlags(s *envflag.Set) {
	s.Secret(EnvBraveAPIKey, "the Brave Search API key (--search brave)")
	s.String(&c.Provider, "search", "CORROBORATE_SEARCH", ProviderPostgres,
		"search provider: postgres (the corpus), searxng (needs --searxng-url) or brave (needs $"+EnvBraveAPIKey+")")
	s.String(&c.SearxNGURL, "searxng-url", "CORROBORATE_SEARXNG_URL", "", "SearxNG base URL, such as http://localhost:8080 (its json format must be enabled)")
	s.String(&c.BraveURL, "brave-url", "CORROBORATE_BRAVE_URL", DefaultBraveURL, "Brave Search API endpoint")
	s.Duration(&c.CacheTTL, "search-cache-ttl", "CORROBORATE_SEARCH_CACHE_TTL", DefaultCacheTTL, "how long web search results are cached in PostgreSQL (negative: no cache)")
	s.Duration(&c.Timeout, "search-timeout", "CORROBORATE_SEARCH_TIMEOUT", DefaultTimeout, "timeout of one web search request")
	s.String((*string)(&c.Corpus.Ranking), "corpus-ranking", "CORROBORATE_CORPUS_RANKING", string(RankingBM25Title), "ranking of the PostgreSQL corpus: "+joinRankings())
	s.Int(&c.Corpus.CandidateBudget, "corpus-candidate-budget", "CORROBORATE_CORPUS_CANDIDATE_BUDGET", DefaultCandidateBudget,
		"documents a corpus query may score at most, chosen by its rarest words (negative: score every match); lower is faster on a large archive")
	if c.BraveAPIKey == "" {
		c.BraveAPIKey = os.Getenv(EnvBraveAPIKey)
	}
}

// Validate lists every problem of c in one error; nil when there is none. pool is the database
// New would be given (the corpus and the cache need it).
func (c Config) Validate(pool *pgxpool.Pool) error {
	var problems []string
	provider := c.provider()
	switch provider {
	case ProviderPostgres:
		if pool == nil {
			problems = append(problems, "the postgres provider needs the database: set DATABASE_URL")
		}
		problems = append(problems, c.Corpus.withDefaults().validate()...)
	case ProviderSearxNG:
		if strings.TrimSpace(c.SearxNGURL) == "" {
			problems = append(problems, "searxng needs its URL: set CORROBORATE_SEARXNG_URL (--searxng-url), such as http://localhost:8080")
		} else if _, err := NewSearxNG(SearxNGOpts{URL: c.SearxNGURL}); err != nil {
			problems = append(problems, strings.TrimPrefix(err.Error(), "search: "))
		}
	case ProviderBrave:
		if strings.TrimSpace(c.BraveAPIKey) == "" {
			problems = append(problems, "brave needs an API key: set "+EnvBraveAPIKey)
		}
		if _, err := NewBrave(BraveOpts{APIKey: "k", URL: c.BraveURL}); err != nil {
			problems = append(problems, strings.TrimPrefix(err.Error(), "search: "))
		}
	default:
		problems = append(problems, fmt.Sprintf("search provider %q is not one of %s (CORROBORATE_SEARCH)", c.Provider, strings.Join(ProviderNames, ", ")))
	}
	if provider != ProviderPostgres && c.CacheTTL >= 0 && pool == nil {
		problems = append(problems, "the web search cache needs the database: set DATABASE_URL, or turn the cache off with a negative CORROBORATE_SEARCH_CACHE_TTL")
	}
	if c.Timeout < 0 {
		problems = append(problems, fmt.Sprintf("search timeout %s is negative", c.Timeout))
	}
	if c.MaxResponseBytes < 0 {
		problems = append(problems, fmt.Sprintf("search response bound %d is negative", c.MaxResponseBytes))
	}
	if len(problems) > 0 {
		return errors.New("search configuration: " + strings.Join(problems, "; "))
	}
	return nil
}

// provider is c.Provider as New reads it: trimmed, in lower case, ProviderPostgres when empty.
func (c Config) provider() string {
	p := strings.ToLower(strings.TrimSpace(c.Provider))
	if p == "" {
		return ProviderPostgres
	}
	return p
}

// UsesCorpus reports whether cfg searches the PostgreSQL corpus (the default provider).
func (c Config) UsesCorpus() bool { return c.provider() == ProviderPostgres }

// New returns the configured provider, behind the cache for web providers, after validating
// the whole configuration (every problem in one error).
func New(cfg Config, pool *pgxpool.Pool) (pipeline.Searcher, error) {
	if err := cfg.Validate(pool); err != nil {
		return nil, err
	}
	web := WebOpts{HTTPClient: cfg.HTTPClient, Timeout: cfg.Timeout, MaxResponseBytes: cfg.MaxResponseBytes, OnResponse: cfg.OnResponse}
	var p Provider
	switch cfg.provider() {
	case ProviderSearxNG:
		s, err := NewSearxNG(SearxNGOpts{URL: cfg.SearxNGURL, WebOpts: web})
		if err != nil {
			return nil, err
		}
		p = s
	case ProviderBrave:
		b, err := NewBrave(BraveOpts{APIKey: cfg.BraveAPIKey, URL: cfg.BraveURL, WebOpts: web})
		if err != nil {
			return nil, err
		}
		p = b
	default:
		return NewCorpus(pool, cfg.Corpus), nil
	}
	if cfg.Limit != nil {
		p = limitedProvider{Searcher: cfg.Limit(p), name: p.Name()}
	}
	if cfg.CacheTTL < 0 {
		return p, nil
	}
	return NewCache(pool, p, CacheOpts{TTL: cfg.CacheTTL, Logger: cfg.Logger}), nil
}

// limitedProvider is a web provider behind Config.Limit, keeping the provider's name.
type limitedProvider struct {
	pipeline.Searcher
	name string
}

func (p limitedProvider) Name() string { return p.name }
