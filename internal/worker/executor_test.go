package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/methods"
	"github.com/corroborate/corroborate/internal/store"
)

// fakeStore is a Store in memory: it keeps what the executor wrote, and fails where told to.
type fakeStore struct {
	mu sync.Mutex
	// storedRun is the run id StoredRun finds (0: none); storedLater, when set, is the run it
	// finds from its second call on (another delivery stored it meanwhile).
	storedRun, storedLater int64
	storedRunCalls         int
	agreement              store.JointAgreement

	// attempts is what Attempts finds.
	attempts store.Attempts

	storedRunErr, saveErr, recordErr, markErr, agreementErr, attemptsErr error

	saved    []store.RunRecord
	outcomes []store.MessageOutcome
	marked   []int64
	// leases are the job leases held (job id to token); leaseErr fails TakeLease. taken,
	// released and waits count what the executor did with them.
	leases                 map[string]string
	leaseErr               error
	taken, released, waits int
	// cancelledWrites counts writes whose context was already cancelled.
	cancelledWrites int
}

func (f *fakeStore) StoredRun(ctx context.Context, jobID string) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.storedRunCalls++
	if f.storedRunCalls > 1 && f.storedLater != 0 {
		f.storedRun = f.storedLater
	}
	return f.storedRun, f.storedRun != 0, f.storedRunErr
}

func (f *fakeStore) SaveRun(ctx context.Context, rec store.RunRecord) (store.Saved, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.noteCancelled(ctx)
	if f.saveErr != nil {
		return store.Saved{}, f.saveErr
	}
	f.saved = append(f.saved, rec)
	return store.Saved{RunID: 42}, nil
}

func (f *fakeStore) RecordOutcome(ctx context.Context, o store.MessageOutcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.noteCancelled(ctx)
	if f.recordErr != nil {
		return f.recordErr
	}
	f.outcomes = append(f.outcomes, o)
	return nil
}

func (f *fakeStore) MarkDuplicate(ctx context.Context, d store.Delivery, runID int64) (store.Duplicate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.noteCancelled(ctx)
	if f.markErr != nil {
		return store.Duplicate{}, f.markErr
	}
	f.marked = append(f.marked, runID)
	return store.Duplicate{Status: store.MessageDuplicate, RunStatus: store.RunDone}, nil
}

func (f *fakeStore) TakeLease(ctx context.Context, l store.Lease) (bool, store.LeaseHolder, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.leaseErr != nil {
		return false, store.LeaseHolder{}, f.leaseErr
	}
	if f.leases == nil {
		f.leases = map[string]string{}
	}
	if holder, held := f.leases[l.JobID]; held && holder != l.Token {
		f.waits++
		return false, store.LeaseHolder{Worker: "other"}, nil
	}
	f.leases[l.JobID] = l.Token
	f.taken++
	return true, store.LeaseHolder{}, nil
}

func (f *fakeStore) RenewLease(ctx context.Context, l store.Lease) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.leases[l.JobID] == l.Token, nil
}

func (f *fakeStore) ReleaseLease(ctx context.Context, l store.Lease) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.noteCancelled(ctx)
	if f.leases[l.JobID] == l.Token {
		delete(f.leases, l.JobID)
		f.released++
	}
	return nil
}

func (f *fakeStore) Attempts(ctx context.Context, jobID string, streamSeq uint64, delivery int) (store.Attempts, error) {
	return f.attempts, f.attemptsErr
}

func (f *fakeStore) RecentJointAgreement(ctx context.Context, model string, window int) (store.JointAgreement, error) {
	return f.agreement, f.agreementErr
}

func (f *fakeStore) noteCancelled(ctx context.Context) {
	if ctx.Err() != nil {
		f.cancelledWrites++
	}
}

// fakeMethod returns what it is told, and keeps the input it ran on.
type fakeMethod struct {
	name string
	res  *pipeline.Result
	err  error
	// cancel, when set, is called during the run (a shutdown arriving mid-job).
	cancel func()
	ran    []pipeline.Input
}

func (m *fakeMethod) Name() string { return m.name }

func (m *fakeMethod) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	m.ran = append(m.ran, in)
	if m.cancel != nil {
		m.cancel()
	}
	return m.res, m.err
}

