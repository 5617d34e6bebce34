package cove2

import (
	"fmt"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

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
						"tier":               map[string]any{"type": "string", "enum": []any{pipeline.TierDeep, pipeline.TierShallow}},
						"verification_query": map[string]any{"type": []any{"string", "null"}, "maxLength": evidence.MaxVerificationQueryBytes},
					},
				},
			},
		},
	}
}

var (
	cove2PlanValidator = pipeline.CompiledSchema("https://github.com/corroborate/corroborate/internal/pipeline/cove2_plan.schema.json",
		func() map[string]any { return cove2PlanSchema(false) })
	cove2PlanRequest = &pipeline.OutputSchema{Name: "cove2_plan", Schema: cove2PlanSchema(true)}
)

// Plan is a CoVe 2.0 Phase 1 plan.
type Plan struct {
	Draft             string      `json:"draft"`
	NeedsVerification bool        `json:"needs_verification"`
	Claims            []PlanClaim `json:"claims"`
}

// PlanClaim is one claim of a plan. VerificationQuery is nil when the plan gave none.
type PlanClaim struct {
	Text              string  `json:"text"`
	Tier              string  `json:"tier"`
	VerificationQuery *string `json:"verification_query"`
}

// ParsePlan reads a Phase 1 reply: the JSON object in it (bare, in a markdown fence or in
// prose), validated against the plan schema, then the rules in code: a plan that needs
// verification lists claims, and no claim text is blank or repeated. It returns the plan and
// its JSON, compact, or the violations.
func ParsePlan(reply string) (Plan, []byte, []string) {
	var plan Plan
	schema, err := cove2PlanValidator()
	if err != nil {
		return plan, nil, []string{"plan schema: " + err.Error()}
	}
	doc, violations := pipeline.CheckJSON(reply, schema, "plan schema", &plan, func() []string {
		var v []string
		if plan.NeedsVerification && len(plan.Claims) == 0 {
			v = append(v, `needs_verification is true but "claims" is empty: list the draft's claims, or set needs_verification to false`)
		}
		seen := map[string]int{}
		for i, c := range plan.Claims {
			key := pipeline.AgreementKey(c.Text)
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
		return Plan{}, nil, violations
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
		claimRequired = append(claimRequired, "corrected", "caveat", "basis", "settled_by")
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
						"settled_by": map[string]any{"type": []any{"array", "null"}, "maxItems": cove2MaxBasis,
							"items": map[string]any{"type": "integer", "minimum": 1, "maximum": cove2MaxReviewClaims}},
					},
				},
			},
			"revised_response": map[string]any{"type": "string", "maxLength": cove2MaxRevisedChars},
		},
	}
}

var (
	cove2ReviewValidator = pipeline.CompiledSchema("https://github.com/corroborate/corroborate/internal/pipeline/cove2_review.schema.json",
		func() map[string]any { return cove2ReviewSchema(false) })
	cove2ReviewRequest = &pipeline.OutputSchema{Name: "cove2_review", Schema: cove2ReviewSchema(true)}
)

// Review is a Phase 3 reply: a status per claim and the revised response.
type Review struct {
	Claims          []ClaimReview `json:"claims"`
	RevisedResponse string        `json:"revised_response"`
}

// ClaimReview is the reviewer's word on one claim, by the id the prompt gave it. SettledBy are
// the ids of the other claims whose verification results settle it, when its own does not
// (settle.go); code checks that each is a grounded result.
type ClaimReview struct {
	ID        int    `json:"id"`
	Status    string `json:"status"`
	Corrected string `json:"corrected"`
	Caveat    string `json:"caveat"`
	Basis     []int  `json:"basis"`
	SettledBy []int  `json:"settled_by,omitempty"`
}

// ParseReview reads a Phase 3 reply as ParsePlan reads a plan; the rule in code is
// that the revised response is not blank. Which statuses a claim may have, and which sources it
// may cite, are enforced afterwards, when the review is applied.
func ParseReview(reply string) (Review, []byte, []string) {
	var review Review
	schema, err := cove2ReviewValidator()
	if err != nil {
		return review, nil, []string{"review schema: " + err.Error()}
	}
	doc, violations := pipeline.CheckJSON(reply, schema, "review schema", &review, func() []string {
		if strings.TrimSpace(review.RevisedResponse) == "" {
			return []string{"revised_response is blank: give the revised draft"}
		}
		return nil
	})
	if violations != nil {
		return Review{}, nil, violations
	}
	return review, doc, nil
}
