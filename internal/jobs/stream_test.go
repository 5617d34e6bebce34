package jobs

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestStreamConfigDefaults(t *testing.T) {
	t.Parallel()
	got := StreamConfig{}.WithDefaults()
	want := StreamConfig{
		Stream: "CORROBORATE", Subjects: []string{"corroborate.statements.>"},
		PublishSubject: "corroborate.statements.backlog", UrgentSubject: "corroborate.statements.urgent",
		Consumer:        "corroborate-workers",
		DuplicateWindow: 24 * time.Hour, MaxMessageBytes: 1 << 20, MaxAge: 14 * 24 * time.Hour,
		Replicas: 1, AckWait: 60 * time.Second, MaxDeliver: 5,
		BackoffBase: 5 * time.Second, BackoffMax: 5 * time.Minute,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WithDefaults =\n %+v\nwant\n %+v", got, want)
	}
	if err := (StreamConfig{}).WithDefaults().Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}

func TestStreamConfigValidate(t *testing.T) {
	t.Parallel()
	cfg := StreamConfig{
		Stream: "bad.name", PublishSubject: "elsewhere.backlog", AckWait: time.Millisecond,
		Replicas: 7, BackoffBase: time.Minute, BackoffMax: time.Second,
	}.WithDefaults()
	err := cfg.Validate()
	if err == nil {
		t.Fatal("Validate accepted a bad config")
	}
	for _, want := range []string{`stream name "bad.name"`, `publish subject "elsewhere.backlog" is not matched`,
		"replicas 7", "ack wait 1ms", "backoff 1m0s..1s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\ndoes not mention %q", err, want)
		}
	}
}

func TestSubjectMatches(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		filter, subject string
		want            bool
	}{
		{"a.b.>", "a.b.c", true}, {"a.b.>", "a.b.c.d", true}, {"a.b.>", "a.b", false},
		{"a.*.c", "a.x.c", true}, {"a.*.c", "a.x.d", false}, {"a.b", "a.b", true}, {"a.b", "a.b.c", false},
	} {
		if got := subjectMatches(tt.filter, tt.subject); got != tt.want {
			t.Errorf("subjectMatches(%q, %q) = %v", tt.filter, tt.subject, got)
		}
	}
}

// TestSetupIdempotent runs Setup again, from several goroutines at once, with a changed
// concurrency, and without one (as enqueue does), on every server version at hand.
func TestSetupIdempotent(t *testing.T) {
	t.Parallel()
	for name, nc := range servers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, nc, nil)
			ctx := testContext(t)

			info, err := b.cons.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c := info.Config
			if c.Durable != "workers" || c.AckPolicy != jetstream.AckExplicitPolicy || c.DeliverPolicy != jetstream.DeliverAllPolicy ||
				c.AckWait != 2*time.Second || c.MaxDeliver != -1 || c.MaxAckPending != DefaultMaxAckPending || c.FilterSubject != b.cfg.PublishSubject || len(c.BackOff) != 0 {
				t.Errorf("backlog consumer config %+v", c)
			}
			uinfo, err := b.lanes.Urgent().Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if u := uinfo.Config; u.Durable != "workers-urgent" || u.AckPolicy != jetstream.AckExplicitPolicy || u.AckWait != 2*time.Second ||
				u.MaxDeliver != -1 || u.MaxAckPending != DefaultMaxAckPending || u.FilterSubject != b.cfg.UrgentSubject || !strings.HasSuffix(u.FilterSubject, ".statements.urgent") {
				t.Errorf("urgent consumer config %+v", u)
			}
			sinfo, err := b.stream.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s := sinfo.Config
			if s.Retention != jetstream.WorkQueuePolicy || s.Storage != jetstream.FileStorage || s.Duplicates != time.Minute ||
				s.MaxMsgSize != 1<<20 || s.MaxAge != time.Hour || !slices.Equal(s.Subjects, b.cfg.Subjects) {
				t.Errorf("stream config %+v", s)
			}

			// Again, and from five goroutines at once.
			if _, _, err := Setup(ctx, b.js, b.cfg); err != nil {
				t.Fatalf("second Setup: %v", err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 5)
			for range 5 {
				wg.Go(func() {
					_, _, err := Setup(ctx, b.js, b.cfg)
					errs <- err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("concurrent Setup: %v", err)
				}
			}

			// MaxAckPending is the fleet's, whatever one worker's concurrency (issue 14 item 3)...
			changed := b.cfg
			changed.Concurrency = 16
			_, cons, err := Setup(ctx, b.js, changed)
			if err != nil {
				t.Fatalf("Setup with a new concurrency: %v", err)
			}
			if got := cons.CachedInfo().Config.MaxAckPending; got != DefaultMaxAckPending {
				t.Errorf("MaxAckPending after the change = %d, want %d", got, DefaultMaxAckPending)
			}
			// ...enqueue, which runs no jobs, leaves an operator's value alone...
			operator := b.cfg
			operator.MaxAckPending = 300
			if _, _, err := Setup(ctx, b.js, operator); err != nil {
				t.Fatal(err)
			}
			enqueue := b.cfg
			enqueue.Concurrency = 0
			_, cons, err = Setup(ctx, b.js, enqueue)
			if err != nil {
				t.Fatalf("Setup without concurrency: %v", err)
			}
			if got := cons.CachedInfo().Config.MaxAckPending; got != 300 {
				t.Errorf("MaxAckPending after enqueue's Setup = %d, want 300 kept", got)
			}
			// An explicit MaxAckPending wins.
			explicit := b.cfg
			explicit.MaxAckPending = 100
			if _, cons, err = Setup(ctx, b.js, explicit); err != nil || cons.CachedInfo().Config.MaxAckPending != 100 {
				t.Errorf("Setup with MaxAckPending 100: %v, %d", err, cons.CachedInfo().Config.MaxAckPending)
			}
			names := b.stream.ConsumerNames(ctx)
			var all []string
			for n := range names.Name() {
				all = append(all, n)
			}
			slices.Sort(all)
			if !slices.Equal(all, []string{"workers", "workers-urgent"}) {
				t.Errorf("consumers %q, want the two lanes' shared consumers", all)
			}
		})
	}
}