// countingObserver counts the runs it is told of and keeps the agreement rates.
type countingObserver struct {
	runs  int
	rates []float64
}

func (o *countingObserver) RunFinished(*pipeline.Result)          { o.runs++ }
func (o *countingObserver) JointAgreement(_ string, rate float64) { o.rates = append(o.rates, rate) }

// bench is one executor over a fake store and a fake method.
type bench struct {
	store    *fakeStore
	method   *fakeMethod
	observer *countingObserver
	// built are the method names the executor asked for.
	built []string
	exec  *Executor
}

func newBench(t *testing.T, configure func(*Config)) *bench {
	t.Helper()
	b := &bench{
		store:    &fakeStore{},
		method:   &fakeMethod{res: &pipeline.Result{Status: pipeline.StatusChecked, Calls: []pipeline.ModelCall{{Seq: 1, Step: "draft"}}}},
		observer: &countingObserver{},
	}
	cfg := Config{
		Store: b.store, ModelName: "test-model", Stream: "S", UrgentSubject: "jobs.urgent",
		Validation: jobs.ValidationConfig{DefaultMethod: pipeline.MethodFactored}, MaxQuestions: 5, Concurrency: 2,
		Worker: "host/1", Observer: b.observer, Logger: slog.New(slog.DiscardHandler),
		NewMethod: func(name string, _ methods.Deps) (pipeline.Method, error) {
			b.built = append(b.built, name)
			if name == pipeline.MethodCove2 {
				return nil, errors.New("no such method")
			}
			b.method.name = name
			return b.method, nil
		},
		Now: func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) },
	}
	if configure != nil {
		configure(&cfg)
	}
	b.exec = New(cfg)
	return b
}

// job is a delivery of a valid job message of method (first attempt of three).
func job(t *testing.T, method string) *jobs.Delivery {
	t.Helper()
	data, err := json.Marshal(jobs.Message{V: 1, Text: "The Eiffel Tower was completed in 1889.", Method: method, ID: "ext-1"})
	if err != nil {
		t.Fatal(err)
	}
	return &jobs.Delivery{JobID: "job-1", Data: data, Subject: "jobs.backlog", StreamSeq: 7, NumDelivered: 1, Received: time.Now()}
}

func attr(res jobs.Result, key string) (slog.Value, bool) {
	for _, a := range res.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return slog.Value{}, false
}

