package cove

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// The specification's stub-model test for Two-step: draft three names, plan three questions,
// answers 'Chicago', 'Queens', 'Manhattan'; four model calls, and the verify-all prompt contains
// neither the draft nor the user's question.
func TestTwoStepStubModel(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerTwoStepRevise, Reply: "Donald Trump, Theodore Roosevelt"},
		{Contains: pipeline.MarkerVerifyAll, Reply: "1. Chicago\n2. Queens\n3. Manhattan"},
		{Contains: pipeline.MarkerPlan, Reply: "Where was Hillary Clinton born?\nWhere was Donald Trump born?\nWhere was Theodore Roosevelt born?"},
		{Contains: pipeline.MarkerDraft, Reply: sampleDraft},
	}}
	res, err := TwoStep{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if got := model.Calls(); got != 4 {
		t.Fatalf("model calls: got %d, want exactly 4", got)
	}
	verifyAll := model.Sent(pipeline.StepVerifyAll)
	if len(verifyAll) != 1 {
		t.Fatalf("verify-all calls: got %d, want 1", len(verifyAll))
	}
	if strings.Contains(verifyAll[0], sampleDraft) || strings.Contains(verifyAll[0], sampleQuestion) {
		t.Errorf("the verify-all prompt contains the draft or the user's question:\n%s", verifyAll[0])
	}
	if !strings.Contains(verifyAll[0], "\n1. Where was Hillary Clinton born?\n2. Where was Donald Trump born?\n3. Where was Theodore Roosevelt born?\n") {
		t.Errorf("the questions are numbered from 1 in plan order:\n%s", verifyAll[0])
	}
	revise := model.Sent(pipeline.StepRevise)
	if len(revise) != 1 || !strings.Contains(revise[0], "Q: Where was Hillary Clinton born?\nA: Chicago\n") {
		t.Fatalf("the revise prompt pairs each question with its answer: %q", revise)
	}
	wantAnswers := []string{"Chicago", "Queens", "Manhattan"}
	if len(res.Checks) != 3 {
		t.Fatalf("checks: %+v", res.Checks)
	}
	for i, c := range res.Checks {
		if c.Position != i+1 || c.Answer != wantAnswers[i] || c.Status != pipeline.CheckAnswered {
			t.Errorf("check %d: %+v, want answer %q", i+1, c, wantAnswers[i])
		}
	}
	if res.Status != pipeline.StatusChecked || res.RevisedText != "Donald Trump, Theodore Roosevelt" || res.Method != pipeline.MethodTwoStep {
		t.Errorf("result: method %q status %q revised %q", res.Method, res.Status, res.RevisedText)
	}
	if len(res.Claims) != 3 || res.Claims[0].CheckPosition != 1 || res.Claims[0].Verdict != pipeline.VerdictUnverified {
		t.Errorf("claims: %+v", res.Claims)
	}
}

func TestTwoStepMissingNumberIsUnsure(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerTwoStepRevise, Reply: "revised"},
		{Contains: pipeline.MarkerVerifyAll, Reply: "Here are my answers:\n\n**1.** Chicago\n3) I'm unsure\n4. Albany"},
		{Contains: pipeline.MarkerPlan, Reply: "1. Where was A born?\n2. Where was B born?\n3. Where was C born?"},
	}}
	res, err := TwoStep{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A, B and C were born in X."})
	if err != nil {
		t.Fatal(err)
	}
	if model.Calls() != 3 {
		t.Errorf("a job with text makes three calls: got %d", model.Calls())
	}
	a, b, c := res.Checks[0], res.Checks[1], res.Checks[2]
	if a.Answer != "Chicago" || a.Status != pipeline.CheckAnswered {
		t.Errorf("check 1: %+v", a)
	}
	if b.Answer != "unsure" || b.Status != pipeline.CheckFailed || !strings.Contains(b.Error, "numbered 2") {
		t.Errorf("a missing number is recorded unsure: %+v", b)
	}
	if c.Status != pipeline.CheckUnsure {
		t.Errorf("check 3 answered unsure: %+v", c)
	}
	if len(res.Checks) != 3 {
		t.Errorf("answer 4 matches no question: %+v", res.Checks)
	}
	if !strings.Contains(model.Sent(pipeline.StepRevise)[0], "Q: Where was B born?\nA: unsure\n") {
		t.Errorf("the missing answer reaches the revise prompt as unsure:\n%s", model.Sent(pipeline.StepRevise)[0])
	}
	for i, want := range []string{pipeline.VerdictUnverified, pipeline.VerdictUnverified, pipeline.VerdictUnverified} {
		if res.Claims[i].Verdict != want || res.Claims[i].Reason == "" {
			t.Errorf("claim %d: %+v", i+1, res.Claims[i])
		}
	}
	if !strings.Contains(res.Claims[1].Reason, "no answer numbered 2") {
		t.Errorf("the reason names the missing number: %q", res.Claims[1].Reason)
	}
}

