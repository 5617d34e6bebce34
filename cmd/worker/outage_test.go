package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

var modelOutage = flag.Duration("model.outage", 10*time.Second, "how long the model is down in TestModelOutageSpendsNoAttempts (the issue's full run: 30s)")

// Done when (issue 13, item 2): a backlog of 50 with the model down for 30 s (10 s in CI, see
// -model.outage) ends with 50 done after it comes back and 0 dead: the worker stops taking jobs
// while the endpoint is down, holds the jobs it was running, reports unhealthy and says why in
// a metric, and resumes by itself. Through JetStream, PostgreSQL and the worker's own wiring.
func TestModelOutageSpendsNoAttempts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// reasons are those the breaker may open with: the calls in flight when the server
		// goes away see their connection reset, later ones refused.
		reasons  []string
		down, up func(t *testing.T, s *llmtest.Server)
	}{
		{"connection refused", []string{llm.OutageConnectionRefused, llm.OutageConnectionReset},
			func(t *testing.T, s *llmtest.Server) { s.RefuseConnections() },
			func(t *testing.T, s *llmtest.Server) {
				if err := s.AcceptConnections(); err != nil {
					t.Error(err)
				}
			}},
		{"503", []string{llm.OutageServerError},
			func(t *testing.T, s *llmtest.Server) { s.StartOutage(llmtest.Response{Status: 503}) },
			func(t *testing.T, s *llmtest.Server) { s.EndOutage() }},
		{"401", []string{llm.OutageUnauthorized},
			func(t *testing.T, s *llmtest.Server) {
				s.StartOutage(llmtest.Response{Status: 401, Body: llmtest.ErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key")})
			},
			func(t *testing.T, s *llmtest.Server) { s.EndOutage() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// Slow enough replies that the outage meets jobs in flight.
			b.factoredModel().Delay(40 * time.Millisecond)
			b.cfg.BreakerJobs, b.cfg.BreakerProbeMin, b.cfg.BreakerProbeMax = 3, 100*time.Millisecond, time.Second
			// A retry comes back after the breaker has opened, as with the worker's own delays
			// (5 s and up): with the suite's 20 ms a job retried before the breaker opened could
			// fail again first, since a worker waits for every fetch's answer and takes it at once.
			b.cfg.Stream.BackoffBase, b.cfg.Stream.BackoffMax = time.Second, 2*time.Second
			b.cfg.IdleAfter = time.Second
			const statements = 50
			for i := range statements {
				b.publish(t, jobs.Message{V: 1, ID: fmt.Sprintf("outage-%d", i), Text: fmt.Sprintf("Statement %d of %s was said in Paris in 1999.", i, t.Name()), Method: pipeline.MethodFactored})
			}
			var logs syncBuffer
			b.log = slog.New(slog.NewJSONHandler(&logs, nil))
			m := newMetrics()

			client, err := llm.New(llm.Config{BaseURL: b.model.URL(), Model: b.cfg.Model, Timeout: b.cfg.ModelTimeout})
			if err != nil {
				t.Fatal(err)
			}
			nc, err := nats.Connect(b.cfg.NATSURL)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			js, err := jetstream.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			s := &services{store: b.store, nc: nc, js: js, model: client, probe: client.Probe, answers: client.Answers, natsURL: b.cfg.NATSURL}

			ctx, cancel := context.WithTimeout(context.Background(), *modelOutage+2*time.Minute)
			defer cancel()
			consumed := make(chan error, 1)
			go func() { consumed <- consume(ctx, b.cfg, b.log, s, m, "127.0.0.1:0") }()

			health, metric := endpointsOf(t, &logs)
			waitFor(t, "5 runs stored before the outage", func() bool {
				return b.count(t, `SELECT count(*) FROM runs WHERE subject = $1`, b.cfg.Stream.PublishSubject) >= 5
			})
			tt.down(t, b.model)
			downAt := time.Now()
			var unhealthy atomic.Bool
			var sawReason atomic.Bool
			var watch sync.WaitGroup
			watch.Add(1)
			go func() {
				defer watch.Done()
				for time.Since(downAt) < *modelOutage {
					code, body := health()
					for _, reason := range tt.reasons {
						if code == http.StatusServiceUnavailable && strings.Contains(body, "model endpoint unavailable") && strings.Contains(body, "("+reason+")") {
							unhealthy.Store(true)
						}
						if metric(fmt.Sprintf(`corroborate_model_breaker_open{reason=%q}`, reason)) == "1" {
							sawReason.Store(true)
						}
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
			watch.Wait()
			doneDuringOutage := b.count(t, `SELECT count(*) FROM runs WHERE subject = $1`, b.cfg.Stream.PublishSubject)
			tt.up(t, b.model)
			upAt := time.Now()
			if err := <-consumed; err != nil {
				t.Fatal(err)
			}
			drained := time.Since(upAt)

			subject := b.cfg.Stream.PublishSubject
			byStatus := b.countsBy(t, `SELECT status, count(*)::int FROM job_outcomes WHERE subject = $1 GROUP BY status`, subject)
			if byStatus["done"] != statements || len(byStatus) != 1 {
				t.Errorf("outcomes %v, want %d done and nothing else", byStatus, statements)
			}
			// Attempts spent are the job's failures recorded (retry), not its delivery count: a
			// delivery lost on its way raises the count and costs the job nothing.
			retries := b.countsBy(t, `SELECT a.job_id, count(*)::int FROM message_attempts a JOIN messages m USING (job_id, stream_seq) WHERE m.subject = $1 AND a.outcome = 'retry' GROUP BY a.job_id`, subject)
			spent, maxAttempts := len(retries), 1
			for _, n := range retries {
				maxAttempts = max(maxAttempts, n+1)
			}
			// Before the breaker opens, BreakerJobs-1 jobs spend an attempt; jobs already running
			// when it opens can fail in the same instant as the one that opens it, before they see
			// it open: at most Concurrency-1 more. None spends a second one.
			if most := b.cfg.BreakerJobs - 1 + b.cfg.Concurrency - 1; spent > most || maxAttempts > 2 {
				t.Errorf("%d jobs spent an attempt on the outage (at most %d: before the breaker opened, or running as it opened), the most attempts %d", spent, most, maxAttempts)
			}
			if !unhealthy.Load() {
				t.Errorf("/healthz never said unhealthy with a reason of %q during the outage", tt.reasons)
			}
			if !sawReason.Load() {
				t.Errorf("corroborate_model_breaker_open{reason in %q} never showed the outage", tt.reasons)
			}
			if after := m.model.gauge(); after != breakerNone+"=0" {
				t.Errorf("the breaker gauge after recovery: %s", after)
			}
			for _, want := range []string{"model endpoint breaker open", "model endpoint breaker closed"} {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("the logs never say %q", want)
				}
			}
			t.Logf("%s: model down %s; %d runs stored before it came back; drained %s after; %d jobs spent one attempt, most attempts %d; outcomes %v",
				tt.name, *modelOutage, doneDuringOutage, drained.Round(time.Millisecond), spent, maxAttempts, byStatus)
		})
	}
}

// endpointsOf finds the /metrics and /healthz address the worker logged, and returns functions
// that ask /healthz (status 0 when the server is gone) and read one series of /metrics ("" when
// absent).
func endpointsOf(t *testing.T, logs *syncBuffer) (health func() (int, string), metric func(series string) string) {
	t.Helper()
	addr := regexp.MustCompile(`"msg":"serving /metrics and /healthz","addr":"([^"]+)"`)
	var base string
	waitFor(t, "the worker serving /healthz", func() bool {
		if m := addr.FindStringSubmatch(logs.String()); m != nil {
			base = "http://" + m[1]
			return true
		}
		return false
	})
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	health = func() (int, string) { return get("/healthz") }
	metric = func(series string) string {
		_, body := get("/metrics")
		for line := range strings.Lines(body) {
			if rest, ok := strings.CutPrefix(line, series+" "); ok {
				return strings.TrimSpace(rest)
			}
		}
		return ""
	}
	return health, metric
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
