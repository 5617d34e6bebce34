package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// isolated is a bundle on a PostgreSQL and a NATS of the test's own, which it may restart.
type isolated struct {
	*bundle
	pg *devenv.Postgres
	ns *devenv.NATS
}

func setupIsolated(t *testing.T) *isolated {
	t.Helper()
	b := setup(t)
	pg, st := throwawayPostgres(t, 12)
	ns := b.ownNATS(t)
	b.store = st
	// Enough attempts, closely spaced, to outlast a restart of a few seconds.
	b.cfg.Stream.MaxDeliver, b.cfg.Stream.BackoffBase, b.cfg.Stream.BackoffMax = 30, 100*time.Millisecond, 500*time.Millisecond
	return &isolated{bundle: b, pg: pg, ns: ns}
}

// ownNATS starts a nats-server of the test's own, which it may stop and restart, and points
// the bundle at it (b.js on a connection that reconnects for ever, b.cfg.NATSURL).
func (b *bundle) ownNATS(t *testing.T) *devenv.NATS {
	t.Helper()
	ns, err := devenv.StartNATS(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Stop() })
	nc, err := nats.Connect(ns.URL, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if b.js, err = jetstream.New(nc); err != nil {
		t.Fatal(err)
	}
	b.cfg.NATSURL = ns.URL
	return ns
}

// throwawayPostgres starts a PostgreSQL cluster of the test's own, which it may stop and start,
// and returns it with a migrated store of maxConns connections on it.
func throwawayPostgres(t *testing.T, maxConns int32) (*devenv.Postgres, *store.Store) {
	t.Helper()
	ctx := context.Background()
	// Not t.TempDir(): its parent is private to this user, and as root the cluster runs as the
	// postgres user, who must be able to reach it.
	dir, err := os.MkdirTemp("", "corroborate-faults-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	pg, err := devenv.StartPostgres(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	st, err := store.Open(ctx, store.Config{URL: pg.URL, MaxConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return pg, st
}

// whenRuns calls fn once n runs are stored.
func (b *isolated) whenRuns(t *testing.T, n int, fn func()) {
	t.Helper()
	go func() {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			var got int
			if err := b.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM runs`).Scan(&got); err == nil && got >= n {
				fn()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("never reached %d runs", n)
	}()
}

// PostgreSQL and NATS restarted mid-backlog: workers reconnect, jobs retry with backoff, and
// nothing is lost or doubled.
func TestServiceRestartMidBacklog(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		restart func(b *isolated) error
	}{
		{"postgres", func(b *isolated) error {
			if err := b.pg.Stop(); err != nil {
				return err
			}
			time.Sleep(2 * time.Second)
			return b.pg.Start(context.Background())
		}},
		{"nats", func(b *isolated) error { return b.ns.Restart(time.Second) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setupIsolated(t)
			b.factoredModel().Delay(20 * time.Millisecond)
			const statements = 60
			for i := range statements {
				b.publish(t, jobs.Message{V: 1, Text: fmt.Sprintf("Restart statement %d of %s", i, b.text), Method: pipeline.MethodFactored})
			}
			restarted := make(chan error, 1)
			b.whenRuns(t, 10, func() { restarted <- c.restart(b) })
			b.runWorkers(t, 2)
			if err := <-restarted; err != nil {
				t.Fatal(err)
			}
			b.checkNothingLostNothingDoubled(t, statements)
		})
	}
}

func TestModelHangingPastTheTimeoutIsRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.cfg.ModelTimeout = time.Second
	b.model.Reply(pipeline.MarkerPlan, "never mind").Delay(3 * time.Second).Once()
	b.factoredModel()
	job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done' AND attempts = 2`, job); n != 1 {
		t.Fatalf("a model call that hung past the timeout must fail the attempt and be retried")
	}
}

// A model endpoint that drops connections mid-request (a proxy restarting, a load balancer
// timing out) costs a retry, nothing more.
func TestModelClosingConnectionsIsRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	target, err := url.Parse(b.model.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	var dropped atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dropped.Add(1) <= 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(flaky.Close)
	b.modelURL = flaky.URL + "/v1"
	job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done'`, job); n != 1 {
		t.Fatal("a job whose model connections were dropped did not end done")
	}
	if dropped.Load() < 3 {
		t.Fatalf("only %d requests reached the flaky endpoint", dropped.Load())
	}
}
