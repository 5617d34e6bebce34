package worker

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/methods"
	"github.com/corroborate/corroborate/internal/ratelimit"
	"github.com/corroborate/corroborate/internal/store"
)

// Config is what an Executor runs jobs with.
type Config struct {
	Store    Store
	Model    pipeline.Model
	Searcher pipeline.Searcher
	// ModelName is what runs record as their model, and whose joint agreement counts.
	ModelName  string
	Validation jobs.ValidationConfig
	// Stream is the stream's name, recorded with each message.
	Stream string
	// UrgentSubject is the urgent lane's subject: its jobs' model calls go first.
	UrgentSubject string
	// MaxQuestions and Concurrency are the defaults of a job's pipeline options.
	MaxQuestions int
	Concurrency  int
	JointSwitch  JointSwitch
	// Worker names this worker (host/pid) on its runs and attempts.
	Worker string
	// LeaseTTL is how long a job's lease lasts without a renewal (default 30s); give it the
	// consumer's AckWait, so that a killed holder's lease lapses when its message is redelivered.
	LeaseTTL time.Duration
	// Observer is told what runs cost (nil: nobody).
	Observer Observer
	// Outages is told how each run ended, and holds the jobs whose run failed while the model
	// endpoint is down (nil: every failure is the job's own). See Outages.
	Outages Outages
	// Database is told how each store call ended, and holds the jobs whose outcome cannot be
	// stored while the database is down (nil: no breaker on the database). See Database.
	Database Database
	// Pages reads the pages behind the results the open-book methods keep (the zero value
	// reads none: the corpus provider, or page reading turned off).
	Pages evidence.PageReading
	// NewMethod builds the method a job runs (default methods.New); unit tests give a
	// fake.
	NewMethod func(name string, deps methods.Deps) (pipeline.Method, error)
	// Logger is for deliveries that carry no logger of their own (default slog.Default()).
	Logger *slog.Logger
	// Now is time.Now, replaceable in tests.
	Now func() time.Time
	// Today is the date a run takes as today: the date anchor of its prompts and its
	// freshness-sensitive queries (spec 000). Default Now; the demo and replays fix it, so that
	// what they send the model does not change with the machine's calendar.
	Today func() time.Time
	// Claims makes a job's lookup of claims verified within ReuseWithin (reuse.go); nil or a
	// window of 0 means no reuse.
	Claims      func(jobID string, within time.Duration) ClaimLookup
	ReuseWithin time.Duration
}

// Observer is told what each run cost and what the joint switch read, for metrics. Job outcomes
// are not its business: the consume loop's jobs.Observer counts those, once.
type Observer interface {
	// RunFinished is told of every run, done or not; res may be nil or partial.
	RunFinished(res *pipeline.Result)
	// JointAgreement is told each recent cove-joint agreement rate read, by model.
	JointAgreement(model string, rate float64)
}

// Outages is the executor's view of a circuit breaker on the model endpoint (internal/breaker
// in cmd/worker). Observe is told how each job's run ended (err nil: it reached the model) and
// says whether the failure was an outage of the endpoint and whether the breaker is open. When
// it is open, the job is held (a retry wrapped by jobs.Hold: the consume loop keeps its delivery
// and runs it again once the breaker lets jobs through), so that the outage spends none of its
// attempts and no job is failed for it. Below the breaker's threshold an outage is retried like
// a transient failure, even a refused key or an exhausted quota: it is the endpoint's failure,
// not the job's, so it never ends the job failed (it still spends the attempt). A failure the
// endpoint does not share with other prompts (it answers a known-good request meanwhile) is no
// outage: the job's own, it spends the job's attempts and ends it failed or dead with the
// model's answer as the reason.
type Outages interface {
	Observe(job string, err error) (outage, open bool)
}

type noObserver struct{}

func (noObserver) RunFinished(*pipeline.Result)   {}
func (noObserver) JointAgreement(string, float64) {}

// Executor runs one job per delivery and returns its outcome; it implements jobs.Handler.
type Executor struct {
	cfg     Config
	methods MethodChooser
	// holds records the attempts a database outage interrupted: the store, not told to the
	// Database (see holdForDatabase).
	holds Store
}

var _ jobs.Handler = (*Executor)(nil)

