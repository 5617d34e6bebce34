package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Observer is told of every job the loop runs, for metrics: the one place that counts job
// outcomes. Its methods are called from the jobs' goroutines, concurrently.
type Observer interface {
	JobStarted()
	JobFinished(outcome Outcome, took time.Duration)
}

// Defaults of ConsumeConfig.
const (
	DefaultConcurrency     = 4
	DefaultShutdownTimeout = 30 * time.Second
	// abandonGrace is how long handlers get to return after their context was cancelled at the
	// end of ShutdownTimeout, before ConsumeLanes gives up on them and returns.
	abandonGrace = 5 * time.Second
)

// ConsumeConfig tunes ConsumeLanes. Its zero value works: unset fields take the defaults, or the
// consumer's own settings where those must agree (AckWait, MaxDeliver).
type ConsumeConfig struct {
	// Concurrency is how many jobs this process runs at once (default 4).
	Concurrency int
	// AckWait is the consumer's ack wait (default: the consumer's); heartbeats go every third.
	AckWait time.Duration
	// MaxDeliver is how many attempts a job gets (default DefaultMaxDeliver; see SetupLanes).
	MaxDeliver int
	// BackoffBase and BackoffMax bound retry delays: base*2^(attempt-1), capped at max, plus up
	// to a tenth of jitter so that jobs failing together do not return together (5s, 5m).
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// ExitWhenIdle, when set, makes ConsumeLanes return nil once no message arrived for that long,
	// nothing runs here, and the consumer has nothing pending nor awaiting an ack anywhere (see
	// ConsumeLanes). Zero consumes until ctx is cancelled.
	ExitWhenIdle time.Duration
	// ShutdownTimeout is how long in-flight jobs may run on after ctx is cancelled (30s).
	ShutdownTimeout time.Duration
	// TermWithReason terminates messages with TermWithReason, whose reason the server puts in
	// its termination advisory. Servers before 2.10.4 ignore such a term altogether (the message
	// stays and is redelivered), so it is off by default and a plain Term is sent; set it from
	// TermReasonSupported. The reason is logged either way, and the handler stores it.
	TermWithReason bool
	// Gates are waited on before each message is taken, and hold the jobs whose handler
	// returned an error wrapped by Hold (see Gate). None: the loop never pauses.
	Gates    []Gate
	Logger   *slog.Logger
	Observer Observer
}

// TermReasonSupported reports whether the server nc is connected to honours TermWithReason
// (nats-server 2.10.4 and later).
func TermReasonSupported(nc *nats.Conn) bool {
	return termReasonVersion(nc.ConnectedServerVersion())
}

func termReasonVersion(version string) bool {
	var major, minor, patch int
	if _, err := fmt.Sscanf(strings.TrimPrefix(version, "v"), "%d.%d.%d", &major, &minor, &patch); err != nil {
		return false
	}
	return major > 2 || major == 2 && (minor > 10 || minor == 10 && patch >= 4)
}

// withDefaults fills unset fields, from the consumer's settings where they must agree.
func (c ConsumeConfig) withDefaults(info *jetstream.ConsumerInfo) ConsumeConfig {
	var serverAckWait time.Duration
	serverMaxDeliver := 0
	if info != nil {
		serverAckWait = info.Config.AckWait
		// A consumer set up before the handler decided (MaxDeliver+1, the dead-letter
		// delivery); today's have none (-1).
		serverMaxDeliver = info.Config.MaxDeliver - 1
	}
	c.Concurrency = max(cmp.Or(c.Concurrency, DefaultConcurrency), 1)
	c.AckWait = cmp.Or(c.AckWait, serverAckWait, DefaultAckWait)
	if serverAckWait > 0 {
		// Heartbeats must beat the deadline the server actually applies.
		c.AckWait = min(c.AckWait, serverAckWait)
	}
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = DefaultMaxDeliver
		if serverMaxDeliver >= 1 {
			c.MaxDeliver = serverMaxDeliver
		}
	}
	c.BackoffBase = cmp.Or(c.BackoffBase, DefaultBackoffBase)
	c.BackoffMax = max(cmp.Or(c.BackoffMax, DefaultBackoffMax), c.BackoffBase)
	c.ShutdownTimeout = cmp.Or(c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Observer == nil {
		c.Observer = noObserver{}
	}
	return c
}

type noObserver struct{}

func (noObserver) JobStarted()                        {}
func (noObserver) JobFinished(Outcome, time.Duration) {}

