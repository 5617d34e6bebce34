package jobs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of StreamConfig, applied by WithDefaults.
const (
	DefaultStream          = "CORROBORATE"
	DefaultSubjects        = "corroborate.statements.>"
	DefaultPublishSubject  = "corroborate.statements.backlog"
	DefaultConsumer        = "corroborate-workers"
	DefaultDuplicateWindow = 24 * time.Hour
	DefaultMaxAge          = 14 * 24 * time.Hour
	DefaultReplicas        = 1
	DefaultAckWait         = 60 * time.Second
	DefaultMaxDeliver      = 5
	DefaultBackoffBase     = 5 * time.Second
	DefaultBackoffMax      = 5 * time.Minute
	// DefaultMaxAckPending is the server's own default, used when a consumer is created by a
	// caller that runs no jobs (enqueue) and so knows no concurrency.
	DefaultMaxAckPending = 1000
)

// StreamConfig says where jobs live: the work-queue stream and the one durable consumer that
// every worker replica shares. enqueue and worker both run Setup with it at start, so they must
// be given the same values (the worker's flags and their environment twins); the last Setup wins.
type StreamConfig struct {
	// Stream is the stream's name (default "CORROBORATE").
	Stream string
	// Subjects are the stream's subjects and the consumer's filter (default
	// ["corroborate.statements.>"]).
	Subjects []string
	// PublishSubject is where enqueue publishes (default "corroborate.statements.backlog"); it
	// must be matched by one of Subjects.
	PublishSubject string
	// Consumer is the durable name of the shared pull consumer (default "corroborate-workers").
	Consumer string
	// DuplicateWindow is how long the stream remembers a Nats-Msg-Id to drop a republished job
	// (default 24h: a whole nightly batch can be re-enqueued safely).
	DuplicateWindow time.Duration
	// MaxMessageBytes bounds one message on the server (default 1 MiB), the same bound Decode
	// applies.
	MaxMessageBytes int
	// MaxAge drops jobs nobody consumed for this long (default 14 days).
	MaxAge time.Duration
	// Replicas of the stream in a NATS cluster (default 1).
	Replicas int
	// AckWait is how long the server waits for an ack or a heartbeat before redelivering
	// (default 60s). The consume loop heartbeats every AckWait/3.
	AckWait time.Duration
	// MaxDeliver is how many times a job is attempted (default 5). See Setup for how the
	// dead-letter delivery comes on top.
	MaxDeliver int
	// Concurrency is how many jobs the workers sharing the consumer run at once, all together
	// (one worker's --concurrency times the replicas); it sets MaxAckPending to twice that, since
	// each worker holds its running jobs plus one pull batch of as many. MaxAckPending is
	// consumer-wide: a value below the fleet's total leaves slots idle. Zero leaves
	// MaxAckPending as it is (enqueue runs no jobs and knows no concurrency).
	Concurrency int
	// MaxAckPending, when set, overrides the value derived from Concurrency: the bound on jobs
	// delivered and not yet acknowledged across all workers.
	MaxAckPending int
	// BackoffBase and BackoffMax bound the nak delays of retries: base*2^(attempt-1), capped at
	// max (defaults 5s and 5m).
	BackoffBase time.Duration
	BackoffMax  time.Duration
}

// WithDefaults returns c with every unset field at its default. It is the one place defaults are
// applied; Concurrency and MaxAckPending stay zero when unset (see Setup).
func (c StreamConfig) WithDefaults() StreamConfig {
	c.Stream = cmp.Or(c.Stream, DefaultStream)
	if len(c.Subjects) == 0 {
		c.Subjects = []string{DefaultSubjects}
	}
	c.PublishSubject = cmp.Or(c.PublishSubject, DefaultPublishSubject)
	c.Consumer = cmp.Or(c.Consumer, DefaultConsumer)
	c.DuplicateWindow = cmp.Or(c.DuplicateWindow, DefaultDuplicateWindow)
	c.MaxMessageBytes = cmp.Or(c.MaxMessageBytes, DefaultMaxMessageBytes)
	c.MaxAge = cmp.Or(c.MaxAge, DefaultMaxAge)
	c.Replicas = cmp.Or(c.Replicas, DefaultReplicas)
	c.AckWait = cmp.Or(c.AckWait, DefaultAckWait)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, DefaultMaxDeliver)
	c.BackoffBase = cmp.Or(c.BackoffBase, DefaultBackoffBase)
	c.BackoffMax = cmp.Or(c.BackoffMax, DefaultBackoffMax)
	return c
}

