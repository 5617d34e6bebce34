package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Issue 14, item 3: 16 jobs whose model calls always fail, ahead of 200 good ones. The failing
// jobs wait out a long retry delay (a nakked message stays awaiting its ack on the server); the
// good jobs must not wait behind them. Before, MaxAckPending was twice one worker's concurrency
// (16 here): the 16 waiting retries held every slot and no good job ran until their delay
// ended. Asserted on order, not on rates: all 200 good jobs are done while every failing job
// still waits for its second attempt.
func TestFailingJobsDoNotStallTheBacklog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const failing, good = 16, 200
	// Longer than the good jobs can take on any machine: a failing job that comes back before
	// they are done means they waited.
	b.cfg.Stream.BackoffBase, b.cfg.Stream.BackoffMax = time.Minute, time.Minute
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		return llmtest.Response{Status: 500}, strings.Contains(prompt, "always fails")
	})
	b.factoredModel()
	for i := range failing {
		b.publish(t, jobs.Message{V: 1, ID: fmt.Sprintf("bad-%d", i), Text: fmt.Sprintf("Statement %d always fails, says %s.", i, b.text), Method: pipeline.MethodFactored})
	}
	for i := range good {
		b.publish(t, jobs.Message{V: 1, ID: fmt.Sprintf("good-%d", i), Text: fmt.Sprintf("Good statement %d, says %s.", i, b.text), Method: pipeline.MethodFactored})
	}
	b.cfg.ExitWhenIdle = false
	subject := b.cfg.Stream.PublishSubject
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		b.runWorkersUntil(t, ctx, 1)
	}()

	var doneGood, retried int
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		doneGood = b.count(t, `SELECT count(*) FROM job_outcomes WHERE subject = $1 AND status = 'done'`, subject)
		// A failing job's second attempt: its first retry delay is over.
		retried = b.count(t, `SELECT count(*) FROM message_attempts a JOIN messages m USING (job_id, stream_seq)
			WHERE m.subject = $1 AND a.attempt >= 2`, subject)
		if doneGood == good || retried > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	firstAttempts := b.count(t, `SELECT count(*) FROM job_outcomes WHERE subject = $1 AND status = 'pending' AND handled_attempts = 1`, subject)
	cancel()
	<-stopped
	if doneGood != good || retried != 0 {
		t.Fatalf("%d of %d good jobs done when the first failing job came back for its second attempt (%d second attempts): the good jobs waited behind the failing ones",
			doneGood, good, retried)
	}
	if firstAttempts != failing {
		t.Errorf("%d failing jobs had failed once and wait for their retry, want %d", firstAttempts, failing)
	}
	t.Logf("%d good jobs done while the %d failing jobs waited out their first retry delay", doneGood, firstAttempts)
}

// Issue 14, item 2: a delivery that no handler saw (here taken and dropped, as a request the
// client gave up on was answered) costs the job no attempt. Before, with MaxDeliver 2, the job's
// first real attempt came on delivery 2, counted as its last: one failure of the model and the
// job was dead.
func TestLostDeliveryCostsNoAttempt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.cfg.Stream.MaxDeliver, b.cfg.Stream.AckWait = 2, time.Second
	b.model.Fail(pipeline.MarkerPlan, 503, "").Once()
	b.factoredModel()
	job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	lanes, err := jobs.SetupLanes(context.Background(), b.js, b.cfg.streamConfig())
	if err != nil {
		t.Fatal(err)
	}
	// The lost delivery: taken, never handled, back after the ack wait.
	batch, err := lanes.Backlog().Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	lost := <-batch.Messages()
	if lost == nil {
		t.Fatalf("no delivery to lose: %v", batch.Error())
	}
	b.runWorkers(t, 1)
	var status string
	var deliveries, handled int
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT status, attempts, handled_attempts FROM job_outcomes WHERE job_id = $1`, job).Scan(&status, &deliveries, &handled); err != nil {
		t.Fatal(err)
	}
	if status != string(jobs.OutcomeDone) || deliveries != 3 || handled != 2 {
		t.Fatalf("outcome %s on delivery %d after %d handled attempts; want done on delivery 3 after 2 (one lost, one failed, one done)", status, deliveries, handled)
	}
}
