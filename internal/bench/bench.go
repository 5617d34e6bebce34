// Package bench is the `bench` command's logic, importable and tested: the throughput benchmark
// of Corroborate at a model provider's rate limits (worker processes, JetStream, PostgreSQL and a
// simulated rate-limited provider), the figures it computes from each run, and the reuse
// benchmark. cmd/bench only hands it the command line, as river's cmd/river hands its own to
// rivercli.
//
// What it measures and how: see docs/benchmarks.md and cmd/bench's package comment.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
	"github.com/corroborate/corroborate/internal/store"
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

// Run runs the bench command with args (the command line without the program's name) and
// returns its exit status; cmd/bench's main only wires it to the process.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "reuse" {
		return runReuse(ctx, args[1:], stdout, stderr) // reuse.go
	}
	var cfg Config
	fs := envflag.New("bench", "Usage: go run ./cmd/bench [flags]\n\n"+
		"Runs backlogs of cove-factored statements through JetStream, worker processes and PostgreSQL\n"+
		"against a simulated rate-limited provider, and prints throughput, 429s, latency and memory.")
	fs.SetOutput(stderr)
	fs.ExitStatuses(exitcode.Of(exitcode.OK, "every run measured"), exitcode.Of(exitcode.Failed, "a run that did not finish"), exitcode.Of(exitcode.Usage, ""))
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitcode.OK
		}
		fmt.Fprintln(stderr, "bench:", err)
		return exitcode.Usage
	}
	workers, err := cfg.validate()
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return exitcode.Usage
	}
	b, err := start(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return exitcode.Failed
	}
	defer b.close()

	var scenarios []scenario
	for _, mode := range cfg.Modes {
		for _, w := range workers {
			scenarios = append(scenarios, scenario{mode: mode, workers: w, concurrency: cfg.Concurrency, statements: cfg.Statements,
				latency: ratelimittest.LogNormal(cfg.Latency, cfg.LatencyP95), latencyName: b.latencyName(cfg.LatencyP95)})
		}
	}
	if cfg.Storm > 0 && slices.Contains(cfg.Modes, modeLearned) {
		// Enough backlog to run at the bound before, through and for a minute after the storm.
		perMinute := float64(cfg.RPM) / float64(cfg.Checks+2)
		n := int(math.Ceil((cfg.StormAfter + cfg.Storm + time.Minute).Minutes() * perMinute))
		for _, w := range workers {
			scenarios = append(scenarios, scenario{mode: modeLearned, storm: true, workers: w, concurrency: cfg.Concurrency, statements: n,
				latency: ratelimittest.LogNormal(cfg.Latency, cfg.LatencyP95), latencyName: b.latencyName(cfg.LatencyP95)})
		}
	}
	scenarios = append(scenarios,
		scenario{mode: modeUnbound, workers: 1, concurrency: cfg.Concurrency, statements: cfg.UnboundStatements,
			latency: ratelimittest.Fixed(cfg.Latency), latencyName: b.latencyName(cfg.Latency)},
		scenario{mode: modeUnbound, workers: 1, concurrency: cfg.Concurrency, statements: cfg.UnboundStatements,
			latency: ratelimittest.LogNormal(cfg.Latency, cfg.LatencyP95), latencyName: b.latencyName(cfg.LatencyP95)})
	if cfg.MemoryConcurrency > 0 {
		scenarios = append(scenarios, scenario{mode: modeUnbound, workers: 1, concurrency: cfg.MemoryConcurrency, statements: cfg.UnboundStatements,
			latency: ratelimittest.Fixed(cfg.Latency), latencyName: b.latencyName(cfg.Latency)})
	}

	fmt.Fprintf(stdout, "provider: %d RPM, %d TPM, buckets of %s, %s headers, latency median %s p95 %s; cove-factored with text, %d checks (%d calls, 3 rounds); workers at --concurrency %d\n\n",
		cfg.RPM, cfg.TPM, cfg.ProviderBurst, cfg.Headers, cfg.Latency, cfg.LatencyP95, cfg.Checks, cfg.Checks+2, cfg.Concurrency)
	var results []result
	for i, sc := range scenarios {
		fmt.Fprintf(stderr, "bench: run %d of %d: %s\n", i+1, len(scenarios), sc)
		res, err := b.run(ctx, sc)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", sc, err)
			return exitcode.Failed
		}
		fmt.Fprintf(stderr, "bench: %s\n", res.summary())
		results = append(results, res)
	}
	printTable(stdout, cfg, results)
	printLearning(stdout, cfg, results)
	return exitcode.OK
}

