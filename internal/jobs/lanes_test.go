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
)

func TestStreamConfigValidateLanes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		modify func(*StreamConfig)
		want   string // "" for valid
	}{
		{"defaults", func(*StreamConfig) {}, ""},
		{"urgent sibling of a custom publish subject", func(c *StreamConfig) {
			c.Subjects, c.PublishSubject = []string{"news.>"}, "news.nightly"
		}, ""},
		{"urgent outside the stream", func(c *StreamConfig) { c.UrgentSubject = "elsewhere.urgent" }, `urgent subject "elsewhere.urgent" is not matched`},
		{"urgent is the backlog", func(c *StreamConfig) { c.UrgentSubject = DefaultPublishSubject }, "must differ from the publish subject"},
		{"urgent wildcard", func(c *StreamConfig) { c.UrgentSubject = "corroborate.statements.*" }, `urgent subject "corroborate.statements.*" must be a literal subject`},
		{"publish wildcard", func(c *StreamConfig) { c.PublishSubject = "corroborate.statements.>" }, `publish subject "corroborate.statements.>" must be a literal subject`},
		{"single lane needs no urgent subject in the stream", func(c *StreamConfig) {
			c.Subjects, c.PublishSubject, c.SingleLane = []string{"a.backlog"}, "a.backlog", true
		}, ""},
		{"lanes do", func(c *StreamConfig) { c.Subjects, c.PublishSubject = []string{"a.backlog"}, "a.backlog" }, `urgent subject "a.urgent" is not matched`},
	} {
		cfg := StreamConfig{}
		tt.modify(&cfg)
		err := cfg.WithDefaults().Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Validate = %v, want it to say %q", tt.name, err, tt.want)
		}
	}
	if got := (StreamConfig{PublishSubject: "news.nightly"}).WithDefaults().UrgentSubject; got != "news.urgent" {
		t.Errorf("urgent subject beside news.nightly = %q", got)
	}
}

// TestSetupLanesRearranges: the layout before lanes (one consumer on the stream's wildcard) is
// narrowed to the backlog lane when lanes come, and SingleLane removes the lane consumers again,
// on every server version at hand (2.9 has FilterSubject only).
func TestSetupLanesRearranges(t *testing.T) {
	t.Parallel()
	for name, nc := range servers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, nc, func(c *StreamConfig) { c.SingleLane = true })
			ctx := testContext(t)
			if got := b.cons.CachedInfo().Config.FilterSubject; got != b.cfg.Subjects[0] {
				t.Fatalf("single-lane filter %q, want the stream's %q", got, b.cfg.Subjects[0])
			}
			if b.lanes.Urgent() != nil {
				t.Error("single lane has an urgent consumer")
			}
			lanesCfg := b.cfg
			lanesCfg.SingleLane = false
			lanes, err := SetupLanes(ctx, b.js, lanesCfg)
			if err != nil {
				t.Fatalf("lanes over the single-lane layout: %v", err)
			}
			if got := lanes.Backlog().CachedInfo().Config.FilterSubject; got != b.cfg.PublishSubject {
				t.Errorf("backlog filter %q, want %q", got, b.cfg.PublishSubject)
			}
			if got := lanes.Urgent().CachedInfo().Config.FilterSubject; got != b.cfg.UrgentSubject {
				t.Errorf("urgent filter %q, want %q", got, b.cfg.UrgentSubject)
			}
			// A consumer of another subject, as a worker makes one.
			if _, err := Publish(ctx, b.js, strings.TrimSuffix(b.subject, "backlog")+"sport", Message{Text: "Another system's job."}, ""); err != nil {
				t.Fatal(err)
			}
			others, err := lanes.others(ctx, nil)
			if err != nil || len(others) != 1 {
				t.Fatalf("others = %v, %v; want one consumer", others, err)
			}
			if _, err := SetupLanes(ctx, b.js, b.cfg); err != nil {
				t.Fatalf("back to a single lane: %v", err)
			}
			names := b.stream.ConsumerNames(ctx)
			var all []string
			for n := range names.Name() {
				all = append(all, n)
			}
			if !slices.Equal(all, []string{"workers"}) {
				t.Errorf("consumers after going back to one lane: %q", all)
			}
		})
	}
}

