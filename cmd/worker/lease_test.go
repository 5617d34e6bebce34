package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// outcomes counts the job's rows of job_outcomes by status.
func (b *bundle) outcomes(t *testing.T, job string) map[string]int {
	t.Helper()
	return b.countsBy(t, `SELECT status, count(*)::int FROM job_outcomes WHERE job_id = $1 GROUP BY status`, job)
}

// Copies of one job delivered together (the same body published several times without a
// Nats-Msg-Id, so JetStream keeps every copy; each copy with its own producer reference, which
// is not part of the job id) run the method once: the other copies wait for the job's lease, find
// its run and are recorded as duplicates, and no copy leaves a statement without a run.
//
// The first plan call is held until every copy has made one (the old code: each copy ran the
// method) or 3 s have passed (one copy runs, the others wait for its lease), so that the copies
// are all in flight while the first one runs.
func TestCopiesOfOneJobDeliveredTogetherRunOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const copies = 6
	var plans atomic.Int32
	all := make(chan struct{})
	var once sync.Once
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		if strings.Contains(prompt, pipeline.MarkerPlan) {
			if plans.Add(1) == copies {
				once.Do(func() { close(all) })
			}
			select {
			case <-all:
			case <-time.After(3 * time.Second):
			}
		}
		return llmtest.Response{}, false // the Factored script below answers
	})
	b.factoredModel()
	ctx := context.Background()
	if _, _, err := jobs.Setup(ctx, b.js, b.cfg.Stream); err != nil {
		t.Fatal(err)
	}
	for i := range copies {
		raw := fmt.Sprintf(`{"v":1,"text":%q,"method":"cove-factored","id":"copy-%d"}`, b.text, i)
		if _, err := jobs.PublishRaw(ctx, b.js, b.cfg.Stream.PublishSubject, []byte(raw), ""); err != nil {
			t.Fatal(err)
		}
	}
	job := jobs.DedupeID(jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 2)

	if n := plans.Load(); n != 1 {
		t.Errorf("the method ran %d times for %d copies of one job (%d model calls), want once", n, copies, b.model.Count())
	}
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1`, job); n != 1 {
		t.Errorf("runs of the job: %d, want 1", n)
	}
	if n := b.count(t, `SELECT coalesce(sum(model_calls), 0)::int FROM runs WHERE job_id = $1`, job); n != b.model.Count() {
		t.Errorf("the model answered %d calls, the job's run made %d", b.model.Count(), n)
	}
	if got := b.outcomes(t, job); got["done"] != 1 || got["duplicate"] != copies-1 || len(got) != 2 {
		t.Errorf("job_outcomes of the job by status: %v, want done 1 and duplicate %d", got, copies-1)
	}
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'duplicate' AND run_id IS DISTINCT FROM (SELECT id FROM runs WHERE job_id = $1)`, job); n != 0 {
		t.Errorf("%d duplicates do not point at the job's run", n)
	}
	if n := b.count(t, `SELECT count(*) FROM statements s WHERE s.text = $1 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.statement_id = s.id)`, b.text); n != 0 {
		t.Errorf("statements without a run: %d, want 0", n)
	}
	if n := b.count(t, `SELECT count(*) FROM job_leases WHERE job_id = $1`, job); n != 0 {
		t.Errorf("leases left behind: %d", n)
	}
}

// The body of a failed job published again does not run under the same job id (a job id runs
// once) and is not recorded done: it is a duplicate pointing at the failed run, whose reason says
// how to run the job again (enqueue retry).
func TestRepublishedFailedJobIsADuplicateThatSaysHowToRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.model.Fail("", 404, llmtest.ErrorBody("model 'fake-model' not found", "not_found_error", "model_not_found"))
	m := jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored}
	job := b.publish(t, m)
	b.runWorkers(t, 1)
	calls := b.model.Count()
	// The same body again, as a producer would republish it: without a Nats-Msg-Id, JetStream
	// keeps it, and its job id is the same hash.
	raw := fmt.Sprintf(`{"v":1,"text":%q,"method":"cove-factored"}`, b.text)
	if _, err := jobs.PublishRaw(context.Background(), b.js, b.cfg.Stream.PublishSubject, []byte(raw), ""); err != nil {
		t.Fatal(err)
	}
	b.runWorkers(t, 1)
	if got := b.outcomes(t, job); got["failed"] != 1 || got["duplicate"] != 1 || len(got) != 2 {
		t.Fatalf("job_outcomes of the job by status: %v, want failed 1 and duplicate 1 (not done)", got)
	}
	var reason string
	var pointsAtFailedRun bool
	err := b.store.Pool().QueryRow(context.Background(), `
		SELECT o.reason, o.run_id = (SELECT id FROM runs WHERE job_id = $1 AND status = 'failed')
		FROM job_outcomes o WHERE o.job_id = $1 AND o.status = 'duplicate'`, job).Scan(&reason, &pointsAtFailedRun)
	if err != nil {
		t.Fatal(err)
	}
	if !pointsAtFailedRun || !strings.Contains(reason, "failed") || !strings.Contains(reason, "enqueue retry --ids") || !strings.Contains(reason, job) {
		t.Errorf("the duplicate's reason %q (points at the failed run: %v): want the failed run and how to retry it", reason, pointsAtFailedRun)
	}
	if b.model.Count() != calls {
		t.Errorf("the republished failed job called the model again: %d calls, want %d", b.model.Count(), calls)
	}
}

// After a clean restart of the NATS server, JetStream has forgotten the ids of the messages it
// no longer holds (a work-queue stream deletes acknowledged ones; the dedupe table is rebuilt
// from the messages kept): enqueueing the same jobs again is accepted. The worker does not run
// them again, and job_outcomes counts each job done once, its re-enqueued copy a duplicate.
func TestJobsReenqueuedAfterANATSRestartAreDuplicates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ns := b.ownNATS(t)
	b.factoredModel()
	const statements = 3
	msgs := make([]jobs.Message, statements)
	ids := make([]string, statements)
	for i := range msgs {
		msgs[i] = jobs.Message{V: 1, Text: fmt.Sprintf("Restart statement %d of %s", i, b.text), Method: pipeline.MethodFactored}
		ids[i] = b.publish(t, msgs[i])
	}
	b.runWorkers(t, 1)
	calls := b.model.Count()

	// Inside the dedupe window and before a restart, JetStream drops the repeat.
	res, err := jobs.Publish(context.Background(), b.js, b.cfg.Stream.PublishSubject, msgs[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Duplicate {
		t.Fatal("a job id published again inside the dedupe window was not dropped")
	}
	if err := ns.Restart(0); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, m := range msgs {
		res, err := jobs.Publish(context.Background(), b.js, b.cfg.Stream.PublishSubject, m, "")
		if err != nil {
			t.Fatal(err)
		}
		if !res.Duplicate {
			accepted++
		}
	}
	if accepted != statements {
		t.Fatalf("after a restart JetStream accepted %d of %d job ids it had seen: the documented behaviour changed", accepted, statements)
	}
	b.runWorkers(t, 1)
	if b.model.Count() != calls {
		t.Errorf("re-enqueued done jobs called the model: %d calls, want %d", b.model.Count(), calls)
	}
	for _, job := range ids {
		if got := b.outcomes(t, job); got["done"] != 1 || got["duplicate"] != 1 || len(got) != 2 {
			t.Errorf("job_outcomes of %s by status: %v, want done 1 and duplicate 1", job, got)
		}
	}
}