// stack is the running stack the scenarios share.
type stack struct {
	cfg     Config
	dir     string
	bin     string
	natsURL string
	nc      *nats.Conn
	js      jetstream.JetStream
	dbURL   string
	db      *store.Store
	log     io.Writer
	closers []func()
	id      string
}

func start(ctx context.Context, cfg Config, log io.Writer) (*stack, error) {
	b := &stack{cfg: cfg, log: log, id: randomID()}
	ok := false
	defer func() {
		if !ok {
			b.close()
		}
	}()
	var err error
	if b.dir, err = os.MkdirTemp("", "corroborate-bench-"); err != nil {
		return nil, err
	}
	// As root, the throwaway PostgreSQL runs as its own user, who must reach its folder inside.
	if err := os.Chmod(b.dir, 0o755); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, func() {
		if cfg.Keep {
			fmt.Fprintln(log, "bench: kept", b.dir)
			return
		}
		_ = os.RemoveAll(b.dir)
	})

	b.bin = filepath.Join(b.dir, "worker")
	fmt.Fprintln(log, "bench: building the worker")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", b.bin, "github.com/corroborate/corroborate/cmd/worker").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/worker: %v\n%s", err, out)
	}

	b.natsURL = cfg.NATSURL
	if b.natsURL == "" {
		ns, err := devenv.StartNATS(filepath.Join(b.dir, "nats"), 0)
		if err != nil {
			return nil, err
		}
		b.closers = append(b.closers, ns.Stop)
		b.natsURL = ns.URL
	}
	if b.nc, err = nats.Connect(b.natsURL, nats.Name("corroborate-bench")); err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w", b.natsURL, err)
	}
	b.closers = append(b.closers, b.nc.Close)
	if b.js, err = jetstream.New(b.nc); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "bench: NATS %s at %s\n", b.nc.ConnectedServerVersion(), b.natsURL)

	base := cfg.DatabaseURL
	if base == "" {
		fmt.Fprintln(log, "bench: starting a throwaway PostgreSQL")
		pg, err := devenv.StartPostgres(ctx, filepath.Join(b.dir, "postgres"))
		if err != nil {
			return nil, err
		}
		b.closers = append(b.closers, func() { _ = pg.Stop() })
		base = pg.URL
	}
	if b.dbURL, err = b.schema(ctx, base); err != nil {
		return nil, err
	}
	if b.db, err = store.Open(ctx, store.Config{URL: b.dbURL}); err != nil {
		return nil, err
	}
	b.closers = append(b.closers, b.db.Close)
	if _, err := b.db.Migrate(ctx); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// schema creates the benchmark's own schema (dropped at the end) and returns base using it.
func (b *stack) schema(ctx context.Context, base string) (string, error) {
	scratch, err := store.NewScratchSchema(ctx, base, "bench_"+b.id)
	if err != nil {
		return "", err
	}
	b.closers = append(b.closers, func() { _ = scratch.Drop(context.WithoutCancel(ctx)) })
	return scratch.URL, nil
}

func (b *stack) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
}

func (b *stack) latencyName(p95 time.Duration) string {
	if p95 == b.cfg.Latency {
		return "fixed " + b.cfg.Latency.String()
	}
	return fmt.Sprintf("log-normal %s/p95 %s", b.cfg.Latency, p95)
}