// ConsumeLanes runs h on the messages of the lanes SetupLanes made until ctx is cancelled (or,
// with ExitWhenIdle, until the backlog is drained), with at most cfg.Concurrency jobs at once.
//
// Lanes: a free slot takes an urgent job whenever one is waiting (it asks the urgent lane first,
// for a message available now), and only then a job of the backlog lane or of another subject of the stream,
// those in turn. An idle worker waits on the urgent lane, so an urgent job starts at once and a
// backlog job within lanePoll.
//
// A slot is taken before a message is asked for, and a message is asked for one at a time, so no
// more than Concurrency jobs run and none waits in a client buffer behind them (a buffered
// message would spend its AckWait, and hold a job another worker or lane could run). Every
// request is waited out until the server answers it (see fetchOne), so that no message is sent
// to a request the worker gave up on. Each job
// gets its own goroutine and a heartbeat (InProgress every AckWait/3) until its handler returns.
// Then the message is settled by the handler's outcome: done acks it (DoubleAck: the server
// confirms), rejected, failed and dead terminate it, interrupted naks it at once and retry naks
// it with a growing delay. Only a final outcome, which the handler returns once it is stored,
// ends a message: an Exhausted delivery whose dead letter the handler could not record comes
// back like a retry. The loop
// logs the end of each job once ("job finished") and tells the Observer.
//
// Gates: before each message is taken, the loop waits for every gate of cfg.Gates to be open;
// a job whose handler returns a retry wrapped by Hold keeps its message and runs again on the
// same delivery once they are (see Gate and Hold).
//
// Stopping: when ctx is cancelled, fetching stops at once (a message that arrives for a request
// already sent is nakked back); running handlers keep a context that is cancelled only
// ShutdownTimeout later, and ConsumeLanes returns when they are done.
//
// Idle exit, for nightly batches: with ExitWhenIdle set, ConsumeLanes returns nil when no message
// arrived for that long, no job runs here, and every lane's consumer reports no message pending
// and none awaiting an ack. The last condition keeps a worker from leaving while a job waits out
// a nak delay (it is still awaiting an ack until redelivered) or runs on another worker that
// might crash: the backlog is drained only when every message has an outcome. Until then the
// worker checks again every ExitWhenIdle. A job whose deliveries are exhausted on the server
// leaves the ack-pending count, so it cannot hold an idle worker forever.
func ConsumeLanes(ctx context.Context, lanes *Lanes, cfg ConsumeConfig, h Handler) error {
	if lanes == nil || lanes.backlog == nil {
		return errors.New("consuming jobs: no consumer")
	}
	cfg = cfg.withDefaults(lanes.backlog.CachedInfo())

	// Handlers outlive ctx by up to ShutdownTimeout; see the shutdown below.
	hctx, hcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hcancel()

	l := &loop{cfg: cfg, lanes: lanes, h: h, log: cfg.Logger, stopping: ctx}
	l.touch()
	fetchErr := l.fetch(ctx, hctx)

	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return fetchErr
	case <-time.After(cfg.ShutdownTimeout):
	}
	l.log.Warn("shutdown timeout reached: cancelling running jobs", "running", l.inFlight.Load(), "shutdown_timeout", cfg.ShutdownTimeout)
	hcancel()
	select {
	case <-done:
		return fetchErr
	case <-time.After(abandonGrace):
	}
	return errors.Join(fetchErr, fmt.Errorf("consuming jobs: %d jobs did not return within %s of their cancellation; their messages return after the ack wait",
		l.inFlight.Load(), abandonGrace))
}

const (
	// lanePoll is how long an idle worker with lanes waits on the urgent lane before it asks the
	// backlog again: the longest an idle worker takes to see a backlog job.
	lanePoll = 100 * time.Millisecond
	// maxPoll bounds one wait of a worker with one lane; the server holds the request as long.
	maxPoll = time.Second
	// takeWait is how long a request of take may wait on the server: take asks each lane in
	// turn for a message available now, and waits for the server's answer (see fetchOne). The
	// server delivers a waiting message on its own goroutine and drops the request once expired,
	// so the expiry must outlast that goroutine's scheduling on a loaded host (5ms did not, under
	// the race detector on two cores); it is also what an empty urgent lane costs each job start.
	takeWait = 25 * time.Millisecond
	// retryPause is the pause after an error that is not the end (NATS reconnecting, say).
	retryPause = 100 * time.Millisecond
)