// Validate reports every problem of a defaulted config in one error.
func (c StreamConfig) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if strings.ContainsAny(c.Stream, " .*>\t\r\n/\\") {
		bad("stream name %q must not contain spaces, '.', '*', '>' or slashes", c.Stream)
	}
	if strings.ContainsAny(c.Consumer, " .*>\t\r\n/\\") {
		bad("consumer name %q must not contain spaces, '.', '*', '>' or slashes", c.Consumer)
	}
	if !matchesAny(c.Subjects, c.PublishSubject) {
		bad("publish subject %q is not matched by the stream's subjects %v", c.PublishSubject, c.Subjects)
	}
	if c.MaxMessageBytes < 1 || c.MaxMessageBytes > math.MaxInt32 {
		bad("max message bytes %d must be between 1 and %d", c.MaxMessageBytes, math.MaxInt32)
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		bad("replicas %d must be between 1 and 5", c.Replicas)
	}
	if c.AckWait < time.Second {
		bad("ack wait %s must be at least 1s (heartbeats go every ack wait / 3)", c.AckWait)
	}
	if c.MaxDeliver < 1 {
		bad("max deliver %d must be at least 1", c.MaxDeliver)
	}
	if c.Concurrency < 0 || c.MaxAckPending < 0 {
		bad("concurrency %d and max ack pending %d must not be negative", c.Concurrency, c.MaxAckPending)
	}
	if c.BackoffBase <= 0 || c.BackoffMax < c.BackoffBase {
		bad("backoff %s..%s must be positive and growing", c.BackoffBase, c.BackoffMax)
	}
	if c.DuplicateWindow <= 0 || c.MaxAge < c.DuplicateWindow {
		bad("duplicate window %s must be positive and not longer than max age %s", c.DuplicateWindow, c.MaxAge)
	}
	if len(problems) > 0 {
		return fmt.Errorf("jobs stream configuration: %s", strings.Join(problems, "; "))
	}
	return nil
}

// ConsumeConfig returns the consume loop's settings that must agree with the consumer's.
func (c StreamConfig) ConsumeConfig() ConsumeConfig {
	c = c.WithDefaults()
	return ConsumeConfig{
		Concurrency: c.Concurrency,
		AckWait:     c.AckWait,
		MaxDeliver:  c.MaxDeliver,
		BackoffBase: c.BackoffBase,
		BackoffMax:  c.BackoffMax,
	}
}