// New returns an Executor with cfg's defaults applied.
func New(cfg Config) *Executor {
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	if cfg.Observer == nil {
		cfg.Observer = noObserver{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Today == nil {
		cfg.Today = cfg.Now
	}
	if cfg.NewMethod == nil {
		cfg.NewMethod = methods.New
	}
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, defaultLeaseTTL)
	holds := cfg.Store
	if cfg.Database != nil {
		cfg.Store = observedStore{Store: cfg.Store, db: cfg.Database}
	}
	return &Executor{cfg: cfg, holds: holds, methods: MethodChooser{
		Switch: cfg.JointSwitch, Agreements: cfg.Store, Model: cfg.ModelName, Observe: cfg.Observer.JointAgreement,
	}}
}

// recordTimeout bounds each write of an outcome. Those writes outlive the job's context
// (context.WithoutCancel): a job cancelled by shutdown must still record why it stopped.
const recordTimeout = 10 * time.Second

// recordContext is the context of a write of an outcome; see recordTimeout.
func recordContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
}

// Handle runs the job of one delivery: decode and validate the message, skip it when its run is
// already stored, choose its method, run it and store the whole run in one transaction, or
// record why there is none. Every path ends in one jobs.Result, which the consume loop settles,
// logs and counts; the outcome is recorded here before it is returned, and when it cannot be
// recorded the result is a retry instead, so that nothing ends unrecorded; while the database is
// down that retry is held (see Database).
func (e *Executor) Handle(ctx context.Context, d *jobs.Delivery) jobs.Result {
	return e.holdOnDatabaseOutage(e.handle(ctx, d))
}

// handle is Handle but for the database's outages.
func (e *Executor) handle(ctx context.Context, d *jobs.Delivery) jobs.Result {
	log := d.Log // carries job_id, stream_seq, attempt and subject
	if log == nil {
		log = e.cfg.Logger.With("job_id", d.JobID, "stream_seq", d.StreamSeq, "attempt", d.NumDelivered, "subject", d.Subject)
	}
	sd := store.Delivery{
		JobID: d.JobID, Stream: e.cfg.Stream, StreamSeq: d.StreamSeq, Subject: d.Subject,
		Attempt: int(d.NumDelivered), Payload: d.Data, ReceivedAt: d.Received, Worker: e.cfg.Worker,
	}

	msg, decodeErr := jobs.Decode(d.Data, e.cfg.Validation)
	// The job a retry re-runs is recorded with every outcome of the retry, a dead one included.
	sd.RetryOf = msg.RetryOf

	unhandled, err := e.countAttempts(ctx, log, d)
	if err != nil {
		return e.retry(ctx, log, sd, err, nil)
	}
	sd.Attempt = d.Recorded
	if d.Exhausted {
		// A copy of a job whose run another message stored is that run's duplicate, not a dead
		// job, however many of its own deliveries were lost.
		if runID, found, err := e.cfg.Store.StoredRun(ctx, d.JobID); err != nil {
			return e.retry(ctx, log, sd, err, nil)
		} else if found {
			return e.doneDuplicate(ctx, log, sd, runID, nil)
		}
		reason := fmt.Errorf("delivery attempts exhausted: %d deliveries ended without an outcome (worker stopped, crashed or timed out)", unhandled)
		return e.finish(ctx, log, sd, jobs.OutcomeDead, reason, nil)
	}
	if decodeErr != nil {
		return e.finish(ctx, log, sd, jobs.OutcomeRejected, decodeErr, nil)
	}
	log = log.With("method", msg.Method, "external_id", msg.ID)
	attrs := []slog.Attr{slog.String("method", msg.Method), slog.String("external_id", msg.ID)}

	runID, found, err := e.cfg.Store.StoredRun(ctx, d.JobID)
	if err != nil {
		return e.retry(ctx, log, sd, err, attrs)
	}
	if found {
		return e.doneDuplicate(ctx, log, sd, runID, attrs)
	}

	// The per-job lease: taken once the job is known to need a run and before its method runs,
	// held (renewed) until the outcome is recorded, so that another delivery of a running job
	// waits instead of running it twice (see lease.go).
	lease, settled, ok := e.takeLease(ctx, log, sd, attrs)
	if !ok {
		return settled
	}
	defer lease.release(ctx, log)

	if kept, ok := d.Kept.(store.RunRecord); ok {
		// The run finished on an earlier try of this delivery and the database could not store
		// it: store it now rather than run the method again.
		d.Kept = nil
		kept.Delivery = sd
		log.Info("storing the run kept through a database outage", "finished_at", kept.FinishedAt)
		return e.storeDone(ctx, log, d, kept, attrs)
	}

	return e.run(ctx, log, d, sd, msg, attrs)
}

