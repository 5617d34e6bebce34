package main

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/breaker"
	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pagefetch"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/ratelimit"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/store"
)

// Config is everything the worker is told at start, from flags and their environment twins.
type Config struct {
	DatabaseURL string
	NATSURL     string

	Model         string
	OpenAIBaseURL string
	// OpenAIAPIKey comes only from the environment (OPENAI_API_KEY) or from the file named by
	// OPENAI_API_KEY_FILE: never from a flag, where it would show in the process list.
	OpenAIAPIKey string
	ModelTimeout time.Duration
	MaxTokens    int
	// ModelRPM, ModelTPM and ModelMaxConcurrent limit the model calls (internal/ratelimit); 0
	// learns requests and tokens from the provider's headers and 429s, and leaves concurrency
	// unbounded. SharedBudget names the JetStream KV bucket through which every worker naming it
	// shares one budget; empty keeps the budget to this worker.
	ModelRPM           int
	ModelTPM           int
	ModelMaxConcurrent int
	SharedBudget       string

	Concurrency       int
	VerifyConcurrency int
	MaxQuestions      int
	DefaultMethod     string

	// JointSwitch runs new cove-joint jobs of a model as cove-factored once that model's joint
	// checks agreed with their drafts in at least JointSwitchThreshold of its last
	// JointSwitchWindow joint runs: checks that always agree are not checking anything.
	JointSwitch          bool
	JointSwitchThreshold float64
	JointSwitchWindow    int

	// NATSConn authenticates and secures the NATS connection.
	NATSConn jobs.ConnConfig

	// Search selects the evidence search provider of the open-book methods; SearchRPM and
	// SearchMaxConcurrent limit a web provider's requests (0: learn the rate from its 429s).
	Search              search.Config
	SearchRPM           int
	SearchMaxConcurrent int

	// FetchPages reads the pages behind the results the open-book methods keep: PagesPerHop of
	// each hop's results. With a web provider each page is fetched over HTTP, bounded by
	// PageMaxBytes and PageTimeout, kept for PageCacheTTL, and each site paced by PageHostRPM and
	// PageHostMaxConcurrent (0: learn from its 429s, no bound; see internal/pagefetch for the
	// safety rules); with the corpus the document is read from the corpus
	// (search.Corpus.ReadPage), whose snippet of a long document is two fragments.
	FetchPages            bool
	PagesPerHop           int
	PageMaxBytes          int
	PageTimeout           time.Duration
	PageCacheTTL          time.Duration
	PageHostRPM           int
	PageHostMaxConcurrent int

	// Stream holds the JetStream settings, shared with enqueue (jobs.StreamConfig.DefineFlags).
	Stream jobs.StreamConfig

	// BreakerJobs is how many jobs in a row must fail on an outage of the model endpoint for the
	// worker to ask it a known-good request, and stop taking jobs when that fails too (0: never);
	// BreakerProbeMin and BreakerProbeMax bound the wait
	// between probes of the endpoint while it is down.
	BreakerJobs     int
	BreakerProbeMin time.Duration
	BreakerProbeMax time.Duration
	// DatabaseProbeMin and DatabaseProbeMax bound the wait between probes of PostgreSQL while it
	// is down (the worker takes no jobs then, and holds those it runs).
	DatabaseProbeMin time.Duration
	DatabaseProbeMax time.Duration

	// ReuseWithin is the freshness window of claim reuse (issue 16): a claim verified within it
	// is not paid for again; 0: every claim is verified anew.
	ReuseWithin time.Duration

	// Today, when set (YYYY-MM-DD), is the date every run takes as today (worker.Config.Today):
	// the date its prompts and its freshness-sensitive queries carry. Empty: the day each job
	// runs. The demo fixes it to the date its recorded replies were made for (examples.Date).
	Today string
	// now is the worker's clock (time.Now when nil): tests move it, never the machine's.
	now func() time.Time

	ShutdownTimeout time.Duration
	ExitWhenIdle    bool
	IdleAfter       time.Duration
	MetricsAddr     string
	LogFormat       string
	LogLevel        string
	// Dev starts what is missing: an in-process NATS when NATS_URL is unset, a throwaway
	// PostgreSQL when DATABASE_URL is unset, the replay model when no model is configured.
	Dev    bool
	DevDir string

	// GrantRole, GrantSchema and GrantFor are what `worker grants` prints the privileges for:
	// the database role, the schema, and which program's privileges (store.Roles).
	GrantRole   string
	GrantSchema string
	GrantFor    string
}