// Setup creates or updates the work-queue stream and the one durable pull consumer that every
// worker replica shares. It is idempotent, so enqueue and any number of workers may run it at
// start, in any order and at the same time.
//
// Dead letters: the server's MaxDeliver is cfg.MaxDeliver+1. A job is attempted cfg.MaxDeliver
// times (delivery cfg.MaxDeliver is the Final attempt); the one delivery more exists only so that
// a job whose attempts all ended without an outcome (the worker crashed or hung each time, so
// nobody could nak it) reaches a handler once more, marked Exhausted: the handler records it
// dead, with its payload, and the loop terms it. Without that extra delivery the server would
// stop redelivering silently, leave the message in the stream and publish only a core-NATS
// advisory that is lost when nobody listens.
//
// Retry backoff: the consumer has no BackOff list. In nats-server 2.15 a BackOff list replaces
// AckWait (AckWait becomes BackOff[0]) and the ack deadline of a redelivered message becomes
// BackOff[n] (consumer.go checkPending): a heartbeat period derived from AckWait would then miss
// the deadline of a job on its later attempts, and long jobs would be redelivered while still
// running. BackOff also applies only to ack timeouts, not to naks. So AckWait stays fixed and the
// loop retries with NakWithDelay(backoff(attempt)), which delays exactly the job that failed.
func Setup(ctx context.Context, js jetstream.JetStream, cfg StreamConfig) (jetstream.Stream, jetstream.Consumer, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	streamCfg := jetstream.StreamConfig{
		Name:        cfg.Stream,
		Description: "Corroborate jobs: one statement to fact-check per message",
		Subjects:    cfg.Subjects,
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Duplicates:  cfg.DuplicateWindow,
		MaxMsgSize:  int32(cfg.MaxMessageBytes),
		MaxAge:      cfg.MaxAge,
		Replicas:    cfg.Replicas,
		Discard:     jetstream.DiscardOld,
	}
	stream, err := createOrUpdateStream(ctx, js, streamCfg)
	if err != nil {
		return nil, nil, fmt.Errorf("setting up stream %s: %w", cfg.Stream, err)
	}

	maxAckPending, err := maxAckPending(ctx, stream, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("setting up consumer %s: %w", cfg.Consumer, err)
	}
	consCfg := jetstream.ConsumerConfig{
		Durable:     cfg.Consumer,
		Description: "Corroborate workers, all replicas together",
		// A work-queue stream requires DeliverAll, and explicit acks are what make a crash mean
		// redelivery rather than loss.
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver + 1, // the dead-letter delivery, see above
		MaxAckPending: maxAckPending,
	}
	// The consumer sees every subject of the stream: work-queue streams allow no second consumer
	// with an overlapping filter, so lanes (urgent, backlog) are subjects of this one. One subject
	// goes in FilterSubject, which servers before 2.10 understand; several need FilterSubjects.
	if len(cfg.Subjects) == 1 {
		consCfg.FilterSubject = cfg.Subjects[0]
	} else {
		consCfg.FilterSubjects = cfg.Subjects
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, cfg.Stream, consCfg)
	if err != nil {
		return nil, nil, fmt.Errorf("setting up consumer %s on stream %s: %w", cfg.Consumer, cfg.Stream, err)
	}
	return stream, cons, nil
}

// createOrUpdateStream is CreateOrUpdateStream made safe for racing callers: two Setups may both
// see no stream and both create it; the loser's create fails with "name already in use" when the
// configs differ, and an update then settles it.
func createOrUpdateStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	var err error
	for range 3 {
		var s jetstream.Stream
		s, err = js.CreateOrUpdateStream(ctx, cfg)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return nil, err
		}
	}
	return nil, err
}

// maxAckPending chooses the consumer's MaxAckPending: the explicit value; else twice the
// concurrency, since each worker holds its running jobs plus one pull batch of the same size
// (see Consume), and a smaller bound would keep some of its slots idle; else, for callers that
// run no jobs, whatever the consumer already has, so that enqueue does not undo the workers'
// setting.
func maxAckPending(ctx context.Context, stream jetstream.Stream, cfg StreamConfig) (int, error) {
	if cfg.MaxAckPending > 0 {
		return cfg.MaxAckPending, nil
	}
	if cfg.Concurrency > 0 {
		return max(cfg.Concurrency*2, 1), nil
	}
	cons, err := stream.Consumer(ctx, cfg.Consumer)
	switch {
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		return DefaultMaxAckPending, nil
	case err != nil:
		return 0, err
	}
	if n := cons.CachedInfo().Config.MaxAckPending; n > 0 {
		return n, nil
	}
	return DefaultMaxAckPending, nil
}

// matchesAny reports whether subject is matched by one of the NATS subject filters.
func matchesAny(filters []string, subject string) bool {
	for _, f := range filters {
		if subjectMatches(f, subject) {
			return true
		}
	}
	return false
}

func subjectMatches(filter, subject string) bool {
	ft := strings.Split(filter, ".")
	st := strings.Split(subject, ".")
	for i, t := range ft {
		switch {
		case t == ">":
			return len(st) > i
		case i >= len(st):
			return false
		case t != "*" && t != st[i]:
			return false
		}
	}
	return len(ft) == len(st)
}
