package cove2

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// A claim whose own verification was weak is settled by other claims' grounded results, cited in
// the same review (issue 22, case 5): claim 3 "Eatza Pizza and Your Pie were not founded in the
// same state" after claims 1 and 2 established Arizona and Georgia.
const (
	pizzaDraft = "Eatza Pizza was founded in Arizona. Your Pie was founded in Georgia. Eatza Pizza and Your Pie were not founded in the same state."
	pizza1     = "Eatza Pizza was founded in Arizona"
	pizza2     = "Your Pie was founded in Georgia"
	pizza3     = "Eatza Pizza and Your Pie were not founded in the same state"
	qPizza1    = "In which state was Eatza Pizza founded?"
	qPizza2    = "In which state was Your Pie founded?"
	qPizza3    = "In which states were Eatza Pizza and Your Pie founded?"
)

var (
	eatzaPage = pipelinetest.SearchResult("https://en.wikipedia.org/wiki/Eatza_Pizza", "Wikipedia",
		"Eatza Pizza was a pizza buffet restaurant chain founded in 1999 in Phoenix, Arizona.")
	yourPiePage = pipelinetest.SearchResult("https://www.yourpie.com/about", "Your Pie",
		"Your Pie is a fast casual pizza chain founded in 2008 in Athens, Georgia.")
	pizzaList = pipelinetest.SearchResult("https://www.pizzatoday.example/top-chains", "Pizza Today",
		"The top 100 pizza chains of the year, ranked by sales.")
)

// pizzaReview writes a finalize reply by hand, so that the reply a reviewer gives can carry any
// field, settled_by included.
func pizzaReview(t *testing.T, settle3 map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"claims": []map[string]any{
			{"id": 1, "status": ReviewConfirmed, "basis": []int{1}},
			{"id": 2, "status": ReviewConfirmed, "basis": []int{2}},
			settle3,
		},
		"revised_response": "Eatza Pizza was founded in Arizona [1]. Your Pie was founded in Georgia [2]. Eatza Pizza and Your Pie were not founded in the same state [1, 2].",
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pizzaScript: claims 1 and 2 are grounded in a cited, quote-checked passage each (Medium: one
// unofficial source); claim 3's own verifier finds nothing that answers it.
func pizzaScript(t *testing.T, settle3 map[string]any) cove2Script {
	return cove2Script{
		plan: cove2PlanReply(true, deepClaim(pizza1, qPizza1), deepClaim(pizza2, qPizza2), deepClaim(pizza3, qPizza3)),
		verify: map[string]string{
			qPizza1: verifierReply("Arizona", "founded in 1999 in Phoenix, Arizona", "High", eatzaPage.URL),
			qPizza2: verifierReply("Georgia", "founded in 2008 in Athens, Georgia", "High", yourPiePage.URL),
			qPizza3: "- Answer: unable to verify\n- Evidence:\n- Sources:\n- Confidence: Low",
		},
		results:  map[string][]pipeline.SearchResult{qPizza1: {eatzaPage}, qPizza2: {yourPiePage}, qPizza3: {pizzaList}},
		finalize: pizzaReview(t, settle3),
	}
}

func TestCove2ReviewSettlesAClaimFromOtherClaimsGroundedResults(t *testing.T) {
	t.Parallel()
	s := setupCove2(pizzaScript(t, map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1, 2}, "settled_by": []int{1, 2}}))
	res := mustRun(t, s, pipeline.Input{Text: pizzaDraft})

	c3 := claimAt(t, res, 3)
	if c3.Text != pizza3 || c3.Verdict != pipeline.VerdictSupported || c3.VariantVerdict != ReviewConfirmed ||
		c3.Confidence != pipeline.ConfidenceMedium || !slices.Equal(c3.Citations, []int{1, 2}) {
		t.Errorf("claim 3, settled by the results of claims 1 and 2: %+v", c3)
	}
	if !strings.Contains(c3.Reason, "claims 1 and 2") {
		t.Errorf("claim 3's reason does not name the results that settle it: %q", c3.Reason)
	}
	if slices.Contains(c3.QueryFlags, flagReviewNotGrounded) || hasFlag(res, flagReviewNotGrounded) {
		t.Errorf("an honest settlement is flagged: %v %v", c3.QueryFlags, res.ReviewFlags)
	}
	// What claim 3 cites is stored as its own evidence rows, marked with the claim that found it,
	// so that claim_results.cited_passages shows the passages that settle it.
	var from []int
	for _, e := range res.Evidence {
		if e.ClaimPosition == 3 && e.SourceNumber > 0 {
			if e.Quote == "" {
				t.Errorf("claim 3's cited source %s has no passage", e.URL)
			}
			from = append(from, e.FromClaimPosition)
		}
	}
	if !slices.Equal(from, []int{1, 2}) {
		t.Errorf("claim 3's cited evidence comes from claims %v, want [1 2]; evidence %+v", from, res.Evidence)
	}
	if !strings.Contains(res.Report, "- Checked: 3 | Confirmed: 3 | Corrected: 0 | Uncertain: 0\n") {
		t.Errorf("report:\n%s", res.Report)
	}
	// The reviewer was told which results may settle claim 3; its verifiers saw nothing of it.
	finalize := s.model.Sent(pipeline.StepFinalize)
	if len(finalize) != 1 || !strings.Contains(finalize[0], `<claim id="3" tier="deep" allowed="uncertain" settle_from="1 2">`) {
		t.Errorf("finalize prompt:\n%s", finalize)
	}
	for _, p := range s.model.Sent(pipeline.StepVerify) {
		if strings.Contains(p, "Arizona") && strings.Contains(p, "Georgia") {
			t.Errorf("a verifier saw another claim's finding:\n%s", p)
		}
	}
}

