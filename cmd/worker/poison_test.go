package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/breaker"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Issue 24, item 1: 16 jobs whose model calls always get HTTP 500 (the model chokes on their
// prompt; every other prompt, the probe's included, is answered) published ahead of 200 good
// ones, one worker of concurrency 8 with the model breaker on at its defaults. Before, the
// breaker took the poison jobs' failures for an outage: it opened, held them (spending none of
// their attempts), half-opened on a probe that succeeded, met them again and opened again, its
// probes ever further apart: 0 of 200 good jobs done in 90 s. The bounds here are the issue's,
// generous for what the fake model takes (a few seconds): a behaviour, not a rate.
func TestPoisonPromptsDoNotStopTheBacklog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const poison, good = 16, 200
	const said = "the model failed on something in this prompt"
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		return llmtest.Response{Status: 500, Body: llmtest.ErrorBody(said, "server_error", "")}, strings.Contains(prompt, "chokes the model")
	})
	b.factoredModel()
	b.model.Reply(llm.ProbePrompt, "OK")
	b.cfg.BreakerJobs, b.cfg.BreakerProbeMin, b.cfg.BreakerProbeMax = breaker.DefaultThreshold, breaker.DefaultProbeMin, breaker.DefaultProbeMax
	b.cfg.ExitWhenIdle = false
	for i := range poison {
		b.publish(t, jobs.Message{V: 1, ID: fmt.Sprintf("poison-%d", i), Text: fmt.Sprintf("Statement %d chokes the model, says %s.", i, b.text), Method: pipeline.MethodFactored})
	}
	for i := range good {
		b.publish(t, jobs.Message{V: 1, ID: fmt.Sprintf("good-%d", i), Text: fmt.Sprintf("Good statement %d, says %s.", i, b.text), Method: pipeline.MethodFactored})
	}
	client, err := llm.New(llm.Config{BaseURL: b.model.URL(), Model: b.cfg.Model, Timeout: b.cfg.ModelTimeout})
	if err != nil {
		t.Fatal(err)
	}
	s := b.services(t, client)
	s.probe, s.answers = client.Probe, client.Answers

	const firstWithin, allWithin = 15 * time.Second, 90 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), allWithin+30*time.Second)
	defer cancel()
	consumed := make(chan error, 1)
	start := time.Now()
	go func() { consumed <- consume(ctx, b.cfg, b.log, s, newMetrics(), "") }()

	subject := b.cfg.Stream.PublishSubject
	var firstDone time.Duration
	var done, ended int
	for time.Since(start) < allWithin {
		done = b.count(t, `SELECT count(*) FROM job_outcomes WHERE subject = $1 AND status = 'done'`, subject)
		ended = b.count(t, `SELECT count(*) FROM job_outcomes WHERE subject = $1 AND status IN ('failed', 'dead')`, subject)
		if done > 0 && firstDone == 0 {
			firstDone = time.Since(start)
		}
		if done == good && ended == poison {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(start)
	cancel()
	if err := <-consumed; err != nil {
		t.Fatal(err)
	}
	if firstDone == 0 || firstDone > firstWithin {
		t.Errorf("the first good job was done %s after the start (0: never), want within %s", firstDone.Round(time.Millisecond), firstWithin)
	}
	if done != good {
		t.Errorf("%d of %d good jobs done within %s", done, good, allWithin)
	}
	if ended != poison {
		t.Errorf("%d of %d poison jobs ended failed or dead within %s", ended, poison, allWithin)
	}
	// Each poison job ends on its own attempts, with the model's answer as the reason.
	rows, err := b.store.Pool().Query(context.Background(), `SELECT job_id, status, attempts, coalesce(reason, '') FROM job_outcomes WHERE subject = $1 AND status <> 'done'`, subject)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var job, status, reason string
		var attempts int
		if err := rows.Scan(&job, &status, &attempts, &reason); err != nil {
			t.Fatal(err)
		}
		if (status != "failed" && status != "dead") || !strings.Contains(reason, "HTTP 500") || !strings.Contains(reason, said) {
			t.Errorf("job %s: %s after %d deliveries (%q), want failed or dead with the model's HTTP 500 as the reason", job, status, attempts, reason)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("first good job done after %s; %d good done, %d poison failed or dead after %s", firstDone.Round(time.Millisecond), done, ended, took.Round(time.Millisecond))
}