// TestConsumeUrgentFirst: with a backlog of 50 waiting and one worker slot, 5 urgent jobs
// published while the first backlog job runs are all run before any other backlog job, on every
// server version at hand.
func TestConsumeUrgentFirst(t *testing.T) {
	t.Parallel()
	for name, nc := range servers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, nc, nil)
			b.publishN(t, 50)
			release := make(chan struct{})
			var mu sync.Mutex
			var order []string
			_, done := b.consumeLanes(t, ConsumeConfig{Concurrency: 1, ExitWhenIdle: 300 * time.Millisecond},
				HandlerFunc(func(ctx context.Context, d *Delivery) error {
					mu.Lock()
					order = append(order, d.Subject)
					first := len(order) == 1
					mu.Unlock()
					if first {
						<-release
					}
					return nil
				}))
			eventually(t, 5*time.Second, "the first backlog job starts", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(order) == 1
			})
			for i := range 5 {
				if _, err := Publish(testContext(t), b.js, b.cfg.UrgentSubject, Message{Text: fmt.Sprintf("Urgent statement %d is true.", i)}, ""); err != nil {
					t.Fatal(err)
				}
			}
			close(release)
			if err := waitDone(t, done); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{b.subject}
			for range 5 {
				want = append(want, b.cfg.UrgentSubject)
			}
			for range 49 {
				want = append(want, b.subject)
			}
			if !slices.Equal(order, want) {
				t.Errorf("order of subjects run:\n%q\nwant the first backlog job, the 5 urgent ones, then the other 49", order)
			}
			if n := b.streamMsgs(t); n != 0 {
				t.Errorf("stream holds %d messages", n)
			}
		})
	}
}

// TestConsumeLanesIdleExit: with both lanes, ExitWhenIdle leaves only when both are drained: not
// while an urgent job waits out its nak delay, and not before the backlog is done.
func TestConsumeLanesIdleExit(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 3)
	urgent, err := Publish(testContext(t), b.js, b.cfg.UrgentSubject, Message{Text: "Urgent statement is true."}, "")
	if err != nil {
		t.Fatal(err)
	}
	var failedOnce atomic.Bool
	var mu sync.Mutex
	ran := map[string]int{}
	start := time.Now()
	_, done := b.consumeLanes(t, ConsumeConfig{
		Concurrency: 2, ExitWhenIdle: 200 * time.Millisecond,
		BackoffBase: 900 * time.Millisecond, BackoffMax: 900 * time.Millisecond,
	}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		if d.JobID == urgent.JobID && failedOnce.CompareAndSwap(false, true) {
			return errors.New("model unavailable")
		}
		mu.Lock()
		defer mu.Unlock()
		ran[d.Subject]++
		return nil
	}))
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("ConsumeLanes returned after %s, before the urgent job's nak delay ran out", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if ran[b.subject] != 3 || ran[b.cfg.UrgentSubject] != 1 {
		t.Errorf("done per subject %v, want 3 backlog and 1 urgent", ran)
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages", n)
	}
}

// TestConsumeOtherSubjects: a job another system publishes on a subject of the stream outside
// the lanes is run too, whether it was there at the start or arrives while the worker idles, and
// the idle exit waits for it.
func TestConsumeOtherSubjects(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	prefix := strings.TrimSuffix(b.subject, "backlog")
	ctx := testContext(t)
	for i := range 2 {
		if _, err := Publish(ctx, b.js, prefix+"sport", Message{Text: fmt.Sprintf("Sport statement %d is true.", i)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	b.publishN(t, 2)
	var mu sync.Mutex
	ran := map[string]int{}
	_, done := b.consumeLanes(t, ConsumeConfig{ExitWhenIdle: 500 * time.Millisecond}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		ran[d.Subject]++
		return nil
	}))
	eventually(t, 5*time.Second, "the first jobs are done", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return ran[prefix+"sport"] == 2 && ran[b.subject] == 2
	})
	// Arrives while the worker idles, long before the next periodic scan.
	if _, err := Publish(ctx, b.js, prefix+"weather.today", Message{Text: "Weather statement is true."}, ""); err != nil {
		t.Fatal(err)
	}
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if ran[prefix+"weather.today"] != 1 {
		t.Errorf("done per subject %v, want the weather job too", ran)
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages", n)
	}
	cons, err := b.stream.Consumer(ctx, otherConsumerName(b.cfg.Consumer, prefix+"sport"))
	if err != nil {
		t.Fatal(err)
	}
	if c := cons.CachedInfo().Config; c.FilterSubject != prefix+"sport" || c.InactiveThreshold != otherInactive || c.MaxDeliver != -1 {
		t.Errorf("other subject's consumer %+v", c)
	}
	var _ jetstream.Consumer = cons
}