// A dishonest reviewer cannot get past the cap: claim 3 confirmed by citing a result that is not
// grounded, its own weak result, a claim that does not exist, a shallow claim's, or nothing at
// all. What is returned (and stored) is claim 3 unverified, uncertain, uncited, and flagged
// review_not_grounded, on the claim and on the run.
func TestCove2ReviewCannotSettleFromUngroundedResults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		settle  map[string]any
		script  func(*cove2Script)
		because string
	}{
		{"a result that is not grounded", map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1, 2}, "settled_by": []int{1, 2}},
			func(s *cove2Script) {
				// Claim 2's verifier quotes a passage its source does not hold: no grounded result.
				s.verify[qPizza2] = verifierReply("Georgia", "founded in Atlanta, Georgia", "High", yourPiePage.URL)
			}, "claim 2's result is not grounded"},
		{"its own weak result", map[string]any{"id": 3, "status": ReviewConfirmed, "settled_by": []int{3}}, nil, "its own result"},
		{"a claim that does not exist", map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1}, "settled_by": []int{1, 9}}, nil, "there is no claim 9"},
		{"a shallow claim", map[string]any{"id": 3, "status": ReviewCorrected, "corrected": "Eatza Pizza and Your Pie were founded in the same state", "settled_by": []int{1, 2}},
			func(s *cove2Script) {
				s.plan = cove2PlanReply(true, deepClaim(pizza1, qPizza1), shallowClaim(pizza2), deepClaim(pizza3, qPizza3))
			}, "claim 2 was not verified"},
		{"nothing", map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1, 2}}, nil, "cites no other claim's result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := pizzaScript(t, tt.settle)
			if tt.script != nil {
				tt.script(&script)
			}
			s := setupCove2(script)
			res := mustRun(t, s, pipeline.Input{Text: pizzaDraft})
			c3 := claimAt(t, res, 3)
			if c3.Verdict != pipeline.VerdictUnverified || c3.VariantVerdict != ReviewUncertain || len(c3.Citations) != 0 || c3.CorrectedText != "" {
				t.Errorf("claim 3 got past the cap: %+v", c3)
			}
			if _, cites := tt.settle["settled_by"]; cites && !strings.Contains(c3.Reason, tt.because) {
				t.Errorf("claim 3's reason does not say why its settlement was refused: %q", c3.Reason)
			}
			if !slices.Contains(c3.QueryFlags, flagReviewNotGrounded) {
				t.Errorf("claim 3 does not carry %s: %v", flagReviewNotGrounded, c3.QueryFlags)
			}
			if !slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
				return f.Code == flagReviewNotGrounded && strings.Contains(f.Detail, "claim 3") && strings.Contains(f.Detail, tt.because)
			}) {
				t.Errorf("no %s flag for claim 3 saying %q: %v", flagReviewNotGrounded, tt.because, res.ReviewFlags)
			}
			for _, e := range res.Evidence {
				if e.ClaimPosition == 3 && (e.SourceNumber > 0 || e.FromClaimPosition > 0) {
					t.Errorf("claim 3 cites evidence it was not allowed: %+v", e)
				}
			}
			if got := evidence.CountClaims(res.Claims); got.Uncertain < 1 {
				t.Errorf("counts: %+v", got)
			}
		})
	}
}

// flagReviewNotGrounded is the flag's code as reports and SQL select on it.
const flagReviewNotGrounded = "review_not_grounded"

// A shallow claim the other claims' results settle is confirmed on them: "The two chains were
// not founded in the same state", after claims 1 and 2 established Arizona and Georgia. It has
// no verification of its own, so only other claims' grounded results can confirm it, and the
// review must cite them (a relay run, FEVEROUS-S "Other" 441-480: three true statements of 40
// stayed unverified on a shallow claim such as "distributing query workload to front-end
// systems improves scalability", every deep claim confirmed).
const shallowPizza3 = "The chains were not founded in the same state"

func shallowPizzaScript(t *testing.T, settle3 map[string]any) cove2Script {
	s := pizzaScript(t, settle3)
	s.plan = cove2PlanReply(true, deepClaim(pizza1, qPizza1), deepClaim(pizza2, qPizza2), shallowClaim(shallowPizza3))
	return s
}

