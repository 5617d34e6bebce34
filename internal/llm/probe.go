package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/openai/openai-go/v3"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Outage reasons: how an endpoint can fail every job alike, whatever the job. OutageReason
// returns them; they label the worker's breaker metric.
const (
	OutageConnectionRefused = "connection_refused"
	OutageConnectionReset   = "connection_reset"
	OutageDNS               = "dns"
	OutageUnauthorized      = "unauthorized"
	OutageForbidden         = "forbidden"
	OutageQuota             = "quota"
	OutageServerError       = "server_error"
	// OutageModelNotFound is met by Probe only: while running, a 404 stays a permanent failure
	// of the job, as it was before there was a probe.
	OutageModelNotFound = "model_not_found"
)

// OutageReason names the outage err is, when it is one: a failure that every job would meet
// alike, because the endpoint refuses connections, cannot be resolved, refuses the key, has no
// quota left or fails with a server error (5xx). It returns "" for anything else: a reply the
// job could not use, a rate limit (the limiter's business), a timeout (a long generation is not
// an outage), a request the caller abandoned, and any error that did not come from a Client.
func OutageReason(err error) string {
	if err == nil {
		return ""
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch {
		case se.StatusCode == http.StatusUnauthorized:
			return OutageUnauthorized
		case se.StatusCode == http.StatusForbidden:
			return OutageForbidden
		case isQuotaExhausted(se.StatusCode, se.Code, se.Type):
			return OutageQuota
		case se.StatusCode >= 500:
			return OutageServerError
		}
		return ""
	}
	// Only this package's own failures count: a web search provider that refuses connections
	// is not the model endpoint.
	var own *redactedError
	if !errors.As(err, &own) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		return ""
	}
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return OutageConnectionRefused
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// The server went away mid-request.
		return OutageConnectionReset
	case errors.As(err, &dnsErr):
		return OutageDNS
	}
	return ""
}

// ProbeError is what Probe found wrong. Its message is one line that says what to fix.
type ProbeError struct {
	// Fatal is true when the worker cannot work as configured and should not start: the key
	// refused, the model unknown, nothing listening at the base URL, a host that does not
	// resolve. Otherwise the endpoint may recover by itself (a 5xx, a rate limit, a timeout).
	Fatal bool
	// Reason is one of the Outage* names, or "" for a failure that is none.
	Reason string
	Err    error
	msg    string
}

func (e *ProbeError) Error() string { return e.msg }
func (e *ProbeError) Unwrap() error { return e.Err }

// ProbePrompt is the known-good request of a probe's completion: any model that answers at all
// answers it. Fake servers in tests answer it to look healthy.
const ProbePrompt = "Say OK."

// probeStep is the step name of Probe's one-token completion, in recorded calls and limiter
// queues.
const probeStep = "probe"

// Probe checks with one cheap request that the endpoint answers, accepts the key and knows the
// model: GET models/{model} (OpenAI, Ollama); when the server does not answer that, the model
// list (vLLM, llama.cpp); and only when the list does not name the model, a completion of one
// token, which is the final word (llama.cpp serves any name). It returns nil or a *ProbeError.
func (c *Client) Probe(ctx context.Context) error {
	_, err := c.models.Get(ctx, c.model)
	if err == nil {
		return nil
	}
	if pe := c.probeError(ctx, err, false); pe != nil {
		return pe
	}
	page, err := c.models.List(ctx)
	if err == nil {
		for _, m := range page.Data {
			if m.ID == c.model {
				return nil
			}
		}
	} else if pe := c.probeError(ctx, err, false); pe != nil {
		return pe
	}
	_, err = c.Complete(ctx, pipeline.ModelRequest{Step: probeStep, Prompt: ProbePrompt, MaxTokens: 1})
	if err == nil {
		return nil
	}
	if pe := c.probeError(ctx, err, true); pe != nil {
		return pe
	}
	return &ProbeError{Err: err, msg: text.OneLine(fmt.Sprintf("model %q at %s: the probe failed: %v", c.model, c.baseURL, err))}
}

// Answers asks the model the known-good request (ProbePrompt, one token) and returns nil when the
// endpoint answered it: then a job whose calls fail is failing on something of its own (a prompt
// the model chokes on), not on an outage. Any answer that is no outage counts, a rate limit or a
// refusal of the request included: the endpoint is up. An outage (OutageReason) or no answer in
// time is returned.
func (c *Client) Answers(ctx context.Context) error {
	_, err := c.Complete(ctx, pipeline.ModelRequest{Step: probeStep, Prompt: ProbePrompt, MaxTokens: 1})
	if err == nil || OutageReason(err) == "" && !errors.Is(err, ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return fmt.Errorf("model %q at %s does not answer a known-good request: %w", c.model, c.baseURL, err)
}

// probeError turns the failure of a probe request into a *ProbeError, or nil when the request
// proves nothing and the next one should be tried (a 404 or another refusal of a models
// endpoint, which not every server has). final is true for the completion, whose 404 means that
// the model is unknown.
func (c *Client) probeError(ctx context.Context, err error, final bool) *ProbeError {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && !final {
		err = c.statusError(apiErr, nil)
	} else if !final {
		err = c.classify(ctx, err, nil)
	}
	reason := OutageReason(err)
	pe := &ProbeError{Reason: reason, Err: err}
	var se *StatusError
	isStatus := errors.As(err, &se)
	said := ""
	if isStatus {
		said = fmt.Sprintf("HTTP %d", se.StatusCode)
		if se.Message != "" {
			said += ": " + se.Message
		}
	}
	switch {
	case reason == OutageUnauthorized:
		pe.Fatal = true
		pe.msg = fmt.Sprintf("OPENAI_API_KEY was refused by %s (%s): check the key", c.baseURL, said)
	case reason == OutageForbidden:
		pe.Fatal = true
		pe.msg = fmt.Sprintf("%s denied the API key access to model %q (%s): check the key's permissions and CORROBORATE_MODEL", c.baseURL, c.model, said)
	case reason == OutageConnectionRefused:
		pe.Fatal = true
		pe.msg = fmt.Sprintf("nothing answers at %s (connection refused): check OPENAI_BASE_URL and that the model server is running", c.baseURL)
	case reason == OutageDNS:
		pe.Fatal = true
		pe.msg = fmt.Sprintf("the host of %s does not resolve (%v): check OPENAI_BASE_URL", c.baseURL, errors.Unwrap(err))
	case isStatus && se.StatusCode == http.StatusNotFound && final:
		pe.Fatal, pe.Reason = true, OutageModelNotFound
		pe.msg = fmt.Sprintf("model %q not found at %s (%s): check CORROBORATE_MODEL, and that OPENAI_BASE_URL ends in the API path such as /v1", c.model, c.baseURL, said)
	case reason != "":
		pe.msg = fmt.Sprintf("model endpoint %s is failing (%s): %v", c.baseURL, reason, err)
	case errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
		pe.msg = fmt.Sprintf("model endpoint %s did not answer the probe in time: %v", c.baseURL, err)
	case isStatus && se.StatusCode == http.StatusTooManyRequests:
		pe.msg = fmt.Sprintf("model endpoint %s is rate limiting: %v", c.baseURL, err)
	case !final:
		return nil // not every server has the models endpoints: try the next request
	default:
		return nil
	}
	pe.msg = text.OneLine(pe.msg)
	return pe
}

// oneLine collapses every run of white space, newlines included, into one space.