// scenario is one run: a backlog, workers, a provider.
type scenario struct {
	mode        string // configured, learned (rate-bound), unbound (no provider limits)
	storm       bool   // a storm of 429s --storm-after into the run
	workers     int
	concurrency int
	statements  int
	latency     func(*mrand.Rand) time.Duration
	latencyName string
}

func (s scenario) String() string {
	return fmt.Sprintf("%s, %d worker(s) at --concurrency %d, %d statements, %s", s.modeName(), s.workers, s.concurrency, s.statements, s.latencyName)
}

func (s scenario) modeName() string {
	switch {
	case s.storm:
		return s.mode + ", storm"
	case s.mode == modeUnbound:
		return s.mode + " (" + s.latencyName + ")"
	}
	return s.mode
}

// result is what one run measured.
type result struct {
	scenario
	wall time.Duration
	// Steady state: between the 10th and the 90th percentile of finish times.
	stmtsPerMin, callsPerMin    float64
	callsPerStmt, tokensPerStmt float64
	bound                       float64 // statements per minute; 0 when the provider had no limits
	provider                    ratelimittest.Stats
	p50, p95                    time.Duration // received -> finished (stored)
	critical                    time.Duration // rounds x median latency
	ownCriticalP50, overheadP50 time.Duration // per statement: its model rounds' latencies; latency minus that
	ownRatioP95                 float64       // p95 of latency / own critical path
	peakRSS                     int64         // bytes, the largest of the workers
	overheadMean                time.Duration
	// The overhead's parts, p50: received -> method started (decode, stored-run check), in the
	// method outside its model rounds, method done -> result stored (the run's transaction).
	beforeP50, inMethodP50, storeP50 time.Duration
	// recovery is, in a storm run, how long after the storm's end the provider accepted 90% of
	// the bound's calls over 10 s; -1 when it did not before the backlog ran out.
	recovery time.Duration
}

func (r result) summary() string {
	s := fmt.Sprintf("%.0f statements/min, %.0f calls/min, p50 %s p95 %s, 429s %d of %d calls (%d for requests, %d for tokens), peak RSS %.0f MiB, wall %s",
		r.stmtsPerMin, r.callsPerMin, r.p50.Round(time.Millisecond), r.p95.Round(time.Millisecond), r.provider.Limited, r.provider.Requests,
		r.provider.LimitedRequests, r.provider.LimitedTokens,
		float64(r.peakRSS)/(1<<20), r.wall.Round(100*time.Millisecond))
	if r.bound > 0 {
		s += fmt.Sprintf(", bound %.0f/min, ratio %.3f", r.bound, r.stmtsPerMin/r.bound)
	}
	return s
}

