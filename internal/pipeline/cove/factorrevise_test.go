package cove

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

const (
	frDraft                = "Hillary Clinton was born in New York. Donald Trump was born in Queens in 1948. Theodore Roosevelt was born in Manhattan."
	frClaimClinton         = "Hillary Clinton was born in New York"
	frClaimRoosevelt       = "Theodore Roosevelt was born in Manhattan"
	frCheckClinton         = "Where was Hillary Clinton born?"
	frCheckTrump           = "When and where was Donald Trump born?"
	frCheckRoosevelt       = "Where was Theodore Roosevelt born?"
	frPartialVerdictInLine = "PARTIALLY CONSISTENT: Donald Trump was born in Queens"
)

// frModel is the stub of the Factor + revise tests: three claims, each checked by its own
// question; plan and cross-check replies can be replaced.
func frModel(plan string, crossChecks map[string]pipelinetest.StubRule) *pipelinetest.StubModel {
	rules := []pipelinetest.StubRule{{Contains: pipeline.MarkerFinalAnswer, Reply: "Donald Trump was born in Queens. Theodore Roosevelt was born in Manhattan."}}
	for claim, rule := range crossChecks {
		rule.Contains = "<claim>" + claim + "</claim>"
		rules = append(rules, rule)
	}
	return &pipelinetest.StubModel{Rules: append(rules,
		pipelinetest.StubRule{Contains: pipeline.MarkerFactorRevisePlan, Reply: plan},
		pipelinetest.StubRule{Contains: "<question>" + frCheckClinton + "</question>", Reply: "Chicago"},
		pipelinetest.StubRule{Contains: "<question>" + frCheckTrump + "</question>", Reply: "Queens, New York, in 1946"},
		pipelinetest.StubRule{Contains: "<question>" + frCheckRoosevelt + "</question>", Reply: "Manhattan"},
		pipelinetest.StubRule{Contains: pipeline.MarkerDraft, Reply: frDraft},
	)}
}

const frPlan = "Claim: " + frClaimClinton + "\nQuestion: " + frCheckClinton + "\n" +
	"Claim: " + sampleClaim + "\nQuestion: " + frCheckTrump + "\n" +
	"Claim: " + frClaimRoosevelt + "\nQuestion: " + frCheckRoosevelt

// The specification's stub-model test for Factor + revise: the claim 'Donald Trump was born in
// Queens in 1948' gets PARTIALLY CONSISTENT, consistent part 'Donald Trump was born in Queens';
// the revise prompt pairs that claim with 'PARTIALLY CONSISTENT: Donald Trump was born in Queens'.
// Also: 3 + 2n calls, no verify prompt holds the draft, each cross-check holds exactly one claim.
func TestFactorReviseStubModel(t *testing.T) {
	t.Parallel()
	model := frModel(frPlan, map[string]pipelinetest.StubRule{
		frClaimClinton:   {Reply: "INCONSISTENT"},
		sampleClaim:      {Reply: frPartialVerdictInLine},
		frClaimRoosevelt: {Reply: "CONSISTENT"},
	})
	res, err := FactorRevise{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion})
	if err != nil {
		t.Fatal(err)
	}
	revise := model.Sent(pipeline.StepRevise)
	if len(revise) != 1 {
		t.Fatalf("revise calls: got %d, want 1", len(revise))
	}
	if !strings.Contains(revise[0], "Claim: "+sampleClaim+"\nVerdict: "+frPartialVerdictInLine+"\n") {
		t.Errorf("the revise prompt must pair %q with %q:\n%s", sampleClaim, frPartialVerdictInLine, revise[0])
	}
	if strings.Contains(revise[0], frDraft) {
		t.Errorf("the revise prompt gets the claims and verdicts, not the draft:\n%s", revise[0])
	}
	if got, n := model.Calls(), 3; got != 3+2*n {
		t.Errorf("model calls: got %d, want 3 + 2n = %d", got, 3+2*n)
	}
	verifies := model.Sent(pipeline.StepVerify)
	if len(verifies) != 3 {
		t.Fatalf("verify calls: got %d, want 3", len(verifies))
	}
	for _, p := range verifies {
		if strings.Contains(p, frDraft) || strings.Contains(p, sampleQuestion) || strings.Contains(p, "<claim>") {
			t.Errorf("a verify prompt holds the draft, the question or a claim:\n%s", p)
		}
	}
	crossChecks := model.Sent(pipeline.StepCrossCheck)
	if len(crossChecks) != 3 {
		t.Fatalf("cross-check calls: got %d, want 3", len(crossChecks))
	}
	for _, p := range crossChecks {
		n := 0
		for _, claim := range []string{frClaimClinton, sampleClaim, frClaimRoosevelt} {
			n += strings.Count(p, claim)
		}
		if n != 1 || strings.Contains(p, frDraft) {
			t.Errorf("a cross-check prompt must hold exactly one claim (%d) and no draft:\n%s", n, p)
		}
	}

	want := []pipeline.Claim{
		{Position: 1, Text: frClaimClinton, Verdict: pipeline.VerdictRefuted, VariantVerdict: CrossCheckInconsistent, CheckPosition: 1},
		{Position: 2, Text: sampleClaim, Verdict: pipeline.VerdictPartlySupported, VariantVerdict: CrossCheckPartial,
			ConsistentPart: "Donald Trump was born in Queens", CheckPosition: 2},
		{Position: 3, Text: frClaimRoosevelt, Verdict: pipeline.VerdictSupported, VariantVerdict: CrossCheckConsistent, CheckPosition: 3},
	}
	if len(res.Claims) != len(want) {
		t.Fatalf("claims: %+v", res.Claims)
	}
	for i := range want {
		if !reflect.DeepEqual(res.Claims[i], want[i]) {
			t.Errorf("claim %d: got %+v, want %+v", i+1, res.Claims[i], want[i])
		}
		if c := res.Checks[i]; c.Position != i+1 || c.ClaimPosition != i+1 || c.Status != pipeline.CheckAnswered {
			t.Errorf("check %d: %+v", i+1, c)
		}
	}
	if res.Status != pipeline.StatusChecked || res.Method != pipeline.MethodFactorRevise || res.Plan != frPlan ||
		res.RevisedText != "Donald Trump was born in Queens. Theodore Roosevelt was born in Manhattan." {
		t.Errorf("result: method %q status %q plan %q revised %q", res.Method, res.Status, res.Plan, res.RevisedText)
	}
	for _, c := range res.Calls {
		if (c.Step == pipeline.StepVerify || c.Step == pipeline.StepCrossCheck) && c.Target == 0 {
			t.Errorf("call %d (%s) names no claim: a removed claim must be traceable to it", c.Seq, c.Step)
		}
	}
}

