package llm_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

const (
	testKey   = "sk-llmtest-7f3c9a1e-SECRET"
	testModel = "test-model"
)

// bundle is what most tests need: a fake server and a client pointed at it.
type bundle struct {
	srv    *llmtest.Server
	client *llm.Client
}

// setup starts a fake server and a client for it; edit, when set, adjusts the client's config.
func setup(t *testing.T, edit func(*llm.Config), opts ...llmtest.Option) bundle {
	t.Helper()
	srv := llmtest.NewServer(t, opts...)
	cfg := llm.Config{APIKey: testKey, BaseURL: srv.URL(), Model: testModel}
	if edit != nil {
		edit(&cfg)
	}
	client, err := llm.New(cfg)
	if err != nil {
		t.Fatalf("llm.New: %v", err)
	}
	return bundle{srv: srv, client: client}
}

func onlyRequest(t *testing.T, srv *llmtest.Server) llmtest.Request {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

func TestCompleteRoundTrip(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Reply("capital of France", "Paris")
	prompt := "What is the capital of France?"

	reply, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Step: "verify", Prompt: prompt})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := pipeline.ModelReply{
		Text:             "Paris",
		Model:            testModel,
		FinishReason:     "stop",
		PromptTokens:     llmtest.Tokens(prompt),
		CompletionTokens: llmtest.Tokens("Paris"),
	}
	if reply != want {
		t.Errorf("reply = %+v, want %+v", reply, want)
	}

	req := onlyRequest(t, b.srv)
	if req.Path != "/v1/chat/completions" {
		t.Errorf("path = %q, want /v1/chat/completions", req.Path)
	}
	if req.Prompt != prompt || req.Model != testModel {
		t.Errorf("prompt, model = %q, %q; want %q, %q", req.Prompt, req.Model, prompt, testModel)
	}
	if req.Temperature == nil || *req.Temperature != 0 {
		t.Errorf("temperature = %v, want 0 sent explicitly", ptrString(req.Temperature))
	}
	if req.Seed == nil {
		t.Error("no seed sent")
	}
	if req.MaxTokens == nil || *req.MaxTokens != llm.DefaultMaxTokens {
		t.Errorf("max_tokens = %s, want %d", ptrString(req.MaxTokens), llm.DefaultMaxTokens)
	}
	if req.MaxCompletionTokens == nil || *req.MaxCompletionTokens != llm.DefaultMaxTokens {
		t.Errorf("max_completion_tokens = %s, want %d", ptrString(req.MaxCompletionTokens), llm.DefaultMaxTokens)
	}
	if req.ResponseFormat != nil {
		t.Errorf("response_format = %s, want none without a schema", req.ResponseFormat)
	}
	if req.Authorization != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the configured key as a bearer token", req.Authorization)
	}
}

func TestCompleteMaxTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		configMax int
		requested int
		want      int64
	}{
		{"defaults", 0, 0, llm.DefaultMaxTokens},
		{"config bound", 300, 0, 300},
		{"request bound wins", 300, 50, 50},
		{"negative request bound ignored", 300, -1, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *llm.Config) { c.MaxTokens = tt.configMax })
			b.srv.Reply("", "ok")
			if _, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p", MaxTokens: tt.requested}); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			req := onlyRequest(t, b.srv)
			if req.MaxTokens == nil || *req.MaxTokens != tt.want || req.MaxCompletionTokens == nil || *req.MaxCompletionTokens != tt.want {
				t.Errorf("max_tokens, max_completion_tokens = %s, %s; want both %d",
					ptrString(req.MaxTokens), ptrString(req.MaxCompletionTokens), tt.want)
			}
		})
	}
}