// run runs the job's method and acts on how it ended, as classifyRun decides.
func (e *Executor) run(ctx context.Context, log *slog.Logger, d *jobs.Delivery, sd store.Delivery, msg jobs.Message, attrs []slog.Attr) jobs.Result {
	methodName, methodReason, err := e.methods.Choose(ctx, msg.Method)
	if err != nil {
		return e.retry(ctx, log, sd, err, attrs)
	}
	if methodReason != "" {
		log.Info("running another method than the job asked for", "ran", methodName, "reason", methodReason)
		attrs = append(attrs, slog.String("ran", methodName))
	}
	method, err := e.cfg.NewMethod(methodName, methods.Deps{Model: e.cfg.Model, Searcher: searcherFor(e.cfg.Searcher, msg.Options), Pages: pagesFor(e.cfg.Pages, msg.Options)})
	if err != nil {
		return e.finish(ctx, log, sd, jobs.OutcomeRejected, fmt.Errorf("method %q is not available in this worker: %w", msg.Method, err), attrs)
	}

	verified, release := e.claimLookup(ctx, d.JobID, msg.Options)
	defer release() // after the run is stored: jobs waiting for its claims then find them
	in := pipeline.Input{
		Verified: verified,
		Question: msg.Question,
		Text:     msg.Text,
		Language: msg.Language,
		Options:  e.options(msg.Options),
		Today:    e.cfg.Today(),
		// A claim's relative times ("15 years ago") are read from when the statement appeared.
		Published: msg.PublishedTime(),
	}
	started := e.cfg.Now()
	log.Debug("running the method", "ran", methodName)
	// The rate limiter queues calls fairly per job, and urgent jobs' calls first.
	runCtx := ratelimit.WithJob(ctx, d.JobID)
	if d.Subject == e.cfg.UrgentSubject {
		runCtx = ratelimit.WithPriority(runCtx, ratelimit.Urgent)
	}
	res, runErr := method.Run(runCtx, in)
	finished := e.cfg.Now()
	e.cfg.Observer.RunFinished(res)
	end := runEnd{err: runErr, final: d.Final}
	if e.cfg.Outages != nil {
		end.outage, end.open = e.cfg.Outages.Observe(d.JobID, runErr)
	}

	rec := store.RunRecord{
		Delivery: sd,
		Statement: store.Statement{ExternalID: msg.ID, Text: msg.Text, Question: msg.Question, Language: msg.Language,
			SourceURL: msg.SourceURL, SourceAuthor: msg.SourceAuthor, PublishedAt: msg.PublishedTime()},
		Method: methodName, RequestedMethod: msg.Method, MethodReason: methodReason, Model: e.cfg.ModelName,
		Status: store.RunDone, Options: optionsJSON(msg.Options), Worker: e.cfg.Worker,
		Reverify:  msg.Options.Reverify != nil && *msg.Options.Reverify,
		StartedAt: started, FinishedAt: finished, Result: res,
	}
	switch classifyRun(end) {
	case holdForModel:
		return e.hold(ctx, log, sd, runErr, attrs)
	case recordRejected:
		return e.finish(ctx, log, sd, jobs.OutcomeRejected, runErr, attrs)
	case storeFailed:
		return e.storeFailed(ctx, log, rec, runErr, attrs)
	case recordDead:
		return e.finish(ctx, log, sd, jobs.OutcomeDead, fmt.Errorf("the last of %d attempts failed: %w", cmp.Or(d.Attempt, int(d.NumDelivered)), runErr), attrs)
	case recordRetry:
		return e.retry(ctx, log, sd, runErr, attrs)
	}
	return e.storeDone(ctx, log, d, rec, attrs)
}

// storeFailed stores a run that failed for good with its trace and the reason. It is stored under
// a record context, like the other final outcomes: a failed run is not run again.
func (e *Executor) storeFailed(ctx context.Context, log *slog.Logger, rec store.RunRecord, runErr error, attrs []slog.Attr) jobs.Result {
	rec.Status, rec.Error = store.RunFailed, runErr.Error()
	wctx, cancel := recordContext(ctx)
	defer cancel()
	saved, err := e.cfg.Store.SaveRun(wctx, rec)
	if err != nil {
		return e.retry(ctx, log, rec.Delivery, err, attrs)
	}
	return jobs.Result{Outcome: jobs.OutcomeFailed, Err: runErr, Attrs: append(attrs, slog.Int64("run_id", saved.RunID))}
}

