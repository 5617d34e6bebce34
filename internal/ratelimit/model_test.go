package ratelimit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/ratelimit"
)

// bundle is a fake OpenAI server, a limiter, and the real llm client wrapped by it.
type bundle struct {
	srv   *llmtest.Server
	lim   *ratelimit.Limiter
	model pipeline.Model
}

// setup wires a limiter with cfg around an llm client for a fake server, the way the worker
// does: the client reports every response to the limiter.
func setup(t *testing.T, cfg ratelimit.Config) bundle {
	t.Helper()
	srv := llmtest.NewServer(t)
	lim, err := ratelimit.New(cfg)
	if err != nil {
		t.Fatalf("ratelimit.New: %v", err)
	}
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m", OnResponse: lim.ObserveResponse})
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return bundle{srv: srv, lim: lim, model: ratelimit.Model(client, lim)}
}

func complete(b bundle, ctx context.Context) (pipeline.ModelReply, error) {
	return b.model.Complete(ctx, pipeline.ModelRequest{Step: "verify", Prompt: "is water wet?", MaxTokens: 64})
}

func TestRetriesTransient429AfterRetryAfter(t *testing.T) {
	t.Parallel()
	b := setup(t, ratelimit.Config{})
	// One success first: a 429 before the provider accepted anything is a storm, which pauses
	// and retries but teaches no pace (TestStormFromTheFirstRequest).
	b.srv.Reply("", "first").Once()
	b.srv.Fail("", 429, llmtest.ErrorBody("slow down", "requests", "rate_limit_exceeded")).Header("Retry-After-Ms", "80").Once()
	b.srv.Reply("", "yes")
	if _, err := complete(b, context.Background()); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	reply, err := complete(b, context.Background())
	if err != nil || reply.Text != "yes" {
		t.Fatalf("Complete = %q, %v; want the reply after one retry", reply.Text, err)
	}
	if waited := time.Since(start); waited < 80*time.Millisecond {
		t.Errorf("retried after %s, want at least the 80ms Retry-After-Ms asked for", waited)
	}
	if n := b.srv.Count(); n != 3 {
		t.Errorf("server got %d requests, want 3", n)
	}
	s := b.lim.Stats()
	if s.RateLimited != 1 || s.Retries != 1 || s.Decreases != 1 || s.Pauses != 1 || s.Succeeded != 2 || s.Failed != 0 {
		t.Errorf("stats = %+v, want one 429, one retry, one cut, one pause, two successes", s)
	}
	// The cut gave an unknown limit a pace: what was sent in the last minute, cut.
	if s.RequestsPerMinute <= 0 {
		t.Errorf("pace after the cut = %g, want a finite pace", s.RequestsPerMinute)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	t.Parallel()
	// A known ceiling keeps the cuts from pacing the retries at the rate one call a minute is.
	b := setup(t, ratelimit.Config{RequestsPerMinute: 60000, MaxRetries: 2, Pause: time.Millisecond, MaxPause: 5 * time.Millisecond})
	b.srv.Fail("", 429, "")

	_, err := complete(b, context.Background())
	var se *llm.StatusError
	if !errors.As(err, &se) || se.StatusCode != 429 || pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want the transient 429 after the retries", err)
	}
	if n := b.srv.Count(); n != 3 {
		t.Errorf("server got %d requests, want 3 (one and two retries)", n)
	}
	// Calls admitted before a cut do not cut again: one cut per attempt here, since each retry
	// is admitted after the previous cut.
	if s := b.lim.Stats(); s.RateLimited != 3 || s.Retries != 2 || s.Failed != 1 || s.Decreases != 3 {
		t.Errorf("stats = %+v, want three 429s, two retries, one failure, three cuts", s)
	}
}