func (b *stack) run(ctx context.Context, sc scenario) (result, error) {
	id := randomID()
	streamCfg := jobs.StreamConfig{
		Stream: "BENCH_" + id, Subjects: []string{"bench." + id + ".>"}, PublishSubject: "bench." + id + ".backlog",
		Consumer: "bench-" + id, Concurrency: sc.concurrency, MaxAge: time.Hour, DuplicateWindow: time.Hour,
	}
	defer func() { _ = b.js.DeleteStream(context.WithoutCancel(ctx), streamCfg.Stream) }()
	if _, _, err := jobs.Setup(ctx, b.js, streamCfg); err != nil {
		return result{}, err
	}

	pcfg := ratelimittest.Config{Burst: b.cfg.ProviderBurst, Latency: sc.latency, Reply: b.reply, Seed: mrand.Uint64(),
		Headers: providerHeaders[b.cfg.Headers], StormRetryAfter: b.cfg.StormRetryAfter}
	if sc.mode != modeUnbound {
		pcfg.RPM, pcfg.TPM = b.cfg.RPM, b.cfg.TPM
	}
	provider := ratelimittest.Start(pcfg)
	defer provider.Close()

	for i := range sc.statements {
		m := jobs.Message{V: jobs.Version, Method: pipeline.MethodFactored, ID: fmt.Sprintf("%s-%d", id, i),
			Text: fmt.Sprintf("Statement %d of run %s: the Eiffel Tower was completed in 1889 and stands in Paris, where it is the tallest structure.", i, id)}
		if _, err := jobs.Publish(ctx, b.js, streamCfg.PublishSubject, m, ""); err != nil {
			return result{}, err
		}
	}

	args := []string{"--exit-when-idle", "--idle-after", "1s", "--metrics-addr", "", "--log-level", "warn", "--log-format", "json",
		"--concurrency", strconv.Itoa(sc.concurrency)}
	if sc.mode == modeConfigured {
		args = append(args, "--model-rpm", strconv.Itoa(b.cfg.RPM), "--model-tpm", strconv.Itoa(b.cfg.TPM))
	}
	bucket := "bench_" + id
	if sc.workers > 1 {
		args = append(args, "--shared-budget", bucket)
		defer func() { _ = b.js.DeleteKeyValue(context.WithoutCancel(ctx), bucket) }()
	}
	env := append(os.Environ(),
		"DATABASE_URL="+b.dbURL, "NATS_URL="+b.natsURL, "OPENAI_BASE_URL="+provider.URL(), "OPENAI_API_KEY=", "OPENAI_API_KEY_FILE=",
		"CORROBORATE_MODEL=bench-model", "CORROBORATE_DEFAULT_METHOD="+pipeline.MethodFactored,
		"CORROBORATE_STREAM="+streamCfg.Stream, "CORROBORATE_SUBJECTS="+streamCfg.Subjects[0],
		"CORROBORATE_PUBLISH_SUBJECT="+streamCfg.PublishSubject, "CORROBORATE_CONSUMER="+streamCfg.Consumer)

	// Long enough for the slowest honest run at half the bound; a hang ends here.
	limit := 3*time.Minute + time.Duration(float64(sc.statements)/float64(max(b.cfg.RPM/(b.cfg.Checks+2), 1))*2*float64(time.Minute))
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	begin := time.Now()
	var stormEnd time.Time
	stormed := make(chan struct{})
	switch {
	case sc.storm && b.cfg.StormAfter == 0:
		// From the very first request: before any worker starts, so before anything is learned.
		stormEnd = provider.Storm(b.cfg.Storm)
		close(stormed)
	case sc.storm:
		go func() {
			defer close(stormed)
			select {
			case <-time.After(b.cfg.StormAfter):
				stormEnd = provider.Storm(b.cfg.Storm)
			case <-rctx.Done():
			}
		}()
	default:
		close(stormed)
	}
	cmds := make([]*exec.Cmd, sc.workers)
	for i := range cmds {
		logPath := filepath.Join(b.dir, fmt.Sprintf("%s-%s-%d.log", sc.mode, id, i))
		logFile, err := os.Create(logPath)
		if err != nil {
			return result{}, err
		}
		defer logFile.Close()
		cmd := exec.CommandContext(rctx, b.bin, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, logFile, logFile
		cmd.WaitDelay = 10 * time.Second
		if err := cmd.Start(); err != nil {
			return result{}, err
		}
		cmds[i] = cmd
	}
	res := result{scenario: sc}
	var failed []string
	for i, cmd := range cmds {
		err := cmd.Wait()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.peakRSS = max(res.peakRSS, ru.Maxrss*1024) // Linux reports KiB
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("worker %d: %v (log %s)", i, err, filepath.Join(b.dir, fmt.Sprintf("%s-%s-%d.log", sc.mode, id, i))))
		}
	}
	res.wall = time.Since(begin)
	cancel()
	<-stormed
	res.provider = provider.Stats()
	if len(failed) > 0 {
		b.cfg.Keep = true
		return res, errors.New(strings.Join(failed, "; "))
	}
	if err := b.measure(ctx, &res, streamCfg.PublishSubject); err != nil {
		return res, err
	}
	if b.cfg.Timeline != "" && sc.mode != modeUnbound {
		if err := writeTimeline(b.cfg.Timeline, sc, provider.Timeline(begin, 100*time.Millisecond)); err != nil {
			return res, err
		}
	}
	if sc.storm {
		res.recovery = recovery(provider, stormEnd, begin.Add(res.wall), 0.9*res.bound*res.callsPerStmt/6)
	}
	return res, nil
}