func TestCove2ReviewSettlesAShallowClaimFromOtherClaimsGroundedResults(t *testing.T) {
	t.Parallel()
	s := setupCove2(shallowPizzaScript(t, map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1, 2}, "settled_by": []int{1, 2}}))
	res := mustRun(t, s, pipeline.Input{Text: pizzaDraft})

	c3 := claimAt(t, res, 3)
	if c3.Tier != pipeline.TierShallow || c3.Verdict != pipeline.VerdictSupported || c3.VariantVerdict != ReviewConfirmed ||
		c3.Confidence != pipeline.ConfidenceMedium || !slices.Equal(c3.Citations, []int{1, 2}) {
		t.Errorf("shallow claim 3, settled by the results of claims 1 and 2: %+v", c3)
	}
	if !strings.Contains(c3.Reason, "claims 1 and 2") {
		t.Errorf("claim 3's reason does not name the results that settle it: %q", c3.Reason)
	}
	if hasFlag(res, flagReviewNotGrounded) {
		t.Errorf("an honest settlement is flagged: %v", res.ReviewFlags)
	}
	finalize := s.model.Sent(pipeline.StepFinalize)
	if len(finalize) != 1 || !strings.Contains(finalize[0], `<claim id="3" tier="shallow" allowed="confirmed|uncertain" settle_from="1 2">`) {
		t.Errorf("finalize prompt:\n%s", finalize)
	}
	if !strings.Contains(res.Report, "- Checked: 3 | Confirmed: 3 | Corrected: 0 | Uncertain: 0\n") {
		t.Errorf("report:\n%s", res.Report)
	}
}

// A dishonest reviewer cannot confirm or rewrite a shallow claim by its own say-so: confirmed
// citing nothing or a result that is not grounded, or corrected on other claims' results
// (shallow claims get caveats only). Claim 3 is stored unverified, uncertain and uncited.
func TestCove2ReviewCannotSettleAShallowClaimWithoutGroundedResults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		claim3  string
		settle  map[string]any
		script  func(*cove2Script)
		because string
	}{
		{"nothing cited", shallowPizza3, map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1, 2}}, nil, "not searched, so not confirmed"},
		{"a result that is not grounded", shallowPizza3, map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{1, 2}, "settled_by": []int{1, 2}},
			func(s *cove2Script) {
				s.verify[qPizza2] = verifierReply("Georgia", "founded in Atlanta, Georgia", "High", yourPiePage.URL)
			}, "claim 2's result is not grounded"},
		// An opinion is not confirmed by what a source says of it: a relay run's reviewer
		// confirmed "The primary schools is one of the best" on a page calling the school "one
		// of the best schools in Mandera county" (FEVEROUS-S "Other" 481-520).
		{"an opinion", "The second chain has the best pizza", map[string]any{"id": 3, "status": ReviewConfirmed, "basis": []int{2}, "settled_by": []int{2}},
			nil, `an opinion ("best")`},
		{"a correction", shallowPizza3, map[string]any{"id": 3, "status": ReviewCorrected, "corrected": "The chains were founded in the same state", "basis": []int{1, 2}, "settled_by": []int{1, 2}},
			nil, "caveats only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := shallowPizzaScript(t, tt.settle)
			script.plan = cove2PlanReply(true, deepClaim(pizza1, qPizza1), deepClaim(pizza2, qPizza2), shallowClaim(tt.claim3))
			if tt.script != nil {
				tt.script(&script)
			}
			s := setupCove2(script)
			res := mustRun(t, s, pipeline.Input{Text: pizzaDraft + " " + tt.claim3 + "."})
			c3 := claimAt(t, res, 3)
			if c3.Verdict != pipeline.VerdictUnverified || c3.VariantVerdict != ReviewUncertain || len(c3.Citations) != 0 || c3.CorrectedText != "" {
				t.Errorf("claim 3 got past the rules: %+v", c3)
			}
			if !strings.Contains(c3.Reason, tt.because) {
				t.Errorf("claim 3's reason does not say %q: %q", tt.because, c3.Reason)
			}
			for _, e := range res.Evidence {
				if e.ClaimPosition == 3 && (e.SourceNumber > 0 || e.FromClaimPosition > 0) {
					t.Errorf("claim 3 cites evidence it was not allowed: %+v", e)
				}
			}
		})
	}
}

// What makes a shallow claim an opinion, measured on the shallow claims of session 37's relay
// runs: the two opinions a reviewer confirmed on a source that held them, beside the logic and
// common knowledge that other claims' results may settle.
func TestOpinionWord(t *testing.T) {
	t.Parallel()
	for claim, want := range map[string]string{
		"The primary schools is one of the best":                                "best",
		"These are Shannon's most memorable roles":                              "most memorable",
		"She was a famous singer":                                               "famous",
		"It was the least successful of his films":                              "least successful",
		"The porous lava walls prevent the fish from escaping":                  "",
		"Distributing query workload to front-end systems improves scalability": "",
		"Most of the residents speak Welsh":                                     "",
		"It is the largest city of the region":                                  "",
		"No elections were held there because of their status":                  "",
	} {
		if got := opinionWord(claim); got != want {
			t.Errorf("opinionWord(%q) = %q, want %q", claim, got, want)
		}
	}
}