// loop is the state of one ConsumeLanes call.
type loop struct {
	cfg   ConsumeConfig
	lanes *Lanes
	h     Handler
	log   *slog.Logger
	// stopping is ConsumeLanes' own context: it ends the wait of a held job at shutdown.
	stopping context.Context

	// others are the consumers of subjects outside the lanes, by subject (see Lanes), found at
	// scanned; turn rotates the backlog lane and those. Only the fetch goroutine uses them.
	others  map[string]jetstream.Consumer
	scanned time.Time
	turn    int

	wg       sync.WaitGroup
	inFlight atomic.Int64
	// lastActivity is the UnixNano of the last message received or job finished.
	lastActivity atomic.Int64
}

func (l *loop) touch() { l.lastActivity.Store(time.Now().UnixNano()) }

// errIdle ends the fetch loop when ExitWhenIdle found the backlog drained.
var errIdle = errors.New("idle")

// fetch takes a slot, then a message, and starts its job, until ctx is cancelled, the backlog is
// drained (ExitWhenIdle) or the consumers fail for good.
func (l *loop) fetch(ctx, hctx context.Context) error {
	slots := make(chan struct{}, l.cfg.Concurrency)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		if err := waitGates(ctx, l.cfg.Gates); err != nil {
			<-slots
			return nil
		}
		msg, err := l.next(ctx)
		if err != nil {
			<-slots
			switch {
			case ctx.Err() != nil:
				return nil
			case errors.Is(err, errIdle):
				l.log.Info("no more jobs: the backlog is drained", "exit_when_idle", l.cfg.ExitWhenIdle)
				return nil
			}
			return fmt.Errorf("consuming jobs: %w", err)
		}
		if ctx.Err() != nil {
			// Stopping: give it straight back rather than let it wait out the ack wait.
			_ = msg.Nak()
			<-slots
			return nil
		}
		l.touch()
		l.inFlight.Add(1)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer func() { <-slots }()
			defer l.inFlight.Add(-1)
			defer l.touch()
			l.run(hctx, msg)
		}()
	}
}

// next returns the next message for a free slot: an urgent one when any waits, else one of the
// backlog lane or another subject; else it waits for one. It returns errIdle when ExitWhenIdle
// found the backlog drained, and an error only when the consumers are gone for good (the
// connection closed, a lane's consumer deleted).
func (l *loop) next(ctx context.Context) (jetstream.Msg, error) {
	var notBefore time.Time
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if l.lanes.urgent != nil {
			msg, err := l.take(ctx)
			if msg != nil || err != nil {
				return msg, err
			}
		}
		if l.cfg.ExitWhenIdle > 0 && l.inFlight.Load() == 0 && !time.Now().Before(notBefore) &&
			time.Since(time.Unix(0, l.lastActivity.Load())) >= l.cfg.ExitWhenIdle {
			drained, err := l.drained(ctx)
			switch {
			case err != nil && fatal(err):
				return nil, err
			case err != nil:
				l.log.Warn("checking whether the backlog is drained", "error", err)
			case drained:
				return nil, errIdle
			}
			notBefore = time.Now().Add(l.cfg.ExitWhenIdle)
		}
		msg, err := l.wait(ctx, l.waitTime(notBefore))
		if msg != nil || err != nil {
			return msg, err
		}
	}
}

// take asks the urgent lane for a message available now (see takeWait), then the backlog lane
// and the other subjects' consumers, starting with a different one each time so that none starves
// the others.
func (l *loop) take(ctx context.Context) (jetstream.Msg, error) {
	l.scanOthers(ctx, false)
	msg, err := fetchOne(l.lanes.urgent, takeWait)
	if msg != nil || fatal(err) {
		return msg, err
	}
	transient := err
	backlog := []jetstream.Consumer{l.lanes.backlog}
	subjects := slices.Sorted(maps.Keys(l.others))
	for _, s := range subjects {
		backlog = append(backlog, l.others[s])
	}
	start := l.turn % len(backlog)
	l.turn++
	for i := range backlog {
		k := (start + i) % len(backlog)
		msg, err := fetchOne(backlog[k], takeWait)
		switch {
		case msg != nil:
			return msg, nil
		case err == nil:
		case k > 0:
			// Another subject's consumer that fails (removed as inactive, say) is found again by
			// the next scan if its subject still holds jobs.
			delete(l.others, subjects[k-1])
		case fatal(err):
			return nil, err
		default:
			transient = err
		}
	}
	if transient != nil {
		l.log.Warn("waiting for jobs", "error", transient)
		sleep(ctx, retryPause)
	}
	return nil, nil
}

