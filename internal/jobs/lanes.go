package jobs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Lanes are the durable consumers the workers take jobs from, in the order a free slot asks
// them: the urgent lane first, then the backlog lane and the consumers of any other subject of
// the stream, in turn. SetupLanes makes them; ConsumeLanes serves them.
//
// # Why two consumers, and what happens to other subjects
//
// A work-queue stream delivers each message to exactly one consumer, so the server refuses
// consumers whose filters overlap (err 10100): the urgent lane cannot have a consumer of its own
// beside one that filters the stream's wildcard. So, with lanes:
//
//   - the stream keeps its subjects (corroborate.statements.> by default), so that any system may
//     publish a job on any subject they match, as before;
//   - the urgent lane is the consumer Consumer+"-urgent", filtering UrgentSubject;
//   - the backlog lane is the consumer Consumer, filtering PublishSubject (one subject, so that
//     nats-server 2.9, which knows FilterSubject only, runs it);
//   - a job on any other subject of the stream (another system's corroborate.statements.sport,
//     say) would match neither. Workers find such subjects in the stream's state (a stream info
//     request with a subject filter, every otherScan and before deciding the backlog is drained)
//     and give each its own consumer (Consumer+"-other-"+hash of the subject, filtering that
//     subject alone, so it overlaps nothing), served at backlog priority, in turn with the
//     backlog lane. Those consumers are removed by the server after otherInactive without a
//     worker asking them for messages.
//
// The trade-offs: a job on another subject waits up to otherScan before it is seen; at most
// maxOtherSubjects other subjects are served at once (more wait until some are drained); and
// switching between lanes and SingleLane on a live stream takes every worker, since the last
// Setup rearranges the consumers (SingleLane deletes the lane consumers, whose filters would
// overlap its own).
type Lanes struct {
	stream  jetstream.Stream
	urgent  jetstream.Consumer // nil with SingleLane
	backlog jetstream.Consumer
	cfg     StreamConfig // defaulted
}

// Urgent is the urgent lane's consumer; nil with SingleLane.
func (l *Lanes) Urgent() jetstream.Consumer { return l.urgent }

// Backlog is the backlog lane's consumer (with SingleLane, the one consumer).
func (l *Lanes) Backlog() jetstream.Consumer { return l.backlog }

// Stream is the work-queue stream.
func (l *Lanes) Stream() jetstream.Stream { return l.stream }

const (
	// UrgentSuffix and OtherInfix name the lane consumers after StreamConfig.Consumer.
	UrgentSuffix = "-urgent"
	OtherInfix   = "-other-"
	// otherScan is how often a worker looks for jobs on subjects outside the lanes.
	otherScan = 5 * time.Second
	// otherInactive is how long the consumer of another subject lives without a worker asking it
	// for messages. Workers ask it while its subject holds messages (a job waiting out a nak delay
	// included), so this only clears consumers nobody serves any more.
	otherInactive = time.Hour
	// maxOtherSubjects bounds the other subjects served at once, so that a producer that puts
	// every job on a subject of its own cannot make thousands of consumers.
	maxOtherSubjects = 16
)

// Setup creates or updates the work-queue stream and the durable pull consumers that every
// worker replica shares (see SetupLanes), and returns the stream and the backlog lane's consumer
// (with SingleLane, the one consumer).
func Setup(ctx context.Context, js jetstream.JetStream, cfg StreamConfig) (jetstream.Stream, jetstream.Consumer, error) {
	l, err := SetupLanes(ctx, js, cfg)
	if err != nil {
		return nil, nil, err
	}
	return l.stream, l.backlog, nil
}

