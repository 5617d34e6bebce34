package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// structuredStep is one model call whose reply must be a JSON object that passes check: asked
// for with a structured-output schema where the server supports it, checked in every case, and
// given one repair round-trip that lists what was wrong. A reply cut off at the token limit
// (finish reason "length") is invalid even when it parses. A reply still invalid after its
// repair fails the run with a PermanentError naming the violations: no retry of the job would
// fare better than the repair did.
type structuredStep struct {
	step      string
	schema    *OutputSchema
	maxTokens int
	// check validates a reply's text and returns its JSON, compact, or the violations.
	check func(reply string) ([]byte, []string)
}

// structuredReply is what a structuredStep returned.
type structuredReply struct {
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

func (s structuredStep) run(ctx context.Context, rec *recorder, prompt string) (structuredReply, error) {
	var out structuredReply
	reply, err := rec.completeReply(ctx, s.step, 0, ModelRequest{Prompt: prompt, Schema: s.schema, MaxTokens: s.maxTokens})
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
	bullets := make([]string, len(violations))
	for i, v := range violations {
		bullets[i] = "- " + EscapeFenced(v)
	}
	repair, err := renderPrompt("cove2_repair", struct{ Prompt, Violations, Reply string }{
		prompt, strings.Join(bullets, "\n"), EscapeFenced(truncateUTF8(reply.Text, maxRepairEcho))})
	if err != nil {
		return out, stepError(s.step, err)
	}
	reply, err = rec.completeReply(ctx, s.step+"_repair", 0, ModelRequest{Prompt: repair, Schema: s.schema, MaxTokens: s.maxTokens})
	if err != nil {
		return out, err
	}
	out.Raw = reply.Text
	doc, again := s.validate(reply)
	if len(again) > 0 {
		return out, Permanent(fmt.Errorf("%s: the reply is still invalid after its repair round-trip: %s", s.step, strings.Join(again, "; ")))
	}
	out.JSON, out.Repaired = doc, true
	return out, nil
}

func (s structuredStep) validate(reply ModelReply) ([]byte, []string) {
	doc, violations := s.check(reply.Text)
	if reply.FinishReason == "length" {
		violations = append([]string{`the reply was cut off at the token limit (finish_reason "length"); keep every text short`}, violations...)
	}
	if len(violations) > 0 {
		return nil, violations
	}
	return doc, nil
}

// maxViolations bounds the violations one reply reports: enough for a repair, never a flood.
const maxViolations = 20

// checkJSON decodes the JSON object in reply (bare, fenced, or inside prose), validates it
// against schema, decodes it into v and runs rules on it. It returns the object, compact, or
// every violation found: the rules run whenever the object decodes, so that one repair can fix
// everything at once.
func checkJSON(reply string, schema *jsonschema.Schema, label string, v any, rules func() []string) ([]byte, []string) {
	raw := planObject(reply)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, []string{"the reply is not a JSON object: " + oneLine(err)}
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, []string{"the reply is JSON but not an object"}
	}
	violations := schemaViolations(schema, doc, label)
	if err := json.Unmarshal(raw, v); err != nil {
		if len(violations) == 0 {
			violations = append(violations, "the reply does not decode: "+oneLine(err))
		}
		return nil, capViolations(violations)
	}
	violations = append(violations, rules()...)
	if len(violations) > 0 {
		return nil, capViolations(violations)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, []string{"the reply is not a JSON object: " + oneLine(err)}
	}
	return compact.Bytes(), nil
}

func capViolations(v []string) []string {
	if len(v) > maxViolations {
		return append(v[:maxViolations:maxViolations], fmt.Sprintf("and %d more", len(v)-maxViolations))
	}
	return v
}

// compiledSchema compiles a schema built in Go once, for validation.
func compiledSchema(id string, build func() map[string]any) func() (*jsonschema.Schema, error) {
	return sync.OnceValues(func() (*jsonschema.Schema, error) {
		raw, err := json.Marshal(build())
		if err != nil {
			return nil, err
		}
		return compileSchema(id, raw)
	})
}

// Bounds of a CoVe 2.0 plan, in its schema: constrained decoding ends, and no plan can grow a
// run without limit.
const (
	cove2MaxPlanClaims = 40
	cove2MaxDraftChars = 40000
	cove2MaxClaimChars = 1000
)

// cove2PlanSchema is the JSON Schema of the Phase 1 plan. strict is the form sent as the
// request's structured output, where every property must be required (verification_query is
// then null for a shallow claim); validation uses the lenient form, in which a shallow claim
// may leave verification_query out, as the specification's own example does.
func cove2PlanSchema(strict bool) map[string]any {
	claimRequired := []any{"text", "tier"}
	if strict {
		claimRequired = append(claimRequired, "verification_query")
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"draft", "needs_verification", "claims"},
		"properties": map[string]any{
			"draft":              map[string]any{"type": "string", "maxLength": cove2MaxDraftChars},
			"needs_verification": map[string]any{"type": "boolean"},
			"claims": map[string]any{
				"type":     "array",
				"maxItems": cove2MaxPlanClaims,
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             claimRequired,
					"properties": map[string]any{
						"text":               map[string]any{"type": "string", "minLength": 1, "maxLength": cove2MaxClaimChars},
						"tier":               map[string]any{"type": "string", "enum": []any{TierDeep, TierShallow}},
						"verification_query": map[string]any{"type": []any{"string", "null"}, "maxLength": MaxVerificationQueryBytes},
					},
				},
			},
		},
	}
}

var (
	cove2PlanValidator = compiledSchema("https://github.com/corroborate/corroborate/internal/pipeline/cove2_plan.schema.json",
		func() map[string]any { return cove2PlanSchema(false) })
	cove2PlanRequest = &OutputSchema{Name: "cove2_plan", Schema: cove2PlanSchema(true)}
)