func TestCompleteSchema(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Reply("", `{"verdict":"supported"}`)
	schema := &pipeline.OutputSchema{Name: "verdict", Schema: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"verdict": map[string]any{"type": "string", "maxLength": 20}},
		"required":             []any{"verdict"},
		"additionalProperties": false,
	}}

	reply, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "judge", Schema: schema})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if reply.Text != `{"verdict":"supported"}` {
		t.Errorf("text = %q", reply.Text)
	}
	var got struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string         `json:"name"`
			Strict bool           `json:"strict"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	}
	req := onlyRequest(t, b.srv)
	if err := json.Unmarshal(req.ResponseFormat, &got); err != nil {
		t.Fatalf("response_format %s: %v", req.ResponseFormat, err)
	}
	if got.Type != "json_schema" || got.JSONSchema.Name != "verdict" || !got.JSONSchema.Strict {
		t.Errorf("response_format = %s, want a strict json_schema named verdict", req.ResponseFormat)
	}
	if got.JSONSchema.Schema["additionalProperties"] != false || got.JSONSchema.Schema["type"] != "object" {
		t.Errorf("schema sent = %v, want the request's schema", got.JSONSchema.Schema)
	}
}

func TestCompleteSchemaWithoutNameIsPermanent(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	_, err := b.client.Complete(context.Background(), pipeline.ModelRequest{
		Step: "plan", Prompt: "p", Schema: &pipeline.OutputSchema{Schema: map[string]any{"type": "object"}},
	})
	if !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "plan") {
		t.Errorf("err = %v, want a permanent error naming the step", err)
	}
	if n := b.srv.Count(); n != 0 {
		t.Errorf("server got %d requests, want none", n)
	}
}

func TestCompleteFinishReasonLength(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Reply("", `{"claims": ["unfinished`).FinishReason("length")
	reply, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if reply.FinishReason != "length" {
		t.Errorf("finish reason = %q, want length", reply.FinishReason)
	}
}

func TestCompleteErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// script prepares the server; edit the client config; call may replace the context.
		script     func(srv *llmtest.Server)
		edit       func(*llm.Config)
		ctx        func(t *testing.T) context.Context
		serverOpts []llmtest.Option

		permanent  bool
		status     int // 0: no StatusError expected
		retryAfter time.Duration
		is         error
		notIs      error
		contains   []string
	}{
		{
			name:       "unknown model",
			serverOpts: []llmtest.Option{llmtest.WithModels("llama3.2")},
			edit:       func(c *llm.Config) { c.Model = "llama-missing" },
			permanent:  true, status: 404,
			contains: []string{`model "llama-missing" not found at http://`, "check CORROBORATE_MODEL", "model 'llama-missing' not found"},
		},
		{
			name: "refused key",
			script: func(s *llmtest.Server) {
				s.Fail("", 401, llmtest.ErrorBody("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"))
			},
			permanent: true, status: 401,
			contains: []string{"refused the API key", "invalid_api_key", "Incorrect API key provided", "OPENAI_API_KEY"},
		},
		{
			name:      "forbidden",
			script:    func(s *llmtest.Server) { s.Fail("", 403, "") },
			permanent: true, status: 403,
			contains: []string{"denied access", testModel},
		},
		{
			name: "bad request",
			script: func(s *llmtest.Server) {
				s.Fail("", 400, llmtest.ErrorBody("This model's maximum context length is 8192 tokens.", "invalid_request_error", "context_length_exceeded"))
			},
			permanent: true, status: 400,
			contains: []string{"rejected the request", "context_length_exceeded", "maximum context length"},
		},
		{
			name:      "unprocessable",
			script:    func(s *llmtest.Server) { s.Fail("", 422, "") },
			permanent: true, status: 422,
		},
		{
			name: "quota exhausted",
			script: func(s *llmtest.Server) {
				s.Fail("", 429, llmtest.ErrorBody("You exceeded your current quota.", "insufficient_quota", "insufficient_quota")).Header("Retry-After", "20")
			},
			permanent: true, status: 429, retryAfter: 20 * time.Second,
			contains: []string{"quota exhausted", "billing"},
		},
		{
			name: "rate limited, Retry-After",
			script: func(s *llmtest.Server) {
				s.Fail("", 429, llmtest.ErrorBody("Rate limit reached for requests", "requests", "rate_limit_exceeded")).Header("Retry-After", "2")
			},
			status: 429, retryAfter: 2 * time.Second,
			contains: []string{"rate limited", "rate_limit_exceeded", "retry after 2s"},
		},
		{
			name: "rate limited, Retry-After-Ms preferred",
			script: func(s *llmtest.Server) {
				s.Fail("", 429, "").Header("Retry-After-Ms", "1500").Header("Retry-After", "2")
			},
			status: 429, retryAfter: 1500 * time.Millisecond,
		},
		{
			name:   "rate limited, no header",
			script: func(s *llmtest.Server) { s.Fail("", 429, "") },
			status: 429,
		},
		{
			name:   "overloaded with Retry-After",
			script: func(s *llmtest.Server) { s.Fail("", 503, "").Header("Retry-After", "7") },
			status: 503, retryAfter: 7 * time.Second,
			contains: []string{"HTTP 503", "Service Unavailable"},
		},
		{
			name: "server error",
			script: func(s *llmtest.Server) {
				s.Fail("", 500, llmtest.ErrorBody("The server had an error while processing your request.", "server_error", ""))
			},
			status:   500,
			contains: []string{testModel, "HTTP 500", "server had an error"},
		},
		{
			name:   "request timeout status",
			script: func(s *llmtest.Server) { s.Fail("", 408, "") },
			status: 408,
		},
		{
			name:   "conflict",
			script: func(s *llmtest.Server) { s.Fail("", 409, "") },
			status: 409,
		},
		{
			name: "proxy page instead of JSON",
			script: func(s *llmtest.Server) {
				s.Handle(func(string) (llmtest.Response, bool) {
					return llmtest.Response{Status: 502, Body: "<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>",
						Header: http.Header{"Content-Type": {"text/html"}}}, true
				})
			},
			status:   502,
			contains: []string{"HTTP 502", "502 Bad Gateway"},
		},
		{
			name:     "reply without choices",
			script:   func(s *llmtest.Server) { s.Handle(noChoices) },
			contains: []string{"no choices", testModel},
		},
		{
			name:     "request timeout",
			script:   func(s *llmtest.Server) { s.Reply("", "late").Delay(10 * time.Second) },
			edit:     func(c *llm.Config) { c.Timeout = 50 * time.Millisecond },
			is:       llm.ErrTimeout,
			notIs:    context.DeadlineExceeded,
			contains: []string{"request timeout", testModel},
		},
		{
			name:     "HTTP client timeout",
			script:   func(s *llmtest.Server) { s.Reply("", "late").Delay(10 * time.Second) },
			edit:     func(c *llm.Config) { c.HTTPClient = &http.Client{Timeout: 50 * time.Millisecond} },
			is:       llm.ErrTimeout,
			contains: []string{"request timeout", testModel},
		},
		{
			name: "refusal",
			script: func(s *llmtest.Server) {
				s.Handle(func(string) (llmtest.Response, bool) {
					return llmtest.Response{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"test-model",` +
						`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`}, true
				})
			},
			contains: []string{"refused", "I can't help with that."},
		},
		{
			name:   "caller cancels",
			script: func(s *llmtest.Server) { s.Reply("", "late").Delay(10 * time.Second) },
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				timer := time.AfterFunc(50*time.Millisecond, cancel)
				t.Cleanup(func() { timer.Stop(); cancel() })
				return ctx
			},
			is:       context.Canceled,
			notIs:    llm.ErrTimeout,
			contains: []string{"abandoned"},
		},
		{
			name:   "caller deadline",
			script: func(s *llmtest.Server) { s.Reply("", "late").Delay(10 * time.Second) },
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			},
			is:    context.DeadlineExceeded,
			notIs: llm.ErrTimeout,
		},
		{
			name:     "server gone",
			script:   func(s *llmtest.Server) { s.Close() },
			contains: []string{"calling model", testModel, "http://127.0.0.1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.edit, tt.serverOpts...)
			if tt.script != nil {
				tt.script(b.srv)
			}
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = tt.ctx(t)
			}
			start := time.Now()
			reply, err := b.client.Complete(ctx, pipeline.ModelRequest{Prompt: "Is the sky green?"})
			if err == nil {
				t.Fatalf("Complete = %+v, want an error", reply)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("Complete took %s, want the failure at once", elapsed)
			}
			if got := pipeline.IsPermanent(err); got != tt.permanent {
				t.Errorf("IsPermanent = %v, want %v (err: %v)", got, tt.permanent, err)
			}
			var se *llm.StatusError
			if hasStatus := errors.As(err, &se); hasStatus != (tt.status != 0) {
				t.Errorf("errors.As StatusError = %v, want %v (err: %v)", hasStatus, tt.status != 0, err)
			} else if hasStatus && se.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", se.StatusCode, tt.status)
			}
			if se != nil && se.RetryAfter != tt.retryAfter || se == nil && tt.retryAfter != 0 {
				t.Errorf("StatusError %+v, want RetryAfter %s", se, tt.retryAfter)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.is)
			}
			if tt.notIs != nil && errors.Is(err, tt.notIs) {
				t.Errorf("err = %v, want it not to wrap %v", err, tt.notIs)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if strings.Contains(fmt.Sprintf("%v %+v %#v", err, err, err), testKey) {
				t.Errorf("error %q contains the API key", err)
			}
		})
	}
}

func noChoices(string) (llmtest.Response, bool) {
	return llmtest.Response{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"test-model","choices":[]}`}, true
}

// TestAPIKeyNeverLeaks sends the key back from the server in every way a server might, and
// checks that no error, reply or printed value carries it.
func TestAPIKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	echo := "Incorrect API key provided: " + testKey + " (Bearer " + testKey + ")"
	tests := []struct {
		name   string
		script func(*llmtest.Server)
		edit   func(*llm.Config)
		ok     bool
	}{
		{"reply", func(s *llmtest.Server) { s.Reply("", "fine") }, nil, true},
		{"401 echoing the key", func(s *llmtest.Server) {
			s.Fail("", 401, llmtest.ErrorBody(echo, "invalid_request_error", "invalid_api_key"))
		}, nil, false},
		{"429 echoing the key", func(s *llmtest.Server) { s.Fail("", 429, llmtest.ErrorBody(echo, "requests", testKey)) }, nil, false},
		{"500 echoing the key", func(s *llmtest.Server) { s.Fail("", 500, llmtest.ErrorBody(echo, "server_error", "")) }, nil, false},
		{"plain-text body echoing the key", func(s *llmtest.Server) { s.Fail("", 502, echo) }, nil, false},
		{"header echoing the key", func(s *llmtest.Server) { s.Fail("", 503, "").Header("X-Debug-Auth", "Bearer "+testKey) }, nil, false},
		{"404", nil, func(c *llm.Config) { c.Model = "other" }, false},
		{"timeout", func(s *llmtest.Server) { s.Reply("", "late").Delay(10 * time.Second) }, func(c *llm.Config) { c.Timeout = 20 * time.Millisecond }, false},
		{"server gone", func(s *llmtest.Server) { s.Close() }, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tt.edit, llmtest.WithModels(testModel))
			if tt.script != nil {
				tt.script(b.srv)
			}
			reply, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"})
			if (err == nil) != tt.ok {
				t.Fatalf("Complete error = %v, want success %v", err, tt.ok)
			}
			var se *llm.StatusError
			var seText string
			if errors.As(err, &se) {
				seText = fmt.Sprintf("%s %s %v", se.Message, se.Code, se.Header)
			}
			printed := fmt.Sprintf("%v|%+v|%#v|%+v|%s", err, err, err, reply, seText)
			if strings.Contains(printed, testKey) {
				t.Errorf("the API key appears in %q", printed)
			}
		})
	}

	t.Run("printed config and client", func(t *testing.T) {
		t.Parallel()
		cfg := llm.Config{APIKey: testKey, BaseURL: "http://user:" + testKey + "@127.0.0.1:1/v1"}
		client, err := llm.New(cfg)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		var logged strings.Builder
		slogText(&logged, cfg)
		printed := fmt.Sprintf("%v|%+v|%#v|%s|%v|%+v|%s", cfg, cfg, cfg, cfg, client, client, client.BaseURL()) + logged.String()
		if strings.Contains(printed, testKey) {
			t.Errorf("the API key appears in %q", printed)
		}
		if !strings.Contains(printed, "127.0.0.1:1") {
			t.Errorf("printed config %q does not show where it points", printed)
		}
	})
}

func TestEmptyAPIKeySendsNoAuthorization(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *llm.Config) { c.APIKey = "" })
	b.srv.Reply("", "ok")
	if _, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if auth := onlyRequest(t, b.srv).Authorization; auth != "" {
		t.Errorf("Authorization = %q, want none for an empty key", auth)
	}
}