// wait waits up to d for a message on the urgent lane, or with one lane on the one consumer.
func (l *loop) wait(ctx context.Context, d time.Duration) (jetstream.Msg, error) {
	cons := cmp.Or(l.lanes.urgent, l.lanes.backlog)
	msg, err := fetchOne(cons, d)
	switch {
	case msg != nil:
		return msg, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err == nil:
		return nil, nil
	case fatal(err):
		return nil, err
	}
	// Missing heartbeats, NATS reconnecting and the like: the next request may well succeed.
	l.log.Warn("waiting for jobs", "error", err)
	sleep(ctx, retryPause)
	return nil, nil
}

// waitTime is how long the next wait may take: lanePoll with lanes, else maxPoll, and never past
// the next idle check.
func (l *loop) waitTime(notBefore time.Time) time.Duration {
	d := maxPoll
	if l.lanes.urgent != nil {
		d = lanePoll
	}
	if l.cfg.ExitWhenIdle > 0 {
		wake := time.Unix(0, l.lastActivity.Load()).Add(l.cfg.ExitWhenIdle)
		if wake.Before(notBefore) {
			wake = notBefore
		}
		d = min(d, time.Until(wake))
	}
	return max(d, 10*time.Millisecond)
}

// scanOthers looks for jobs on subjects outside the lanes when the last look is otherScan old,
// or at once with force.
func (l *loop) scanOthers(ctx context.Context, force bool) {
	if l.lanes.urgent == nil || (!force && time.Since(l.scanned) < otherScan) {
		return
	}
	l.scanned = time.Now()
	others, err := l.lanes.others(ctx, l.others)
	if err != nil {
		l.log.Warn("looking for jobs on subjects outside the lanes", "error", err)
	}
	if err != nil && others == nil {
		return
	}
	for s := range others {
		if _, ok := l.others[s]; !ok {
			l.log.Info("serving jobs on a subject outside the lanes, with the backlog", "subject", s)
		}
	}
	l.others = others
}

// drained asks the server whether any message of the lanes is pending or awaiting an ack. It
// looks for jobs on other subjects first, so that those count too.
func (l *loop) drained(ctx context.Context) (bool, error) {
	l.scanOthers(ctx, true)
	lanes := []jetstream.Consumer{l.lanes.backlog}
	if l.lanes.urgent != nil {
		lanes = append(lanes, l.lanes.urgent)
	}
	for _, c := range l.others {
		lanes = append(lanes, c)
	}
	for i, c := range lanes {
		info, err := c.Info(ctx)
		if i >= 2 && errors.Is(err, jetstream.ErrConsumerNotFound) {
			continue // another subject's consumer, removed as inactive meanwhile
		}
		if err != nil {
			return false, err
		}
		if info.NumPending > 0 || info.NumAckPending > 0 {
			l.log.Debug("idle here, but jobs remain", "consumer", info.Name, "pending", info.NumPending, "ack_pending", info.NumAckPending)
			return false, nil
		}
	}
	return true, nil
}

// fetchOne asks cons for one message, which the server may send for up to wait, and waits for
// the server's answer: the message, or its word that the request expired. It never gives up on a
// request first (as FetchNoWait does after a second, and Next with a context as the context
// ends): the server may park a request while the consumer is at MaxAckPending and answer it when
// a slot frees, and a message sent to a request nobody waits on any more is a delivery no handler
// sees, counted against its job and back only after the ack wait. The client library's own limit
// is the request's expiry plus a second, so only a server slower than that to answer can still
// lose a delivery; the executor counts a job's attempts from those it handled, so that such a
// delivery costs the job nothing.
func fetchOne(cons jetstream.Consumer, wait time.Duration) (jetstream.Msg, error) {
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(max(wait, time.Millisecond)))
	if err != nil {
		return nil, err
	}
	var msg jetstream.Msg
	// The channel closes once the server has answered (a message, a timeout, no messages).
	for m := range batch.Messages() {
		if msg == nil {
			msg = m
		}
	}
	if msg != nil {
		return msg, nil
	}
	if err := batch.Error(); err != nil && !nothing(err) {
		return nil, err
	}
	return nil, nil
}