// flags defines the worker's flags on s, each with its environment twin.
func (c *Config) flags(s *envflag.Set) {
	llm.DefineKeyEnv(s)
	s.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL (required unless --dev)")
	s.String(&c.NATSURL, "nats-url", "NATS_URL", "", "NATS server URL (required unless --dev)")
	s.String(&c.Model, "model", "CORROBORATE_MODEL", llm.DefaultModel, "model name sent to the OpenAI-compatible endpoint")
	s.String(&c.OpenAIBaseURL, "openai-base-url", "OPENAI_BASE_URL", "", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (default OpenAI)")
	s.Duration(&c.ModelTimeout, "model-timeout", "CORROBORATE_MODEL_TIMEOUT", llm.DefaultTimeout, "timeout of one model request")
	s.Int(&c.MaxTokens, "max-tokens", "CORROBORATE_MAX_TOKENS", llm.DefaultMaxTokens, "bound on the tokens of one model reply")
	s.Int(&c.ModelRPM, "model-rpm", "CORROBORATE_MODEL_RPM", 0, "model requests per minute (0: learn the limit from the provider's headers and 429s)")
	s.Int(&c.ModelTPM, "model-tpm", "CORROBORATE_MODEL_TPM", 0, "model tokens per minute (0: learn the limit from the provider's headers and 429s)")
	s.Int(&c.ModelMaxConcurrent, "model-max-concurrent", "CORROBORATE_MODEL_MAX_CONCURRENT", 0, "model calls in flight at once (0: no bound)")
	s.String(&c.SharedBudget, "shared-budget", "CORROBORATE_SHARED_BUDGET", "", "JetStream KV bucket through which all workers naming it share the model's rate limits (empty: each worker keeps its own)")
	s.Int(&c.Concurrency, "concurrency", "CORROBORATE_CONCURRENCY", 8, "jobs this worker runs at once")
	s.Int(&c.VerifyConcurrency, "verify-concurrency", "CORROBORATE_VERIFY_CONCURRENCY", pipeline.DefaultConcurrency, "parallel verification calls within one job")
	s.Int(&c.MaxQuestions, "max-questions", "CORROBORATE_MAX_QUESTIONS", pipeline.DefaultMaxQuestions, "cap on verification questions per job (a job's options.max_questions may lower or raise it up to 20)")
	s.String(&c.DefaultMethod, "default-method", "CORROBORATE_DEFAULT_METHOD", pipeline.MethodMultihop, "method of a job that names none")
	s.Bool(&c.JointSwitch, "joint-switch", "CORROBORATE_JOINT_SWITCH", true, "run cove-joint jobs as cove-factored when the model's joint checks almost always agree with the draft")
	s.Float(&c.JointSwitchThreshold, "joint-switch-threshold", "CORROBORATE_JOINT_SWITCH_THRESHOLD", 0.95, "agreement rate (0..1) at which --joint-switch switches")
	s.Int(&c.JointSwitchWindow, "joint-switch-window", "CORROBORATE_JOINT_SWITCH_WINDOW", 50, "how many recent joint runs of the model the agreement rate is over")
	s.String(&c.GrantRole, "grant-role", "CORROBORATE_GRANT_ROLE", "corroborate_worker", "worker grants: the role to give least privilege")
	s.String(&c.GrantSchema, "grant-schema", "CORROBORATE_GRANT_SCHEMA", "public", "worker grants: the schema of Corroborate's tables")
	s.String(&c.GrantFor, "for", "CORROBORATE_GRANT_FOR", string(store.RoleWorker), "worker grants: whose privileges: worker (runs jobs), corpus (loads the archive) or report (reads)")
	c.Stream.DefineFlags(s)
	c.NATSConn.DefineFlags(s)
	c.Search.DefineFlags(s)
	s.Int(&c.SearchRPM, "search-rpm", "CORROBORATE_SEARCH_RPM", 0, "web search requests per minute (SearxNG, Brave); 0 learns the limit from 429s and rate-limit headers")
	s.Int(&c.SearchMaxConcurrent, "search-max-concurrent", "CORROBORATE_SEARCH_MAX_CONCURRENT", 0, "web search requests in flight at once; 0 means no bound")
	s.Bool(&c.FetchPages, "fetch-pages", "CORROBORATE_FETCH_PAGES", true, "read the pages behind the search results a hop keeps, so that the judge reads the page's passages that match the claim, not the snippet alone (a web result's page over HTTP; a corpus document from the corpus)")
	s.Int(&c.PagesPerHop, "pages-per-hop", "CORROBORATE_PAGES_PER_HOP", evidence.DefaultPagesPerHop, "with --fetch-pages: how many of a hop's kept results have their page read (1 to 10)")
	s.Int(&c.PageMaxBytes, "page-max-bytes", "CORROBORATE_PAGE_MAX_BYTES", pagefetch.DefaultMaxBytes, "with --fetch-pages: the largest page body read (bytes); a larger page is recorded as too_large")
	s.Duration(&c.PageTimeout, "page-timeout", "CORROBORATE_PAGE_TIMEOUT", pagefetch.DefaultTimeout, "with --fetch-pages: the longest one page read may take, robots.txt and redirects included")
	s.Duration(&c.PageCacheTTL, "page-cache-ttl", "CORROBORATE_PAGE_CACHE_TTL", pagefetch.DefaultCacheTTL, "with --fetch-pages: how long a page read stays fresh in the worker's page cache (negative: no cache)")
	s.Int(&c.PageHostRPM, "page-host-rpm", "CORROBORATE_PAGE_HOST_RPM", 30, "with --fetch-pages: requests per minute to one site (0: learn the limit from its 429s)")
	s.Int(&c.PageHostMaxConcurrent, "page-host-max-concurrent", "CORROBORATE_PAGE_HOST_MAX_CONCURRENT", 2, "with --fetch-pages: requests in flight to one site at once (0: no bound)")
	s.Int(&c.BreakerJobs, "model-breaker-jobs", "CORROBORATE_MODEL_BREAKER_JOBS", breaker.DefaultThreshold, "stop taking jobs when this many jobs in a row fail because the model endpoint is down (refused, 401/403, quota, 5xx) and a known-good request fails too, until a probe finds it back (0: never stop)")
	s.Duration(&c.BreakerProbeMin, "model-probe-min", "CORROBORATE_MODEL_PROBE_MIN", breaker.DefaultProbeMin, "while the model endpoint is down: first wait between probes (doubling)")
	s.Duration(&c.BreakerProbeMax, "model-probe-max", "CORROBORATE_MODEL_PROBE_MAX", breaker.DefaultProbeMax, "while the model endpoint is down: longest wait between probes")
	s.Duration(&c.DatabaseProbeMin, "database-probe-min", "CORROBORATE_DATABASE_PROBE_MIN", breaker.DefaultProbeMin, "while PostgreSQL is unreachable (the worker takes no jobs and holds those it runs): first wait between probes (doubling)")
	s.Duration(&c.DatabaseProbeMax, "database-probe-max", "CORROBORATE_DATABASE_PROBE_MAX", 10*time.Second, "while PostgreSQL is unreachable: longest wait between probes, so the longest the worker takes to resume once it is back")
	s.Window(&c.ReuseWithin, "reuse-within", "CORROBORATE_REUSE_WITHIN", 0, "reuse the evidence and verdict of a claim verified within this window (7d, 36h) instead of verifying it again (multihop, cove2; never for re-verifications or time-sensitive claims); 0: off")
	s.String(&c.Today, "today", "CORROBORATE_TODAY", "", "take this date (YYYY-MM-DD) as today in every run: the date the prompts and freshness-sensitive queries carry, for replays and reproducible re-runs (empty: the day each job runs)")
	s.Duration(&c.ShutdownTimeout, "shutdown-timeout", "CORROBORATE_SHUTDOWN_TIMEOUT", 30*time.Second, "on SIGINT/SIGTERM, how long in-flight jobs may take to finish")
	s.Bool(&c.ExitWhenIdle, "exit-when-idle", "CORROBORATE_EXIT_WHEN_IDLE", false, "exit 0 once the backlog is drained (nightly batch runs)")
	s.Duration(&c.IdleAfter, "idle-after", "CORROBORATE_IDLE_AFTER", 2*time.Second, "with --exit-when-idle: how long without work counts as idle")
	s.String(&c.MetricsAddr, "metrics-addr", "CORROBORATE_METRICS_ADDR", "127.0.0.1:9464", "address of /metrics and /healthz (empty: off)")
	s.String(&c.LogFormat, "log-format", "CORROBORATE_LOG_FORMAT", "auto", "auto (text on a terminal, else JSON), json or text")
	s.String(&c.LogLevel, "log-level", "CORROBORATE_LOG_LEVEL", "info", "debug, info, warn or error")
	s.Bool(&c.Dev, "dev", "CORROBORATE_DEV", false, "dev mode: start an in-process NATS, a throwaway PostgreSQL and the replay model for what is not configured")
	s.String(&c.DevDir, "dev-dir", "CORROBORATE_DEV_DIR", ".corroborate-dev", "dev mode: folder of the throwaway services' files")
}

// loadSecrets reads the API key from the environment or from the file OPENAI_API_KEY_FILE names.
func (c *Config) loadSecrets() (err error) {
	c.OpenAIAPIKey, err = llm.APIKeyFromEnv()
	return err
}

// modelConfigured reports whether an OpenAI-compatible endpoint is configured.
func (c *Config) modelConfigured() bool { return c.OpenAIAPIKey != "" || c.OpenAIBaseURL != "" }

// validate reports every problem of the configuration in one error.
func (c *Config) validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if !c.Dev {
		if c.DatabaseURL == "" {
			bad("no database: set DATABASE_URL or --database-url (or use --dev)")
		}
		if c.NATSURL == "" {
			bad("no NATS: set NATS_URL or --nats-url (or use --dev)")
		}
		if !c.modelConfigured() {
			bad("no model: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server (or use --dev for the offline replay)")
		}
	}
	if c.Concurrency < 1 || c.Concurrency > 1024 {
		bad("--concurrency %d must be between 1 and 1024", c.Concurrency)
	}
	if c.VerifyConcurrency < 1 || c.VerifyConcurrency > 64 {
		bad("--verify-concurrency %d must be between 1 and 64", c.VerifyConcurrency)
	}
	if c.MaxQuestions < 1 || c.MaxQuestions > 20 {
		bad("--max-questions %d must be between 1 and 20", c.MaxQuestions)
	}
	if !slices.Contains(pipeline.MethodNames(), c.DefaultMethod) {
		bad("--default-method %q is not one of %s", c.DefaultMethod, strings.Join(pipeline.MethodNames(), ", "))
	}
	if c.JointSwitchThreshold <= 0 || c.JointSwitchThreshold > 1 {
		bad("--joint-switch-threshold %v must be above 0 and at most 1", c.JointSwitchThreshold)
	}
	if c.JointSwitchWindow < 1 {
		bad("--joint-switch-window %d must be at least 1", c.JointSwitchWindow)
	}
	if c.MaxTokens < 16 {
		bad("--max-tokens %d must be at least 16", c.MaxTokens)
	}
	if err := c.modelLimits().WithDefaults().Validate(); err != nil {
		bad("--model-rpm, --model-tpm, --model-max-concurrent: %v", err)
	}
	if c.SharedBudget != "" {
		if err := (ratelimit.SharedConfig{Bucket: c.SharedBudget}).WithDefaults().Validate(); err != nil {
			bad("--shared-budget: %v", err)
		}
	}
	if c.PagesPerHop < 1 || c.PagesPerHop > 10 {
		bad("--pages-per-hop %d must be between 1 and 10", c.PagesPerHop)
	}
	if c.PageMaxBytes < 1024 || c.PageMaxBytes > 100<<20 {
		bad("--page-max-bytes %d must be between 1024 and %d (100 MiB)", c.PageMaxBytes, 100<<20)
	}
	if c.PageTimeout < 100*time.Millisecond {
		bad("--page-timeout %s must be at least 100ms", c.PageTimeout)
	}
	if err := c.pageHostLimits().WithDefaults().Validate(); err != nil {
		bad("--page-host-rpm, --page-host-max-concurrent: %v", err)
	}
	if c.BreakerJobs < 0 {
		bad("--model-breaker-jobs %d must be 0 (off) or more", c.BreakerJobs)
	}
	if c.BreakerProbeMin < 10*time.Millisecond || c.BreakerProbeMax < c.BreakerProbeMin {
		bad("--model-probe-min %s must be at least 10ms and --model-probe-max %s at least as long", c.BreakerProbeMin, c.BreakerProbeMax)
	}
	if c.DatabaseProbeMin < 10*time.Millisecond || c.DatabaseProbeMax < c.DatabaseProbeMin {
		bad("--database-probe-min %s must be at least 10ms and --database-probe-max %s at least as long", c.DatabaseProbeMin, c.DatabaseProbeMax)
	}
	if c.Today != "" {
		if _, err := time.Parse(time.DateOnly, c.Today); err != nil {
			bad("--today %q is not a date: write it as YYYY-MM-DD, e.g. 2026-12-02", c.Today)
		}
	}
	if c.ModelTimeout < time.Second {
		bad("--model-timeout %s must be at least 1s", c.ModelTimeout)
	}
	switch c.LogFormat {
	case "auto", "json", "text":
	default:
		bad("--log-format %q must be auto, json or text", c.LogFormat)
	}
	if err := c.streamConfig().WithDefaults().Validate(); err != nil {
		bad("%v", err)
	}
	if len(problems) > 0 {
		return errors.New("configuration: " + strings.Join(problems, "; "))
	}
	return nil
}

