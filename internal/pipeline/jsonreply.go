package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// StructuredStep is one model call whose reply must be a JSON object that passes check: asked
// for with a structured-output schema where the server supports it, checked in every case, and
// given one repair round-trip that lists what was wrong. A reply cut off at the token limit
// (finish reason "length") is invalid even when it parses. A reply still invalid after its
// repair fails the run with a PermanentError naming the violations: no retry of the job would
// fare better than the repair did.
type StructuredStep struct {
	Step      string
	Schema    *OutputSchema
	MaxTokens int
	// Check validates a reply's text and returns its JSON, compact, or the violations.
	Check func(reply string) ([]byte, []string)
}

// StructuredReply is what a StructuredStep returned.
type StructuredReply struct {
	// Raw is the accepted reply (or the last one, on failure), as the model wrote it.
	Raw string
	// JSON is the validated object, compact.
	JSON []byte
	// Violations are what the first reply broke, when it needed the repair.
	Violations []string
	Repaired   bool
}

// maxRepairEcho bounds how much of an invalid reply the repair prompt quotes back.
const maxRepairEcho = 16 << 10

// Run sends prompt through rec, checks the reply, and makes the one repair round-trip when it is
// invalid.
func (s StructuredStep) Run(ctx context.Context, rec *Recorder, prompt string) (StructuredReply, error) {
	var out StructuredReply
	reply, err := rec.completeReply(ctx, s.Step, 0, ModelRequest{Prompt: prompt, Schema: s.Schema, MaxTokens: s.MaxTokens})
	if err != nil {
		return out, err
	}
	out.Raw = reply.Text
	doc, violations := s.validate(reply)
	if len(violations) == 0 {
		out.JSON = doc
		return out, nil
	}
	out.Violations = violations
	repaired, err := s.SendBack(ctx, rec, prompt, reply.Text, violations)
	if err != nil {
		return out, err
	}
	out.Raw = repaired.Raw
	if len(repaired.Violations) > 0 {
		return out, Permanent(fmt.Errorf("%s: the reply is still invalid after its repair round-trip: %s", s.Step, strings.Join(repaired.Violations, "; ")))
	}
	out.JSON, out.Repaired = repaired.JSON, true
	return out, nil
}

// SendBack sends reply back to the model once with the repair prompt, bullets saying what to
// change (Run's repair of a reply that broke its rules; makePlan's request to a plan over the
// claim cap, which broke none), and checks the answer with Check: the result holds the answer's
// text, the JSON Check returned and the violations it found. There is no further round-trip.
func (s StructuredStep) SendBack(ctx context.Context, rec *Recorder, prompt, reply string, bullets []string) (StructuredReply, error) {
	lines := make([]string, len(bullets))
	for i, v := range bullets {
		lines[i] = "- " + EscapeFenced(v)
	}
	repair, err := RenderPrompt("cove2_repair", struct{ Prompt, Violations, Reply string }{
		prompt, strings.Join(lines, "\n"), EscapeFenced(text.Truncate(reply, maxRepairEcho))})
	if err != nil {
		return StructuredReply{}, StepError(s.Step, err)
	}
	answer, err := rec.completeReply(ctx, s.Step+"_repair", 0, ModelRequest{Prompt: repair, Schema: s.Schema, MaxTokens: s.MaxTokens})
	if err != nil {
		return StructuredReply{}, err
	}
	doc, violations := s.validate(answer)
	return StructuredReply{Raw: answer.Text, JSON: doc, Violations: violations}, nil
}

func (s StructuredStep) validate(reply ModelReply) ([]byte, []string) {
	doc, violations := s.Check(reply.Text)
	if reply.FinishReason == "length" {
		violations = append([]string{`the reply was cut off at the token limit (finish_reason "length"); keep every text short`}, violations...)
	}
	if len(violations) > 0 {
		return nil, violations
	}
	return doc, nil
}

// MaxViolations bounds the violations one reply reports: enough for a repair, never a flood.
const MaxViolations = 20

// CheckJSON decodes the JSON object in reply (bare, fenced, or inside prose), validates it
// against schema, decodes it into v and runs rules on it. It returns the object, compact, or
// every violation found: the rules run whenever the object decodes, so that one repair can fix
// everything at once.
func CheckJSON(reply string, schema *jsonschema.Schema, label string, v any, rules func() []string) ([]byte, []string) {
	raw := ReplyJSONObject(reply)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, []string{"the reply is not a JSON object: " + OneLine(err)}
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, []string{"the reply is JSON but not an object"}
	}
	violations := SchemaViolations(schema, doc, label)
	if err := json.Unmarshal(raw, v); err != nil {
		if len(violations) == 0 {
			violations = append(violations, "the reply does not decode: "+OneLine(err))
		}
		return nil, CapViolations(violations)
	}
	violations = append(violations, rules()...)
	if len(violations) > 0 {
		return nil, CapViolations(violations)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, []string{"the reply is not a JSON object: " + OneLine(err)}
	}
	return compact.Bytes(), nil
}

// CapViolations cuts a list of violations to MaxViolations, saying how many were left out.
func CapViolations(v []string) []string {
	if len(v) > MaxViolations {
		return append(v[:MaxViolations:MaxViolations], fmt.Sprintf("and %d more", len(v)-MaxViolations))
	}
	return v
}

// CompiledSchema compiles a schema built in Go once, for validation.
func CompiledSchema(id string, build func() map[string]any) func() (*jsonschema.Schema, error) {
	return sync.OnceValues(func() (*jsonschema.Schema, error) {
		raw, err := json.Marshal(build())
		if err != nil {
			return nil, err
		}
		return CompileSchema(id, raw)
	})
}

// noLoader refuses every schema reference outside the document: a job's schema must be
// self-contained, and must not make the worker read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s: only references inside the schema (#/$defs/...) are allowed", url)
}

// CompileSchema compiles a JSON Schema document under id, with no remote references allowed.
func CompileSchema(id string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

// OneLine is err's message on one line, for reasons and violations.
func OneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// SchemaViolations validates doc (parsed with jsonschema.UnmarshalJSON) against s and returns
// one message per failed keyword, "at <location>: <reason>", sorted and without repeats.
func SchemaViolations(s *jsonschema.Schema, doc any, label string) []string {
	err := s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{label + ": " + err.Error()}
	}
	p := message.NewPrinter(language.English)
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		if _, ok := e.ErrorKind.(*kind.Group); ok {
			return
		}
		loc := "/" + strings.Join(e.InstanceLocation, "/")
		out = append(out, fmt.Sprintf("%s at %s: %s", label, loc, e.ErrorKind.LocalizedString(p)))
	}
	walk(ve)
	slices.Sort(out)
	return slices.Compact(out)
}

// ReplyJSONObject returns the JSON object in a reply: the reply itself, or what a markdown fence
// holds, or the text from its first "{" to its last "}".
func ReplyJSONObject(reply string) []byte {
	s := strings.TrimSpace(reply)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if !strings.HasPrefix(s, "{") {
		if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
			s = s[i : j+1]
		}
	}
	return []byte(s)
}
