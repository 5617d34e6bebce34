package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

func probe(t *testing.T, c *llm.Client) *llm.ProbeError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Probe(ctx)
	if err == nil {
		return nil
	}
	var pe *llm.ProbeError
	if !errors.As(err, &pe) {
		t.Fatalf("Probe returned %T %v, want a *llm.ProbeError", err, err)
	}
	if strings.Contains(pe.Error(), "\n") {
		t.Errorf("the probe's message is not one line: %q", pe.Error())
	}
	if strings.Contains(pe.Error(), testKey) {
		t.Errorf("the probe's message holds the key: %q", pe.Error())
	}
	return pe
}

func TestProbe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		opts   []llmtest.Option
		break_ func(*llmtest.Server)
		// fatal and reason are what the probe must say; want is in its message.
		ok     bool
		fatal  bool
		reason string
		want   string
	}{
		{name: "fake server accepts any model", ok: true},
		{name: "known model", opts: []llmtest.Option{llmtest.WithModels("other", testModel)}, ok: true},
		{name: "unknown model", opts: []llmtest.Option{llmtest.WithModels("other")}, fatal: true, reason: llm.OutageModelNotFound, want: "check CORROBORATE_MODEL"},
		{name: "key refused", break_: func(s *llmtest.Server) {
			s.StartOutage(llmtest.Response{Status: 401, Body: llmtest.ErrorBody("Incorrect API key provided: "+testKey, "invalid_request_error", "invalid_api_key")})
		}, fatal: true, reason: llm.OutageUnauthorized, want: "OPENAI_API_KEY was refused by http://127.0.0.1:"},
		{name: "access denied", break_: func(s *llmtest.Server) { s.StartOutage(llmtest.Response{Status: 403}) }, fatal: true, reason: llm.OutageForbidden, want: "check the key's permissions"},
		{name: "connection refused", break_: func(s *llmtest.Server) { s.RefuseConnections() }, fatal: true, reason: llm.OutageConnectionRefused, want: "check OPENAI_BASE_URL and that the model server is running"},
		{name: "server error is not fatal", break_: func(s *llmtest.Server) { s.StartOutage(llmtest.Response{Status: 503}) }, reason: llm.OutageServerError, want: "is failing (server_error)"},
		{name: "rate limit is not fatal", break_: func(s *llmtest.Server) { s.StartOutage(llmtest.Response{Status: 429}) }, want: "rate limiting"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, nil, tt.opts...)
			if tt.break_ != nil {
				tt.break_(b.srv)
			}
			pe := probe(t, b.client)
			if tt.ok {
				if pe != nil {
					t.Fatalf("Probe: %v", pe)
				}
				if n := b.srv.Count(); n != 0 {
					t.Errorf("the probe spent %d completions where the models endpoint answered", n)
				}
				return
			}
			if pe == nil {
				t.Fatal("Probe passed")
			}
			if pe.Fatal != tt.fatal || pe.Reason != tt.reason || !strings.Contains(pe.Error(), tt.want) {
				t.Fatalf("Probe: fatal %v reason %q %q; want fatal %v reason %q, containing %q", pe.Fatal, pe.Reason, pe.Error(), tt.fatal, tt.reason, tt.want)
			}
		})
	}
}

