// Command worker consumes statements from JetStream, verifies each with its method, and stores
// the whole run in PostgreSQL in one transaction before acknowledging it.
//
//	worker [flags]          run until SIGINT/SIGTERM (or, with --exit-when-idle, until drained)
//	worker migrate [flags]  apply the database migrations and exit
//	worker demo             the whole system on embedded defaults, with the bundled examples
//	worker grants           print the SQL that gives a worker role least privilege
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/term"

	"github.com/corroborate/corroborate/examples"
	"github.com/corroborate/corroborate/internal/breaker"
	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/ratelimit"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/worker"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses: package exitcode's, under the names this command's code uses.
const (
	exitOK     = exitcode.OK
	exitFailed = exitcode.Failed
	exitUsage  = exitcode.Usage
)

// exitStatuses are the worker's exit statuses as its --help explains them.
var exitStatuses = []exitcode.Status{
	exitcode.Of(exitOK, "stopped by SIGINT/SIGTERM, or --exit-when-idle drained the backlog"),
	exitcode.Of(exitFailed, "PostgreSQL, NATS or a migration"),
	exitcode.Of(exitUsage, "also a model endpoint that refuses the key, does not know the model or cannot be reached at start"),
}

func run(args []string, stdout, stderr io.Writer) int {
	command := "run"
	if len(args) > 0 && (args[0] == "migrate" || args[0] == "demo" || args[0] == "run" || args[0] == "grants") {
		command, args = args[0], args[1:]
	}
	var cfg Config
	fs := envflag.New("worker", "Usage: worker [run|migrate|demo|grants] [flags]\n\n"+
		"Consumes statements from JetStream, verifies them, stores every run in PostgreSQL.\n"+
		"worker migrate applies the migrations and checks the model endpoint as a worker does at start.")
	fs.SetOutput(stderr)
	fs.ExitStatuses(exitStatuses...)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "worker:", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "worker: unexpected argument %q (commands: run, migrate, demo)\n", fs.Arg(0))
		return exitUsage
	}
	if command == "grants" {
		sql, err := store.GrantSQL(cfg.GrantSchema, cfg.GrantRole, store.Role(cfg.GrantFor))
		if err != nil {
			fmt.Fprintln(stderr, "worker grants:", err)
			return exitUsage
		}
		fmt.Fprint(stdout, sql)
		return exitOK
	}
	if err := cfg.loadSecrets(); err != nil {
		fmt.Fprintln(stderr, "worker:", err)
		return exitUsage
	}
	if command == "demo" {
		cfg.Dev, cfg.ExitWhenIdle = true, true
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "worker:", err)
		return exitUsage
	}
	log := newLogger(cfg, stderr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	switch command {
	case "migrate":
		err = migrate(ctx, cfg, log, stdout)
	case "demo":
		err = demo(ctx, cfg, log, stdout)
	default:
		err = work(ctx, cfg, log)
	}
	var bad *badModelError
	if errors.As(err, &bad) {
		// One line that says what to fix, not a log record: the worker cannot work as configured.
		fmt.Fprintln(stderr, "worker:", bad.Error())
		return exitUsage
	}
	if err != nil {
		log.Error("worker stopped", "error", err)
		return exitFailed
	}
	return exitOK
}

// badModelError is the start probe's finding that the model endpoint cannot work as configured
// (key refused, model unknown, nothing listening, a host that does not resolve): exit 2.
type badModelError struct{ err *llm.ProbeError }

func (e *badModelError) Error() string { return e.err.Error() }
func (e *badModelError) Unwrap() error { return e.err }

// newLogger returns the structured logger: JSON in production, text on a terminal.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: durationAsString}
	format := cfg.LogFormat
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// durationAsString writes a duration as Go writes it ("1.5s", "250ms"): slog's JSON handler would
// write a bare count of nanoseconds, which no one reading a log takes for a duration.
func durationAsString(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}

// services are the connections a worker needs, and how to let them go.
type services struct {
	store    *store.Store
	nc       *nats.Conn
	js       jetstream.JetStream
	model    pipeline.Model
	searcher pipeline.Searcher
	// pages reads the pages behind search results; nil when the worker reads none.
	pages pipeline.PageReader
	// limiter paces the model calls (nil for the replay model); its Stats are for metrics.
	limiter *ratelimit.Limiter
	// probe checks the model endpoint with one cheap request (nil for the replay model): at
	// start, and while the breaker is open.
	probe func(context.Context) error
	// answers asks the model a known-good request (nil for the replay model): the breaker opens
	// only when that fails too, not when some jobs' prompts fail.
	answers  func(context.Context) error
	replay   bool
	natsURL  string
	closeAll []func()
}