func TestExecutorOutcomes(t *testing.T) {
	t.Parallel()
	permanent := pipeline.Permanent(errors.New("model 'x' not found"))
	tests := []struct {
		name      string
		configure func(*bench, *jobs.Delivery)
		want      jobs.Outcome
		// recorded is the outcome written by RecordOutcome ("" for none); saved the run status
		// written by SaveRun ("" for none).
		recorded jobs.Outcome
		saved    string
		// reason is a part of the recorded reason or of the failed run's error.
		reason string
		ran    bool
	}{
		{name: "exhausted is dead", configure: func(b *bench, d *jobs.Delivery) { d.NumDelivered, d.Exhausted = 4, true },
			want: jobs.OutcomeDead, recorded: jobs.OutcomeDead, reason: "delivery attempts exhausted: 3 deliveries ended without an outcome"},
		{name: "a message that does not decode is rejected", configure: func(b *bench, d *jobs.Delivery) { d.Data = []byte("not json") },
			want: jobs.OutcomeRejected, recorded: jobs.OutcomeRejected, reason: "JSON"},
		{name: "a method this worker lacks is rejected", configure: func(b *bench, d *jobs.Delivery) { *d = *job(t, pipeline.MethodCove2) },
			want: jobs.OutcomeRejected, recorded: jobs.OutcomeRejected, reason: `method "cove2" is not available`},
		{name: "a run ok is done and stored", want: jobs.OutcomeDone, saved: store.RunDone, ran: true},
		{name: "a permanent failure is failed and its run stored", configure: func(b *bench, d *jobs.Delivery) { b.method.err = permanent },
			want: jobs.OutcomeFailed, saved: store.RunFailed, reason: "not found", ran: true},
		{name: "a transient failure is retried", configure: func(b *bench, d *jobs.Delivery) { b.method.err = errors.New("HTTP 500") },
			want: jobs.OutcomeRetry, recorded: jobs.OutcomeRetry, reason: "attempt 1 failed, will retry: HTTP 500", ran: true},
		{name: "a transient failure of the last attempt is dead", configure: func(b *bench, d *jobs.Delivery) {
			b.method.err = errors.New("HTTP 500")
			d.NumDelivered, d.Final = 3, true
		}, want: jobs.OutcomeDead, recorded: jobs.OutcomeDead, reason: "the last of 3 attempts failed: HTTP 500", ran: true},
		{name: "a rejection from the pipeline is rejected", configure: func(b *bench, d *jobs.Delivery) {
			b.method.err = pipeline.Rejected("text", "no verifiable factual claim")
		}, want: jobs.OutcomeRejected, recorded: jobs.OutcomeRejected, reason: "no verifiable factual claim", ran: true},
		{name: "a store error looking up the run is a retry", configure: func(b *bench, d *jobs.Delivery) { b.store.storedRunErr = errors.New("connection refused") },
			want: jobs.OutcomeRetry, recorded: jobs.OutcomeRetry, reason: "connection refused"},
		{name: "a store error saving the run is a retry", configure: func(b *bench, d *jobs.Delivery) { b.store.saveErr = errors.New("disk full") },
			want: jobs.OutcomeRetry, recorded: jobs.OutcomeRetry, reason: "attempt 1 failed, will retry: disk full", ran: true},
		{name: "a store error recording a rejection is a retry", configure: func(b *bench, d *jobs.Delivery) {
			d.Data = []byte("not json")
			b.store.recordErr = errors.New("connection reset")
		}, want: jobs.OutcomeRetry},
		{name: "shutdown during the run is an interruption, recorded all the same", configure: func(b *bench, d *jobs.Delivery) {
			b.method.err = context.Canceled
		}, want: jobs.OutcomeInterrupted, recorded: jobs.OutcomeInterrupted, reason: "interrupted by shutdown", ran: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBench(t, nil)
			d := job(t, pipeline.MethodFactored)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.configure != nil {
				tt.configure(b, d)
			}
			if tt.want == jobs.OutcomeInterrupted {
				b.method.cancel = cancel
			}
			res := b.exec.Handle(ctx, d)

			if res.Outcome != tt.want {
				t.Fatalf("outcome %q (%v), want %q", res.Outcome, res.Err, tt.want)
			}
			if (res.Err != nil) != (tt.want != jobs.OutcomeDone) {
				t.Errorf("error %v with outcome %s: want an error for every outcome but done", res.Err, res.Outcome)
			}
			if got := len(b.method.ran) > 0; got != tt.ran {
				t.Errorf("method ran: %v, want %v", got, tt.ran)
			}
			switch {
			case tt.recorded == "" && len(b.store.outcomes) > 0:
				t.Errorf("recorded %+v, want nothing", b.store.outcomes)
			case tt.recorded != "":
				if len(b.store.outcomes) != 1 {
					t.Fatalf("recorded %+v, want one outcome %s", b.store.outcomes, tt.recorded)
				}
				o := b.store.outcomes[0]
				if o.Status != tt.recorded || !strings.Contains(o.Reason, tt.reason) {
					t.Errorf("recorded %s %q, want %s with %q", o.Status, o.Reason, tt.recorded, tt.reason)
				}
				if o.Delivery.JobID != "job-1" || o.Delivery.StreamSeq != 7 || o.Delivery.Stream != "S" || o.Delivery.Worker != "host/1" || o.Delivery.Attempt != int(d.NumDelivered) {
					t.Errorf("recorded delivery %+v", o.Delivery)
				}
			}
			switch {
			case tt.saved == "" && len(b.store.saved) > 0:
				t.Errorf("saved %+v, want nothing", b.store.saved)
			case tt.saved != "":
				if len(b.store.saved) != 1 {
					t.Fatalf("saved %d runs, want one %s run", len(b.store.saved), tt.saved)
				}
				rec := b.store.saved[0]
				if rec.Status != tt.saved || !strings.Contains(rec.Error, tt.reason) || rec.Method != pipeline.MethodFactored || rec.Model != "test-model" || rec.Worker != "host/1" {
					t.Errorf("saved run: status %s error %q method %s model %s worker %s", rec.Status, rec.Error, rec.Method, rec.Model, rec.Worker)
				}
				if rec.Statement.ExternalID != "ext-1" || rec.Delivery.JobID != "job-1" {
					t.Errorf("saved run of statement %+v, delivery %+v", rec.Statement, rec.Delivery)
				}
				if id, ok := attr(res, "run_id"); !ok || id.Int64() != 42 {
					t.Errorf("result attrs %v: want run_id 42", res.Attrs)
				}
			}
			if tt.ran && b.observer.runs != 1 {
				t.Errorf("observer told of %d runs, want 1", b.observer.runs)
			}
			if b.store.cancelledWrites > 0 {
				t.Errorf("%d writes of the outcome had a cancelled context", b.store.cancelledWrites)
			}
		})
	}
}

