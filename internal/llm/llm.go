// Package llm is the openai-go adapter that implements pipeline.Model over any OpenAI-compatible
// chat completions endpoint (OpenAI, vLLM, Ollama, llama.cpp server).
//
// It also sorts failures for the job queue: a failure no retry can fix (an unknown model, a
// refused key, an exhausted quota, a request the server rejects) comes back wrapped by
// pipeline.Permanent; anything else (rate limits, server errors, timeouts, lost connections) is a
// plain error, for the queue to retry. HTTP failures carry a *StatusError, and RetryAfter reads
// the wait a server asked for.
//
// Replay, the offline stand-in dev mode runs when no model is configured, lives here too, and an
// OpenAI-compatible fake server for tests in internal/llm/llmtest.
package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Defaults of Config, applied by New.
const (
	// DefaultBaseURL is OpenAI's API.
	DefaultBaseURL = "https://api.openai.com/v1"
	DefaultModel   = "gpt-4o-mini"
	DefaultTimeout = 120 * time.Second
	// DefaultMaxTokens is the core's (pipeline.DefaultMaxTokens), which the rate limiter counts
	// too; it is named here so that every default of this client has a name in this package.
	DefaultMaxTokens = pipeline.DefaultMaxTokens
	// DefaultMaxRetries is 0 on purpose: the job queue retries failed jobs, and the rate limiter
	// that wraps this client must see every 429 to adapt its pace. Retries hidden inside openai-go
	// would swallow those 429s and multiply the queue's own retries.
	DefaultMaxRetries = 0
)

// minRedactedKey is the shortest API key that is removed from messages.
const minRedactedKey = 8

// seed is sent with every request so that servers that honour it sample the same way each time.
// It is not 0 because a server written with `omitempty` would drop a zero seed and sample at
// random.
const seed = 1

// Config says which endpoint and model to call, and how.
type Config struct {
	// APIKey is sent as a bearer token. It may be empty for a local server (Ollama, vLLM) that
	// needs none: no Authorization header is sent then.
	APIKey string
	// BaseURL is the API root including its version path, such as "https://api.openai.com/v1" or
	// "http://localhost:11434/v1"; requests go to BaseURL + "/chat/completions". Empty means
	// DefaultBaseURL.
	BaseURL string
	// Model is the model name sent with every request; empty means DefaultModel.
	Model string
	// Timeout bounds each request; 0 means DefaultTimeout. A caller's context deadline that comes
	// sooner wins.
	Timeout time.Duration
	// MaxTokens bounds a reply when the request sets no bound of its own; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// MaxRetries is how often openai-go itself retries a failed request; see DefaultMaxRetries
	// for why it is 0 unless set.
	MaxRetries int
	// HTTPClient, when set, makes the requests; nil means a client tuned for many parallel calls
	// to one host.
	HTTPClient *http.Client
	// OnResponse, when set, is called with every HTTP response the client receives, successful
	// or not, and once per attempt when openai-go retries: it is how a rate limiter sees the
	// x-ratelimit-* headers of successful calls and every 429. ctx is the context of the
	// Complete call that made the request, with its values. It is called before the body is
	// read, must return quickly, must not modify header and must not keep it after returning.
	OnResponse func(ctx context.Context, status int, header http.Header)
}

// withDefaults returns c with every unset field at its default: the one place defaults live.
func (c Config) withDefaults() Config {
	c.BaseURL = cmp.Or(c.BaseURL, DefaultBaseURL)
	c.Model = cmp.Or(c.Model, DefaultModel)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.MaxTokens = cmp.Or(c.MaxTokens, DefaultMaxTokens)
	c.MaxRetries = cmp.Or(c.MaxRetries, DefaultMaxRetries)
	return c
}

