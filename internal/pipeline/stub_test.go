package pipeline

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// stubModel answers each prompt with the reply of the first rule whose marker the prompt contains,
// and records every prompt it was sent. It is the stub LLM of the specification's tests.
type stubModel struct {
	rules []stubRule

	mu      sync.Mutex
	prompts []string
	steps   []string
}

type stubRule struct {
	contains string
	reply    string
	err      error
}

func (s *stubModel) Complete(_ context.Context, req ModelRequest) (ModelReply, error) {
	s.mu.Lock()
	s.prompts = append(s.prompts, req.Prompt)
	s.steps = append(s.steps, req.Step)
	s.mu.Unlock()
	for _, r := range s.rules {
		if strings.Contains(req.Prompt, r.contains) {
			if r.err != nil {
				return ModelReply{}, r.err
			}
			return ModelReply{Text: r.reply, Model: "stub", PromptTokens: int64(len(req.Prompt) / 4), CompletionTokens: int64(len(r.reply) / 4)}, nil
		}
	}
	return ModelReply{}, fmt.Errorf("stub model: no rule matches prompt %q", req.Prompt)
}

// sent returns the prompts of one step, in the order they were sent.
func (s *stubModel) sent(step string) []string {
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

func (s *stubModel) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}