// storeDone stores a done run. It is stored under the job's own context: if shutdown cuts it
// short the job is retried, and its next run is stored whole. When the database is down, the
// run is kept with the delivery (Delivery.Kept) and the job held, so that its next try stores it
// without running the method again.
func (e *Executor) storeDone(ctx context.Context, log *slog.Logger, d *jobs.Delivery, rec store.RunRecord, attrs []slog.Attr) jobs.Result {
	saved, err := e.cfg.Store.SaveRun(ctx, rec)
	if err != nil {
		if isDatabaseOutage(err) && ctx.Err() == nil {
			d.Kept = rec
		}
		return e.retry(ctx, log, rec.Delivery, err, attrs)
	}
	res := rec.Result
	attrs = append(attrs, slog.Int64("run_id", saved.RunID), slog.String("status", res.Status),
		slog.Int("checks", len(res.Checks)), slog.Int("model_calls", len(res.Calls)),
		slog.Int64("duration_ms", rec.FinishedAt.Sub(rec.StartedAt).Milliseconds()))
	if saved.AlreadyStored {
		// Another delivery of this job stored its run first; this run was not written.
		attrs = append(attrs, slog.Bool("duplicate", true))
	}
	return jobs.Result{Outcome: jobs.OutcomeDone, Attrs: attrs}
}

// countAttempts decides the delivery's Attempt, Final and Exhausted on the attempts the job
// really had (message_attempts), not on NumDelivered, which also counts deliveries no handler
// saw: a worker killed mid-job, a delivery lost on its way. Attempts are spent on the job's own
// failures (retry); an attempt held or interrupted by an outage or a shutdown spends none. A job
// is dead after MaxAttempts failures of its own (Final), or when MaxAttempts of its deliveries
// ended without any outcome (Exhausted: it may be what kills the worker). It returns how many
// deliveries ended without an outcome. Without MaxAttempts the loop's reading stands.
//
// It also decides the number the attempt is recorded under (d.Recorded): the delivery count,
// unless that is not past the last attempt recorded. nats-server 2.9.10 was seen to deliver a
// message again with a delivery count it had given before (1 for a third delivery, after a
// delivery lost on its way); recorded under that count, the delivery overwrote the first
// attempt's record and the job was counted one attempt short.
func (e *Executor) countAttempts(ctx context.Context, log *slog.Logger, d *jobs.Delivery) (unhandled int, err error) {
	if d.MaxAttempts <= 0 {
		d.Recorded = cmp.Or(d.Recorded, int(d.NumDelivered))
		return max(int(d.NumDelivered)-1, 0), nil
	}
	a, err := e.cfg.Store.Attempts(ctx, d.JobID, d.StreamSeq, d.Recorded)
	if err != nil {
		return 0, err
	}
	if d.Recorded == 0 {
		d.Recorded = int(d.NumDelivered)
		if d.Recorded <= a.Last {
			log.Warn("the server gave this delivery a count it had given before; recording it as the next attempt",
				"num_delivered", d.NumDelivered, "recorded_as", a.Last+1)
			d.Recorded = a.Last + 1
		}
	}
	unhandled = max(d.Recorded-1-a.Handled, 0)
	d.Attempt = a.Spent + 1
	d.Exhausted = unhandled >= d.MaxAttempts
	d.Final = !d.Exhausted && d.Attempt >= d.MaxAttempts
	return unhandled, nil
}

// finish records a final outcome that stored no run (rejected, dead) and returns it. When the
// outcome cannot be recorded the job is retried instead: nothing ends unrecorded.
func (e *Executor) finish(ctx context.Context, log *slog.Logger, sd store.Delivery, outcome jobs.Outcome, cause error, attrs []slog.Attr) jobs.Result {
	wctx, cancel := recordContext(ctx)
	defer cancel()
	if err := e.cfg.Store.RecordOutcome(wctx, store.MessageOutcome{Delivery: sd, Status: outcome, Reason: cause.Error()}); err != nil {
		log.Error("cannot record the outcome; the message will be redelivered", "outcome", outcome, "reason", cause.Error(), "error", err)
		return e.notRecorded(ctx, fmt.Errorf("recording outcome %s: %w", outcome, err), attrs)
	}
	return jobs.Result{Outcome: outcome, Err: cause, Attrs: attrs}
}

// notRecorded is the result of an attempt whose outcome could not be recorded: a retry, or an
// interruption when shutdown cancelled the job.
func (e *Executor) notRecorded(ctx context.Context, err error, attrs []slog.Attr) jobs.Result {
	if ctx.Err() != nil {
		return jobs.Result{Outcome: jobs.OutcomeInterrupted, Err: err, Attrs: attrs}
	}
	return jobs.Result{Outcome: jobs.OutcomeRetry, Err: err, Attrs: attrs}
}