// nothing reports whether err only says that no message came.
func nothing(err error) bool {
	return errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// fatal reports whether err means the consumers cannot be asked again.
func fatal(err error) bool {
	return errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, jetstream.ErrConsumerDeleted) ||
		errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, nats.ErrBadSubscription)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// run runs one job, settles its message, and logs and observes its outcome: the one place that
// does so for a job.
func (l *loop) run(ctx context.Context, msg jetstream.Msg) {
	received := time.Now()
	md, err := msg.Metadata()
	if err != nil {
		// A consumer delivers only JetStream messages; anything else cannot be acked either.
		l.log.Error("dropping a delivery without JetStream metadata", "subject", msg.Subject(), "error", err)
		_ = msg.Term()
		return
	}
	d := &Delivery{
		Data:         msg.Data(),
		Subject:      msg.Subject(),
		StreamSeq:    md.Sequence.Stream,
		NumDelivered: md.NumDelivered,
		MaxAttempts:  l.cfg.MaxDeliver,
		Attempt:      int(md.NumDelivered),
		Final:        md.NumDelivered == uint64(l.cfg.MaxDeliver),
		Exhausted:    md.NumDelivered > uint64(l.cfg.MaxDeliver),
		Header:       msg.Headers(),
		Received:     received,
		Stream:       md.Stream,
		Published:    md.Timestamp,
	}
	d.JobID = jobID(d)
	d.Log = l.log.With("job_id", d.JobID, "stream_seq", d.StreamSeq, "attempt", d.NumDelivered, "subject", d.Subject)
	d.Log.Debug("job started", "final", d.Final, "exhausted", d.Exhausted)
	l.cfg.Observer.JobStarted()

	stop := l.heartbeat(ctx, msg, d.Log)
	res := l.handle(ctx, d)
	stop()

	outcome := l.settle(ctx, msg, d, res)
	took := time.Since(received)
	l.cfg.Observer.JobFinished(outcome, took)
	level := slog.LevelWarn
	switch outcome {
	case OutcomeDone, OutcomeDuplicate:
		level = slog.LevelInfo
	case OutcomeFailed:
		level = slog.LevelError
	}
	attrs := append([]slog.Attr{slog.String("outcome", string(outcome)), slog.Duration("took", took)}, res.Attrs...)
	if res.Err != nil {
		attrs = append(attrs, slog.Any("error", res.Err))
	}
	d.Log.LogAttrs(ctx, level, "job finished", attrs...)
}

// handle calls the handler, and again on the same delivery while it returns a retry wrapped by
// Hold and the gates open again before the loop stops (see Gate): a held job keeps its message
// and its heartbeat, so the outage costs it no attempt.
func (l *loop) handle(ctx context.Context, d *Delivery) Result {
	for held := uint64(1); ; held++ {
		res := l.handleOnce(ctx, d)
		if res.Outcome != OutcomeRetry || !errors.Is(res.Err, ErrHold) || len(l.cfg.Gates) == 0 {
			return res
		}
		if l.stopping.Err() != nil {
			// Give it back at once for another worker, as an interrupted job.
			return Result{Outcome: OutcomeInterrupted, Err: res.Err, Attrs: res.Attrs}
		}
		d.Log.Warn("job held: waiting for the service it needs", "error", res.Err, "held", held)
		// A short pause, growing, so that a handler that holds while every gate is open
		// cannot spin.
		sleep(l.stopping, backoff(held, holdPause, holdPauseMax))
		if err := waitGates(l.stopping, l.cfg.Gates); err != nil || ctx.Err() != nil {
			return Result{Outcome: OutcomeInterrupted, Err: res.Err, Attrs: res.Attrs}
		}
		d.Log.Info("job resumed after a hold", "held", held)
	}
}

// holdPause and holdPauseMax bound the pause before a held job waits on the gates again.
const (
	holdPause    = 200 * time.Millisecond
	holdPauseMax = 5 * time.Second
)

// handleOnce calls the handler once; a panic is a failed attempt, not a dead worker.
func (l *loop) handleOnce(ctx context.Context, d *Delivery) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = resultOf(fmt.Errorf("handler panic: %v", r))
		}
	}()
	return l.h.Handle(ctx, d)
}

