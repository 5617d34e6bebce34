package llm

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/corroborate/corroborate/internal/ratelimit/retryafter"
)

// StatusError is a failed call that got an HTTP answer: what the server said, where, and how long
// it asked the caller to wait. Complete returns it wrapped by pipeline.Permanent when no retry can
// fix it (see permanentStatus), bare otherwise; errors.As finds it either way.
type StatusError struct {
	StatusCode int
	// Code and Type are the server's error code and type ("rate_limit_exceeded",
	// "insufficient_quota", "not_found_error"), empty when it sent none. Like every text here,
	// they are cleaned of the API key, should a server echo it.
	Code string
	Type string
	// Message is the server's message, or the start of its body when that was not an OpenAI
	// error.
	Message string
	Model   string
	BaseURL string
	// RetryAfter is the wait the server asked for in Retry-After-Ms or Retry-After, 0 when none.
	RetryAfter time.Duration
	// Header is the response's header, for rate-limit headers (x-ratelimit-*).
	Header http.Header
	// Err is the *openai.Error the call returned.
	Err error
}

func (e *StatusError) Unwrap() error { return e.Err }

func (e *StatusError) Error() string {
	said := fmt.Sprintf("HTTP %d", e.StatusCode)
	if e.Code != "" {
		said += " " + e.Code
	}
	if e.Message != "" {
		said += ": " + e.Message
	}
	switch {
	case e.StatusCode == http.StatusNotFound:
		return fmt.Sprintf("llm: model %q not found at %s: check CORROBORATE_MODEL, and that the base URL ends in the API path such as /v1 (%s)", e.Model, e.BaseURL, said)
	case e.StatusCode == http.StatusUnauthorized:
		return fmt.Sprintf("llm: %s refused the API key (%s): check OPENAI_API_KEY", e.BaseURL, said)
	case e.StatusCode == http.StatusForbidden:
		return fmt.Sprintf("llm: %s denied access to model %q (%s): check the API key's permissions", e.BaseURL, e.Model, said)
	case isQuotaExhausted(e.StatusCode, e.Code, e.Type):
		return fmt.Sprintf("llm: quota exhausted at %s (%s): check the account's plan and billing", e.BaseURL, said)
	case e.StatusCode == http.StatusTooManyRequests:
		msg := fmt.Sprintf("llm: rate limited by %s for model %q (%s)", e.BaseURL, e.Model, said)
		if e.RetryAfter > 0 {
			msg += fmt.Sprintf(", retry after %s", e.RetryAfter)
		}
		return msg
	case e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity:
		return fmt.Sprintf("llm: %s rejected the request for model %q (%s)", e.BaseURL, e.Model, said)
	default:
		return fmt.Sprintf("llm: model %q at %s failed (%s)", e.Model, e.BaseURL, said)
	}
}

// permanentStatus reports whether a failure with this status and error code would fail again
// however often it is retried: a bad request, a refused key, a missing model, an exhausted quota.
// Rate limits, timeouts (408), conflicts (409) and server errors pass with time.
func permanentStatus(status int, code string) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden,
		http.StatusNotFound, http.StatusUnprocessableEntity:
		return true
	case http.StatusTooManyRequests:
		return isQuotaExhausted(status, code, "")
	}
	return false
}

// isQuotaExhausted tells OpenAI's "you exceeded your current quota" 429, which waits on billing,
// from a rate limit, which waits on the clock.
func isQuotaExhausted(status int, code, typ string) bool {
	return status == http.StatusTooManyRequests && (code == "insufficient_quota" || typ == "insufficient_quota")
}

// statusError describes apiErr; resp is the response WithResponseInto captured, used when the
// error lacks one.
func (c *Client) statusError(apiErr *openai.Error, resp *http.Response) *StatusError {
	if apiErr.Response != nil {
		resp = apiErr.Response
	}
	se := &StatusError{
		StatusCode: apiErr.StatusCode,
		Code:       c.redact(apiErr.Code),
		Type:       c.redact(apiErr.Type),
		Message:    c.redact(strings.TrimSpace(apiErr.Message)),
		Model:      c.model,
		BaseURL:    c.baseURL,
		Err:        apiErr,
	}
	if resp != nil {
		se.Header = resp.Header.Clone()
		for _, vs := range se.Header {
			for i, v := range vs {
				vs[i] = c.redact(v)
			}
		}
		se.RetryAfter = retryafter.Parse(resp.Header, time.Now())
		if se.Message == "" && resp.Body != nil {
			// Not an OpenAI error body (a proxy's HTML page, plain text): its start says more
			// than the status alone. openai-go has already buffered it.
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			se.Message = c.redact(strings.Join(strings.Fields(string(b)), " "))
		}
	}
	return se
}