// SetupLanes creates or updates the work-queue stream and the lane consumers: Consumer for the
// backlog lane and Consumer+"-urgent" for the urgent one (see Lanes), or with SingleLane one
// consumer over every subject of the stream. It is idempotent, so enqueue and any number of
// workers may run it at start, in any order and at the same time. A consumer of the layout
// before lanes (Consumer filtering the stream's wildcard) is narrowed to the backlog lane.
//
// Dead letters: the consumers have no MaxDeliver (-1, unlimited): the handler decides when a
// job is dead, on the attempts it really handled, and records it before the message is
// terminated. A server limit counts every delivery, those that no handler saw included (a worker
// killed, a delivery lost on its way), and past it the server stops redelivering silently: the
// message stays in the stream with no outcome, and a core-NATS advisory nobody hears is all that
// tells of it. A job is attempted cfg.MaxDeliver times (the last one is its Final attempt);
// a job whose deliveries ended without an outcome cfg.MaxDeliver times (the worker crashed or
// hung each time) reaches a handler once more, Exhausted, and is recorded dead with its payload.
// See Delivery.Final.
//
// Retry backoff: the consumers have no BackOff list. In nats-server 2.15 a BackOff list replaces
// AckWait (AckWait becomes BackOff[0]) and the ack deadline of a redelivered message becomes
// BackOff[n] (consumer.go checkPending): a heartbeat period derived from AckWait would then miss
// the deadline of a job on its later attempts, and long jobs would be redelivered while still
// running. BackOff also applies only to ack timeouts, not to naks. So AckWait stays fixed and the
// loop retries with NakWithDelay(backoff(attempt)), which delays exactly the job that failed.
func SetupLanes(ctx context.Context, js jetstream.JetStream, cfg StreamConfig) (*Lanes, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
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
		return nil, fmt.Errorf("setting up stream %s: %w", cfg.Stream, err)
	}
	l := &Lanes{stream: stream, cfg: cfg}

	if cfg.SingleLane {
		// The lane consumers' filters overlap the one consumer's: they go first.
		if err := deleteLaneConsumers(ctx, stream, cfg.Consumer); err != nil {
			return nil, fmt.Errorf("setting up consumer %s: removing the lane consumers: %w", cfg.Consumer, err)
		}
		// One subject goes in FilterSubject, which servers before 2.10 understand; several need
		// FilterSubjects.
		if l.backlog, err = setupConsumer(ctx, stream, cfg, cfg.Consumer, "Corroborate workers, all replicas together", cfg.Subjects, 0); err != nil {
			return nil, err
		}
		return l, nil
	}
	// The backlog lane first: a consumer of the layout before lanes filters the stream's
	// wildcard, which the urgent lane's consumer would overlap until it is narrowed.
	if l.backlog, err = setupConsumer(ctx, stream, cfg, cfg.Consumer, "Corroborate workers: the backlog lane", []string{cfg.PublishSubject}, 0); err != nil {
		return nil, err
	}
	if l.urgent, err = setupConsumer(ctx, stream, cfg, cfg.Consumer+UrgentSuffix, "Corroborate workers: the urgent lane, served first", []string{cfg.UrgentSubject}, 0); err != nil {
		return nil, err
	}
	return l, nil
}

// setupConsumer creates or updates one durable consumer of the stream with the shared settings.
func setupConsumer(ctx context.Context, stream jetstream.Stream, cfg StreamConfig, name, description string, filters []string, inactive time.Duration) (jetstream.Consumer, error) {
	maxAckPending, err := maxAckPending(ctx, stream, cfg, name)
	if err != nil {
		return nil, fmt.Errorf("setting up consumer %s: %w", name, err)
	}
	consCfg := jetstream.ConsumerConfig{
		Durable:     name,
		Description: description,
		// A work-queue stream requires DeliverAll, and explicit acks are what make a crash mean
		// redelivery rather than loss.
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		AckPolicy:         jetstream.AckExplicitPolicy,
		AckWait:           cfg.AckWait,
		MaxDeliver:        -1, // the handler decides, on real attempts; see SetupLanes
		MaxAckPending:     maxAckPending,
		InactiveThreshold: inactive,
	}
	if len(filters) == 1 {
		consCfg.FilterSubject = filters[0]
	} else {
		consCfg.FilterSubjects = filters
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, consCfg)
	if errors.Is(err, jetstream.ErrConsumerMultipleFilterSubjectsNotSupported) {
		// A server before 2.10 does not know FilterSubjects: it made a consumer of the whole
		// stream, not the one asked for, which would overlap every other consumer. Remove it.
		if derr := stream.DeleteConsumer(ctx, name); derr != nil && !errors.Is(derr, jetstream.ErrConsumerNotFound) {
			err = errors.Join(err, fmt.Errorf("removing the consumer it made without filters: %w", derr))
		}
		return nil, fmt.Errorf("setting up consumer %s on stream %s: one consumer over %d subjects (--single-lane with several --subjects) needs nats-server 2.10 or later: give one subject, leave --single-lane off (the lanes filter one subject each), or upgrade the server: %w",
			name, cfg.Stream, len(filters), err)
	}
	if err != nil {
		return nil, fmt.Errorf("setting up consumer %s on stream %s: %w", name, cfg.Stream, err)
	}
	return cons, nil
}