// acceptedCounter counts the requests a provider accepted in [from, to): the simulated
// provider's timeline, or a test's.
type acceptedCounter interface {
	AcceptedBetween(from, to time.Time) int
}

// recovery is how long after the storm's end (in steps of half a second) the provider first
// accepted want calls within 10 s, or -1 when it did not before end (or there was no storm).
func recovery(p acceptedCounter, stormEnd, end time.Time, want float64) time.Duration {
	if stormEnd.IsZero() {
		return -1
	}
	for after := time.Duration(0); stormEnd.Add(after + 10*time.Second).Before(end); after += 500 * time.Millisecond {
		from := stormEnd.Add(after)
		if float64(p.AcceptedBetween(from, from.Add(10*time.Second))) >= want {
			return after
		}
	}
	return -1
}

// writeTimeline writes a run's provider timeline as tab-separated values into dir.
func writeTimeline(dir string, sc scenario, rows []ratelimittest.Second) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("%s-%dw.tsv", strings.ReplaceAll(sc.modeName(), ", ", "-"), sc.workers)
	var sb strings.Builder
	sb.WriteString("seconds\taccepted\trefused\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "%.1f\t%d\t%d\n", r.At.Sub(rows[0].At).Seconds(), r.Accepted, r.Refused)
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644)
}

// measure reads the run's stored statements and model calls and fills res with its figures.
func (b *stack) measure(ctx context.Context, res *result, subject string) error {
	stmts, err := b.db.RunTimings(ctx, subject)
	if err != nil {
		return err
	}
	if len(stmts) != res.statements {
		return fmt.Errorf("%d of %d statements have a done run", len(stmts), res.statements)
	}
	from, to, perMinute, err := steadyState(stmts)
	if err != nil {
		return err
	}
	res.stmtsPerMin = perMinute
	calls, err := b.db.ModelCallsBetween(ctx, subject, from, to)
	if err != nil {
		return err
	}
	res.callsPerMin = float64(calls) / to.Sub(from).Minutes()
	statementFigures(res, stmts, b.cfg)
	return nil
}

// steadyState sorts stmts by the time each was stored and returns the steady state of the run:
// the window between the 10th and the 90th percentile of those times, and the statements per
// minute stored within it. The first and last tenth are the ramp up and the tail, where fewer
// workers are busy than the run has.
func steadyState(stmts []store.RunTiming) (from, to time.Time, perMinute float64, err error) {
	if len(stmts) == 0 {
		return from, to, 0, errors.New("no statement has a done run")
	}
	slices.SortFunc(stmts, func(a, b store.RunTiming) int { return a.Stored.Compare(b.Stored) })
	lo, hi := stmts[len(stmts)/10], stmts[len(stmts)*9/10]
	window := hi.Stored.Sub(lo.Stored)
	if window <= 0 {
		return from, to, 0, errors.New("no steady state: the statements finished all at once")
	}
	return lo.Stored, hi.Stored, float64(len(stmts)*9/10-len(stmts)/10) / window.Minutes(), nil
}

