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
	"slices"
	"strconv"
	"strings"
	"syscall"
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

// reply answers the cove-factored prompts the way a model would, at about a real model's length.
func (b *stack) reply(prompt string) string {
	switch {
	case strings.Contains(prompt, pipeline.MarkerRevise):
		if m := pipeline.PromptDraft.FindStringSubmatch(prompt); m != nil {
			return m[1]
		}
		return "The Eiffel Tower was completed in 1889 and stands in Paris."
	case strings.Contains(prompt, pipeline.MarkerPlan):
		questions := []string{"When was the Eiffel Tower completed?", "In which city does the Eiffel Tower stand?",
			"Is the Eiffel Tower the tallest structure in Paris?", "Who designed the Eiffel Tower?", "How tall is the Eiffel Tower?",
			"What is the Eiffel Tower made of?", "When did the Eiffel Tower open to the public?", "Who owns the Eiffel Tower?",
			"How many visitors does the Eiffel Tower have a year?", "What was the Eiffel Tower built for?"}
		return strings.Join(questions[:b.cfg.Checks], "\n")
	case strings.Contains(prompt, pipeline.MarkerVerify), strings.Contains(prompt, pipeline.MarkerDraft):
		return "It was completed in 1889."
	}
	return "unsure"
}

func randomID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