// clock is the worker's clock: time.Now unless a test set another.
func (c *Config) clock() func() time.Time {
	if c.now != nil {
		return c.now
	}
	return time.Now
}

// today is what each run takes as today (worker.Config.Today): the date --today names, else the
// clock's day.
func (c *Config) today() func() time.Time {
	if c.Today == "" {
		return c.clock()
	}
	day, err := time.Parse(time.DateOnly, c.Today)
	if err != nil {
		panic(fmt.Sprintf("--today %q was not validated: %v", c.Today, err))
	}
	return func() time.Time { return day }
}

// modelLimits is the model's rate limiter configuration, without its shared budget.
func (c *Config) modelLimits() ratelimit.Config {
	return ratelimit.Config{
		Name: "model:" + c.Model, RequestsPerMinute: c.ModelRPM, TokensPerMinute: c.ModelTPM,
		MaxConcurrent: c.ModelMaxConcurrent, DefaultMaxTokens: c.MaxTokens,
	}
}

// pageHostLimits is the configuration of each site's rate limiter.
func (c *Config) pageHostLimits() ratelimit.Config {
	return ratelimit.Config{Name: "page", RequestsPerMinute: c.PageHostRPM, MaxConcurrent: c.PageHostMaxConcurrent}
}

// pageReader returns the worker's page reader (nil when it reads no pages): one per worker, so
// that its page cache, robots.txt knowledge and per-site limits serve every job.
func (c *Config) pageReader(log *slog.Logger, pool *pgxpool.Pool) (pipeline.PageReader, error) {
	if !c.FetchPages {
		return nil, nil
	}
	if c.Search.UsesCorpus() {
		return search.NewCorpus(pool, c.Search.Corpus), nil
	}
	limits := c.pageHostLimits()
	limits.Logger = log
	hosts, err := ratelimit.NewHosts(limits)
	if err != nil {
		return nil, fmt.Errorf("page rate limits: %w", err)
	}
	f, err := pagefetch.New(pagefetch.Config{MaxBytes: int64(c.PageMaxBytes), Timeout: c.PageTimeout, CacheTTL: c.PageCacheTTL,
		Hosts: hosts, Now: c.clock()})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// streamConfig is the JetStream side of the configuration, shared with enqueue.
func (c *Config) streamConfig() jobs.StreamConfig {
	sc := c.Stream
	sc.Concurrency = c.Concurrency
	return sc
}
