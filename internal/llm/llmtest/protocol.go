package llmtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The OpenAI chat completions protocol as the fake servers speak it: DecodeRequest reads a
// request the way an OpenAI-compatible server does, and WriteResponse answers it. Server uses
// them, and so does the simulated rate-limited provider (internal/ratelimit/ratelimittest), so
// that every fake server in the project reads and writes the wire format in one place.

// chatRequest is the part of a chat completions request the servers read.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Temperature         *float64        `json:"temperature"`
	MaxTokens           *int64          `json:"max_tokens"`
	MaxCompletionTokens *int64          `json:"max_completion_tokens"`
	Seed                *int64          `json:"seed"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	Stream              bool            `json:"stream"`
}

// DecodeRequest reads the chat completions request r. It returns what it could read of it (Path,
// Authorization and Received always; the rest when the body is JSON) and whether a server should
// answer it; when not (not a POST, not JSON, no model, no messages, streaming, which the fake
// servers do not speak), refusal is the error response a real server sends.
func DecodeRequest(r *http.Request) (req Request, refusal Response, ok bool) {
	req = Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Received: time.Now()}
	if r.Method != http.MethodPost {
		return req, badRequest(http.StatusMethodNotAllowed, "llmtest: use POST for "+r.URL.Path), false
	}
	var body chatRequest
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return req, badRequest(http.StatusBadRequest, "llmtest: the request body is not valid JSON: "+err.Error()), false
	}
	req.Model = body.Model
	req.Prompt = lastUserText(body)
	req.Temperature, req.MaxTokens, req.MaxCompletionTokens, req.Seed = body.Temperature, body.MaxTokens, body.MaxCompletionTokens, body.Seed
	if len(body.ResponseFormat) > 0 && !bytes.Equal(body.ResponseFormat, []byte("null")) {
		req.ResponseFormat = body.ResponseFormat
	}
	switch {
	case body.Model == "":
		return req, badRequest(http.StatusBadRequest, "you must provide a model parameter"), false
	case len(body.Messages) == 0:
		return req, badRequest(http.StatusBadRequest, "messages must not be empty"), false
	case body.Stream:
		return req, badRequest(http.StatusBadRequest, "llmtest: streaming is not supported"), false
	}
	return req, Response{}, true
}

func badRequest(status int, message string) Response {
	return Response{Status: status, Body: ErrorBody(message, "invalid_request_error", "")}
}

// WriteResponse sends resp as the answer to req, at once (resp.Delay is the caller's to apply):
// resp.Body verbatim when set; else an OpenAI-shaped error (see ErrorBody) carrying the status
// text for a status of 400 or more; else a chat.completion of resp.Text for req.Model, with
// usage counted by Tokens over req.Prompt and resp.Text. resp.Header is added to the response.
func WriteResponse(w http.ResponseWriter, req Request, resp Response) {
	status := cmp.Or(resp.Status, http.StatusOK)
	switch {
	case resp.Body != "":
		writeJSON(w, status, resp.Header, resp.Body)
	case status >= 400:
		writeJSON(w, status, resp.Header, ErrorBody(http.StatusText(status), errorType(status), ""))
	default:
		writeJSON(w, status, resp.Header, completion(req.Model, req.Prompt, resp))
	}
}

// ErrorBody returns an error body in OpenAI's shape, {"error":{"message","type","param","code"}},
// which openai-go decodes into openai.Error. code may be empty (it is then null, as Ollama sends).
func ErrorBody(message, typ, code string) string {
	var c any
	if code != "" {
		c = code
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": c,
	}})
	return string(b)
}

// Tokens is the fake servers' token count of s: one token per four bytes, rounded up. Usage in
// every reply is computed with it, so tests can predict prompt_tokens and completion_tokens.
func Tokens(s string) int64 { return int64((len(s) + 3) / 4) }

// completionSeq numbers the completions of every server in the process, for their ids.
var completionSeq atomic.Int64

// completion renders a successful reply in the shape of OpenAI's chat.completion object.
func completion(model, prompt string, resp Response) string {
	finish := resp.FinishReason
	if finish == "" {
		finish = "stop"
	}
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		Logprobs     any     `json:"logprobs"`
		FinishReason string  `json:"finish_reason"`
	}
	type usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
	pt, ct := Tokens(prompt), Tokens(resp.Text)
	b, _ := json.Marshal(struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             usage    `json:"usage"`
	}{
		ID:                fmt.Sprintf("chatcmpl-llmtest-%d", completionSeq.Add(1)),
		Object:            "chat.completion",
		Created:           time.Now().Unix(),
		Model:             model,
		SystemFingerprint: "fp_llmtest",
		Choices:           []choice{{Message: message{Role: "assistant", Content: resp.Text}, FinishReason: finish}},
		Usage:             usage{PromptTokens: pt, CompletionTokens: ct, TotalTokens: pt + ct},
	})
	return string(b)
}

// lastUserText returns the text of the last user message, whether its content is a string or a
// list of parts.
func lastUserText(req chatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			return text
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &parts) == nil {
			var b strings.Builder
			for _, p := range parts {
				if p.Type == "text" {
					b.WriteString(p.Text)
				}
			}
			return b.String()
		}
		return ""
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, header http.Header, body string) {
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// errorType is the OpenAI error type for a status, for generated error bodies.
func errorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "invalid_request_error"
	default:
		return "server_error"
	}
}
