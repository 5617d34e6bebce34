// Package llmtest is an OpenAI-compatible fake server for tests: it speaks the chat completions
// protocol over real HTTP, so that the real openai-go client (and everything around it: timeouts,
// error decoding, headers) is exercised, while replies are scripted by the test.
//
// Replies come from rules, tried in the order they were registered: the first rule that matches
// the prompt (the last user message of the request) answers it. Reply and Fail match when the
// prompt contains their substring ("" matches every prompt); Handle matches when its function
// says so. A rule limited by Once or Times stops matching once used up, and the search goes on to
// the next rule, which makes "fail once, then succeed" a two-line script. When no rule matches,
// the server answers with its default response: by default HTTP 500 naming the unmatched prompt,
// so that a test with a missing rule fails loudly.
//
// The server adds no latency and logs nothing unless asked (WithLatency, Rule.Delay), so it can
// stand in for the model in throughput benchmarks.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Response is what the server sends back for one request.
type Response struct {
	// Text is the assistant message of a successful reply (choices[0].message.content).
	Text string
	// FinishReason of a successful reply; "stop" when empty. "length" simulates a reply cut at
	// the token limit.
	FinishReason string
	// Status is the HTTP status; 0 means 200. Any status of 400 or more is an error response.
	Status int
	// Body, when set, is sent verbatim instead of the generated JSON: a custom error, a reply
	// without choices, a body that is not JSON. An error response without Body gets an
	// OpenAI-shaped error (see ErrorBody) carrying the status text.
	Body string
	// Header holds extra response headers, such as Retry-After.
	Header http.Header
	// Delay holds the response back this long; the wait ends early when the client goes away.
	Delay time.Duration
}

// Request is one chat completions request as the server received it.
type Request struct {
	// Path is the request path: "/v1/chat/completions" or "/chat/completions".
	Path string
	// Prompt is the text of the last user message.
	Prompt string
	Model  string
	// Temperature, MaxTokens, MaxCompletionTokens and Seed are nil when the request omitted them.
	Temperature         *float64
	MaxTokens           *int64
	MaxCompletionTokens *int64
	Seed                *int64
	// ResponseFormat is the raw response_format object, nil when absent.
	ResponseFormat json.RawMessage
	// Authorization is the Authorization header as sent, empty when the request had none.
	Authorization string
	Received      time.Time
}

// Option configures a Server.
type Option func(*Server)

// WithLatency delays every response by d, on top of any rule delay: a slow model for timeout and
// concurrency tests. Without it the server answers at once.
func WithLatency(d time.Duration) Option {
	return func(s *Server) { s.latency = d }
}

// WithDefault sets the response sent when no rule matches, instead of the loud HTTP 500.
func WithDefault(r Response) Option {
	return func(s *Server) { s.fallback = &r }
}

// WithModels makes the server know only these models, as a real server does: a request for any
// other model gets HTTP 404 in the shape Ollama and OpenAI use. GET /v1/models lists them.
// Without it every model name is accepted.
func WithModels(names ...string) Option {
	return func(s *Server) { s.models = append([]string(nil), names...) }
}

// Server is a running fake OpenAI-compatible server. Its methods are safe for concurrent use.
type Server struct {
	http     *httptest.Server
	latency  time.Duration
	fallback *Response
	models   []string
	listener *switchListener
	done     chan struct{}
	stop     sync.Once

	mu       sync.Mutex
	rules    []*Rule
	requests []Request
	// outage, when set, answers every request (chat and models alike); see StartOutage.
	outage *Response
}

// NewServer starts a server that t's cleanup closes.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{done: make(chan struct{})}
	for _, opt := range opts {
		opt(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.serveChat)
	mux.HandleFunc("/chat/completions", s.serveChat)
	mux.HandleFunc("/v1/models", s.serveModels)
	mux.HandleFunc("/models", s.serveModels)
	mux.HandleFunc("/v1/models/{model}", s.serveModel)
	mux.HandleFunc("/models/{model}", s.serveModel)
	s.http = httptest.NewUnstartedServer(mux)
	s.listener = &switchListener{inner: s.http.Listener, addr: s.http.Listener.Addr(), changed: make(chan struct{})}
	s.http.Listener = s.listener
	s.http.Start()
	t.Cleanup(s.Close)
	return s
}

// URL is the base URL to give openai-go (llm.Config.BaseURL): the server's root followed by
// "/v1", the way OpenAI's own base URL reads. The root without "/v1" works as well, since the
// server answers on both paths; Request.Path tells which one a client used.
func (s *Server) URL() string { return s.http.URL + "/v1" }

