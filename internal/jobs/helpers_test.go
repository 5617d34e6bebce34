package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/testenv"
)

// testBundle is what a NATS test works with: its own stream, subjects and shared consumer.
type testBundle struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	cfg     StreamConfig
	stream  jetstream.Stream
	cons    jetstream.Consumer // the backlog lane's
	lanes   *Lanes
	subject string
}

// setup creates a stream of the test's own ("T_<random>" on "t<random>.statements.>") on the
// test NATS server (testenv) and the lane consumers, with short timings, and deletes the stream
// when the test ends. modify, when given, changes the config before Setup.
func setup(t *testing.T, modify func(*StreamConfig)) *testBundle {
	t.Helper()
	return setupOn(t, testenv.NATS(t), modify)
}

func setupOn(t *testing.T, nc *nats.Conn, modify func(*StreamConfig)) *testBundle {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	id := randomID(t)
	cfg := StreamConfig{
		Stream:          "T_" + id,
		Subjects:        []string{"t" + id + ".statements.>"},
		PublishSubject:  "t" + id + ".statements.backlog",
		Consumer:        "workers",
		AckWait:         2 * time.Second,
		MaxDeliver:      3,
		Concurrency:     4,
		DuplicateWindow: time.Minute,
		MaxAge:          time.Hour,
		BackoffBase:     10 * time.Millisecond,
		BackoffMax:      40 * time.Millisecond,
	}
	if modify != nil {
		modify(&cfg)
	}
	ctx := testContext(t)
	lanes, err := SetupLanes(ctx, js, cfg)
	if err != nil {
		// The server's own reason (a store it could not create, say) is only in its log.
		t.Fatalf("SetupLanes: %v\nwarnings of the in-process nats-server:\n%s", err, inProcessWarnings.String())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := js.DeleteStream(ctx, cfg.Stream); err != nil {
			t.Logf("deleting stream %s: %v", cfg.Stream, err)
		}
	})
	return &testBundle{nc: nc, js: js, cfg: cfg.WithDefaults(), stream: lanes.Stream(), cons: lanes.Backlog(), lanes: lanes, subject: cfg.PublishSubject}
}

// newServer is an in-process nats-server of the version in go.mod (2.15), shared by the tests
// that must also run against a server newer than the machine's.
// Its warnings and errors are kept (inProcessWarnings) for a failing test to print.
var newServer = sync.OnceValues(func() (*devenv.NATS, error) {
	dir, err := os.MkdirTemp("", "corroborate-jobs-test-nats-")
	if err != nil {
		return nil, err
	}
	ns, err := devenv.StartNATS(dir, 0)
	if err != nil {
		return nil, err
	}
	ns.Server.SetLogger(&inProcessWarnings, false, false)
	return ns, nil
})

// inProcessWarnings is the in-process server's log of warnings and errors, the last 50 lines.
var inProcessWarnings serverWarnings

// serverWarnings is a nats-server logger (server.Logger) that keeps its last 50 warnings and
// errors and drops notices, debug and trace lines.
type serverWarnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *serverWarnings) keep(level, format string, v ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, level+" "+fmt.Sprintf(format, v...))
	if len(w.lines) > 50 {
		w.lines = w.lines[len(w.lines)-50:]
	}
}

func (w *serverWarnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.lines) == 0 {
		return "(none)"
	}
	return strings.Join(w.lines, "\n")
}

func (w *serverWarnings) Warnf(format string, v ...any)  { w.keep("[WRN]", format, v...) }
func (w *serverWarnings) Errorf(format string, v ...any) { w.keep("[ERR]", format, v...) }
func (w *serverWarnings) Fatalf(format string, v ...any) { w.keep("[FTL]", format, v...) }
func (w *serverWarnings) Noticef(string, ...any)         {}
func (w *serverWarnings) Debugf(string, ...any)          {}
func (w *serverWarnings) Tracef(string, ...any)          {}