// heartbeat tells the server every AckWait/3 that the job is still running, beginning at once
// (the message may have waited in the client's buffer). It ends when the job's context is
// cancelled, so that a handler that ignores the cancellation at shutdown cannot keep its message
// from another worker. The returned stop waits for the heartbeat to end: a late InProgress after
// a nak would reset the nak's delay.
func (l *loop) heartbeat(ctx context.Context, msg jetstream.Msg, log *slog.Logger) (stop func()) {
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		period := max(l.cfg.AckWait/3, 10*time.Millisecond)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			if err := msg.InProgress(); err != nil {
				log.Warn("heartbeat failed; the job may be redelivered", "error", err)
			}
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(quit); <-ended }
}

// settle acks, terms or naks the message by the handler's result, and returns the job's outcome:
// the handler's, except for an Exhausted delivery whose dead letter the handler could not
// record, which comes back (retry) instead of being terminated unrecorded.
func (l *loop) settle(ctx context.Context, msg jetstream.Msg, d *Delivery, res Result) Outcome {
	switch {
	case d.Exhausted && !res.Outcome.Final() && res.Outcome != OutcomeInterrupted && ctx.Err() == nil:
		// A message is never terminated unless its outcome is stored: the dead letter comes back
		// until the handler has recorded it.
		delay := l.backoff(uint64(d.MaxAttempts))
		d.Log.Error("dead letter: the handler could not record it; it comes back", "error", res.Err,
			"payload_bytes", len(d.Data), "delay", delay)
		if nerr := msg.NakWithDelay(delay); nerr != nil {
			d.Log.Warn("nak failed; the job returns after the ack wait", "error", nerr)
		}
		return OutcomeRetry
	case res.Outcome == OutcomeDone || res.Outcome == OutcomeDuplicate:
		// The handler has stored the result (or found it stored); if this ack is lost the job
		// comes back and the handler recognises it as already stored.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if aerr := msg.DoubleAck(actx); aerr != nil {
			d.Log.Warn("ack not confirmed; a redelivery will find the job done", "error", aerr)
		}
		return res.Outcome
	case res.Outcome.Final():
		reason := string(res.Outcome)
		if res.Err != nil {
			reason = res.Err.Error()
		}
		l.term(msg, d, reason)
		return res.Outcome
	case res.Outcome == OutcomeInterrupted || ctx.Err() != nil:
		// Shutdown cancelled the handler: no backoff, another worker may take it now.
		if nerr := msg.Nak(); nerr != nil {
			d.Log.Warn("nak failed; the job returns after the ack wait", "error", nerr)
		}
		return OutcomeInterrupted
	default:
		delay := l.backoff(uint64(max(d.Attempt, 1)))
		if d.Final {
			d.Log.Warn("final attempt failed; the job returns once more as a dead letter", "error", res.Err, "delay", delay)
		}
		if nerr := msg.NakWithDelay(delay); nerr != nil {
			d.Log.Warn("nak failed; the job returns after the ack wait", "error", nerr)
		}
		return OutcomeRetry
	}
}

func (l *loop) term(msg jetstream.Msg, d *Delivery, reason string) {
	var err error
	if l.cfg.TermWithReason {
		err = msg.TermWithReason(termReason(reason))
	} else {
		err = msg.Term()
	}
	if err != nil {
		d.Log.Warn("term failed; the job may be delivered again", "error", err)
	}
}

// termReason makes a reason fit the one-line advisory the server publishes with a term.
func termReason(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 256
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "..."
	}
	return s
}

// backoff is the nak delay after attempt n (from 1): base*2^(n-1), capped at max, plus up to a
// tenth of jitter.
func (l *loop) backoff(n uint64) time.Duration {
	return backoff(n, l.cfg.BackoffBase, l.cfg.BackoffMax)
}

func backoff(n uint64, base, limit time.Duration) time.Duration {
	d := base
	for i := uint64(1); i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	return d + rand.N(d/10+1)
}

// jobID names a delivery's job; see Delivery.JobID.
func jobID(d *Delivery) string {
	if id := d.Header.Get(jetstream.MsgIDHeader); id != "" {
		return id
	}
	var m Message
	if json.Unmarshal(d.Data, &m) == nil && (m.Text != "" || m.Question != "") {
		return DedupeID(m)
	}
	// A message that is not a job has no content to name it by: its place in the stream does,
	// with the stream's name and the time it was published, so that a stream recreated (its
	// sequence starting again at 1) or another stream on the same database cannot collide.
	return fmt.Sprintf("seq:%s/%d@%d", d.Stream, d.StreamSeq, d.Published.UnixNano())
}