// TestSetupFirstByEnqueue: a consumer created by enqueue (no concurrency) gets the server's
// default MaxAckPending, and a worker's Setup keeps the fleet's value, not one sized for itself.
func TestSetupFirstByEnqueue(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *StreamConfig) { c.Concurrency = 0 })
	if got := b.cons.CachedInfo().Config.MaxAckPending; got != DefaultMaxAckPending {
		t.Errorf("MaxAckPending = %d, want %d", got, DefaultMaxAckPending)
	}
	worker := b.cfg
	worker.Concurrency = 3
	_, cons, err := Setup(testContext(t), b.js, worker)
	if err != nil || cons.CachedInfo().Config.MaxAckPending != DefaultMaxAckPending {
		t.Errorf("worker Setup: %v, MaxAckPending %d, want %d", err, cons.CachedInfo().Config.MaxAckPending, DefaultMaxAckPending)
	}
}

// Several subjects in one consumer (--single-lane over several --subjects) need FilterSubjects,
// which nats-server 2.10 added: from 2.10 the one consumer filters them all; before, setup says
// what to do instead, and leaves no consumer of the whole stream behind (a 2.9 server creates
// the consumer without the filters it does not know). Runs on every server of servers(t): in CI,
// the machine's 2.9 and the current release.
func TestSetupSeveralSubjects(t *testing.T) {
	t.Parallel()
	for name, nc := range servers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			js, err := jetstream.New(nc)
			if err != nil {
				t.Fatal(err)
			}
			id := randomID(t)
			cfg := StreamConfig{
				Stream:         "T_" + id,
				Subjects:       []string{"t" + id + ".statements.urgent", "t" + id + ".statements.backlog"},
				PublishSubject: "t" + id + ".statements.backlog",
				Consumer:       "workers", SingleLane: true,
				AckWait: 2 * time.Second, MaxDeliver: 3, DuplicateWindow: time.Minute, MaxAge: time.Hour,
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = js.DeleteStream(ctx, cfg.Stream)
			})
			ctx := testContext(t)
			lanes, err := SetupLanes(ctx, js, cfg)
			if !serverAtLeast(nc.ConnectedServerVersion(), 2, 10) {
				if err == nil || !strings.Contains(err.Error(), "needs nats-server 2.10 or later") {
					t.Fatalf("SetupLanes on %s: %v, want it to say that several subjects need 2.10", name, err)
				}
				stream, err := js.Stream(ctx, cfg.Stream)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := stream.Consumer(ctx, cfg.Consumer); !errors.Is(err, jetstream.ErrConsumerNotFound) {
					t.Fatalf("a consumer of the whole stream was left behind: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := lanes.Backlog().CachedInfo().Config.FilterSubjects; !slices.Equal(got, cfg.Subjects) {
				t.Errorf("FilterSubjects = %q, want %q", got, cfg.Subjects)
			}
			if _, _, err := Setup(ctx, js, cfg); err != nil {
				t.Errorf("second Setup: %v", err)
			}
		})
	}
}

func TestSetupRefusesBadConfig(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	bad := b.cfg
	bad.PublishSubject = "nowhere"
	if _, _, err := Setup(testContext(t), b.js, bad); err == nil || !strings.Contains(err.Error(), `publish subject "nowhere"`) {
		t.Errorf("Setup with a bad publish subject: %v", err)
	}
}