func TestFactorReviseUnrecognizedCrossCheckIsInconsistent(t *testing.T) {
	t.Parallel()
	model := frModel(frPlan, map[string]pipelinetest.StubRule{
		frClaimClinton:   {Reply: "The evidence suggests Chicago, so not quite."},
		sampleClaim:      {Reply: "**Partially consistent:** \"Donald Trump was born in Queens\""},
		frClaimRoosevelt: {Reply: "- consistent"},
	})
	res, err := FactorRevise{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion, Text: frDraft})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Claims[0]
	if c.Verdict != pipeline.VerdictRefuted || c.VariantVerdict != CrossCheckInconsistent ||
		!strings.Contains(c.Reason, "The evidence suggests Chicago, so not quite.") || c.CheckPosition != 1 {
		t.Errorf("an unrecognized reply is INCONSISTENT and refuted, the raw reply kept: %+v", c)
	}
	revise := model.Sent(pipeline.StepRevise)[0]
	if !strings.Contains(revise, "Claim: "+frClaimClinton+"\nVerdict: INCONSISTENT\n") {
		t.Errorf("the revise prompt gets INCONSISTENT for it:\n%s", revise)
	}
	if !strings.Contains(revise, "Verdict: "+frPartialVerdictInLine+"\n") || !strings.Contains(revise, "Verdict: CONSISTENT\n") {
		t.Errorf("markdown verdicts are parsed:\n%s", revise)
	}
	if model.Calls() != 2+2*3 {
		t.Errorf("a job with text: got %d calls, want 2 + 2n = 8", model.Calls())
	}
}

func TestFactorReviseFailedCallsLeaveClaimsUnverified(t *testing.T) {
	t.Parallel()
	model := frModel(frPlan, map[string]pipelinetest.StubRule{
		frClaimClinton:   {Err: errors.New("HTTP 500")},
		sampleClaim:      {Reply: frPartialVerdictInLine},
		frClaimRoosevelt: {Reply: "CONSISTENT"},
	})
	// The Roosevelt check fails twice: it is recorded unsure and its claim stays unverified even
	// though the cross-check, seeing "unsure", said CONSISTENT.
	model.Rules = append([]pipelinetest.StubRule{{Contains: "<question>" + frCheckRoosevelt, Err: errors.New("timeout")}}, model.Rules...)
	res, err := FactorRevise{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion, Text: frDraft})
	if err != nil {
		t.Fatal(err)
	}
	clinton, roosevelt := res.Claims[0], res.Claims[2]
	if clinton.Verdict != pipeline.VerdictUnverified || clinton.VariantVerdict != CrossCheckInconsistent ||
		!strings.Contains(clinton.Reason, "cross-check call failed") {
		t.Errorf("a failed cross-check: %+v", clinton)
	}
	if n := len(model.Sent(pipeline.StepCrossCheck)); n != 4 {
		t.Errorf("cross-check calls: got %d, want 4 (one retry)", n)
	}
	if res.Checks[2].Status != pipeline.CheckFailed || res.Checks[2].Answer != "unsure" || res.Checks[2].Attempts != 2 {
		t.Errorf("the failed verify: %+v", res.Checks[2])
	}
	if roosevelt.Verdict != pipeline.VerdictUnverified || roosevelt.VariantVerdict != CrossCheckConsistent || roosevelt.Reason == "" {
		t.Errorf("a claim whose check got no answer: %+v", roosevelt)
	}
	if !strings.Contains(strings.Join(model.Sent(pipeline.StepCrossCheck), "\n"), "Q: "+frCheckRoosevelt+"\nA: unsure\n") {
		t.Errorf("the cross-check of a failed verify gets the answer unsure")
	}
	if !strings.Contains(model.Sent(pipeline.StepRevise)[0], "Claim: "+frClaimClinton+"\nVerdict: INCONSISTENT\n") {
		t.Errorf("a failed cross-check reaches the revise prompt as INCONSISTENT:\n%s", model.Sent(pipeline.StepRevise)[0])
	}
}