func (s *services) close() {
	for i := len(s.closeAll) - 1; i >= 0; i-- {
		s.closeAll[i]()
	}
}

// connect opens PostgreSQL (migrated), NATS and the model; in dev mode it first starts what is
// not configured.
func connect(ctx context.Context, cfg Config, log *slog.Logger, withModel bool) (*services, error) {
	s := &services{}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	if cfg.Dev {
		if err := os.MkdirAll(cfg.DevDir, 0o755); err != nil {
			return nil, fmt.Errorf("dev mode: %w", err)
		}
		if cfg.DatabaseURL == "" {
			pg, err := devenv.StartPostgres(ctx, filepath.Join(cfg.DevDir, "postgres"))
			if err != nil {
				return nil, fmt.Errorf("dev mode: %w", err)
			}
			s.closeAll = append(s.closeAll, func() {
				if err := pg.Stop(); err != nil {
					log.Warn("stopping the throwaway PostgreSQL", "error", err)
				}
			})
			cfg.DatabaseURL = pg.URL
			log.Info("dev mode: started a throwaway PostgreSQL", "database_url", pg.URL, "dir", pg.Dir)
		}
		if cfg.NATSURL == "" {
			ns, err := devenv.StartNATS(filepath.Join(cfg.DevDir, "nats"), 0)
			if err != nil {
				return nil, fmt.Errorf("dev mode: %w", err)
			}
			s.closeAll = append(s.closeAll, ns.Stop)
			cfg.NATSURL = ns.URL
			log.Info("dev mode: started an in-process NATS with JetStream", "nats_url", ns.URL)
		}
	}

	st, err := store.Open(ctx, store.Config{URL: cfg.DatabaseURL, MaxConns: int32(max(4, cfg.Concurrency+2))})
	if err != nil {
		return nil, err
	}
	s.store = st
	s.closeAll = append(s.closeAll, st.Close)
	applied, err := st.Migrate(ctx)
	if err != nil {
		return nil, err
	}
	if len(applied) > 0 {
		log.Info("applied database migrations", "migrations", applied)
	}

	connOpts, err := cfg.NATSConn.Options()
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(cfg.NATSURL, append(connOpts,
		nats.Name("corroborate-worker"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		// A nil error is our own drain at shutdown, not a fault.
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected", "error", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) { log.Info("NATS reconnected", "url", c.ConnectedUrlRedacted()) }))...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s (is it running? is NATS_URL right?): %w", cfg.NATSURL, err)
	}
	s.nc, s.natsURL = nc, cfg.NATSURL
	s.closeAll = append(s.closeAll, func() { _ = nc.Drain() })
	if s.js, err = jetstream.New(nc); err != nil {
		return nil, fmt.Errorf("JetStream: %w", err)
	}

	if withModel {
		if err := s.openModel(ctx, cfg, log); err != nil {
			return nil, err
		}
		cfg.Search.Logger = log
		if cfg.Search.Provider != search.ProviderPostgres {
			// A web provider has limits of its own: pace it, and see its 429s and headers.
			lim, err := ratelimit.New(ratelimit.Config{Name: "search:" + cfg.Search.Provider,
				RequestsPerMinute: cfg.SearchRPM, MaxConcurrent: cfg.SearchMaxConcurrent, Logger: log})
			if err != nil {
				return nil, fmt.Errorf("search rate limits: %w", err)
			}
			cfg.Search.OnResponse = lim.ObserveResponse
			cfg.Search.Limit = func(next pipeline.Searcher) pipeline.Searcher { return ratelimit.Searcher(next, lim) }
		}
		searcher, err := search.New(cfg.Search, st.Pool())
		if err != nil {
			return nil, err
		}
		// Every provider's results carry the organisation that owns their domain (source_owners).
		s.searcher = search.WithOrganisations(searcher, st.SourceOwnerMap, search.OrganisationsOpts{Logger: log})
		if s.pages, err = cfg.pageReader(log, st.Pool()); err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

func (s *services) openModel(ctx context.Context, cfg Config, log *slog.Logger) error {
	if !cfg.modelConfigured() {
		if !cfg.Dev {
			return errors.New("no model configured: set OPENAI_API_KEY or OPENAI_BASE_URL")
		}
		replay, err := llm.NewReplay(examples.Replay)
		if err != nil {
			return err
		}
		s.model, s.replay = replay, true
		log.Warn("dev mode: NO MODEL CONFIGURED: using the offline replay of recorded replies for the bundled examples; results are a REPLAY, not a verification")
		return nil
	}
	limits := cfg.modelLimits()
	limits.Logger = log
	if cfg.SharedBudget != "" {
		shared, err := ratelimit.OpenShared(ctx, s.js, ratelimit.SharedConfig{Bucket: cfg.SharedBudget})
		if err != nil {
			return err
		}
		limits.Shared = shared
	}
	lim, err := ratelimit.New(limits)
	if err != nil {
		return err
	}
	lc := cfg.llmConfig()
	lc.OnResponse = lim.ObserveResponse
	client, err := llm.New(lc)
	if err != nil {
		return err
	}
	s.model, s.limiter, s.probe, s.answers = ratelimit.Model(client, lim), lim, client.Probe, client.Answers
	log.Info("model", "model", client.Model(), "base_url", client.BaseURL(),
		"rpm", cfg.ModelRPM, "tpm", cfg.ModelTPM, "max_concurrent", cfg.ModelMaxConcurrent, "shared_budget", cfg.SharedBudget)
	return nil
}

// llmConfig is the model client's configuration.
func (c Config) llmConfig() llm.Config {
	return llm.Config{APIKey: c.OpenAIAPIKey, BaseURL: c.OpenAIBaseURL, Model: c.Model, Timeout: c.ModelTimeout, MaxTokens: c.MaxTokens}
}

// probeModel checks the configured model endpoint before anything else is opened, so that a
// bad key or URL is said at once, in one line (see probeAtStart). Without an endpoint (dev
// mode's replay) there is nothing to check.
func probeModel(ctx context.Context, cfg Config, log *slog.Logger) error {
	if !cfg.modelConfigured() {
		return nil
	}
	client, err := llm.New(cfg.llmConfig())
	if err != nil {
		return err
	}
	return probeAtStart(ctx, cfg, log, client.Probe)
}

// probeAtStart checks the model endpoint once before any job is taken. A configuration that
// cannot work (key refused, model unknown, nothing listening, a host that does not resolve)
// ends the worker with a badModelError; an endpoint that may recover by itself (5xx, rate
// limit, timeout) is only a warning: the breaker holds the jobs while it is down.
func probeAtStart(ctx context.Context, cfg Config, log *slog.Logger, probe func(context.Context) error) error {
	pctx, cancel := context.WithTimeout(ctx, min(cfg.ModelTimeout, 30*time.Second))
	defer cancel()
	err := probe(pctx)
	var pe *llm.ProbeError
	switch {
	case err == nil:
		log.Info("model endpoint answers")
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &pe) && pe.Fatal:
		return &badModelError{err: pe}
	}
	log.Warn("model endpoint failed the probe at start; consuming anyway, the breaker holds jobs while it is down", "error", err)
	return nil
}

// modelName is what runs record as their model.
func (s *services) modelName(cfg Config) string {
	if s.replay {
		return llm.ReplayModel
	}
	return cfg.Model
}

// migrate applies the migrations and exits. It first probes the model endpoint as work does:
// a deployment that runs migrate once before its workers (docker-compose.yml's migrate service)
// learns of a refused key or an unknown model there, in one line and exit 2, instead of from
// every worker restarting on it.
func migrate(ctx context.Context, cfg Config, log *slog.Logger, stdout io.Writer) error {
	if err := probeModel(ctx, cfg, log); err != nil {
		return err
	}
	s, err := connect(ctx, cfg, log, false)
	if err != nil {
		return err
	}
	defer s.close()
	fmt.Fprintln(stdout, "migrations are up to date")
	return nil
}

// work runs the worker until ctx ends (or, with --exit-when-idle, until the backlog is drained).
func work(ctx context.Context, cfg Config, log *slog.Logger) error {
	if err := probeModel(ctx, cfg, log); err != nil {
		return err
	}
	s, err := connect(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer s.close()
	return consume(ctx, cfg, log, s, newMetrics(), cfg.MetricsAddr)
}

// consume sets up the stream and consumer and runs the consume loop with the job executor; m
// counts its jobs and runs.
func consume(ctx context.Context, cfg Config, log *slog.Logger, s *services, m *metrics, metricsAddr string) error {
	sc := cfg.streamConfig()
	lanes, err := jobs.SetupLanes(ctx, s.js, sc)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	modelName := s.modelName(cfg)
	br := newBreaker(ctx, cfg, log, s, m)
	var outages worker.Outages
	if br != nil {
		outages = br
	}
	db := newDatabaseBreaker(ctx, cfg, log, s, m)
	executor := worker.New(worker.Config{
		Store: s.store, Model: s.model, Searcher: s.searcher, ModelName: modelName,
		Pages:      evidence.PageReading{Reader: m.countPages(s.pages), PerHop: cfg.PagesPerHop},
		Validation: jobs.ValidationConfig{MaxMessageBytes: sc.WithDefaults().MaxMessageBytes, DefaultMethod: cfg.DefaultMethod},
		Stream:     sc.WithDefaults().Stream, UrgentSubject: sc.WithDefaults().UrgentSubject,
		MaxQuestions: cfg.MaxQuestions, Concurrency: cfg.VerifyConcurrency,
		JointSwitch: worker.JointSwitch{Enabled: cfg.JointSwitch, Threshold: cfg.JointSwitchThreshold, Window: cfg.JointSwitchWindow},
		Worker:      fmt.Sprintf("%s/%d", host, os.Getpid()), Observer: m, Outages: outages, Database: db, Logger: log,
		// A job's lease lapses when the server would redeliver its message.
		LeaseTTL: sc.WithDefaults().AckWait,
		Claims:   claimLookup(s.store), ReuseWithin: cfg.ReuseWithin,
		Now: cfg.clock(), Today: cfg.today(),
	})
	if metricsAddr != "" {
		addr, err := serveMetrics(ctx, metricsAddr, m, func(ctx context.Context) error {
			if !s.nc.IsConnected() {
				return errors.New("NATS is not connected")
			}
			if err := db.Health(); err != nil {
				return err
			}
			if br != nil {
				if err := br.Health(); err != nil {
					return err
				}
			}
			return s.store.Pool().Ping(ctx)
		}, log)
		if err != nil {
			return fmt.Errorf("--metrics-addr %s: %w", metricsAddr, err)
		}
		log.Info("serving /metrics and /healthz", "addr", addr)
	}
	cc := sc.ConsumeConfig()
	cc.Concurrency = cfg.Concurrency
	cc.ShutdownTimeout = cfg.ShutdownTimeout
	cc.Logger = log
	cc.Observer = m
	cc.TermWithReason = jobs.TermReasonSupported(s.nc)
	// The database first: without it no outcome can be stored, whatever the model does.
	cc.Gates = append(cc.Gates, db)
	if br != nil {
		cc.Gates = append(cc.Gates, br)
	}
	if cfg.ExitWhenIdle {
		cc.ExitWhenIdle = cfg.IdleAfter
	}
	log.Info("worker consuming", "stream", sc.WithDefaults().Stream, "subjects", sc.Subjects, "urgent_lane", lanes.Urgent() != nil, "concurrency", cfg.Concurrency,
		"model", modelName, "exit_when_idle", cfg.ExitWhenIdle, "reads_pages", s.pages != nil)
	err = jobs.ConsumeLanes(ctx, lanes, cc, executor)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	log.Info("worker stopped consuming")
	return nil
}

// newBreaker returns the circuit breaker on the model endpoint, probing until ctx ends, or nil
// when there is no endpoint to probe (the replay model) or --model-breaker-jobs is 0.
func newBreaker(ctx context.Context, cfg Config, log *slog.Logger, s *services, m *metrics) *breaker.Breaker {
	if s.probe == nil || cfg.BreakerJobs == 0 {
		return nil
	}
	br := breaker.New(breaker.Config{
		Name: "model endpoint", Threshold: cfg.BreakerJobs, Classify: llm.OutageReason, Probe: s.probe, Confirm: s.answers,
		ProbeMin: cfg.BreakerProbeMin, ProbeMax: cfg.BreakerProbeMax, Logger: log, OnChange: m.model.changed,
	})
	go br.Run(ctx)
	return br
}

// newDatabaseBreaker returns the circuit breaker on PostgreSQL, probing until ctx ends. One
// store call that meets an outage opens it (store.OutageReason): while it is open the worker
// takes no job, holds the jobs it runs on their deliveries (no outcome can be stored, and none
// may end unstored), reports unhealthy and says why in corroborate_database_breaker_open.
func newDatabaseBreaker(ctx context.Context, cfg Config, log *slog.Logger, s *services, m *metrics) *breaker.Breaker {
	db := breaker.New(breaker.Config{
		Name: "database", Threshold: 1, Classify: store.OutageReason, Probe: s.store.ProbeWrite,
		ProbeMin: cfg.DatabaseProbeMin, ProbeMax: cfg.DatabaseProbeMax, Logger: log, OnChange: m.database.changed,
	})
	go db.Run(ctx)
	return db
}

// describeFlags is used by tests to check that --help names every variable.
func describeFlags() string {
	var cfg Config
	fs := envflag.New("worker", "")
	var b strings.Builder
	fs.SetOutput(&b)
	cfg.flags(fs)
	fs.Usage()
	return b.String()
}
