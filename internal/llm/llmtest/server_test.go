package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/llm/llmtest"
)

// completion is the part of a reply the tests read.
type completion struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    *string `json:"code"`
	} `json:"error"`
}

// result is one raw exchange with the server.
type result struct {
	status int
	header http.Header
	body   string
	reply  completion
}

// post sends body to path and decodes the answer when it is JSON.
func post(t *testing.T, ctx context.Context, url, body string) result {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return do(t, req)
}

func do(t *testing.T, req *http.Request) result {
	t.Helper()
	r, err := exchange(req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// exchange is do for goroutines other than the test's: it reports instead of stopping the test.
func exchange(req *http.Request) (result, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return result{}, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	r := result{status: resp.StatusCode, header: resp.Header, body: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &r.reply); err != nil {
			return result{}, fmt.Errorf("reply %s is not JSON: %w", b, err)
		}
	}
	return r, nil
}

// chatRequest is a one-message chat request with prompt to the server's /v1 path.
func chatRequest(srv *llmtest.Server, prompt string) *http.Request {
	body, _ := json.Marshal(map[string]any{
		"model":    "m",
		"messages": []map[string]any{{"role": "user", "content": prompt}},
	})
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	return req
}

// ask sends prompt as a one-message chat request.
func ask(t *testing.T, srv *llmtest.Server, prompt string) result {
	t.Helper()
	return do(t, chatRequest(srv, prompt))
}

func text(r result) string {
	if len(r.reply.Choices) == 0 {
		return fmt.Sprintf("(HTTP %d %s)", r.status, r.body)
	}
	return r.reply.Choices[0].Message.Content
}

func TestReplyShape(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply("", "Paris")
	body := `{"model":"gpt-test","messages":[{"role":"user","content":"capital of France?"}]}`
	for _, url := range []string{srv.URL() + "/chat/completions", strings.TrimSuffix(srv.URL(), "/v1") + "/chat/completions"} {
		r := post(t, context.Background(), url, body)
		c := r.reply
		if r.status != 200 || c.Object != "chat.completion" || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Created == 0 {
			t.Errorf("%s: status %d, reply %s: want a chat.completion with id and created", url, r.status, r.body)
		}
		if c.Model != "gpt-test" {
			t.Errorf("%s: model = %q, want the requested model echoed", url, c.Model)
		}
		if len(c.Choices) != 1 || c.Choices[0].Message.Role != "assistant" || c.Choices[0].Message.Content != "Paris" || c.Choices[0].FinishReason != "stop" {
			t.Errorf("%s: choices = %+v, want one assistant message Paris, finish stop", url, c.Choices)
		}
		pt, ct := llmtest.Tokens("capital of France?"), llmtest.Tokens("Paris")
		if c.Usage.PromptTokens != pt || c.Usage.CompletionTokens != ct || c.Usage.TotalTokens != pt+ct {
			t.Errorf("%s: usage = %+v, want %d + %d", url, c.Usage, pt, ct)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/chat/completions" || reqs[1].Path != "/chat/completions" {
		t.Errorf("recorded paths = %+v, want both paths served", reqs)
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int64{"": 0, "a": 1, "abcd": 1, "abcde": 2, "12345678": 2} {
		if got := llmtest.Tokens(s); got != want {
			t.Errorf("Tokens(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		script  func(*llmtest.Server)
		prompts []string
		want    []string
	}{
		{
			name: "first registered match wins",
			script: func(s *llmtest.Server) {
				s.Reply("capital", "first")
				s.Reply("capital", "second")
				s.Reply("", "anything else")
			},
			prompts: []string{"the capital?", "the river?"},
			want:    []string{"first", "anything else"},
		},
		{
			name: "once is consumed, then the next rule answers",
			script: func(s *llmtest.Server) {
				s.Fail("q", 500, "").Once()
				s.Reply("q", "ok")
			},
			prompts: []string{"q", "q", "q"},
			want:    []string{"(HTTP 500)", "ok", "ok"},
		},
		{
			name: "times",
			script: func(s *llmtest.Server) {
				s.Reply("", "early").Times(2)
				s.Reply("", "late")
			},
			prompts: []string{"a", "b", "c"},
			want:    []string{"early", "early", "late"},
		},
		{
			name: "a used-up rule does not hide later ones for other prompts",
			script: func(s *llmtest.Server) {
				s.Reply("x", "x once").Once()
				s.Reply("y", "y")
				s.Reply("x", "x again")
			},
			prompts: []string{"x", "y", "x"},
			want:    []string{"x once", "y", "x again"},
		},
		{
			name: "handle computes replies and can decline",
			script: func(s *llmtest.Server) {
				s.Handle(func(p string) (llmtest.Response, bool) {
					return llmtest.Response{Text: strings.ToUpper(p)}, strings.HasPrefix(p, "shout ")
				})
				s.Reply("", "quiet")
			},
			prompts: []string{"shout hi", "whisper"},
			want:    []string{"SHOUT HI", "quiet"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t)
			tt.script(srv)
			for i, p := range tt.prompts {
				r := ask(t, srv, p)
				got := text(r)
				if r.status != 200 {
					got = fmt.Sprintf("(HTTP %d)", r.status)
				}
				if got != tt.want[i] {
					t.Errorf("prompt %d %q: got %q, want %q", i, p, got, tt.want[i])
				}
			}
		})
	}
}

func TestUnmatchedPrompt(t *testing.T) {
	t.Parallel()
	t.Run("fails loudly by default", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t)
		srv.Reply("something else", "never")
		r := ask(t, srv, "an unexpected prompt")
		if r.status != 500 || r.reply.Error == nil || !strings.Contains(r.reply.Error.Message, `"an unexpected prompt"`) {
			t.Errorf("HTTP %d %s: want 500 naming the prompt", r.status, r.body)
		}
	})
	t.Run("configured default", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, llmtest.WithDefault(llmtest.Response{Text: "unsure"}))
		if got := text(ask(t, srv, "anything")); got != "unsure" {
			t.Errorf("reply = %q, want the default", got)
		}
	})
}

