package pipelinetest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// StubModel answers each prompt with the reply of the first rule whose marker the prompt contains,
// and records every prompt it was sent. It is the stub LLM of the specification's tests.
type StubModel struct {
	Rules []StubRule

	mu      sync.Mutex
	prompts []string
	steps   []string
}

// StubRule is one rule of a StubModel: the reply (or error) for a prompt that contains Contains.
type StubRule struct {
	Contains string
	Reply    string
	Err      error
}

func (s *StubModel) Complete(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	s.mu.Lock()
	s.prompts = append(s.prompts, req.Prompt)
	s.steps = append(s.steps, req.Step)
	s.mu.Unlock()
	for _, r := range s.Rules {
		if strings.Contains(req.Prompt, r.Contains) {
			if r.Err != nil {
				return pipeline.ModelReply{}, r.Err
			}
			return pipeline.ModelReply{Text: r.Reply, Model: "stub", PromptTokens: int64(len(req.Prompt) / 4), CompletionTokens: int64(len(r.Reply) / 4)}, nil
		}
	}
	return pipeline.ModelReply{}, fmt.Errorf("stub model: no rule matches prompt %q", req.Prompt)
}

// Sent returns the prompts of one step, in the order they were sent.
func (s *StubModel) Sent(step string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, p := range s.prompts {
		if s.steps[i] == step {
			out = append(out, p)
		}
	}
	return out
}

func (s *StubModel) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}
