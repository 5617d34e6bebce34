package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corroborate/corroborate/internal/breaker"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/worker"
)

// metrics are the worker's Prometheus metrics, on a registry of its own so that tests can make
// as many workers as they like.
type metrics struct {
	registry   *prometheus.Registry
	jobs       *prometheus.CounterVec
	retries    prometheus.Counter
	inFlight   prometheus.Gauge
	jobSeconds prometheus.Histogram
	calls      *prometheus.CounterVec
	callErrors *prometheus.CounterVec
	tokens     *prometheus.CounterVec
	callSecs   *prometheus.HistogramVec
	// pageReads counts the pages read behind search results, by result: read, cached, or why
	// not (pipeline.Page.Failure).
	pageReads *prometheus.CounterVec
	// jointAgreement is the recent agreement rate of cove-joint checks, by model.
	jointAgreement *prometheus.GaugeVec
	// model and database follow the breakers on the model endpoint and on PostgreSQL.
	model, database *breakerMetrics
}

// breakerMetrics follow one circuit breaker: open is 1, labelled with the outage's reason, while
// it is open; opened counts its openings by reason.
type breakerMetrics struct {
	open   *prometheus.GaugeVec
	opened *prometheus.CounterVec
	// mu keeps the gauge's reset and set together; now is its series, for tests.
	mu  sync.Mutex
	now string
}

func newBreakerMetrics(name, openHelp, openedHelp string) *breakerMetrics {
	b := &breakerMetrics{
		open:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corroborate_" + name + "_breaker_open", Help: openHelp}, []string{"reason"}),
		opened: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corroborate_" + name + "_breaker_opened_total", Help: openedHelp}, []string{"reason"}),
	}
	b.open.WithLabelValues(breakerNone).Set(0)
	b.now = breakerNone + "=0"
	return b
}

// changed follows the breaker (breaker.Config.OnChange).
func (b *breakerMetrics) changed(s breaker.State, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open.Reset()
	if s != breaker.Open {
		b.open.WithLabelValues(breakerNone).Set(0)
		b.now = breakerNone + "=0"
		return
	}
	b.open.WithLabelValues(reason).Set(1)
	b.opened.WithLabelValues(reason).Inc()
	b.now = reason + "=1"
}