// Cove2Plan is a CoVe 2.0 Phase 1 plan.
type Cove2Plan struct {
	Draft             string           `json:"draft"`
	NeedsVerification bool             `json:"needs_verification"`
	Claims            []Cove2PlanClaim `json:"claims"`
}

// Cove2PlanClaim is one claim of a plan. VerificationQuery is nil when the plan gave none.
type Cove2PlanClaim struct {
	Text              string  `json:"text"`
	Tier              string  `json:"tier"`
	VerificationQuery *string `json:"verification_query"`
}

// ParseCove2Plan reads a Phase 1 reply: the JSON object in it (bare, in a markdown fence or in
// prose), validated against the plan schema, then the rules in code: a plan that needs
// verification lists claims, and no claim text is blank or repeated. It returns the plan and
// its JSON, compact, or the violations.
func ParseCove2Plan(reply string) (Cove2Plan, []byte, []string) {
	var plan Cove2Plan
	schema, err := cove2PlanValidator()
	if err != nil {
		return plan, nil, []string{"plan schema: " + err.Error()}
	}
	doc, violations := checkJSON(reply, schema, "plan schema", &plan, func() []string {
		var v []string
		if plan.NeedsVerification && len(plan.Claims) == 0 {
			v = append(v, `needs_verification is true but "claims" is empty: list the draft's claims, or set needs_verification to false`)
		}
		seen := map[string]int{}
		for i, c := range plan.Claims {
			key := agreementKey(c.Text)
			switch j, dup := seen[key]; {
			case key == "":
				v = append(v, fmt.Sprintf("claims[%d].text is blank", i))
			case dup:
				v = append(v, fmt.Sprintf("claims[%d].text repeats claims[%d].text", i, j))
			default:
				seen[key] = i
			}
		}
		return v
	})
	if violations != nil {
		return Cove2Plan{}, nil, violations
	}
	return plan, doc, nil
}

// Review statuses of the Phase 3 reply.
const (
	ReviewConfirmed = "confirmed"
	ReviewCorrected = "corrected"
	ReviewUncertain = "uncertain"
)

// Bounds of a Phase 3 review.
const (
	cove2MaxReviewClaims  = 60
	cove2MaxCaveatChars   = 500
	cove2MaxBasis         = 10
	cove2MaxRevisedChars  = 60000
	cove2MaxSourceNumbers = 1000
)

// cove2ReviewSchema is the JSON Schema of the Phase 3 reply; strict as for cove2PlanSchema.
func cove2ReviewSchema(strict bool) map[string]any {
	claimRequired := []any{"id", "status"}
	if strict {
		claimRequired = append(claimRequired, "corrected", "caveat", "basis")
	}
	return map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"claims", "revised_response"},
		"properties": map[string]any{
			"claims": map[string]any{
				"type":     "array",
				"maxItems": cove2MaxReviewClaims,
				"items": map[string]any{
					"type":                 "object",
					"additionalProperties": false,
					"required":             claimRequired,
					"properties": map[string]any{
						"id":        map[string]any{"type": "integer", "minimum": 1, "maximum": cove2MaxReviewClaims},
						"status":    map[string]any{"type": "string", "enum": []any{ReviewConfirmed, ReviewCorrected, ReviewUncertain}},
						"corrected": map[string]any{"type": []any{"string", "null"}, "maxLength": cove2MaxClaimChars},
						"caveat":    map[string]any{"type": []any{"string", "null"}, "maxLength": cove2MaxCaveatChars},
						"basis": map[string]any{"type": []any{"array", "null"}, "maxItems": cove2MaxBasis,
							"items": map[string]any{"type": "integer", "minimum": 1, "maximum": cove2MaxSourceNumbers}},
					},
				},
			},
			"revised_response": map[string]any{"type": "string", "maxLength": cove2MaxRevisedChars},
		},
	}
}

var (
	cove2ReviewValidator = compiledSchema("https://github.com/corroborate/corroborate/internal/pipeline/cove2_review.schema.json",
		func() map[string]any { return cove2ReviewSchema(false) })
	cove2ReviewRequest = &OutputSchema{Name: "cove2_review", Schema: cove2ReviewSchema(true)}
)

// Cove2Review is a Phase 3 reply: a status per claim and the revised response.
type Cove2Review struct {
	Claims          []Cove2ClaimReview `json:"claims"`
	RevisedResponse string             `json:"revised_response"`
}

// Cove2ClaimReview is the reviewer's word on one claim, by the id the prompt gave it.
type Cove2ClaimReview struct {
	ID        int    `json:"id"`
	Status    string `json:"status"`
	Corrected string `json:"corrected"`
	Caveat    string `json:"caveat"`
	Basis     []int  `json:"basis"`
}

// ParseCove2Review reads a Phase 3 reply as ParseCove2Plan reads a plan; the rule in code is
// that the revised response is not blank. Which statuses a claim may have, and which sources it
// may cite, are enforced afterwards, when the review is applied.
func ParseCove2Review(reply string) (Cove2Review, []byte, []string) {
	var review Cove2Review
	schema, err := cove2ReviewValidator()
	if err != nil {
		return review, nil, []string{"review schema: " + err.Error()}
	}
	doc, violations := checkJSON(reply, schema, "review schema", &review, func() []string {
		if strings.TrimSpace(review.RevisedResponse) == "" {
			return []string{"revised_response is blank: give the revised draft"}
		}
		return nil
	})
	if violations != nil {
		return Cove2Review{}, nil, violations
	}
	return review, doc, nil
}