// retry records that this attempt failed and another follows, and returns a retry (an
// interruption when shutdown cancelled the job: the loop gives it back at once).
func (e *Executor) retry(ctx context.Context, log *slog.Logger, sd store.Delivery, cause error, attrs []slog.Attr) jobs.Result {
	if isDatabaseOutage(cause) {
		return e.holdForDatabase(ctx, log, sd, cause, attrs)
	}
	res := e.notRecorded(ctx, cause, attrs)
	reason := fmt.Sprintf("attempt %d failed, will retry: %v", sd.Attempt, cause)
	if res.Outcome == jobs.OutcomeInterrupted {
		reason = fmt.Sprintf("attempt %d was interrupted by shutdown, will retry: %v", sd.Attempt, cause)
	}
	wctx, cancel := recordContext(ctx)
	defer cancel()
	if err := e.cfg.Store.RecordOutcome(wctx, store.MessageOutcome{Delivery: sd, Status: res.Outcome, Reason: reason}); err != nil {
		log.Warn("cannot record the retry", "error", err)
	}
	return res
}

// hold records that this attempt failed on an outage of the model endpoint while the breaker is
// open, and returns it held (see Outages); when shutdown cancelled the job it is interrupted.
func (e *Executor) hold(ctx context.Context, log *slog.Logger, sd store.Delivery, cause error, attrs []slog.Attr) jobs.Result {
	res := e.notRecorded(ctx, jobs.Hold(cause), attrs)
	reason := store.HeldReason(sd.Attempt, fmt.Sprintf("the model endpoint is unavailable, the job runs again when it answers: %v", cause))
	if res.Outcome == jobs.OutcomeInterrupted {
		reason = fmt.Sprintf("attempt %d was interrupted by shutdown while the model endpoint was unavailable, will retry: %v", sd.Attempt, cause)
	}
	wctx, cancel := recordContext(ctx)
	defer cancel()
	// Recorded as interrupted, not retry: the outage's attempt is not the job's (countAttempts).
	if err := e.cfg.Store.RecordOutcome(wctx, store.MessageOutcome{Delivery: sd, Status: jobs.OutcomeInterrupted, Reason: reason}); err != nil {
		log.Warn("cannot record the hold", "error", err)
	}
	return res
}

// holdForDatabase is retry for an attempt whose store call failed on the database's outage (a
// write refused for a full disk, a connection lost; see databaseOutage): the attempt is the
// database's, not the job's, so it is recorded, when the database takes that much, as
// interrupted (it spends no attempt) and held until the database's breaker lets jobs through
// (Handle holds it while the breaker is open). The record is not told to the Database: a row
// that fits shows nothing of whether runs do, and told, its success closed the breaker on a full
// disk and the job went back to the stream.
func (e *Executor) holdForDatabase(ctx context.Context, log *slog.Logger, sd store.Delivery, cause error, attrs []slog.Attr) jobs.Result {
	res := e.notRecorded(ctx, jobs.Hold(cause), attrs)
	reason := store.HeldReason(sd.Attempt, fmt.Sprintf("the database is unavailable (%s), the job runs again when it stores: %v", store.OutageReason(cause), cause))
	wctx, cancel := recordContext(ctx)
	defer cancel()
	if err := e.holds.RecordOutcome(wctx, store.MessageOutcome{Delivery: sd, Status: jobs.OutcomeInterrupted, Reason: reason}); err != nil {
		log.Warn("cannot record the hold", "error", err)
	}
	return res
}

// options turns a message's options into the pipeline's, with the worker's defaults.
func (e *Executor) options(o jobs.MessageOptions) pipeline.Options {
	opts := pipeline.Options{MaxQuestions: e.cfg.MaxQuestions, Concurrency: e.cfg.Concurrency}
	if o.MaxQuestions != nil {
		opts.MaxQuestions = *o.MaxQuestions
	}
	if o.MaxHops != nil {
		opts.MaxHops = *o.MaxHops
	}
	if o.Iterate != nil {
		opts.Iterate = *o.Iterate
	}
	opts.TemporalScope = o.TemporalScope
	opts.IndependenceRules = o.IndependenceRules
	opts.ClaimSchema = o.ClaimSchema
	opts.OutputSchema = o.OutputSchema
	opts.Grounding = o.Grounding
	return opts.WithDefaults()
}

// optionsJSON is the job's options as runs.options stores them.
func optionsJSON(o jobs.MessageOptions) json.RawMessage {
	raw, err := json.Marshal(o)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return raw
}