func TestTwoStepCapsQuestions(t *testing.T) {
	t.Parallel()
	var plan []string
	for i := range 12 {
		plan = append(plan, fmt.Sprintf("Question number %c?", 'a'+i))
	}
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerTwoStepRevise, Reply: "draft text here"},
		{Contains: pipeline.MarkerVerifyAll, Reply: "1. yes\n2. yes\n3. yes\n4. yes\n5. yes\n6. yes\n7. yes\n8. yes\n9. yes\n10. yes\n11. yes"},
		{Contains: pipeline.MarkerPlan, Reply: strings.Join(plan, "\n")},
	}}
	res, err := TwoStep{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "draft text here"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != pipeline.DefaultMaxQuestions {
		t.Fatalf("checks: got %d, want the default cap %d", len(res.Checks), pipeline.DefaultMaxQuestions)
	}
	prompt := model.Sent(pipeline.StepVerifyAll)[0]
	if !strings.Contains(prompt, "10. Question number j?") || strings.Contains(prompt, "11.") {
		t.Errorf("the verify-all prompt holds exactly the capped questions:\n%s", prompt)
	}
	if len(res.Claims) != 12 {
		t.Fatalf("claims: got %d, want 10 checked and 2 not checked", len(res.Claims))
	}
	for _, c := range res.Claims[:10] {
		if c.Verdict != pipeline.VerdictSupported {
			t.Errorf("an answered check with the draft unchanged is supported: %+v", c)
		}
	}
	for _, c := range res.Claims[10:] {
		if c.Verdict != pipeline.VerdictNotChecked || c.Reason != "over the question cap of 10" || c.CheckPosition != 0 {
			t.Errorf("a question over the cap: %+v", c)
		}
	}
}

func TestTwoStepNothingCheckedReturnsDraft(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{{Contains: pipeline.MarkerPlan, Reply: "```\n```"}}}
	res, err := TwoStep{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "The sky is blue."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != pipeline.StatusNothingChecked || res.RevisedText != "The sky is blue." || res.StatusReason == "" {
		t.Fatalf("status %q reason %q revised %q", res.Status, res.StatusReason, res.RevisedText)
	}
	if model.Calls() != 1 {
		t.Fatalf("the run stops after the plan: %d calls", model.Calls())
	}
}

func TestTwoStepFailedVerifyAllFailsTheRun(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerVerifyAll, Err: errors.New("HTTP 500")},
		{Contains: pipeline.MarkerPlan, Reply: "Where was A born?"},
	}}
	res, err := TwoStep{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A was born in X."})
	if err == nil || !strings.Contains(err.Error(), pipeline.StepVerifyAll) {
		t.Fatalf("want a verify_all error, got %v", err)
	}
	if len(res.Calls) != 2 || res.Calls[1].Error == "" || len(model.Sent(pipeline.StepRevise)) != 0 {
		t.Fatalf("the failed run keeps its trace and makes no revise call: %+v", res.Calls)
	}
}

func TestVerifyAllPromptHoldsOnlyTheQuestions(t *testing.T) {
	t.Parallel()
	got, err := verifyAllPrompt([]string{"Where was A born?", "When?"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Answer each question with a short, factual answer. If you are not sure,\n" +
		"say \"unsure\". Number your answers to match the questions.\n\n1. Where was A born?\n2. When?\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestPairNumberedAnswersStripsAnEchoedQuestion(t *testing.T) {
	t.Parallel()
	checks := pairNumberedAnswers([]string{"Where was A born?", "Where was B born?"},
		ParseNumberedAnswers("1. Where was A born? - Chicago\n2. Where was B born?"))
	if checks[0].Answer != "Chicago" || checks[0].Status != pipeline.CheckAnswered {
		t.Errorf("check 1: %+v", checks[0])
	}
	if checks[1].Answer != "unsure" || checks[1].Status != pipeline.CheckFailed || !strings.Contains(checks[1].Error, "gave it no answer") {
		t.Errorf("an echoed question alone is no answer: %+v", checks[1])
	}
}
