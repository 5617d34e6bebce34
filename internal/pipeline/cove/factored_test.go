package cove

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// The specification's stub-model test for Factored: draft 'Hillary Clinton, Donald Trump,
// Theodore Roosevelt', checks answer Chicago, Queens, Manhattan; three verify calls, none
// containing the draft, and the revise prompt contains 'Chicago'.
func TestFactoredStubModel(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerDraft, Reply: sampleDraft},
		{Contains: pipeline.MarkerPlan, Reply: "Where was Hillary Clinton born?\nWhere was Donald Trump born?\nWhere was Theodore Roosevelt born?"},
		{Contains: "Where was Hillary Clinton born?</question>", Reply: "Chicago"},
		{Contains: "Where was Donald Trump born?</question>", Reply: "Queens"},
		{Contains: "Where was Theodore Roosevelt born?</question>", Reply: "Manhattan"},
		{Contains: pipeline.MarkerRevise, Reply: "Donald Trump, Theodore Roosevelt"},
	}}
	// The revise prompt also contains the questions, so its rule must win: put it first.
	model.Rules = append([]pipelinetest.StubRule{model.Rules[5]}, model.Rules[:5]...)

	res, err := Factored{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion})
	if err != nil {
		t.Fatal(err)
	}
	verifies := model.Sent(pipeline.StepVerify)
	if len(verifies) != 3 {
		t.Fatalf("verify calls: got %d, want 3", len(verifies))
	}
	for _, p := range verifies {
		if strings.Contains(p, sampleDraft) || strings.Contains(p, sampleQuestion) {
			t.Errorf("a verify prompt contains the draft or the question:\n%s", p)
		}
	}
	revise := model.Sent(pipeline.StepRevise)
	if len(revise) != 1 || !strings.Contains(revise[0], "Chicago") {
		t.Fatalf("the revise prompt must contain 'Chicago': %q", revise)
	}
	if got := model.Calls(); got != 3+3 {
		t.Errorf("model calls: got %d, want 3 + n = 6", got)
	}
	if res.Status != pipeline.StatusChecked || res.RevisedText != "Donald Trump, Theodore Roosevelt" {
		t.Errorf("result: status %q, revised %q", res.Status, res.RevisedText)
	}
	wantAnswers := []string{"Chicago", "Queens", "Manhattan"}
	for i, c := range res.Checks {
		if c.Position != i+1 || c.Answer != wantAnswers[i] || c.Status != pipeline.CheckAnswered {
			t.Errorf("check %d: %+v, want answer %q in plan order", i+1, c, wantAnswers[i])
		}
	}
	if len(res.Calls) != 6 || res.Calls[0].Step != pipeline.StepDraft || res.Calls[5].Step != pipeline.StepRevise {
		t.Errorf("trace: %d calls, first %q, last %q", len(res.Calls), res.Calls[0].Step, res.Calls[len(res.Calls)-1].Step)
	}
}

func TestFactoredNothingToCheckReturnsDraft(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerPlan, Reply: "Here are the questions:\n\n"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "The sky is blue today."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != pipeline.StatusNothingChecked || res.RevisedText != "The sky is blue today." || !res.DraftFromInput {
		t.Fatalf("got status %q revised %q fromInput %v", res.Status, res.RevisedText, res.DraftFromInput)
	}
	if model.Calls() != 1 {
		t.Fatalf("a job with text skips the Draft call and stops after the plan: got %d calls", model.Calls())
	}
}

func TestFactoredFailedVerifyIsRetriedOnceThenUnsure(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: "Rewrite the answer", Reply: "revised"},
		{Contains: pipeline.MarkerPlan, Reply: "1. Where was A born?\n2. Where was B born?"},
		{Contains: "Where was A born?</question>", Err: errors.New("HTTP 500")},
		{Contains: "Where was B born?</question>", Reply: "Unsure."},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A and B were born in X."})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Checks[0], res.Checks[1]
	if a.Status != pipeline.CheckFailed || a.Answer != "unsure" || a.Attempts != 2 || a.Error == "" {
		t.Errorf("failed check: %+v", a)
	}
	if b.Status != pipeline.CheckUnsure || b.Attempts != 1 {
		t.Errorf("unsure check: %+v", b)
	}
	if n := len(model.Sent(pipeline.StepVerify)); n != 3 {
		t.Errorf("verify calls: got %d, want 3 (one retry)", n)
	}
	if !strings.Contains(model.Sent(pipeline.StepRevise)[0], "Q: Where was A born?\nA: unsure\n") {
		t.Errorf("the failed check must reach the revise prompt as unsure:\n%s", model.Sent(pipeline.StepRevise)[0])
	}
}

func TestFactoredCapsQuestions(t *testing.T) {
	t.Parallel()
	var plan []string
	for i := range 15 {
		plan = append(plan, "Question number "+string(rune('a'+i))+"?")
	}
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: "Rewrite the answer", Reply: "revised"},
		{Contains: pipeline.MarkerPlan, Reply: strings.Join(plan, "\n")},
		{Contains: "Question number", Reply: "yes"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "draft text here", Options: pipeline.Options{MaxQuestions: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 4 || len(model.Sent(pipeline.StepVerify)) != 4 {
		t.Fatalf("checks %d, verify calls %d: want 4", len(res.Checks), len(model.Sent(pipeline.StepVerify)))
	}
	// The questions over the cap are listed, never dropped silently.
	if len(res.Claims) != 15 {
		t.Fatalf("claims: got %d, want 4 checked and 11 not checked", len(res.Claims))
	}
	for i, c := range res.Claims[4:] {
		if c.Text != plan[4+i] || c.Verdict != pipeline.VerdictNotChecked || c.Reason != "over the question cap of 4" || c.CheckPosition != 0 {
			t.Errorf("question over the cap: %+v", c)
		}
	}
}

func TestFactoredReportsEachCheckAsAClaim(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: "Rewrite the answer", Reply: "A was born in X, B in Y."},
		{Contains: pipeline.MarkerPlan, Reply: "Where was A born?\nWhere was B born?"},
		{Contains: "Where was A born?</question>", Reply: "X"},
		{Contains: "Where was B born?</question>", Reply: "unsure"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A was born in X, B in Y."})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Claims) != 2 {
		t.Fatalf("claims: %+v", res.Claims)
	}
	a, b := res.Claims[0], res.Claims[1]
	if a.Text != "Where was A born?" || a.Verdict != pipeline.VerdictSupported || a.VariantVerdict != pipeline.CheckAnswered || a.CheckPosition != 1 {
		t.Errorf("an answered check with the draft unchanged: %+v", a)
	}
	if b.Verdict != pipeline.VerdictUnverified || b.VariantVerdict != pipeline.CheckUnsure || b.Reason == "" || b.CheckPosition != 2 {
		t.Errorf("an unsure check: %+v", b)
	}
	if res.Agreed != nil {
		t.Errorf("Agreed is for Joint runs only")
	}
}

func TestFactoredFailedRevisePropagatesWithTrace(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: "Rewrite the answer", Err: pipeline.Permanent(errors.New("model not found"))},
		{Contains: pipeline.MarkerPlan, Reply: "Where was A born?"},
		{Contains: "Where was A born?</question>", Reply: "X"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A was born in X."})
	if !pipeline.IsPermanent(err) || !strings.Contains(err.Error(), "revise") {
		t.Fatalf("want a permanent revise error, got %v", err)
	}
	if len(res.Calls) != 3 || res.Calls[2].Error == "" {
		t.Fatalf("the failed run keeps its trace: %+v", res.Calls)
	}
}