func TestFactorReviseCapsClaims(t *testing.T) {
	t.Parallel()
	var plan []string
	for i := range 5 {
		plan = append(plan, fmt.Sprintf("%d. **Claim:** claim %c\n   **Question:** check %c?", i+1, 'a'+i, 'a'+i))
	}
	plan = append(plan, "Claim: a claim with no question")
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerFinalAnswer, Reply: "final"},
		{Contains: "<claim>", Reply: "CONSISTENT"},
		{Contains: pipeline.MarkerFactorRevisePlan, Reply: "Here are the pairs:\n\n" + strings.Join(plan, "\n\n")},
		{Contains: "<question>" + "check", Reply: "yes"},
	}}
	res, err := FactorRevise{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "draft", Options: pipeline.Options{MaxQuestions: 3, Concurrency: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 3 || len(model.Sent(pipeline.StepVerify)) != 3 || len(model.Sent(pipeline.StepCrossCheck)) != 3 {
		t.Fatalf("checks %d, verify calls %d, cross-checks %d: want 3", len(res.Checks), len(model.Sent(pipeline.StepVerify)), len(model.Sent(pipeline.StepCrossCheck)))
	}
	if model.Calls() != 2+2*3 {
		t.Errorf("model calls: got %d, want 2 + 2n = 8", model.Calls())
	}
	if len(res.Claims) != 6 {
		t.Fatalf("claims: got %d, want 3 checked, 2 over the cap, 1 without question: %+v", len(res.Claims), res.Claims)
	}
	for _, c := range res.Claims[3:5] {
		if c.Verdict != pipeline.VerdictNotChecked || c.Reason != "over the claim cap of 3" || c.CheckPosition != 0 {
			t.Errorf("a claim over the cap: %+v", c)
		}
	}
	if c := res.Claims[5]; c.Text != "a claim with no question" || c.Verdict != pipeline.VerdictNotChecked || c.Reason == "" {
		t.Errorf("a claim without question: %+v", c)
	}
	if revise := model.Sent(pipeline.StepRevise)[0]; strings.Contains(revise, "claim d") || !strings.Contains(revise, "Claim: claim c\nVerdict: CONSISTENT\n") {
		t.Errorf("the revise prompt holds the checked claims only:\n%s", revise)
	}
}

func TestFactorReviseNothingCheckedReturnsDraft(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{{Contains: pipeline.MarkerFactorRevisePlan, Reply: "Claim: A was born in X\n\nThat is the only claim."}}}
	res, err := FactorRevise{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A was born in X."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != pipeline.StatusNothingChecked || res.RevisedText != "A was born in X." || res.StatusReason == "" {
		t.Fatalf("status %q reason %q revised %q", res.Status, res.StatusReason, res.RevisedText)
	}
	if model.Calls() != 1 {
		t.Fatalf("the run stops after the plan: %d calls", model.Calls())
	}
	if len(res.Claims) != 1 || res.Claims[0].Verdict != pipeline.VerdictNotChecked || res.Claims[0].Reason == "" {
		t.Errorf("the claim without question is listed as not checked: %+v", res.Claims)
	}
}

func TestFactorReviseFailedRevisePropagatesWithTrace(t *testing.T) {
	t.Parallel()
	model := frModel(frPlan, map[string]pipelinetest.StubRule{frClaimClinton: {Reply: "CONSISTENT"}, sampleClaim: {Reply: "CONSISTENT"}, frClaimRoosevelt: {Reply: "CONSISTENT"}})
	model.Rules[0] = pipelinetest.StubRule{Contains: pipeline.MarkerFinalAnswer, Err: pipeline.Permanent(errors.New("model not found"))}
	res, err := FactorRevise{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion, Text: frDraft})
	if !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), pipeline.StepRevise) {
		t.Fatalf("want a permanent revise error, got %v", err)
	}
	if len(res.Calls) != 2+2*3 || res.Calls[len(res.Calls)-1].Error == "" {
		t.Fatalf("the failed run keeps its trace: %d calls", len(res.Calls))
	}
}
