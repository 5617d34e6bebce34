package bench

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
)

// Config is what the benchmark is told, from flags and their environment twins.
type Config struct {
	NATSURL, DatabaseURL string
	RPM, TPM             int
	ProviderBurst        time.Duration
	Latency, LatencyP95  time.Duration
	Statements           int
	UnboundStatements    int
	Checks               int
	Workers              []string
	Concurrency          int
	MemoryConcurrency    int
	Modes                []string
	Headers              string
	Storm, StormAfter    time.Duration
	StormRetryAfter      time.Duration
	Timeline             string
	Keep                 bool
}

func (c *Config) flags(s *envflag.Set) {
	s.String(&c.NATSURL, "nats-url", "NATS_URL", "", "NATS server with JetStream (empty: an in-process one)")
	s.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL, used in a schema of the benchmark's own (empty: a throwaway cluster)")
	s.Int(&c.RPM, "rpm", "CORROBORATE_BENCH_RPM", 2400, "the provider's requests per minute")
	s.Int(&c.TPM, "tpm", "CORROBORATE_BENCH_TPM", 400000, "the provider's tokens per minute")
	s.Duration(&c.ProviderBurst, "provider-burst", "CORROBORATE_BENCH_PROVIDER_BURST", time.Second, "how much of a minute's budget the provider's buckets hold (OpenAI: up to a minute; 1s is the strict case of a provider that quantises per second)")
	s.Duration(&c.Latency, "latency", "CORROBORATE_BENCH_LATENCY", 200*time.Millisecond, "median model latency")
	s.Duration(&c.LatencyP95, "latency-p95", "CORROBORATE_BENCH_LATENCY_P95", 400*time.Millisecond, "95th percentile of the log-normal model latency (equal to --latency: fixed)")
	s.Int(&c.Statements, "statements", "CORROBORATE_BENCH_STATEMENTS", 300, "statements per rate-bound run (K)")
	s.Int(&c.UnboundStatements, "unbound-statements", "CORROBORATE_BENCH_UNBOUND_STATEMENTS", 200, "statements per run without provider limits")
	s.Int(&c.Checks, "checks", "CORROBORATE_BENCH_CHECKS", 3, "verification questions per statement (model calls: 2 + checks)")
	s.Strings(&c.Workers, "workers", "CORROBORATE_BENCH_WORKERS", []string{"1", "2", "4"}, "numbers of worker processes, comma-separated")
	s.Int(&c.Concurrency, "concurrency", "CORROBORATE_BENCH_CONCURRENCY", 8, "--concurrency of each worker")
	s.Int(&c.MemoryConcurrency, "memory-concurrency", "CORROBORATE_BENCH_MEMORY_CONCURRENCY", 64, "--concurrency of the one-worker memory run (0: none)")
	s.Strings(&c.Modes, "modes", "CORROBORATE_BENCH_MODES", []string{modeConfigured, modeLearned}, "rate-bound modes: configured (--model-rpm/--model-tpm given), learned (none given: headers and 429s); none: only the runs without provider limits")
	s.String(&c.Headers, "provider-headers", "CORROBORATE_BENCH_PROVIDER_HEADERS", "openai", "rate-limit headers the provider sends: openai, none (the limiter learns from 429s alone) or garbage")
	s.Duration(&c.Storm, "storm", "CORROBORATE_BENCH_STORM", 30*time.Second, "length of the storm of 429s (no headers, no Retry-After unless --storm-retry-after) in a learned run of its own for each number of workers (0: no storm runs)")
	s.Duration(&c.StormAfter, "storm-after", "CORROBORATE_BENCH_STORM_AFTER", 20*time.Second, "when the storm starts, after the workers (0: before they start, so that it meets their very first request)")
	s.Duration(&c.StormRetryAfter, "storm-retry-after", "CORROBORATE_BENCH_STORM_RETRY_AFTER", 0, "the Retry-After of the storm's 429s, in whole seconds (0: none)")
	s.String(&c.Timeline, "timeline", "CORROBORATE_BENCH_TIMELINE", "", "a folder to write each rate-bound run's provider timeline into (requests accepted and answered 429 in each tenth of a second), to see where 429s come from; empty: none")
	s.Bool(&c.Keep, "keep", "CORROBORATE_BENCH_KEEP", false, "keep the temporary folder (worker binary, logs, throwaway PostgreSQL)")
}

var providerHeaders = map[string]ratelimittest.Headers{
	"openai": ratelimittest.HeadersOpenAI, "none": ratelimittest.HeadersNone, "garbage": ratelimittest.HeadersGarbage,
}

const (
	modeConfigured = "configured"
	modeLearned    = "learned"
	modeUnbound    = "unbound"
)

func (c *Config) validate() ([]int, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.RPM < 1 || c.TPM < 1 {
		bad("--rpm %d and --tpm %d must be positive", c.RPM, c.TPM)
	}
	if c.Statements < 10 || c.UnboundStatements < 10 {
		bad("--statements %d and --unbound-statements %d must be at least 10", c.Statements, c.UnboundStatements)
	}
	if c.Checks < 1 || c.Checks > 10 {
		bad("--checks %d must be between 1 and 10", c.Checks)
	}
	if c.Latency <= 0 || c.LatencyP95 < c.Latency {
		bad("--latency %s must be positive and --latency-p95 %s at least as long", c.Latency, c.LatencyP95)
	}
	if c.Concurrency < 1 || c.MemoryConcurrency < 0 {
		bad("--concurrency %d must be positive, --memory-concurrency %d not negative", c.Concurrency, c.MemoryConcurrency)
	}
	if c.ProviderBurst < 10*time.Millisecond {
		bad("--provider-burst %s must be at least 10ms", c.ProviderBurst)
	}
	var workers []int
	for _, w := range c.Workers {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 || n > 16 {
			bad("--workers %q: each must be a number from 1 to 16", w)
			continue
		}
		workers = append(workers, n)
	}
	c.Modes = slices.DeleteFunc(c.Modes, func(m string) bool { return m == "none" })
	for _, m := range c.Modes {
		if m != modeConfigured && m != modeLearned {
			bad("--modes %q: each must be %s or %s", m, modeConfigured, modeLearned)
		}
	}
	if c.Storm < 0 || c.StormAfter < 0 || c.StormRetryAfter < 0 {
		bad("--storm %s, --storm-after %s and --storm-retry-after %s must not be negative", c.Storm, c.StormAfter, c.StormRetryAfter)
	}
	if _, ok := providerHeaders[c.Headers]; !ok {
		bad("--provider-headers %q must be openai, none or garbage", c.Headers)
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return workers, nil
}