// gauge is the gauge's one series as reason=value, for tests.
func (b *breakerMetrics) gauge() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.now
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corroborate_jobs_total", Help: "Jobs finished, by outcome (done, rejected, failed, dead; duplicate for a message of a job another message stored).",
		}, []string{"outcome"}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "corroborate_job_retries_total", Help: "Job attempts that failed and were put back for a retry.",
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "corroborate_jobs_in_flight", Help: "Jobs running now.",
		}),
		jobSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "corroborate_job_duration_seconds", Help: "Time to run and store one job.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16),
		}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corroborate_model_calls_total", Help: "Model calls, by step.",
		}, []string{"step"}),
		callErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corroborate_model_call_errors_total", Help: "Model calls that failed, by step.",
		}, []string{"step"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corroborate_model_tokens_total", Help: "Model tokens, by kind (prompt, completion).",
		}, []string{"kind"}),
		callSecs: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "corroborate_model_call_duration_seconds", Help: "Latency of model calls, by step.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 16),
		}, []string{"step"}),
		pageReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corroborate_page_reads_total", Help: "Pages read behind search results, by result: read, cached, or why not (address_refused, robots_disallowed, too_large, timeout, ...).",
		}, []string{"result"}),
		jointAgreement: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "corroborate_joint_agreement_rate", Help: "Share of recent cove-joint runs whose checks agreed with the draft, by model.",
		}, []string{"model"}),
		model: newBreakerMetrics("model",
			"1 while the worker takes no jobs because the model endpoint is down, labelled with why (connection_refused, dns, unauthorized, forbidden, quota, server_error); 0 with reason none otherwise.",
			"Times the breaker on the model endpoint opened, by reason."),
		database: newBreakerMetrics("database",
			"1 while the worker takes no jobs and holds those it runs because PostgreSQL cannot store outcomes, labelled with why (unreachable, shutdown, disk_full, resources, read_only, io_error, timeout); 0 with reason none otherwise.",
			"Times the breaker on PostgreSQL opened, by reason."),
	}
	m.registry.MustRegister(m.pageReads, m.model.open, m.model.opened, m.database.open, m.database.opened, m.jointAgreement, m.jobs, m.retries, m.inFlight, m.jobSeconds, m.calls, m.callErrors, m.tokens, m.callSecs,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// countPages returns r with each page it reads counted in corroborate_page_reads_total; nil
// stays nil (no page reading).
func (m *metrics) countPages(r pipeline.PageReader) pipeline.PageReader {
	if r == nil {
		return nil
	}
	return countedPages{next: r, reads: m.pageReads}
}

type countedPages struct {
	next  pipeline.PageReader
	reads *prometheus.CounterVec
}

func (c countedPages) ReadPage(ctx context.Context, url string) pipeline.Page {
	p := c.next.ReadPage(ctx, url)
	switch {
	case p.Failure != "":
		c.reads.WithLabelValues(p.Failure).Inc()
	case p.Cached:
		c.reads.WithLabelValues("cached").Inc()
	default:
		c.reads.WithLabelValues("read").Inc()
	}
	return p
}

// Fresh keeps the counting on a reader that reads past its cache (worker.pagesFor).
func (c countedPages) Fresh() pipeline.PageReader {
	if f, ok := c.next.(interface{ Fresh() pipeline.PageReader }); ok {
		return countedPages{next: f.Fresh(), reads: c.reads}
	}
	return c
}

// breakerNone labels a breaker gauge while the breaker is not open.
const breakerNone = "none"

// JobStarted counts a job in flight (jobs.Observer).
func (m *metrics) JobStarted() { m.inFlight.Inc() }

// JobFinished counts a job's outcome, as the consume loop settled it (jobs.Observer): the one
// place that counts jobs. An attempt that another follows (retry, interrupted) is a retry.
func (m *metrics) JobFinished(outcome jobs.Outcome, took time.Duration) {
	m.inFlight.Dec()
	if !outcome.Final() {
		m.retries.Inc()
		return
	}
	m.jobs.WithLabelValues(string(outcome)).Inc()
	if outcome == jobs.OutcomeDone {
		m.jobSeconds.Observe(took.Seconds())
	}
}

// RunFinished counts a run's model calls (worker.Observer).
func (m *metrics) RunFinished(res *pipeline.Result) {
	if res == nil {
		return
	}
	for _, c := range res.Calls {
		m.calls.WithLabelValues(c.Step).Inc()
		if c.Error != "" {
			m.callErrors.WithLabelValues(c.Step).Inc()
		}
		m.tokens.WithLabelValues("prompt").Add(float64(c.PromptTokens))
		m.tokens.WithLabelValues("completion").Add(float64(c.CompletionTokens))
		m.callSecs.WithLabelValues(c.Step).Observe(c.Latency.Seconds())
	}
}

// JointAgreement sets the recent cove-joint agreement rate of a model (worker.Observer).
func (m *metrics) JointAgreement(model string, rate float64) {
	m.jointAgreement.WithLabelValues(model).Set(rate)
}

var (
	_ jobs.Observer   = (*metrics)(nil)
	_ worker.Observer = (*metrics)(nil)
)

// serveMetrics serves /metrics and /healthz on addr until ctx ends. health reports whether the
// worker can work (NATS connected, PostgreSQL reachable and storing, the model endpoint up).
func serveMetrics(ctx context.Context, addr string, m *metrics, health func(context.Context) error, log *slog.Logger) (string, error) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		hctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := health(hctx); err != nil {
			http.Error(w, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	l, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		// A second worker on one host finds the first one's port taken: it serves on a free port
		// of the same host instead of dying, and says which (scrape it there, or give each worker
		// its own --metrics-addr).
		host, _, _ := net.SplitHostPort(addr)
		l, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err == nil {
			log.Warn("the metrics address is taken (another worker on this host?): serving /metrics and /healthz on a free port instead; give each worker its own --metrics-addr to scrape a fixed one",
				"wanted", addr, "addr", l.Addr().String())
		}
	}
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	return l.Addr().String(), nil
}