// statementFigures fills res with what the stored statements say one by one: calls and tokens
// per statement, the bound they imply, latency percentiles and the overhead beside the model's
// own critical path. stmts is not empty.
func statementFigures(res *result, stmts []store.RunTiming, cfg Config) {
	var latencies, own, overheads, before, inMethod, storing []time.Duration
	var ratios []float64
	var sumCalls, sumTokens int64
	var sumOverhead time.Duration
	for _, s := range stmts {
		l := s.Stored.Sub(s.Received)
		latencies = append(latencies, l)
		own = append(own, s.Critical)
		overheads = append(overheads, l-s.Critical)
		before = append(before, s.Started.Sub(s.Received))
		inMethod = append(inMethod, s.Ran.Sub(s.Started)-s.Critical)
		storing = append(storing, s.Stored.Sub(s.Ran))
		sumOverhead += l - s.Critical
		if s.Critical > 0 {
			ratios = append(ratios, float64(l)/float64(s.Critical))
		}
		sumCalls += s.Calls
		sumTokens += s.Tokens
	}
	res.callsPerStmt = float64(sumCalls) / float64(len(stmts))
	res.tokensPerStmt = float64(sumTokens) / float64(len(stmts))
	if res.mode != modeUnbound {
		res.bound = bound(cfg.RPM, cfg.TPM, res.callsPerStmt, res.tokensPerStmt)
	}
	res.p50, res.p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
	res.critical = 3 * cfg.Latency
	res.ownCriticalP50 = percentile(own, 0.5)
	res.overheadP50 = percentile(overheads, 0.5)
	res.overheadMean = sumOverhead / time.Duration(len(stmts))
	res.beforeP50, res.inMethodP50, res.storeP50 = percentile(before, 0.5), percentile(inMethod, 0.5), percentile(storing, 0.5)
	slices.Sort(ratios)
	if len(ratios) > 0 {
		res.ownRatioP95 = ratios[int(0.95*float64(len(ratios)-1))]
	}
}

// bound is the most statements a minute a provider of rpm requests and tpm tokens a minute can
// serve, when a statement takes callsPerStmt calls and tokensPerStmt tokens: whichever limit
// binds first.
func bound(rpm, tpm int, callsPerStmt, tokensPerStmt float64) float64 {
	return min(float64(rpm)/callsPerStmt, float64(tpm)/tokensPerStmt)
}

// percentile is the p-th percentile of ds (nearest rank below), 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}

var draftRE = regexp.MustCompile(`(?s)<draft>(.*?)</draft>`)

// reply answers the cove-factored prompts the way a model would, at about a real model's length.
func (b *stack) reply(prompt string) string {
	switch {
	case strings.Contains(prompt, "Rewrite the answer so it agrees with the checks"):
		if m := draftRE.FindStringSubmatch(prompt); m != nil {
			return m[1]
		}
		return "The Eiffel Tower was completed in 1889 and stands in Paris."
	case strings.Contains(prompt, "Write one verification question per line"):
		questions := []string{"When was the Eiffel Tower completed?", "In which city does the Eiffel Tower stand?",
			"Is the Eiffel Tower the tallest structure in Paris?", "Who designed the Eiffel Tower?", "How tall is the Eiffel Tower?",
			"What is the Eiffel Tower made of?", "When did the Eiffel Tower open to the public?", "Who owns the Eiffel Tower?",
			"How many visitors does the Eiffel Tower have a year?", "What was the Eiffel Tower built for?"}
		return strings.Join(questions[:b.cfg.Checks], "\n")
	case strings.Contains(prompt, "<question>"):
		return "It was completed in 1889."
	}
	return "unsure"
}