// deleteLaneConsumers deletes the urgent lane's consumer and those of other subjects, if any.
func deleteLaneConsumers(ctx context.Context, stream jetstream.Stream, consumer string) error {
	names := stream.ConsumerNames(ctx)
	var lane []string
	for n := range names.Name() {
		if n == consumer+UrgentSuffix || strings.HasPrefix(n, consumer+OtherInfix) {
			lane = append(lane, n)
		}
	}
	if err := names.Err(); err != nil {
		return err
	}
	for _, n := range lane {
		if err := stream.DeleteConsumer(ctx, n); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return err
		}
	}
	return nil
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

// maxAckPending chooses consumer name's MaxAckPending: the explicit value; else, for a worker,
// DefaultMaxAckPending; else, for callers that run no jobs, whatever the consumer already has, so
// that enqueue does not undo the workers' setting.
//
// MaxAckPending is not how a worker bounds its own jobs: the consume loop takes a slot before it
// asks for a message (see ConsumeLanes). It bounds the whole fleet's messages awaiting an ack,
// and those include every job waiting out a retry delay: a nakked message stays pending on the
// server until it is redelivered. It was twice one worker's concurrency: 16 failing jobs waiting
// their delay then held every slot of an 8-slot worker, and four workers together were capped at
// 16 jobs in flight. So it is sized for the fleet and its waiting retries, not for one worker.
func maxAckPending(ctx context.Context, stream jetstream.Stream, cfg StreamConfig, name string) (int, error) {
	if cfg.MaxAckPending > 0 {
		return cfg.MaxAckPending, nil
	}
	if cfg.Concurrency > 0 {
		return DefaultMaxAckPending, nil
	}
	cons, err := stream.Consumer(ctx, name)
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

// otherConsumerName names the consumer of a subject outside the lanes: the subject's hash, since
// a consumer name may not hold its dots.
func otherConsumerName(consumer, subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return consumer + OtherInfix + hex.EncodeToString(sum[:8])
}

// others returns a consumer for each subject of the stream outside the lanes that holds
// messages now (at most maxOtherSubjects, in subject order), creating those missing; known are
// the consumers found before, by subject, reused without a request. Without lanes it returns
// nothing.
func (l *Lanes) others(ctx context.Context, known map[string]jetstream.Consumer) (map[string]jetstream.Consumer, error) {
	if l.urgent == nil || l.stream == nil {
		return nil, nil
	}
	info, err := l.stream.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		return nil, fmt.Errorf("looking for jobs on other subjects of stream %s: %w", l.cfg.Stream, err)
	}
	var subjects []string
	for s, n := range info.State.Subjects {
		if n > 0 && s != l.cfg.PublishSubject && s != l.cfg.UrgentSubject {
			subjects = append(subjects, s)
		}
	}
	slices.Sort(subjects)
	subjects = subjects[:min(len(subjects), maxOtherSubjects)]
	out := make(map[string]jetstream.Consumer, len(subjects))
	var errs []error
	for _, s := range subjects {
		if c, ok := known[s]; ok {
			out[s] = c
			continue
		}
		cfg := l.cfg
		// Enqueue never creates these: the worker that does knows its concurrency.
		cfg.MaxAckPending = cmp.Or(cfg.MaxAckPending, l.backlog.CachedInfo().Config.MaxAckPending)
		c, err := setupConsumer(ctx, l.stream, cfg, otherConsumerName(cfg.Consumer, s),
			"Corroborate workers: jobs on "+s+", served with the backlog", []string{s}, otherInactive)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[s] = c
	}
	return out, errors.Join(errs...)
}