// Close stops the server. Delayed responses are abandoned, and later requests fail to connect,
// which is how a test simulates a model server that went away. Closing twice is harmless.
func (s *Server) Close() {
	s.stop.Do(func() {
		close(s.done)
		s.http.Close()
	})
}

// Rule is one scripted answer. Its methods change it in place and return it, for chaining:
//
//	srv.Fail("", 503, "").Once()
//	srv.Fail("plan", 429, llmtest.ErrorBody("slow down", "requests", "rate_limit_exceeded")).Header("Retry-After", "2")
type Rule struct {
	s       *Server
	match   func(prompt string) (Response, bool)
	limited bool
	left    int
	delay   time.Duration
	finish  string
	header  http.Header
}

// Reply answers every prompt containing contains with text, as a successful completion.
func (s *Server) Reply(contains, text string) *Rule {
	return s.Handle(func(prompt string) (Response, bool) {
		return Response{Text: text}, strings.Contains(prompt, contains)
	})
}

// Fail answers every prompt containing contains with an error response of the given status.
// An empty body becomes an OpenAI-shaped error carrying the status text; see ErrorBody for
// the shape of a custom one.
func (s *Server) Fail(contains string, status int, body string) *Rule {
	return s.Handle(func(prompt string) (Response, bool) {
		return Response{Status: status, Body: body}, strings.Contains(prompt, contains)
	})
}

// Handle adds a rule that computes its response: fn is called with the prompt and matches when
// it returns true. fn may be called concurrently, and must not call the Server's rule methods.
func (s *Server) Handle(fn func(prompt string) (Response, bool)) *Rule {
	r := &Rule{s: s, match: fn}
	s.mu.Lock()
	s.rules = append(s.rules, r)
	s.mu.Unlock()
	return r
}

// Once makes the rule answer one request only; later requests go on to the next rules.
func (r *Rule) Once() *Rule { return r.Times(1) }

// Times makes the rule answer n requests only; later requests go on to the next rules.
func (r *Rule) Times(n int) *Rule {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.limited, r.left = true, n
	return r
}

// Delay holds this rule's responses back by d (on top of WithLatency).
func (r *Rule) Delay(d time.Duration) *Rule {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.delay = d
	return r
}

// FinishReason sets the finish_reason of this rule's replies ("length" for a truncated reply).
func (r *Rule) FinishReason(reason string) *Rule {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.finish = reason
	return r
}

// Header adds a response header to this rule's responses, such as Retry-After or Retry-After-Ms.
func (r *Rule) Header(key, value string) *Rule {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.header == nil {
		r.header = http.Header{}
	}
	r.header.Add(key, value)
	return r
}

// respond finds the response to prompt: the first rule, in registration order, that matches and
// is not used up. Rule functions run outside the lock, so that a slow Handle does not serialize
// the server; a limited rule is claimed under the lock once it has matched.
func (s *Server) respond(prompt string) Response {
	s.mu.Lock()
	rules := s.rules
	s.mu.Unlock()
	for _, r := range rules {
		resp, ok := r.match(prompt)
		if !ok {
			continue
		}
		s.mu.Lock()
		if r.limited && r.left <= 0 {
			s.mu.Unlock()
			continue
		}
		if r.limited {
			r.left--
		}
		if r.delay > 0 {
			resp.Delay = r.delay
		}
		if r.finish != "" {
			resp.FinishReason = r.finish
		}
		if len(r.header) > 0 {
			h := resp.Header.Clone()
			if h == nil {
				h = http.Header{}
			}
			for k, vs := range r.header {
				h[k] = append(h[k], vs...)
			}
			resp.Header = h
		}
		s.mu.Unlock()
		return resp
	}
	if s.fallback != nil {
		return *s.fallback
	}
	return Response{
		Status: http.StatusInternalServerError,
		Body:   ErrorBody(fmt.Sprintf("llmtest: no rule matches the prompt %q", abbreviate(prompt, 300)), "llmtest_unmatched", "no_rule"),
	}
}

// Requests returns a copy of the chat completions requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Prompts returns the prompts received so far, in arrival order.
func (s *Server) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.Prompt
	}
	return out
}