func TestErrorResponses(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Fail("limit", 429, llmtest.ErrorBody("Rate limit reached", "requests", "rate_limit_exceeded")).
		Header("Retry-After", "2").Header("Retry-After-Ms", "1500")
	srv.Fail("plain", 503, "")

	r := ask(t, srv, "limit")
	if r.status != 429 || r.header.Get("Retry-After") != "2" || r.header.Get("Retry-After-Ms") != "1500" {
		t.Errorf("HTTP %d, headers %v: want 429 with both retry headers", r.status, r.header)
	}
	if e := r.reply.Error; e == nil || e.Message != "Rate limit reached" || e.Type != "requests" || e.Code == nil || *e.Code != "rate_limit_exceeded" {
		t.Errorf("body %s: want the OpenAI error shape", r.body)
	}

	r = ask(t, srv, "plain")
	if e := r.reply.Error; r.status != 503 || e == nil || e.Message != "Service Unavailable" || e.Code != nil {
		t.Errorf("HTTP %d %s: want 503 with a generated error body and a null code", r.status, r.body)
	}
}

func TestRecording(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply("", "ok")
	before := time.Now()
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(`{
		"model": "gpt-x",
		"messages": [
			{"role": "system", "content": "be brief"},
			{"role": "user", "content": "first question"},
			{"role": "assistant", "content": "an answer"},
			{"role": "user", "content": [{"type": "text", "text": "second "}, {"type": "text", "text": "question"}]}
		],
		"temperature": 0, "max_tokens": 64, "seed": 7,
		"response_format": {"type": "json_schema", "json_schema": {"name": "x", "strict": true, "schema": {}}}
	}`))
	req.Header.Set("Authorization", "Bearer k")
	if r := do(t, req); r.status != 200 {
		t.Fatalf("HTTP %d %s", r.status, r.body)
	}
	ask(t, srv, "plain")

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	got := reqs[0]
	if got.Prompt != "second question" || got.Model != "gpt-x" || got.Authorization != "Bearer k" {
		t.Errorf("prompt, model, auth = %q, %q, %q; want the last user message, gpt-x, Bearer k", got.Prompt, got.Model, got.Authorization)
	}
	if got.Temperature == nil || *got.Temperature != 0 || got.MaxTokens == nil || *got.MaxTokens != 64 || got.Seed == nil || *got.Seed != 7 {
		t.Errorf("sampling = %+v, want temperature 0, max_tokens 64, seed 7", got)
	}
	if got.MaxCompletionTokens != nil {
		t.Errorf("max_completion_tokens = %d, want absent", *got.MaxCompletionTokens)
	}
	var rf struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(got.ResponseFormat, &rf); err != nil || rf.Type != "json_schema" {
		t.Errorf("response_format = %s (%v), want the raw object", got.ResponseFormat, err)
	}
	if got.Received.Before(before) || got.Received.After(time.Now()) {
		t.Errorf("received at %s, want during the test", got.Received)
	}
	second := reqs[1]
	if second.Authorization != "" || second.Temperature != nil || second.MaxTokens != nil || second.ResponseFormat != nil {
		t.Errorf("second request = %+v, want absent fields recorded as absent", second)
	}

	if p := srv.Prompts(); len(p) != 2 || p[0] != "second question" || p[1] != "plain" {
		t.Errorf("Prompts() = %q", p)
	}
	srv.Reset()
	if n := srv.Count(); n != 0 {
		t.Errorf("Count() after Reset = %d, want 0", n)
	}
	if got := text(ask(t, srv, "after reset")); got != "ok" || srv.Count() != 1 {
		t.Errorf("after Reset: reply %q, count %d; want the rules kept and counting restarted", got, srv.Count())
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.WithModels("known"))
	srv.Reply("", "ok")
	tests := []struct {
		name   string
		body   string
		status int
		errMsg string
	}{
		{"not JSON", `{"model":`, 400, "not valid JSON"},
		{"no model", `{"messages":[{"role":"user","content":"p"}]}`, 400, "model"},
		{"no messages", `{"model":"known","messages":[]}`, 400, "messages"},
		{"streaming", `{"model":"known","stream":true,"messages":[{"role":"user","content":"p"}]}`, 400, "streaming"},
		{"unknown model", `{"model":"ghost","messages":[{"role":"user","content":"p"}]}`, 404, "model 'ghost' not found"},
		{"known model", `{"model":"known","messages":[{"role":"user","content":"p"}]}`, 200, ""},
	}
	for _, tt := range tests {
		r := post(t, context.Background(), srv.URL()+"/chat/completions", tt.body)
		if r.status != tt.status {
			t.Errorf("%s: HTTP %d %s, want %d", tt.name, r.status, r.body, tt.status)
		}
		if tt.errMsg != "" && (r.reply.Error == nil || !strings.Contains(r.reply.Error.Message, tt.errMsg)) {
			t.Errorf("%s: body %s, want an error mentioning %q", tt.name, r.body, tt.errMsg)
		}
	}
	if n := srv.Count(); n != len(tests) {
		t.Errorf("Count() = %d, want every request recorded (%d)", n, len(tests))
	}
	r := do(t, mustRequest(t, http.MethodGet, srv.URL()+"/chat/completions"))
	if r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET chat completions: HTTP %d, want 405", r.status)
	}
}

