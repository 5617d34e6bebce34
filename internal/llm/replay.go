package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// ReplayModel is the name a Replay reports as its model, so that stored runs say what they are.
const ReplayModel = "offline-replay"

// Replay is an offline pipeline.Model that answers from recorded replies: each rule answers the
// prompt of its step whose SHA-256 it records (a recording of the pipeline, made by cmd/worker's
// TestDemoReplayIsRecordedFromThePipeline), or the prompts of its step that contain its text. Dev mode runs it over the bundled examples when no
// model is configured; its results are a replay, not a verification, and are labelled so.
type Replay struct {
	rules []ReplayRule
}

// ReplayRule is one recorded reply.
type ReplayRule struct {
	// About says, for a person reading the file, what the reply is for (an example's id).
	About string `json:"about,omitempty"`
	Step  string `json:"step"`
	// PromptSHA256 is the hex SHA-256 of the one prompt this rule answers, exactly as recorded;
	// Contains, when set instead, answers every prompt holding its text.
	PromptSHA256 string `json:"prompt_sha256,omitempty"`
	Contains     string `json:"contains,omitempty"`
	Reply        string `json:"reply"`
}

// PromptSHA256 is how a rule names the exact prompt it answers.
func PromptSHA256(prompt string) string {
	sum := sha256.Sum256([]byte(prompt))
	return hex.EncodeToString(sum[:])
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
		if (r.Contains == "" && r.PromptSHA256 == "") || r.Reply == "" {
			return nil, fmt.Errorf("replay: rule %d needs prompt_sha256 or contains, and reply", i+1)
		}
	}
	return &Replay{rules: doc.Rules}, nil
}

// Complete answers with the first rule of the request's step whose text the prompt contains.
// A prompt with no recorded reply is answered the way a careful model would answer what it
// cannot know: "unsure" for a verification, the draft itself for a revision, which leaves an
// unrecorded statement unchanged rather than invented.
func (r *Replay) Complete(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	sum := PromptSHA256(req.Prompt)
	for _, rule := range r.rules {
		if rule.Step != "" && rule.Step != req.Step {
			continue
		}
		if (rule.PromptSHA256 != "" && rule.PromptSHA256 == sum) || (rule.Contains != "" && strings.Contains(req.Prompt, rule.Contains)) {
			return r.reply(req, rule.Reply), nil
		}
	}
	switch req.Step {
	case pipeline.StepVerify:
		return r.reply(req, "unsure"), nil
	case pipeline.StepRevise:
		if m := pipeline.PromptDraft.FindStringSubmatch(req.Prompt); m != nil {
			return r.reply(req, m[1]), nil
		}
	}
	return pipeline.ModelReply{}, pipeline.Permanent(fmt.Errorf("replay: no recorded reply for this %s prompt: the offline replay only knows the bundled examples, run over the bundled archive in a fresh database (a corpus with other documents gives other evidence, and so other prompts); configure a model (OPENAI_API_KEY or OPENAI_BASE_URL) for other statements and corpora", req.Step))
}

func (r *Replay) reply(req pipeline.ModelRequest, text string) pipeline.ModelReply {
	return pipeline.ModelReply{
		Text: text, Model: ReplayModel, FinishReason: "stop",
		PromptTokens: int64(len(req.Prompt)+3) / 4, CompletionTokens: int64(len(text)+3) / 4,
	}
}