// validate lists every problem of a defaulted config in one error.
func (c Config) validate() error {
	var problems []string
	if u, err := url.Parse(c.BaseURL); err != nil {
		problems = append(problems, fmt.Sprintf("base URL (OPENAI_BASE_URL) does not parse: %v", err))
	} else {
		if u.Scheme != "http" && u.Scheme != "https" {
			problems = append(problems, fmt.Sprintf("base URL (OPENAI_BASE_URL) %q must start with http:// or https://", u.Redacted()))
		}
		if u.Host == "" {
			problems = append(problems, fmt.Sprintf("base URL (OPENAI_BASE_URL) %q has no host", u.Redacted()))
		}
		if u.RawQuery != "" || u.Fragment != "" {
			problems = append(problems, fmt.Sprintf("base URL (OPENAI_BASE_URL) %q must not carry a query or fragment", u.Redacted()))
		}
	}
	if strings.TrimSpace(c.Model) != c.Model {
		problems = append(problems, fmt.Sprintf("model (CORROBORATE_MODEL) %q has surrounding spaces", c.Model))
	}
	if c.Timeout < 0 {
		problems = append(problems, fmt.Sprintf("timeout %s is negative", c.Timeout))
	}
	if c.MaxTokens < 0 {
		problems = append(problems, fmt.Sprintf("max tokens %d is negative", c.MaxTokens))
	}
	if c.MaxRetries < 0 {
		problems = append(problems, fmt.Sprintf("max retries %d is negative", c.MaxRetries))
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("llm: invalid configuration: %s", strings.Join(problems, "; "))
}

// String describes c without its API key, so that a logged Config leaks nothing.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{BaseURL: %q, Model: %q, Timeout: %s, MaxTokens: %d, MaxRetries: %d, APIKey: %s}",
		redactURL(c.BaseURL), c.Model, c.Timeout, c.MaxTokens, c.MaxRetries, key)
}

// GoString is String, so that %#v leaks no key either.
func (c Config) GoString() string { return c.String() }

// LogValue is Config for log/slog, without its API key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", redactURL(c.BaseURL)),
		slog.String("model", c.Model),
		slog.Duration("timeout", c.Timeout),
		slog.Int("max_tokens", c.MaxTokens),
		slog.Int("max_retries", c.MaxRetries),
		slog.Bool("api_key_set", c.APIKey != ""),
	)
}

// Client calls one model at one endpoint. It implements pipeline.Model and is safe for
// concurrent use.
type Client struct {
	chat      openai.ChatCompletionService
	models    openai.ModelService // for Probe
	model     string
	baseURL   string // redacted, for messages
	timeout   time.Duration
	maxTokens int64
	// redactor removes the API key from every message this package builds. It is a pointer so
	// that printing a Client with %+v shows an address, never the key.
	redactor *strings.Replacer
}

var _ pipeline.Model = (*Client)(nil)

// New returns a Client for cfg, after applying defaults and checking the result.
//
// Only cfg counts: unlike openai.NewClient, the client never reads OPENAI_API_KEY,
// OPENAI_BASE_URL or any other OPENAI_* variable, so the worker's configuration is the one
// place they are read and tests do not depend on the environment.
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	// openai.ChatCompletionService, unlike openai.Client, takes its options from its caller
	// alone and reads no environment variables.
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(hc),
		option.WithRequestTimeout(cfg.Timeout),
		option.WithMaxRetries(cfg.MaxRetries),
	}
	if cfg.OnResponse != nil {
		opts = append(opts, option.WithMiddleware(observe(cfg.OnResponse)))
	}
	chat := openai.NewChatCompletionService(opts...)
	c := &Client{
		chat:      chat,
		models:    openai.NewModelService(opts...),
		model:     cfg.Model,
		baseURL:   redactURL(cfg.BaseURL),
		timeout:   cfg.Timeout,
		maxTokens: int64(cfg.MaxTokens),
	}
	// A key too short to be a secret (local servers take any placeholder, such as "x") would
	// turn every message into confetti; real keys are far longer than minRedactedKey.
	if len(cfg.APIKey) >= minRedactedKey {
		c.redactor = strings.NewReplacer(cfg.APIKey, "[redacted]")
	}
	return c, nil
}

// observe is a middleware that shows every response to fn: a middleware runs once per attempt,
// so retries made inside openai-go are seen too.
func observe(fn func(ctx context.Context, status int, header http.Header)) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if resp != nil {
			fn(req.Context(), resp.StatusCode, resp.Header)
		}
		return resp, err
	}
}

// defaultHTTPClient is http.DefaultTransport with room for the worker's parallel calls: the
// standard transport keeps only 2 idle connections per host, so bursts of calls to one model
// server would keep opening and closing connections.
func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
}

