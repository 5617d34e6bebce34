package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/testenv"
)

// TestConsumeAcks: a handler that returns nil gets each job once, with its job id, and the
// stream ends empty.
func TestConsumeAcks(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ids := b.publishN(t, 5)

	var mu sync.Mutex
	var seen []string
	obs := &recorder{}
	_, done := b.consume(t, ConsumeConfig{ExitWhenIdle: 300 * time.Millisecond, Observer: obs}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		if d.NumDelivered != 1 || d.Final || d.Exhausted || d.Subject != b.subject || d.StreamSeq == 0 || d.Log == nil || d.Received.IsZero() {
			t.Errorf("delivery %+v", d)
		}
		if _, err := Decode(d.Data, ValidationConfig{}); err != nil {
			t.Errorf("delivered data: %v", err)
		}
		seen = append(seen, d.JobID)
		return nil
	}))
	if err := waitDone(t, done); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(seen)
	slices.Sort(ids)
	if !slices.Equal(seen, ids) {
		t.Errorf("handled %q, want each of %q once", seen, ids)
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages after acks", n)
	}
	if obs.started != 5 || obs.count(OutcomeDone) != 5 {
		t.Errorf("observer saw %d started, outcomes %v", obs.started, obs.outcomes)
	}
}

// TestConsumeRejects: a rejected job is terminated, never retried, on every server version.
func TestConsumeRejects(t *testing.T) {
	t.Parallel()
	for name, nc := range servers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, nc, func(c *StreamConfig) { c.AckWait = time.Second })
			if _, err := PublishRaw(testContext(t), b.js, b.subject, []byte("not json"), ""); err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int32
			obs := &recorder{}
			stop, _ := b.consume(t, ConsumeConfig{Observer: obs, TermWithReason: TermReasonSupported(nc)},
				HandlerFunc(func(ctx context.Context, d *Delivery) error {
					calls.Add(1)
					_, err := Decode(d.Data, ValidationConfig{})
					return Reject(err)
				}))
			eventually(t, 5*time.Second, "the rejected message leaves the stream", func() bool { return b.streamMsgs(t) == 0 })
			// Well past the ack wait: a message that was not really terminated would be back.
			time.Sleep(1500 * time.Millisecond)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("handler called %d times, want 1", n)
			}
			if obs.count(OutcomeRejected) != 1 {
				t.Errorf("outcomes %v", obs.outcomes)
			}
		})
	}
}

// TestConsumeRetriesThenDeadLetter: a job that keeps failing is nakked with backoff, marked
// Final on attempt MaxDeliver and Exhausted on the delivery after, then terminated.
func TestConsumeRetriesThenDeadLetter(t *testing.T) {
	t.Parallel()
	b := setup(t, nil) // MaxDeliver 3, backoff 10ms..40ms
	b.publishN(t, 1)

	type attempt struct {
		n                uint64
		final, exhausted bool
		at               time.Time
	}
	var mu sync.Mutex
	var attempts []attempt
	obs := &recorder{}
	_, done := b.consume(t, b.cfg.ConsumeConfig().with(func(c *ConsumeConfig) {
		c.Observer = obs
		c.ExitWhenIdle = 300 * time.Millisecond
	}), HandlerFunc(func(ctx context.Context, d *Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		attempts = append(attempts, attempt{d.NumDelivered, d.Final, d.Exhausted, time.Now()})
		return errors.New("model unavailable")
	}))
	if err := waitDone(t, done); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []attempt{{n: 1}, {n: 2}, {n: 3, final: true}, {n: 4, exhausted: true}}
	if len(attempts) != len(want) {
		t.Fatalf("attempts %+v, want %d", attempts, len(want))
	}
	for i, a := range attempts {
		if a.n != want[i].n || a.final != want[i].final || a.exhausted != want[i].exhausted {
			t.Errorf("attempt %d = %+v, want %+v", i+1, a, want[i])
		}
	}
	// The delays grow: 10ms, 20ms, 40ms (each plus jitter), far below the 2s ack wait.
	for i := 1; i < len(attempts); i++ {
		gap := attempts[i].at.Sub(attempts[i-1].at)
		if min := 10 * time.Millisecond << (i - 1); gap < min || gap > time.Second {
			t.Errorf("gap before attempt %d = %s, want a nak delay of about %s", i+1, gap, min)
		}
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages after the dead letter", n)
	}
	if obs.count(OutcomeRetry) != 3 || obs.count(OutcomeDead) != 1 {
		t.Errorf("outcomes %v, want 3 retries and 1 dead", obs.outcomes)
	}
}