// A job whose run is stored is done without running again, its message marked done.
func TestExecutorAlreadyStoredIsDoneDuplicate(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	b.store.storedRun = 9
	res := b.exec.Handle(context.Background(), job(t, pipeline.MethodFactored))
	if res.Outcome != jobs.OutcomeDuplicate || res.Err != nil {
		t.Fatalf("outcome %s (%v), want duplicate", res.Outcome, res.Err)
	}
	if dup, ok := attr(res, "duplicate"); !ok || !dup.Bool() {
		t.Errorf("attrs %v: want duplicate", res.Attrs)
	}
	if len(b.method.ran) != 0 || len(b.store.saved) != 0 || len(b.store.outcomes) != 0 {
		t.Errorf("ran %d, saved %d, recorded %d: want nothing but the mark", len(b.method.ran), len(b.store.saved), len(b.store.outcomes))
	}
	if len(b.store.marked) != 1 || b.store.marked[0] != 9 {
		t.Errorf("marked %v done, want run 9", b.store.marked)
	}

	// A mark that fails still acknowledges: the run is stored.
	b = newBench(t, nil)
	b.store.storedRun, b.store.markErr = 9, errors.New("connection reset")
	if res := b.exec.Handle(context.Background(), job(t, pipeline.MethodFactored)); res.Outcome != jobs.OutcomeDone {
		t.Errorf("outcome %s (%v) when the mark fails, want done", res.Outcome, res.Err)
	}
}

// A copy of a job whose run is stored is a duplicate even when its own deliveries ran out (its
// acks lost, or its worker killed each time): the job is done, not dead.
func TestExecutorExhaustedCopyOfAStoredJobIsADuplicate(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	b.store.storedRun = 9
	d := job(t, pipeline.MethodFactored)
	d.NumDelivered, d.Exhausted = 4, true
	res := b.exec.Handle(context.Background(), d)
	if res.Outcome != jobs.OutcomeDuplicate {
		t.Fatalf("outcome %s (%v), want duplicate: the job's run is stored", res.Outcome, res.Err)
	}
	if len(b.store.outcomes) != 0 || len(b.store.marked) != 1 || b.store.marked[0] != 9 {
		t.Errorf("recorded %v, marked %v: want only a mark pointing at run 9", b.store.outcomes, b.store.marked)
	}
}

