package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// ReplayModel is the name a Replay reports as its model, so that stored runs say what they are.
const ReplayModel = "offline-replay"

// Replay is an offline pipeline.Model that answers from recorded replies: each rule answers the
// prompts of its step that contain its text. Dev mode runs it over the bundled examples when no
// model is configured; its results are a replay, not a verification, and are labelled so.
type Replay struct {
	rules []ReplayRule
}

// ReplayRule is one recorded reply.
type ReplayRule struct {
	Step     string `json:"step"`
	Contains string `json:"contains"`
	Reply    string `json:"reply"`
}

// NewReplay reads recorded replies: a JSON object {"rules": [{step, contains, reply}, ...]}.
func NewReplay(data []byte) (*Replay, error) {
	var doc struct {
		Rules []ReplayRule `json:"rules"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("replay: reading recorded replies: %w", err)
	}
	for i, r := range doc.Rules {
		if r.Contains == "" || r.Reply == "" {
			return nil, fmt.Errorf("replay: rule %d needs contains and reply", i+1)
		}
	}
	return &Replay{rules: doc.Rules}, nil
}

// Complete answers with the first rule of the request's step whose text the prompt contains.
// A prompt with no recorded reply is answered the way a careful model would answer what it
// cannot know: "unsure" for a verification, the draft itself for a revision, which leaves an
// unrecorded statement unchanged rather than invented.
func (r *Replay) Complete(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	for _, rule := range r.rules {
		if (rule.Step == "" || rule.Step == req.Step) && strings.Contains(req.Prompt, rule.Contains) {
			return r.reply(req, rule.Reply), nil
		}
	}
	switch req.Step {
	case pipeline.StepVerify:
		return r.reply(req, "unsure"), nil
	case pipeline.StepRevise:
		if draft, ok := between(req.Prompt, "<draft>", "</draft>"); ok {
			return r.reply(req, draft), nil
		}
	}
	return pipeline.ModelReply{}, pipeline.Permanent(fmt.Errorf("replay: no recorded reply for this %s prompt: the offline replay only knows the bundled examples; configure a model (OPENAI_API_KEY or OPENAI_BASE_URL) for other statements", req.Step))
}

func (r *Replay) reply(req pipeline.ModelRequest, text string) pipeline.ModelReply {
	return pipeline.ModelReply{
		Text: text, Model: ReplayModel, FinishReason: "stop",
		PromptTokens: int64(len(req.Prompt)+3) / 4, CompletionTokens: int64(len(text)+3) / 4,
	}
}

func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}