func (c ConsumeConfig) with(f func(*ConsumeConfig)) ConsumeConfig {
	f(&c)
	return c
}

// TestConsumeRecoversFromPanic: a handler panic is a failed attempt, and the job is retried.
func TestConsumeRecoversFromPanic(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 1)
	var calls atomic.Int32
	_, done := b.consume(t, ConsumeConfig{ExitWhenIdle: 300 * time.Millisecond, BackoffBase: 10 * time.Millisecond},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			if calls.Add(1) == 1 {
				panic("boom")
			}
			return nil
		}))
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || b.streamMsgs(t) != 0 {
		t.Errorf("%d calls, %d messages left; want a retry that succeeds", calls.Load(), b.streamMsgs(t))
	}
}

// TestConsumeConcurrencyLimit: never more jobs at once than Concurrency, and that many do run.
func TestConsumeConcurrencyLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 24)
	const limit = 3
	var running, peak, total atomic.Int32
	_, done := b.consume(t, ConsumeConfig{Concurrency: limit, ExitWhenIdle: 300 * time.Millisecond},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			n := running.Add(1)
			defer running.Add(-1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			total.Add(1)
			time.Sleep(40 * time.Millisecond)
			return nil
		}))
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != limit {
		t.Errorf("peak in flight = %d, want %d", p, limit)
	}
	if total.Load() != 24 || b.streamMsgs(t) != 0 {
		t.Errorf("%d jobs run, %d left", total.Load(), b.streamMsgs(t))
	}
}

// TestConsumeHeartbeat: a job that runs longer than the ack wait is not redelivered, because the
// loop reports it in progress.
func TestConsumeHeartbeat(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *StreamConfig) { c.AckWait = time.Second })
	b.publishN(t, 1)
	var calls atomic.Int32
	_, done := b.consume(t, ConsumeConfig{Concurrency: 2, ExitWhenIdle: 300 * time.Millisecond},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			calls.Add(1)
			time.Sleep(2500 * time.Millisecond)
			return nil
		}))
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("handler called %d times; the job was redelivered while running", n)
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages", n)
	}
}

// TestConsumeIdleWaitsForNakDelay: ExitWhenIdle does not leave while a job waits out its nak
// delay, even though nothing arrives for longer than the idle time.
func TestConsumeIdleWaitsForNakDelay(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ids := b.publishN(t, 3)
	var mu sync.Mutex
	done := map[string]bool{}
	var failedOnce atomic.Bool
	start := time.Now()
	_, finished := b.consume(t, ConsumeConfig{
		ExitWhenIdle: 200 * time.Millisecond,
		BackoffBase:  900 * time.Millisecond, BackoffMax: 900 * time.Millisecond,
	}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		if d.JobID == ids[0] && failedOnce.CompareAndSwap(false, true) {
			return errors.New("search provider down")
		}
		mu.Lock()
		defer mu.Unlock()
		done[d.JobID] = true
		return nil
	}))
	if err := waitDone(t, finished); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done) != 3 {
		t.Errorf("Consume returned with %d of 3 jobs done", len(done))
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("Consume returned after %s, before the nak delay ran out", took)
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages", n)
	}
}