// A host that does not resolve is fatal.
func TestProbeDNS(t *testing.T) {
	t.Parallel()
	c, err := llm.New(llm.Config{BaseURL: "http://no-such-host.invalid/v1", Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	pe := probe(t, c)
	if pe == nil || !pe.Fatal || pe.Reason != llm.OutageDNS || !strings.Contains(pe.Error(), "does not resolve") {
		t.Fatalf("Probe of an unknown host: %+v", pe)
	}
}

// A server without the models endpoints (llama.cpp-like) passes on a one-token completion.
func TestProbeFallsBackToOneToken(t *testing.T) {
	t.Parallel()
	var completions []llmtest.Request
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		rec, _, _ := llmtest.DecodeRequest(r)
		completions = append(completions, rec)
		llmtest.WriteResponse(w, rec, llmtest.Response{Text: "OK"})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if pe := probe(t, c); pe != nil {
		t.Fatalf("Probe: %v", pe)
	}
	if len(completions) != 1 || completions[0].MaxTokens == nil || *completions[0].MaxTokens != 1 {
		t.Fatalf("want one completion of one token, got %+v", completions)
	}
}

// The fake server refuses connections and then accepts them again on the same address.
func TestRefuseThenAcceptConnections(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Reply("", "fine")
	b.srv.RefuseConnections()
	_, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Step: pipeline.StepVerify, Prompt: "hello"})
	if llm.OutageReason(err) != llm.OutageConnectionRefused {
		t.Fatalf("a call while refusing: %v (reason %q)", err, llm.OutageReason(err))
	}
	if err := b.srv.AcceptConnections(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Step: pipeline.StepVerify, Prompt: "hello"}); err != nil {
		t.Fatalf("a call after accepting again: %v", err)
	}
}

// OutageReason names the failures every job would meet alike, and nothing else.
func TestOutageReason(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		resp llmtest.Response
		want string
	}{
		{llmtest.Response{Status: 401}, llm.OutageUnauthorized},
		{llmtest.Response{Status: 403}, llm.OutageForbidden},
		{llmtest.Response{Status: 429, Body: llmtest.ErrorBody("You exceeded your current quota", "insufficient_quota", "insufficient_quota")}, llm.OutageQuota},
		{llmtest.Response{Status: 500}, llm.OutageServerError},
		{llmtest.Response{Status: 503}, llm.OutageServerError},
		{llmtest.Response{Status: 429}, ""},
		{llmtest.Response{Status: 404}, ""},
		{llmtest.Response{Status: 400}, ""},
		{llmtest.Response{Text: "fine"}, ""},
	} {
		b := setup(t, nil, llmtest.WithDefault(tt.resp))
		_, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Step: pipeline.StepVerify, Prompt: "hello"})
		if got := llm.OutageReason(err); got != tt.want {
			t.Errorf("HTTP %d: reason %q, want %q (%v)", tt.resp.Status, got, tt.want, err)
		}
	}
	if got := llm.OutageReason(context.Canceled); got != "" {
		t.Errorf("a cancelled call is no outage: %q", got)
	}
}

// Answers tells a model that fails some prompts (it answers the known-good one) from one that is
// down: the worker's breaker opens only on the second (issue 24).
func TestAnswers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		script  func(*llmtest.Server)
		answers bool
	}{
		{"answers the known-good prompt while another fails", func(s *llmtest.Server) {
			s.Fail("chokes", 500, "")
			s.Reply(llm.ProbePrompt, "OK")
		}, true},
		{"a rate limit is an answer", func(s *llmtest.Server) { s.Fail(llm.ProbePrompt, 429, "") }, true},
		{"a refused request is an answer", func(s *llmtest.Server) { s.Fail(llm.ProbePrompt, 400, "") }, true},
		{"server error", func(s *llmtest.Server) { s.StartOutage(llmtest.Response{Status: 503}) }, false},
		{"key refused", func(s *llmtest.Server) { s.StartOutage(llmtest.Response{Status: 401}) }, false},
		{"connection refused", func(s *llmtest.Server) { s.RefuseConnections() }, false},
		{"no answer in time", func(s *llmtest.Server) { s.Reply(llm.ProbePrompt, "OK").Delay(2 * time.Second) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			tt.script(srv)
			c, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: testModel, Timeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = c.Answers(ctx)
			if (err == nil) != tt.answers {
				t.Fatalf("Answers: %v, want answered %v", err, tt.answers)
			}
			if err != nil && !strings.Contains(err.Error(), "does not answer a known-good request") {
				t.Errorf("Answers' error does not say what failed: %v", err)
			}
		})
	}
}