// TestEnvironmentIgnored cannot run in parallel: it sets the variables openai.NewClient would
// read, and checks that the client reads none of them.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-environment")
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin-from-environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer sk-header-from-environment")

	for _, key := range []string{"sk-from-config", ""} {
		b := setup(t, func(c *llm.Config) { c.APIKey = key })
		b.srv.Reply("", "ok")
		if _, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"}); err != nil {
			t.Fatalf("key %q: Complete: %v (did the environment's base URL win?)", key, err)
		}
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		if got := onlyRequest(t, b.srv).Authorization; got != want {
			t.Errorf("key %q: Authorization = %q, want %q", key, got, want)
		}
	}
}

func TestBaseURLWithoutVersionPath(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Reply("", "ok")
	root := strings.TrimSuffix(b.srv.URL(), "/v1")
	client, err := llm.New(llm.Config{BaseURL: root + "/", Model: testModel})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if path := onlyRequest(t, b.srv).Path; path != "/chat/completions" {
		t.Errorf("path = %q, want /chat/completions", path)
	}
}

func TestMaxRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		retries  int
		wantErr  bool
		requests int
	}{
		{"none by default: the queue and the rate limiter see every failure", 0, true, 1},
		{"configured retries", 1, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *llm.Config) { c.MaxRetries = tt.retries })
			b.srv.Fail("", 429, "").Header("Retry-After-Ms", "1").Once()
			b.srv.Reply("", "ok")
			_, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: "p"})
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, want error %v", err, tt.wantErr)
			}
			if n := b.srv.Count(); n != tt.requests {
				t.Errorf("server got %d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestFailOnceThenSucceed(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Fail("verify", 503, "").Once()
	b.srv.Reply("verify", "answer")
	req := pipeline.ModelRequest{Prompt: "verify: is water wet?"}

	if _, err := b.client.Complete(context.Background(), req); err == nil || pipeline.IsPermanent(err) {
		t.Fatalf("first call err = %v, want a transient error", err)
	}
	reply, err := b.client.Complete(context.Background(), req)
	if err != nil || reply.Text != "answer" {
		t.Fatalf("second call = %q, %v; want the reply", reply.Text, err)
	}
}

func TestCompleteConcurrent(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.srv.Handle(func(prompt string) (llmtest.Response, bool) {
		return llmtest.Response{Text: "echo " + prompt}, true
	})
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			prompt := fmt.Sprintf("prompt %d", i)
			reply, err := b.client.Complete(context.Background(), pipeline.ModelRequest{Prompt: prompt})
			if err == nil && reply.Text != "echo "+prompt {
				err = fmt.Errorf("prompt %q got reply %q", prompt, reply.Text)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := b.srv.Count(); got != n {
		t.Errorf("server got %d requests, want %d", got, n)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     llm.Config
		wantErr []string
	}{
		{"defaults", llm.Config{}, nil},
		{"local server without key", llm.Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.2"}, nil},
		{"scheme missing", llm.Config{BaseURL: "localhost:11434/v1"}, []string{"must start with http:// or https://"}},
		{"other scheme", llm.Config{BaseURL: "ftp://example.com/v1"}, []string{"must start with http:// or https://"}},
		{"no host", llm.Config{BaseURL: "http:///v1"}, []string{"has no host"}},
		{"query", llm.Config{BaseURL: "http://example.com/v1?x=1"}, []string{"query or fragment"}},
		{"does not parse", llm.Config{BaseURL: "http://exa mple.com:port"}, []string{"does not parse"}},
		{"model with spaces", llm.Config{Model: " gpt-4o "}, []string{"surrounding spaces"}},
		{
			"every problem listed",
			llm.Config{BaseURL: "ftp://x", Timeout: -time.Second, MaxTokens: -1, MaxRetries: -1},
			[]string{"http://", "timeout -1s is negative", "max tokens -1 is negative", "max retries -1 is negative"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, err := llm.New(tt.cfg)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if want := cmp.Or(tt.cfg.Model, llm.DefaultModel); client.Model() != want {
					t.Errorf("Model() = %q, want %q", client.Model(), want)
				}
				if want := cmp.Or(tt.cfg.BaseURL, llm.DefaultBaseURL); client.BaseURL() != want {
					t.Errorf("BaseURL() = %q, want %q", client.BaseURL(), want)
				}
				return
			}
			if err == nil {
				t.Fatalf("New = nil error, want one mentioning %q", tt.wantErr)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func BenchmarkComplete(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Reply("", "supported")
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), Model: testModel})
	if err != nil {
		b.Fatal(err)
	}
	req := pipeline.ModelRequest{Prompt: strings.Repeat("a claim to verify ", 50)}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := client.Complete(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func ptrString[T any](p *T) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// slogText logs cfg as the worker would, as text, into w.
func slogText(w io.Writer, cfg llm.Config) {
	slog.New(slog.NewTextHandler(w, nil)).Info("model configured", "llm", cfg)
}