// TestConsumeShutdownFinishesInFlight: cancelling ctx stops fetching at once, but the running
// job keeps an uncancelled context, finishes and is acked; the jobs not started stay queued.
func TestConsumeShutdownFinishesInFlight(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 3)
	started := make(chan struct{}, 3)
	var finished atomic.Int32
	stop, _ := b.consume(t, ConsumeConfig{Concurrency: 1, ShutdownTimeout: 5 * time.Second},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			started <- struct{}{}
			select {
			case <-time.After(500 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			finished.Add(1)
			return nil
		}))
	<-started
	begin := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	if finished.Load() != 1 {
		t.Errorf("%d jobs finished, want the one in flight", finished.Load())
	}
	if len(started) != 0 {
		t.Errorf("%d more jobs started after the stop", len(started))
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("stop took %s", took)
	}
	eventually(t, 3*time.Second, "the finished job is acked and the others stay", func() bool { return b.streamMsgs(t) == 2 })
}

// TestConsumeShutdownTimeout: a job still running at the end of ShutdownTimeout has its context
// cancelled, and its message goes straight back for another worker.
func TestConsumeShutdownTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 1)
	started := make(chan struct{})
	obs := &recorder{}
	stop, _ := b.consume(t, ConsumeConfig{ShutdownTimeout: 200 * time.Millisecond, Observer: obs},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		}))
	<-started
	if err := stop(); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	if obs.count(OutcomeInterrupted) != 1 {
		t.Errorf("outcomes %v, want 1 interrupted", obs.outcomes)
	}
	// The nak makes it available at once, well before the 2s ack wait.
	var again atomic.Int32
	_, done := b.consume(t, ConsumeConfig{ExitWhenIdle: 200 * time.Millisecond}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		// NumDelivered may still read 1: a server that offered the nakked message to the stopped
		// consumer's leftover pull request, and found nobody listening, does not count that.
		again.Add(1)
		return nil
	}))
	begin := time.Now()
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	if again.Load() != 1 || time.Since(begin) > 1500*time.Millisecond {
		t.Errorf("interrupted job redelivered %d times, after %s", again.Load(), time.Since(begin))
	}
}

// TestConsumeJobIDs: the Nats-Msg-Id when set, else the dedupe id of a decodable message, else
// the stream sequence.
func TestConsumeJobIDs(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := testContext(t)
	valid := `{"text":"Two words here.","method":"cove2"}`
	m, err := Decode([]byte(valid), ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pubs := []struct {
		data, msgID string
	}{
		{valid, "producer-1"},
		{valid, ""},
		{`{"text":"Two words here.","method":"cove2","colour":"red"}`, ""}, // invalid but decodes
		{"not json", ""},
	}
	var seqs []uint64
	for _, p := range pubs {
		res, err := PublishRaw(ctx, b.js, b.subject, []byte(p.data), p.msgID)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, res.Sequence)
	}
	want := map[uint64]string{
		seqs[0]: "producer-1",
		seqs[1]: DedupeID(m),
		seqs[2]: DedupeID(m),
		seqs[3]: fmt.Sprintf("seq:%s/%d@", b.cfg.Stream, seqs[3]),
	}
	var mu sync.Mutex
	got := map[uint64]string{}
	_, done := b.consume(t, ConsumeConfig{ExitWhenIdle: 200 * time.Millisecond}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		got[d.StreamSeq] = d.JobID
		return nil
	}))
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for seq, id := range want {
		// A message that is no job is named by its place and publish time: check the place.
		if got[seq] != id && !(strings.HasPrefix(id, "seq:") && strings.HasPrefix(got[seq], id)) {
			t.Errorf("seq %d: job id %q, want %q", seq, got[seq], id)
		}
	}
}

// TestConsumeStopsWhenConnectionCloses: a closed connection ends Consume with an error rather
// than a silent hang.
func TestConsumeStopsWhenConnectionCloses(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	nc := connect(t, testenv.NATSURL(t))
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(testContext(t), b.cfg.Stream, b.cfg.Consumer)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- ConsumeLanes(context.Background(), &Lanes{backlog: cons}, ConsumeConfig{Logger: testLogger(t)},
			HandlerFunc(func(ctx context.Context, d *Delivery) error { return nil }))
	}()
	time.Sleep(100 * time.Millisecond)
	nc.Close()
	err = waitDone(t, done)
	if err == nil || !strings.Contains(err.Error(), "consuming jobs") {
		t.Errorf("ConsumeLanes after the connection closed = %v", err)
	}
}

func waitDone(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("Consume did not return within 15s")
		return nil
	}
}