// The job's options reach the method with the worker's defaults.
func TestExecutorRunsWithTheJobsOptions(t *testing.T) {
	t.Parallel()
	b := newBench(t, nil)
	d := job(t, pipeline.MethodFactored)
	three := 3
	data, _ := json.Marshal(jobs.Message{V: 1, Text: "The Eiffel Tower was completed in 1889.", Method: pipeline.MethodFactored,
		Options: jobs.MessageOptions{MaxHops: &three}, PublishedAt: "2026-11-30T09:00:00Z"})
	d.Data = data
	if res := b.exec.Handle(context.Background(), d); res.Outcome != jobs.OutcomeDone {
		t.Fatalf("outcome %s (%v)", res.Outcome, res.Err)
	}
	in := b.method.ran[0]
	if in.Options.MaxQuestions != 5 || in.Options.Concurrency != 2 || in.Options.MaxHops != 3 || in.Text == "" {
		t.Errorf("input %+v: want the worker's max questions and concurrency, the job's max hops", in.Options)
	}
	// The statement's publication time reaches the method: its relative times are read from it.
	if in.Published == nil || !in.Published.Equal(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("input published %v, want the job's published_at", in.Published)
	}
	if string(b.store.saved[0].Options) != string(mustJSON(t, jobs.MessageOptions{MaxHops: &three})) {
		t.Errorf("stored options %s", b.store.saved[0].Options)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestJointSwitch(t *testing.T) {
	t.Parallel()
	on := JointSwitch{Enabled: true, Threshold: 0.9, Window: 10}
	tests := []struct {
		name      string
		sw        JointSwitch
		requested string
		agreement store.JointAgreement
		want      string
		switched  bool
	}{
		{"off", JointSwitch{}, pipeline.MethodJoint, store.JointAgreement{Runs: 10, Agreed: 10}, pipeline.MethodJoint, false},
		{"another method is never switched", on, pipeline.MethodTwoStep, store.JointAgreement{Runs: 10, Agreed: 10}, pipeline.MethodTwoStep, false},
		{"too few runs", on, pipeline.MethodJoint, store.JointAgreement{Runs: 9, Agreed: 9}, pipeline.MethodJoint, false},
		{"below the threshold", on, pipeline.MethodJoint, store.JointAgreement{Runs: 10, Agreed: 8}, pipeline.MethodJoint, false},
		{"at the threshold", on, pipeline.MethodJoint, store.JointAgreement{Runs: 10, Agreed: 9}, pipeline.MethodFactored, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBench(t, func(c *Config) { c.JointSwitch = tt.sw })
			b.store.agreement = tt.agreement
			res := b.exec.Handle(context.Background(), job(t, tt.requested))
			if res.Outcome != jobs.OutcomeDone {
				t.Fatalf("outcome %s (%v)", res.Outcome, res.Err)
			}
			if len(b.built) != 1 || b.built[0] != tt.want {
				t.Fatalf("built %v, want %s", b.built, tt.want)
			}
			rec := b.store.saved[0]
			if rec.Method != tt.want || rec.RequestedMethod != tt.requested || (rec.MethodReason != "") != tt.switched {
				t.Errorf("stored method %s requested %s reason %q", rec.Method, rec.RequestedMethod, rec.MethodReason)
			}
			if tt.switched && !strings.Contains(rec.MethodReason, "90% of runs") {
				t.Errorf("reason %q does not give the rate", rec.MethodReason)
			}
			if tt.sw.Enabled && tt.requested == pipeline.MethodJoint && (len(b.observer.rates) != 1 || b.observer.rates[0] != tt.agreement.Rate()) {
				t.Errorf("observed rates %v, want [%v]", b.observer.rates, tt.agreement.Rate())
			}
		})
	}

	// The agreement cannot be read: the job is retried, not run as the wrong method.
	b := newBench(t, func(c *Config) { c.JointSwitch = on })
	b.store.agreementErr = errors.New("connection refused")
	if res := b.exec.Handle(context.Background(), job(t, pipeline.MethodJoint)); res.Outcome != jobs.OutcomeRetry || len(b.method.ran) != 0 {
		t.Errorf("outcome %s, ran %d: want a retry without a run", res.Outcome, len(b.method.ran))
	}
}

// A retry's link to the job it runs again is stored with its outcome, whatever the outcome.
func TestExecutorRecordsTheJobARetryRunsAgain(t *testing.T) {
	t.Parallel()
	retryOf := func(d *jobs.Delivery) {
		data, _ := json.Marshal(jobs.Message{V: 1, Text: "The Eiffel Tower was completed in 1889.", Method: pipeline.MethodFactored,
			RetryOf: "cli:original"})
		d.Data = data
	}
	b := newBench(t, nil)
	d := job(t, pipeline.MethodFactored)
	retryOf(d)
	if res := b.exec.Handle(context.Background(), d); res.Outcome != jobs.OutcomeDone {
		t.Fatalf("outcome %s (%v)", res.Outcome, res.Err)
	}
	if got := b.store.saved[0].Delivery.RetryOf; got != "cli:original" {
		t.Errorf("the saved run's delivery retries %q, want cli:original", got)
	}

	b = newBench(t, nil)
	d = job(t, pipeline.MethodFactored)
	retryOf(d)
	d.Exhausted = true
	if res := b.exec.Handle(context.Background(), d); res.Outcome != jobs.OutcomeDead {
		t.Fatalf("outcome %s (%v), want dead", res.Outcome, res.Err)
	}
	if len(b.store.outcomes) != 1 || b.store.outcomes[0].Delivery.RetryOf != "cli:original" {
		t.Errorf("the dead retry's outcome %+v does not name the job it retries", b.store.outcomes)
	}
}

// Issue 14, item 2: a job is dead on the attempts it really had, not on its delivery count,
// which also counts deliveries no handler saw. Before, a job delivered twice with MaxDeliver 2
// (one delivery lost on the way, one real attempt) was dead on its first real failure.
func TestExecutorDecidesDeadOnRealAttempts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		numDelivered uint64
		attempts     store.Attempts
		want         jobs.Outcome
		reason       string
		// recordedAs is the attempt number the outcome is recorded under.
		recordedAs int
	}{
		{"a lost delivery spends no attempt", 3, store.Attempts{Spent: 1, Handled: 1, Last: 1}, jobs.OutcomeRetry, "attempt 3 failed, will retry", 3},
		{"held and interrupted attempts spend none", 5, store.Attempts{Spent: 1, Handled: 4, Last: 4}, jobs.OutcomeRetry, "will retry", 5},
		{"the job's own failures do", 3, store.Attempts{Spent: 2, Handled: 2, Last: 2}, jobs.OutcomeDead, "the last of 3 attempts failed", 3},
		{"so do they after lost deliveries", 5, store.Attempts{Spent: 2, Handled: 2, Last: 3}, jobs.OutcomeDead, "the last of 3 attempts failed", 5},
		{"deliveries that all ended without an outcome", 4, store.Attempts{}, jobs.OutcomeDead, "3 deliveries ended without an outcome", 4},
		// nats-server 2.9.10 was seen to deliver a message a third time with a delivery count of
		// 1 (after a delivery lost on its way): recorded under its count, it overwrote the first
		// attempt's record and the job was counted one attempt short (TestAttemptsExhaustedIsDeadWithPayload, 1 run in 50).
		{"a delivery count the server gave before", 1, store.Attempts{Spent: 2, Handled: 2, Last: 2}, jobs.OutcomeDead, "the last of 3 attempts failed", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBench(t, nil)
			b.method.err = errors.New("HTTP 500")
			b.store.attempts = tt.attempts
			d := job(t, pipeline.MethodFactored)
			// The loop's reading of NumDelivered, which the executor corrects.
			d.NumDelivered, d.MaxAttempts = tt.numDelivered, 3
			d.Final, d.Exhausted = tt.numDelivered == 3, tt.numDelivered > 3
			res := b.exec.Handle(context.Background(), d)
			if res.Outcome != tt.want {
				t.Fatalf("outcome %s (%v), want %s", res.Outcome, res.Err, tt.want)
			}
			if len(b.store.outcomes) != 1 || !strings.Contains(b.store.outcomes[0].Reason, tt.reason) {
				t.Fatalf("recorded %+v, want a reason with %q", b.store.outcomes, tt.reason)
			}
			if got := b.store.outcomes[0].Delivery.Attempt; got != tt.recordedAs {
				t.Errorf("recorded as attempt %d, want %d (the records of the attempts before must stay)", got, tt.recordedAs)
			}
		})
	}
	// The count cannot be read: the attempt ends with no outcome and comes back.
	b := newBench(t, nil)
	b.store.attemptsErr = errors.New("connection refused")
	d := job(t, pipeline.MethodFactored)
	d.MaxAttempts = 3
	if res := b.exec.Handle(context.Background(), d); res.Outcome.Final() || len(b.method.ran) != 0 {
		t.Fatalf("outcome %s with the attempts unknown, %d runs; want a retry and no run", res.Outcome, len(b.method.ran))
	}
}
