package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/methods"
	"github.com/corroborate/corroborate/internal/ratelimit"
	"github.com/corroborate/corroborate/internal/store"
)

// handler runs one job: decode and validate the message, skip it when its result is stored,
// run its method, and store the whole run in one transaction. Its error tells the consume loop
// what to do with the message: nil acks, jobs.Reject terms, anything else naks for a retry.
type handler struct {
	store      *store.Store
	model      pipeline.Model
	searcher   pipeline.Searcher
	modelName  string
	validation jobs.ValidationConfig
	stream     string
	// urgentSubject is the urgent lane's subject: its jobs' model calls go first.
	urgentSubject string
	maxQuestions  int
	concurrency   int
	jointSwitch   jointSwitch
	worker        string
	log           *slog.Logger
	metrics       *metrics
	// now is time.Now, replaceable in tests.
	now func() time.Time
}

// jointSwitch configures handler.chooseMethod.
type jointSwitch struct {
	enabled   bool
	threshold float64
	window    int
}

// recordTimeout bounds the writes of an outcome, which use their own context: a job cancelled
// by shutdown must still record why it stopped.
const recordTimeout = 10 * time.Second

func (h *handler) Handle(ctx context.Context, d *jobs.Delivery) error {
	log := d.Log // carries job_id, stream_seq and attempt
	if log == nil {
		log = h.log.With("job_id", d.JobID, "stream_seq", d.StreamSeq, "attempt", d.NumDelivered)
	}
	log = log.With("subject", d.Subject)
	sd := store.Delivery{
		JobID: d.JobID, Stream: h.stream, StreamSeq: d.StreamSeq, Subject: d.Subject,
		Attempt: int(d.NumDelivered), Payload: d.Data, ReceivedAt: d.Received,
	}

	if d.Exhausted {
		reason := fmt.Sprintf("delivery attempts exhausted (%d): every attempt ended without an outcome (worker stopped, crashed or timed out)", d.NumDelivered-1)
		return h.finish(log, sd, store.OutcomeDead, reason, jobs.Reject(errors.New(reason)))
	}

	msg, err := jobs.Decode(d.Data, h.validation)
	if err != nil {
		return h.finish(log, sd, store.OutcomeRejected, err.Error(), jobs.Reject(err))
	}
	log = log.With("method", msg.Method, "external_id", msg.ID)

	if runID, found, err := h.store.StoredRun(ctx, d.JobID); err != nil {
		return h.retry(log, sd, d, err)
	} else if found {
		log.Info("job already has a stored run: acknowledged without running again", "run_id", runID)
		h.metrics.jobs.WithLabelValues(store.OutcomeDone).Inc()
		return h.recordDoneDuplicate(log, sd, runID)
	}

	methodName, methodReason, err := h.chooseMethod(ctx, msg.Method)
	if err != nil {
		return h.retry(log, sd, d, err)
	}
	if methodReason != "" {
		log.Info("running another method than the job asked for", "ran", methodName, "reason", methodReason)
	}
	method, err := methods.New(methodName, methods.Deps{Model: h.model, Searcher: h.searcherFor(msg.Options)})
	if err != nil {
		reason := fmt.Sprintf("method %q is not available in this worker: %v", msg.Method, err)
		return h.finish(log, sd, store.OutcomeRejected, reason, jobs.Reject(errors.New(reason)))
	}

	in := pipeline.Input{
		Question: msg.Question,
		Text:     msg.Text,
		Language: msg.Language,
		Options:  h.options(msg.Options),
		Today:    h.now(),
	}
	started := h.now()
	log.Info("job started")
	h.metrics.inFlight.Inc()
	// The rate limiter queues calls fairly per job, and urgent jobs' calls first.
	runCtx := ratelimit.WithJob(ctx, d.JobID)
	if d.Subject == h.urgentSubject {
		runCtx = ratelimit.WithPriority(runCtx, ratelimit.Urgent)
	}
	res, runErr := method.Run(runCtx, in)
	h.metrics.inFlight.Dec()
	finished := h.now()
	h.metrics.observeCalls(res)

	rec := store.RunRecord{
		Delivery:  sd,
		Statement: store.Statement{ExternalID: msg.ID, Text: msg.Text, Question: msg.Question, Language: msg.Language},
		Method:    methodName, RequestedMethod: msg.Method, MethodReason: methodReason, Model: h.modelName,
		Status: store.RunDone, Options: optionsJSON(msg.Options), Worker: h.worker,
		Reverify:  msg.Options.Reverify != nil && *msg.Options.Reverify,
		StartedAt: started, FinishedAt: finished, Result: res,
	}
	if runErr != nil {
		switch {
		case pipeline.IsRejected(runErr):
			// The input breaks a rule of its method (an opinion with no verifiable claim, bad
			// independence rules): bad input, never retried.
			return h.finish(log, sd, store.OutcomeRejected, runErr.Error(), jobs.Reject(runErr))
		case pipeline.IsPermanent(runErr):
			// Retrying cannot help (unknown model, refused key, exhausted quota): store the
			// failed run with its trace and the reason.
			rec.Status, rec.Error = store.RunFailed, runErr.Error()
			if _, err := h.store.SaveRun(context.WithoutCancel(ctx), rec); err != nil {
				return h.retry(log, sd, d, err)
			}
			log.Error("job failed", "error", runErr)
			h.metrics.jobs.WithLabelValues(store.OutcomeFailed).Inc()
			return jobs.Reject(runErr)
		case d.Final:
			reason := fmt.Sprintf("the last of %d attempts failed: %v", d.NumDelivered, runErr)
			return h.finish(log, sd, store.OutcomeDead, reason, jobs.Reject(runErr))
		default:
			return h.retry(log, sd, d, runErr)
		}
	}

	saved, err := h.store.SaveRun(ctx, rec)
	if err != nil {
		return h.retry(log, sd, d, err)
	}
	if saved.AlreadyStored {
		log.Info("another delivery of this job stored its run first; this run was not written", "run_id", saved.RunID)
	} else {
		log.Info("job done", "run_id", saved.RunID, "status", res.Status, "checks", len(res.Checks),
			"model_calls", len(res.Calls), "duration_ms", finished.Sub(started).Milliseconds())
	}
	h.metrics.jobs.WithLabelValues(store.OutcomeDone).Inc()
	h.metrics.jobSeconds.Observe(finished.Sub(started).Seconds())
	return nil
}