var _ server.Logger = (*serverWarnings)(nil)

// servers returns connections to the test NATS server and, when the in-process one (go.mod's
// version) is a different version, to that one too, so that version-dependent behaviour is
// tested on both. Where they are the same version (CI's run against the current release) only
// the test server is used: the one the run means to test.
func servers(t *testing.T) map[string]*nats.Conn {
	t.Helper()
	nc := testenv.NATS(t)
	out := map[string]*nats.Conn{"nats-" + nc.ConnectedServerVersion(): nc}
	ns, err := newServer()
	if err != nil {
		t.Fatalf("starting an in-process NATS: %v", err)
	}
	if server.VERSION == nc.ConnectedServerVersion() {
		return out
	}
	nc2, err := nats.Connect(ns.URL, nats.Name(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc2.Close)
	out["nats-"+nc2.ConnectedServerVersion()] = nc2
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if ns, err := newServer(); err == nil && ns != nil {
		ns.Stop()
		os.RemoveAll(ns.Server.StoreDir())
	}
	os.Exit(code)
}

func randomID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testLogger writes the loop's logs into the test log, so a failure shows what happened.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}

var _ io.Writer = testWriter{}

// publishN publishes n distinct valid jobs and returns their ids.
func (b *testBundle) publishN(t *testing.T, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		res, err := Publish(testContext(t), b.js, b.subject, Message{Text: fmt.Sprintf("Statement number %d is true.", i)}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.JobID
	}
	return ids
}

// consume runs ConsumeLanes over the one consumer b.cons in the background. stop cancels it and returns its error; done yields
// its error once it returns by itself (ExitWhenIdle). Either may be used, or both.
func (b *testBundle) consume(t *testing.T, cfg ConsumeConfig, h Handler) (stop func() error, done <-chan error) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	return b.consumeWith(t, func(ctx context.Context) error { return ConsumeLanes(ctx, &Lanes{backlog: b.cons}, cfg, h) })
}

// consumeLanes is consume with ConsumeLanes over all the lanes.
func (b *testBundle) consumeLanes(t *testing.T, cfg ConsumeConfig, h Handler) (stop func() error, done <-chan error) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	return b.consumeWith(t, func(ctx context.Context) error { return ConsumeLanes(ctx, b.lanes, cfg, h) })
}

func (b *testBundle) consumeWith(t *testing.T, run func(ctx context.Context) error) (stop func() error, done <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var result error
	finished := make(chan struct{})
	go func() {
		result = run(ctx)
		close(finished)
	}()
	wait := func() error {
		select {
		case <-finished:
			return result
		case <-time.After(15 * time.Second):
			return fmt.Errorf("Consume did not return within 15s")
		}
	}
	stop = func() error {
		cancel()
		return wait()
	}
	errc := make(chan error, 1)
	go func() {
		<-finished
		errc <- result
	}()
	t.Cleanup(func() { _ = stop() })
	return stop, errc
}

// streamMsgs is how many messages the stream holds.
func (b *testBundle) streamMsgs(t *testing.T) uint64 {
	t.Helper()
	info, err := b.stream.Info(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// eventually polls cond every 20ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// recorder is an Observer that counts outcomes.
type recorder struct {
	mu       sync.Mutex
	started  int
	outcomes map[Outcome]int
}

func (r *recorder) JobStarted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started++
}

func (r *recorder) JobFinished(outcome Outcome, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outcomes == nil {
		r.outcomes = map[Outcome]int{}
	}
	r.outcomes[outcome]++
}

func (r *recorder) count(outcome Outcome) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outcomes[outcome]
}

// serverAtLeast reports whether a nats-server version ("2.9.10") is major.minor or later.
func serverAtLeast(version string, major, minor int) bool {
	var maj, min int
	if _, err := fmt.Sscanf(strings.TrimPrefix(version, "v"), "%d.%d", &maj, &min); err != nil {
		return false
	}
	return maj > major || maj == major && min >= minor
}