// Count returns how many chat completions requests the server has received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Reset forgets the recorded requests; the rules (and what is left of limited ones) stay.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	rec, refusal, ok := DecodeRequest(r)
	s.mu.Lock()
	if r.Method == http.MethodPost {
		// Requests records chat completions requests, valid or not; a GET is none.
		s.requests = append(s.requests, rec)
	}
	outage := s.outage
	s.mu.Unlock()
	switch {
	case outage != nil:
		WriteResponse(w, rec, *outage)
		return
	case !ok:
		WriteResponse(w, rec, refusal)
		return
	case s.models != nil && !slices.Contains(s.models, rec.Model):
		WriteResponse(w, rec, Response{Status: http.StatusNotFound, Body: ErrorBody(fmt.Sprintf("model '%s' not found", rec.Model), "not_found_error", "")})
		return
	}

	resp := s.respond(rec.Prompt)
	if d := s.latency + resp.Delay; d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		case <-s.done:
			timer.Stop()
			return
		}
	}
	WriteResponse(w, rec, resp)
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	if s.inOutage(w) {
		return
	}
	if r.Method != http.MethodGet {
		writeJSON(w, http.StatusMethodNotAllowed, nil, ErrorBody("llmtest: use GET for "+r.URL.Path, "invalid_request_error", ""))
		return
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, name := range s.models {
		list.Data = append(list.Data, model{ID: name, Object: "model", Created: 0, OwnedBy: "llmtest"})
	}
	b, _ := json.Marshal(list)
	writeJSON(w, http.StatusOK, nil, string(b))
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// serveModel answers GET /v1/models/{model}: the model when the server knows it (every name
// without WithModels), else 404 as OpenAI and Ollama answer.
func (s *Server) serveModel(w http.ResponseWriter, r *http.Request) {
	if s.inOutage(w) {
		return
	}
	if r.Method != http.MethodGet {
		writeJSON(w, http.StatusMethodNotAllowed, nil, ErrorBody("llmtest: use GET for "+r.URL.Path, "invalid_request_error", ""))
		return
	}
	name := r.PathValue("model")
	if s.models != nil && !slices.Contains(s.models, name) {
		writeJSON(w, http.StatusNotFound, nil, ErrorBody(fmt.Sprintf("model '%s' not found", name), "not_found_error", "model_not_found"))
		return
	}
	b, _ := json.Marshal(map[string]any{"id": name, "object": "model", "created": 0, "owned_by": "llmtest"})
	writeJSON(w, http.StatusOK, nil, string(b))
}

// inOutage answers w with the outage response, if one is set, and reports whether it did.
func (s *Server) inOutage(w http.ResponseWriter) bool {
	s.mu.Lock()
	outage := s.outage
	s.mu.Unlock()
	if outage == nil {
		return false
	}
	WriteResponse(w, Request{Model: "llmtest"}, *outage)
	return true
}

// StartOutage makes the server answer every request, chat completions and model listings
// alike, with resp until EndOutage: a model server that is down behind its proxy (503), whose
// key was revoked (401) or whose quota ran out (429 insufficient_quota). Chat requests are still
// recorded. Rules are not consulted, so limited rules keep what is left of them.
func (s *Server) StartOutage(resp Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = &resp
}

// EndOutage ends StartOutage: rules answer again.
func (s *Server) EndOutage() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outage = nil
}

// RefuseConnections closes the server's listening socket and its open connections, so that
// clients meet "connection refused", as when a model server is stopped, until
// AcceptConnections listens again on the same address.
func (s *Server) RefuseConnections() {
	s.listener.refuse()
	s.http.CloseClientConnections()
}

// AcceptConnections listens again on the server's address after RefuseConnections. It fails
// only when another process took the port meanwhile.
func (s *Server) AcceptConnections() error { return s.listener.accept() }

// switchListener is the server's listener, which RefuseConnections closes and AcceptConnections
// opens again on the same address, while the HTTP server keeps serving from it.
type switchListener struct {
	addr net.Addr

	mu      sync.Mutex
	inner   net.Listener // nil while refusing
	closed  bool
	changed chan struct{} // closed and replaced on every change
}

func (l *switchListener) Accept() (net.Conn, error) {
	for {
		l.mu.Lock()
		inner, closed, changed := l.inner, l.closed, l.changed
		l.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if inner == nil {
			<-changed
			continue
		}
		c, err := inner.Accept()
		if err == nil {
			return c, nil
		}
		l.mu.Lock()
		switched := l.inner != inner && !l.closed
		l.mu.Unlock()
		if !switched {
			return nil, err
		}
	}
}

// signalLocked wakes an Accept waiting for a change.
func (l *switchListener) signalLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *switchListener) refuse() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inner != nil {
		_ = l.inner.Close()
		l.inner = nil
		l.signalLocked()
	}
}

func (l *switchListener) accept() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inner != nil || l.closed {
		return nil
	}
	ln, err := net.Listen("tcp", l.addr.String())
	if err != nil {
		return fmt.Errorf("llmtest: listening again on %s: %w", l.addr, err)
	}
	l.inner = ln
	l.signalLocked()
	return nil
}

func (l *switchListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var err error
	if l.inner != nil {
		err = l.inner.Close()
	}
	l.signalLocked()
	return err
}

func (l *switchListener) Addr() net.Addr { return l.addr }