func printTable(w io.Writer, cfg Config, results []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "mode\tworkers\tconc\tK\tstmts/min\tcalls/min\tbound/min\tratio\t429s\tcalls/stmt\ttokens/stmt\tp50\tp95\tcrit. path\tp95/crit.\toverhead p50\tpeak RSS MiB\t")
	for _, r := range results {
		bound, ratio := "-", "-"
		if r.bound > 0 {
			bound, ratio = fmt.Sprintf("%.0f", r.bound), fmt.Sprintf("%.3f", r.stmtsPerMin/r.bound)
		}
		share := 0.0
		if r.provider.Requests > 0 {
			share = float64(r.provider.Limited) / float64(r.provider.Requests)
		}
		overhead := "-"
		if r.mode == modeUnbound {
			overhead = fmt.Sprintf("%+.1f ms (%+.2f%%)", ms(r.p50-r.critical), 100*float64(r.p50-r.critical)/float64(r.critical))
		}
		mode := r.modeName()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.0f\t%s\t%s\t%.2f%% (%d/%d)\t%.2f\t%.0f\t%.0f ms\t%.0f ms\t%.0f ms\t%.2f\t%s\t%.1f\t\n",
			mode, r.workers, r.concurrency, r.statements, r.stmtsPerMin, r.callsPerMin, bound, ratio,
			100*share, r.provider.Limited, r.provider.Requests, r.callsPerStmt, r.tokensPerStmt,
			ms(r.p50), ms(r.p95), ms(r.critical), float64(r.p95)/float64(r.critical), overhead, float64(r.peakRSS)/(1<<20))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Per statement, latency is received -> result stored; its own critical path is the sum of its rounds' slowest model call:")
	tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "mode\tworkers\tconc\town crit. path p50\tlatency - own crit. p50\tmean\tp95 of latency / own crit.\tbefore the method p50\tin the method p50\tstoring p50\t")
	for _, r := range results {
		mode := r.modeName()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f ms\t%.1f ms\t%.1f ms\t%.3f\t%.1f ms\t%.1f ms\t%.1f ms\t\n", mode, r.workers, r.concurrency,
			ms(r.ownCriticalP50), ms(r.overheadP50), ms(r.overheadMean), r.ownRatioP95, ms(r.beforeP50), ms(r.inMethodP50), ms(r.storeP50))
	}
	_ = tw.Flush()
}

// printLearning prints the learned runs by number of workers: how close to the bound they ran and
// how many calls were refused, and how long they took to come back after a storm.
func printLearning(w io.Writer, cfg Config, results []result) {
	type row struct{ learned, storm *result }
	rows := map[int]*row{}
	var workers []int
	for i := range results {
		r := &results[i]
		if r.mode != modeLearned {
			continue
		}
		if rows[r.workers] == nil {
			rows[r.workers] = &row{}
			workers = append(workers, r.workers)
		}
		if r.storm {
			rows[r.workers].storm = r
		} else {
			rows[r.workers].learned = r
		}
	}
	if len(workers) == 0 {
		return
	}
	fmt.Fprintln(w)
	when := fmt.Sprintf("%s into its own run", cfg.StormAfter)
	if cfg.StormAfter == 0 {
		when = "from the first request of its own run, before anything was learned"
	}
	retryAfter := "no Retry-After"
	if cfg.StormRetryAfter > 0 {
		retryAfter = fmt.Sprintf("Retry-After %d", int(cfg.StormRetryAfter.Seconds()))
	}
	fmt.Fprintf(w, "Learned (nothing configured) from a provider sending %s rate-limit headers; storm: %s of 429s with no headers and %s, %s; recovery: from the storm's end to the first 10 s with 90%% of the bound's calls accepted:\n",
		cfg.Headers, cfg.Storm, retryAfter, when)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "workers\tratio to the bound\t429 share\trecovery after the storm\t429s in the storm run outside the storm\t")
	for _, n := range workers {
		ratio, share, rec, after := "-", "-", "-", "-"
		if r := rows[n].learned; r != nil && r.bound > 0 {
			ratio = fmt.Sprintf("%.3f", r.stmtsPerMin/r.bound)
			share = fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(r.provider.Limited)/float64(max(r.provider.Requests, 1)), r.provider.Limited, r.provider.Requests)
		}
		if r := rows[n].storm; r != nil {
			rec = "not within the run"
			if r.recovery >= 0 {
				rec = r.recovery.String()
			}
			outside := r.provider.Limited - r.provider.Stormed
			after = fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(outside)/float64(max(r.provider.Requests-r.provider.Stormed, 1)), outside, r.provider.Requests-r.provider.Stormed)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", n, ratio, share, rec, after)
	}
	_ = tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func randomID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
