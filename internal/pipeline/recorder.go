package pipeline

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Recorder wraps a Model and keeps every call a run makes, in the order the calls started, so
// that the whole trace is stored with the run: the full prompt, the full reply, tokens, latency
// and error. It is safe for the concurrent verify calls of one run.
type Recorder struct {
	model Model

	mu    sync.Mutex
	calls []ModelCall
}

// NewRecorder returns a Recorder over m with no calls yet.
func NewRecorder(m Model) *Recorder { return &Recorder{model: m} }

// Complete sends one prompt for step and returns the reply text. target is the check or claim
// position the call serves (0 for none). An empty reply is an error: no step can use one.
func (r *Recorder) Complete(ctx context.Context, step string, target int, req ModelRequest) (string, error) {
	reply, err := r.completeReply(ctx, step, target, req)
	return reply.Text, err
}

// completeReply is complete returning the whole reply, for steps that must see how it ended (a
// structured reply cut off with finish reason "length" is invalid even when it parses). On error
// the reply is empty.
func (r *Recorder) completeReply(ctx context.Context, step string, target int, req ModelRequest) (ModelReply, error) {
	req.Step = step
	r.mu.Lock()
	seq := len(r.calls) + 1
	r.calls = append(r.calls, ModelCall{Seq: seq, Step: step, Target: target, Prompt: req.Prompt, StartedAt: time.Now()})
	r.mu.Unlock()

	start := time.Now()
	reply, err := r.model.Complete(ctx, req)
	latency := time.Since(start)
	if err == nil && strings.TrimSpace(reply.Text) == "" {
		err = ErrEmptyReply
	}

	r.mu.Lock()
	c := &r.calls[seq-1]
	c.Reply = reply.Text
	c.Model = reply.Model
	c.FinishReason = reply.FinishReason
	c.PromptTokens = reply.PromptTokens
	c.CompletionTokens = reply.CompletionTokens
	c.Latency = latency
	if err != nil {
		c.Error = err.Error()
	}
	r.mu.Unlock()
	if err != nil {
		return ModelReply{}, StepError(step, err)
	}
	return reply, nil
}

// Prompt renders a template and sends it as one call.
func (r *Recorder) Prompt(ctx context.Context, step string, target int, template string, data any) (string, error) {
	text, err := RenderPrompt(template, data)
	if err != nil {
		return "", StepError(step, err)
	}
	return r.Complete(ctx, step, target, ModelRequest{Prompt: text})
}

// Trace returns a copy of the calls made so far.
func (r *Recorder) Trace() []ModelCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ModelCall(nil), r.calls...)
}