// chooseMethod returns the method to run for the job's method, and why when it is another one:
// a cove-joint job runs as cove-factored once the model's joint checks (almost) always agreed
// with their drafts, since such checks confirm rather than verify. The switch lasts: runs that
// switched are factored runs, so the joint rate that caused it stays as it was.
func (h *handler) chooseMethod(ctx context.Context, requested string) (string, string, error) {
	if requested != pipeline.MethodJoint || !h.jointSwitch.enabled {
		return requested, "", nil
	}
	a, err := h.store.RecentJointAgreement(ctx, h.modelName, h.jointSwitch.window)
	if err != nil {
		return "", "", err
	}
	h.metrics.jointAgreement.WithLabelValues(h.modelName).Set(a.Rate())
	if a.Runs < h.jointSwitch.window || a.Rate() < h.jointSwitch.threshold {
		return requested, "", nil
	}
	reason := fmt.Sprintf("the checks of the last %d cove-joint runs of model %s agreed with their drafts in %.0f%% of runs (switch threshold %.0f%%): ran cove-factored instead",
		a.Runs, h.modelName, 100*a.Rate(), 100*h.jointSwitch.threshold)
	return pipeline.MethodFactored, reason, nil
}

// options turns a message's options into the pipeline's, with the worker's defaults.
func (h *handler) options(o jobs.MessageOptions) pipeline.Options {
	opts := pipeline.Options{MaxQuestions: h.maxQuestions, Concurrency: h.concurrency}
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

// searcherFor returns the job's searcher: in a re-verification (options.reverify), searches
// for freshness-sensitive claims ask for fresh results (SearchQuery.NoCache), so that what the
// night re-checks is the world now, not a cached answer.
func (h *handler) searcherFor(o jobs.MessageOptions) pipeline.Searcher {
	if h.searcher == nil || o.Reverify == nil || !*o.Reverify {
		return h.searcher
	}
	return freshSearcher{h.searcher}
}

// freshSearcher sets NoCache on the queries whose answer drifts with time (pipeline's
// freshness signal: latest, current, now, prices, rankings, ...).
type freshSearcher struct{ pipeline.Searcher }

func (s freshSearcher) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	if slices.Contains(cove2.ClaimSignals(q.Query), cove2.SignalFreshness) {
		q.NoCache = true
	}
	return s.Searcher.Search(ctx, q)
}

// finish records a final outcome that produced no run (rejected, dead) and returns result. When
// the outcome cannot be recorded the message is retried instead: nothing is lost unrecorded.
func (h *handler) finish(log *slog.Logger, sd store.Delivery, outcome, reason string, result error) error {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if err := h.store.RecordOutcome(ctx, store.MessageOutcome{Delivery: sd, Status: outcome, Reason: reason}); err != nil {
		log.Error("cannot record the outcome; the message will be redelivered", "outcome", outcome, "error", err)
		return fmt.Errorf("recording outcome %s: %w", outcome, err)
	}
	log.Warn("job "+outcome, "reason", reason)
	h.metrics.jobs.WithLabelValues(outcome).Inc()
	return result
}

// recordDoneDuplicate marks a redelivered message of a stored job done.
func (h *handler) recordDoneDuplicate(log *slog.Logger, sd store.Delivery, runID int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if err := h.store.MarkDone(ctx, sd, runID, "a run of this job was already stored"); err != nil {
		log.Warn("cannot mark the duplicate done; acknowledging anyway (its run is stored)", "error", err)
	}
	return nil
}

// retry records that the job will be retried and returns err, which naks the message.
func (h *handler) retry(log *slog.Logger, sd store.Delivery, d *jobs.Delivery, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	reason := fmt.Sprintf("attempt %d failed, will retry: %v", d.NumDelivered, err)
	if recErr := h.store.RecordOutcome(ctx, store.MessageOutcome{Delivery: sd, Status: store.OutcomePending, Reason: reason}); recErr != nil {
		log.Warn("cannot record the retry", "error", recErr)
	}
	log.Warn("job will be retried", "error", err)
	h.metrics.retries.Inc()
	return err
}

func optionsJSON(o jobs.MessageOptions) json.RawMessage {
	raw, err := json.Marshal(o)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return raw
}
