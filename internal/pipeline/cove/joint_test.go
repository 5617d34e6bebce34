package cove

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// The specification's stub-model test for Joint: a joint reply with three Q and A pairs; exactly
// three model calls, and the revise prompt contains all three answers.
func TestJointStubModel(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerJointRevise, Reply: "Donald Trump, Theodore Roosevelt"},
		{Contains: pipeline.MarkerJointPlan, Reply: "Q: Where was Hillary Clinton born?\nA: Chicago\n" +
			"Q: Where was Donald Trump born?\nA: Queens\nQ: Where was Theodore Roosevelt born?\nA: Manhattan"},
		{Contains: pipeline.MarkerDraft, Reply: sampleDraft},
	}}
	res, err := Joint{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if got := model.Calls(); got != 3 {
		t.Fatalf("model calls: got %d, want exactly 3", got)
	}
	revise := model.Sent(pipeline.StepRevise)
	if len(revise) != 1 {
		t.Fatalf("revise calls: got %d, want 1", len(revise))
	}
	for _, answer := range []string{"Chicago", "Queens", "Manhattan"} {
		if !strings.Contains(revise[0], answer) {
			t.Errorf("the revise prompt must contain %q:\n%s", answer, revise[0])
		}
	}
	// The pairs reach the revise prompt in plan order, in the documented rendering of {{checks}}.
	wantChecks := "<checks>\nQ: Where was Hillary Clinton born?\nA: Chicago\nQ: Where was Donald Trump born?\nA: Queens\n" +
		"Q: Where was Theodore Roosevelt born?\nA: Manhattan\n</checks>"
	if !strings.Contains(revise[0], wantChecks) {
		t.Errorf("the revise prompt must hold the checks as\n%s\ngot:\n%s", wantChecks, revise[0])
	}
	if res.Status != pipeline.StatusChecked || res.RevisedText != "Donald Trump, Theodore Roosevelt" || res.Method != pipeline.MethodJoint {
		t.Errorf("result: method %q status %q revised %q", res.Method, res.Status, res.RevisedText)
	}
	if !strings.Contains(res.Plan, "Q: Where was Theodore Roosevelt born?\nA: Manhattan") {
		t.Errorf("the joint reply must be kept in full: %q", res.Plan)
	}
	if len(res.Checks) != 3 || res.Checks[2].Answer != "Manhattan" || res.Checks[2].Position != 3 {
		t.Errorf("checks: %+v", res.Checks)
	}
	if res.Agreed == nil || *res.Agreed {
		t.Errorf("a revision that removed a name did not agree with the draft: %v", res.Agreed)
	}
	steps := []string{pipeline.StepDraft, pipeline.StepPlanAnswer, pipeline.StepRevise}
	for i, c := range res.Calls {
		if c.Step != steps[i] {
			t.Errorf("call %d: step %q, want %q", i+1, c.Step, steps[i])
		}
	}
}

func TestJointAgreementWhenRevisionKeepsTheDraft(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerJointRevise, Reply: "  hillary clinton; Donald Trump, Theodore Roosevelt.\n"},
		{Contains: pipeline.MarkerJointPlan, Reply: "Q: Where was Hillary Clinton born?\nA: Chicago\nQ: Who is he?\nA: unsure"},
	}}
	res, err := Joint{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion, Text: sampleDraft})
	if err != nil {
		t.Fatal(err)
	}
	if res.Agreed == nil || !*res.Agreed {
		t.Fatalf("a revision equal to the draft up to case, punctuation and whitespace agrees: %v", res.Agreed)
	}
	if model.Calls() != 2 {
		t.Errorf("a job with text skips the Draft call: %d calls, want 2", model.Calls())
	}
	want := []pipeline.Claim{
		{Position: 1, Text: "Where was Hillary Clinton born?", Verdict: pipeline.VerdictSupported, VariantVerdict: pipeline.CheckAnswered,
			Reason: "the check was answered and the revision left the draft unchanged", CheckPosition: 1},
		{Position: 2, Text: "Who is he?", Verdict: pipeline.VerdictUnverified, VariantVerdict: pipeline.CheckUnsure,
			Reason: "the check was answered unsure", CheckPosition: 2},
	}
	if len(res.Claims) != len(want) {
		t.Fatalf("claims: %+v", res.Claims)
	}
	for i := range want {
		if !reflect.DeepEqual(res.Claims[i], want[i]) {
			t.Errorf("claim %d: got %+v, want %+v", i+1, res.Claims[i], want[i])
		}
	}
}

func TestJointQuestionWithoutAnswerIsSkipped(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerJointRevise, Reply: "Donald Trump"},
		{Contains: pipeline.MarkerJointPlan, Reply: "Here you go:\nQ: Where was Hillary Clinton born?\nQ: Where was Donald Trump born?\nA: Queens"},
	}}
	res, err := Joint{Model: model}.Run(context.Background(), pipeline.Input{Question: sampleQuestion, Text: sampleDraft})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 1 || res.Checks[0].Question != "Where was Donald Trump born?" || res.Checks[0].Answer != "Queens" {
		t.Fatalf("checks: %+v", res.Checks)
	}
	revise := model.Sent(pipeline.StepRevise)[0]
	if strings.Contains(revise, "Hillary Clinton born?") {
		t.Errorf("the unanswered question reached the revise prompt:\n%s", revise)
	}
	last := res.Claims[len(res.Claims)-1]
	if len(res.Claims) != 2 || last.Text != "Where was Hillary Clinton born?" || last.Verdict != pipeline.VerdictNotChecked ||
		last.Reason == "" || last.CheckPosition != 0 {
		t.Errorf("the skipped question is listed as not checked: %+v", res.Claims)
	}
	if res.Claims[0].Verdict != pipeline.VerdictUnverified || res.Claims[0].Reason == "" {
		t.Errorf("an answered check under a changed draft is unverified with a reason: %+v", res.Claims[0])
	}
}

func TestJointNothingCheckedReturnsDraft(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{"I have no checks to offer.", "Q: Where was A born?\nQ: Where was B born?"} {
		model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{{Contains: pipeline.MarkerJointPlan, Reply: reply}}}
		res, err := Joint{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "A and B were born in X."})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != pipeline.StatusNothingChecked || res.RevisedText != "A and B were born in X." || res.StatusReason == "" {
			t.Errorf("reply %q: status %q reason %q revised %q", reply, res.Status, res.StatusReason, res.RevisedText)
		}
		if model.Calls() != 1 || len(model.Sent(pipeline.StepRevise)) != 0 {
			t.Errorf("reply %q: the run stops after the joint call: %d calls", reply, model.Calls())
		}
		if res.Agreed != nil {
			t.Errorf("reply %q: nothing checked has no agreement: %v", reply, *res.Agreed)
		}
		for _, c := range res.Claims {
			if c.Verdict != pipeline.VerdictNotChecked || c.Reason == "" {
				t.Errorf("reply %q: claim %+v", reply, c)
			}
		}
	}
}

func TestJointFailedCallPropagatesWithTrace(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{{Contains: pipeline.MarkerJointPlan, Err: errors.New("HTTP 503")}}}
	res, err := Joint{Model: model}.Run(context.Background(), pipeline.Input{Question: "q?", Text: "draft"})
	if err == nil || !strings.Contains(err.Error(), pipeline.StepPlanAnswer) {
		t.Fatalf("want a plan_answer error, got %v", err)
	}
	if len(res.Calls) != 1 || res.Calls[0].Error == "" {
		t.Fatalf("the failed run keeps its trace: %+v", res.Calls)
	}
}