func TestQuotaExhaustedIsNotRetried(t *testing.T) {
	t.Parallel()
	b := setup(t, ratelimit.Config{})
	b.srv.Fail("", 429, llmtest.ErrorBody("You exceeded your current quota", "insufficient_quota", "insufficient_quota")).
		Header("Retry-After", "1")

	start := time.Now()
	_, err := complete(b, context.Background())
	if !pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want a permanent error", err)
	}
	if waited := time.Since(start); waited > 500*time.Millisecond {
		t.Errorf("an exhausted quota was answered after %s, want at once", waited)
	}
	if n := b.srv.Count(); n != 1 {
		t.Errorf("server got %d requests, want 1", n)
	}
	s := b.lim.Stats()
	if s.QuotaExhausted != 1 || s.RateLimited != 0 || s.Retries != 0 || s.Decreases != 0 || s.Pauses != 0 {
		t.Errorf("stats = %+v, want one exhausted quota and no retry, cut or pause", s)
	}
}

func TestOtherErrorsPassThrough(t *testing.T) {
	t.Parallel()
	b := setup(t, ratelimit.Config{})
	b.srv.Fail("", 503, "")
	if _, err := complete(b, context.Background()); err == nil || pipeline.IsPermanent(err) {
		t.Fatalf("err = %v, want the transient 503", err)
	}
	if n := b.srv.Count(); n != 1 {
		t.Errorf("server got %d requests, want 1: only 429s are retried here", n)
	}
	if s := b.lim.Stats(); s.Failed != 1 || s.Decreases != 0 {
		t.Errorf("stats = %+v, want one failure and no cut", s)
	}
}

func TestLearnsFromSuccessfulResponses(t *testing.T) {
	t.Parallel()
	b := setup(t, ratelimit.Config{RequestsPerMinute: 10000})
	b.srv.Reply("", "ok").
		Header("X-Ratelimit-Limit-Requests", "120").
		Header("X-Ratelimit-Limit-Tokens", "40000").
		Header("X-Ratelimit-Remaining-Requests", "119").
		Header("X-Ratelimit-Reset-Requests", "500ms")
	reply, err := complete(b, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := b.lim.Stats()
	if s.RequestLimit != 120 || s.TokenLimit != 40000 {
		t.Errorf("limits = %g, %g; want the announced 120 (below the configured 10000) and 40000", s.RequestLimit, s.TokenLimit)
	}
	if s.RequestsPerMinute >= 120 || s.RequestsPerMinute < 110 {
		t.Errorf("pace = %g, want a little below 120", s.RequestsPerMinute)
	}
	if want := reply.PromptTokens + reply.CompletionTokens; s.TokensUsed != want {
		t.Errorf("tokens used = %d, want the reported %d", s.TokensUsed, want)
	}
	if want := ratelimit.EstimateTokens("is water wet?", 64); s.TokensEstimated != want {
		t.Errorf("tokens estimated = %d, want %d", s.TokensEstimated, want)
	}
}

// TestPausesWhenNothingRemains: a success that says nothing is left pauses the next call.
func TestPausesWhenNothingRemains(t *testing.T) {
	t.Parallel()
	b := setup(t, ratelimit.Config{})
	b.srv.Reply("", "ok").Once().
		Header("X-Ratelimit-Remaining-Requests", "0").
		Header("X-Ratelimit-Reset-Requests", "150ms")
	b.srv.Reply("", "ok")
	if _, err := complete(b, context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := complete(b, context.Background()); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("second call went after %s, want it to wait for the 150ms reset", waited)
	}
	if s := b.lim.Stats(); s.Pauses != 1 || s.RateLimited != 0 {
		t.Errorf("stats = %+v, want one pause and no 429", s)
	}
}

func TestContextEndsDuringPause(t *testing.T) {
	t.Parallel()
	b := setup(t, ratelimit.Config{})
	b.srv.Fail("", 429, "").Header("Retry-After", "30")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := complete(b, ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("returned after %s, want soon after the context ended", took)
	}
}

func TestModelWithoutLimiter(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply("", "ok")
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if m := ratelimit.Model(client, nil); m != pipeline.Model(client) {
		t.Errorf("Model(client, nil) = %T, want the client itself", m)
	}
}