func TestModels(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.WithModels("llama3.2", "qwen2.5"))
	r := do(t, mustRequest(t, http.MethodGet, srv.URL()+"/models"))
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || r.status != 200 {
		t.Fatalf("HTTP %d %s (%v)", r.status, r.body, err)
	}
	if list.Object != "list" || len(list.Data) != 2 || list.Data[0].ID != "llama3.2" || list.Data[1].ID != "qwen2.5" || list.Data[0].Object != "model" {
		t.Errorf("models = %s, want both models listed", r.body)
	}
}

func TestDelays(t *testing.T) {
	t.Parallel()
	t.Run("rule delay", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t)
		srv.Reply("slow", "late").Delay(100 * time.Millisecond)
		srv.Reply("", "now")
		if got := text(ask(t, srv, "fast")); got != "now" {
			t.Errorf("fast prompt: %q, want now", got)
		}
		start := time.Now()
		if got := text(ask(t, srv, "slow")); got != "late" || time.Since(start) < 100*time.Millisecond {
			t.Errorf("slow prompt: %q after %s, want it after 100ms", got, time.Since(start))
		}
	})
	t.Run("latency for every reply", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t, llmtest.WithLatency(50*time.Millisecond))
		srv.Reply("", "ok")
		start := time.Now()
		if got := text(ask(t, srv, "p")); got != "ok" || time.Since(start) < 50*time.Millisecond {
			t.Errorf("%q after %s, want it after 50ms", got, time.Since(start))
		}
	})
	t.Run("client gone ends the wait", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.NewServer(t)
		srv.Reply("", "late").Delay(time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"p"}]}`))
		if _, err := http.DefaultClient.Do(req); err == nil {
			t.Fatal("request succeeded, want the client's timeout")
		}
		start := time.Now()
		srv.Close() // waits for the handler: it must not sit out its minute
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Close took %s, want the delayed handler abandoned", d)
		}
	})
}

// TestConcurrent checks recording and limited rules under parallel requests: a Once rule answers
// exactly one of them.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Reply("", "the one").Once()
	srv.Reply("", "the rest")
	const n = 100
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count = map[string]int{}
	)
	for i := range n {
		wg.Go(func() {
			r, err := exchange(chatRequest(srv, fmt.Sprintf("p%d", i)))
			if err != nil {
				t.Error(err)
				return
			}
			got := text(r)
			mu.Lock()
			count[got]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if count["the one"] != 1 || count["the rest"] != n-1 {
		t.Errorf("replies = %v, want the Once rule used exactly once", count)
	}
	if got := srv.Count(); got != n {
		t.Errorf("Count() = %d, want %d", got, n)
	}
	seen := map[string]bool{}
	for _, p := range srv.Prompts() {
		seen[p] = true
	}
	if len(seen) != n {
		t.Errorf("recorded %d distinct prompts, want %d", len(seen), n)
	}
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