// Model is the name of the model the client calls.
func (c *Client) Model() string { return c.model }

// BaseURL is the endpoint the client calls, without any password it may carry.
func (c *Client) BaseURL() string { return c.baseURL }

// Complete sends req.Prompt as one user message at temperature 0 and returns the first choice.
//
// The reply bound (req.MaxTokens, else Config.MaxTokens) is sent both as max_completion_tokens
// and as the older max_tokens, because some servers (Ollama) ignore the newer field and would
// otherwise generate until their own limit. With req.Schema set, the request asks for strict
// JSON schema output; servers that ignore it may still answer free text, so callers validate.
//
// A failure is wrapped by pipeline.Permanent when no retry can fix it; see the package comment.
// When ctx ends first, the error wraps ctx.Err().
func (c *Client) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	maxTokens := c.maxTokens
	if req.MaxTokens > 0 {
		maxTokens = int64(req.MaxTokens)
	}
	params := openai.ChatCompletionNewParams{
		Model:               c.model,
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage(req.Prompt)},
		Temperature:         openai.Float(0),
		Seed:                openai.Int(seed),
		MaxTokens:           openai.Int(maxTokens),
		MaxCompletionTokens: openai.Int(maxTokens),
	}
	if s := req.Schema; s != nil {
		if s.Name == "" || s.Schema == nil {
			return pipeline.ModelReply{}, pipeline.Permanent(c.errorf("llm: %s: the output schema needs both a name and a schema", req.Step))
		}
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{
				JSONSchema: openai.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   s.Name,
					Strict: openai.Bool(true),
					Schema: s.Schema,
				},
			},
		}
	}

	var httpResp *http.Response
	resp, err := c.chat.New(ctx, params, option.WithResponseInto(&httpResp))
	if err != nil {
		return pipeline.ModelReply{}, c.classify(ctx, err, httpResp)
	}
	if len(resp.Choices) == 0 {
		return pipeline.ModelReply{}, c.errorf("llm: model %q at %s returned no choices", c.model, c.baseURL)
	}
	choice := resp.Choices[0]
	if choice.Message.Content == "" && choice.Message.Refusal != "" {
		return pipeline.ModelReply{}, c.errorf("llm: model %q at %s refused: %s", c.model, c.baseURL, choice.Message.Refusal)
	}
	return pipeline.ModelReply{
		Text:             choice.Message.Content,
		Model:            resp.Model,
		FinishReason:     choice.FinishReason,
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
	}, nil
}

// ErrTimeout is wrapped by the error of a request that got no answer within Config.Timeout.
// It is transient. A caller's own deadline gives context.DeadlineExceeded instead.
var ErrTimeout = errors.New("no answer within the request timeout")

// classify turns a failed call into the error Complete returns: permanent or not, with what
// failed and where, and never the API key.
func (c *Client) classify(ctx context.Context, err error, httpResp *http.Response) error {
	// The caller gave up: say so with its own error, not as a failure of the model.
	if ctxErr := ctx.Err(); ctxErr != nil {
		return &redactedError{
			msg: c.redact(fmt.Sprintf("llm: call to model %q at %s abandoned: %v", c.model, c.baseURL, ctxErr)),
			err: ctxErr,
		}
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		se := c.statusError(apiErr, httpResp)
		if permanentStatus(se.StatusCode, se.Code) {
			return pipeline.Permanent(se)
		}
		return se
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return &redactedError{
			msg: c.redact(fmt.Sprintf("llm: model %q at %s: %v (%s)", c.model, c.baseURL, ErrTimeout, c.timeout)),
			err: ErrTimeout,
		}
	}
	return c.errorf("llm: calling model %q at %s: %w", c.model, c.baseURL, err)
}

// errorf is fmt.Errorf with the API key removed from the message.
func (c *Client) errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &redactedError{msg: c.redact(err.Error()), err: errors.Unwrap(err)}
}

func (c *Client) redact(s string) string {
	if c.redactor == nil {
		return s
	}
	return c.redactor.Replace(s)
}

// redactedError carries a message cleaned of the API key while keeping the error it wraps
// reachable for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactURL is raw without any password it carries.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
