package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The specification's stub-model test for Factored: draft 'Hillary Clinton, Donald Trump,
// Theodore Roosevelt', checks answer Chicago, Queens, Manhattan; three verify calls, none
// containing the draft, and the revise prompt contains 'Chicago'.
func TestFactoredStubModel(t *testing.T) {
	t.Parallel()
	model := &stubModel{rules: []stubRule{
		{contains: "Answer the question.\n\n<question>", reply: sampleDraft},
		{contains: "Write one verification question per line", reply: "Where was Hillary Clinton born?\nWhere was Donald Trump born?\nWhere was Theodore Roosevelt born?"},
		{contains: "Where was Hillary Clinton born?</question>", reply: "Chicago"},
		{contains: "Where was Donald Trump born?</question>", reply: "Queens"},
		{contains: "Where was Theodore Roosevelt born?</question>", reply: "Manhattan"},
		{contains: "Rewrite the answer so it agrees with the checks", reply: "Donald Trump, Theodore Roosevelt"},
	}}
	// The revise prompt also contains the questions, so its rule must win: put it first.
	model.rules = append([]stubRule{model.rules[5]}, model.rules[:5]...)

	res, err := Factored{Model: model}.Run(context.Background(), Input{Question: sampleQuestion})
	if err != nil {
		t.Fatal(err)
	}
	verifies := model.sent(StepVerify)
	if len(verifies) != 3 {
		t.Fatalf("verify calls: got %d, want 3", len(verifies))
	}
	for _, p := range verifies {
		if strings.Contains(p, sampleDraft) || strings.Contains(p, sampleQuestion) {
			t.Errorf("a verify prompt contains the draft or the question:\n%s", p)
		}
	}
	revise := model.sent(StepRevise)
	if len(revise) != 1 || !strings.Contains(revise[0], "Chicago") {
		t.Fatalf("the revise prompt must contain 'Chicago': %q", revise)
	}
	if got := model.calls(); got != 3+3 {
		t.Errorf("model calls: got %d, want 3 + n = 6", got)
	}
	if res.Status != StatusChecked || res.RevisedText != "Donald Trump, Theodore Roosevelt" {
		t.Errorf("result: status %q, revised %q", res.Status, res.RevisedText)
	}
	wantAnswers := []string{"Chicago", "Queens", "Manhattan"}
	for i, c := range res.Checks {
		if c.Position != i+1 || c.Answer != wantAnswers[i] || c.Status != CheckAnswered {
			t.Errorf("check %d: %+v, want answer %q in plan order", i+1, c, wantAnswers[i])
		}
	}
	if len(res.Calls) != 6 || res.Calls[0].Step != StepDraft || res.Calls[5].Step != StepRevise {
		t.Errorf("trace: %d calls, first %q, last %q", len(res.Calls), res.Calls[0].Step, res.Calls[len(res.Calls)-1].Step)
	}
}

func TestFactoredNothingToCheckReturnsDraft(t *testing.T) {
	t.Parallel()
	model := &stubModel{rules: []stubRule{
		{contains: "Write one verification question per line", reply: "Here are the questions:\n\n"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), Input{Question: "q?", Text: "The sky is blue today."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusNothingChecked || res.RevisedText != "The sky is blue today." || !res.DraftFromInput {
		t.Fatalf("got status %q revised %q fromInput %v", res.Status, res.RevisedText, res.DraftFromInput)
	}
	if model.calls() != 1 {
		t.Fatalf("a job with text skips the Draft call and stops after the plan: got %d calls", model.calls())
	}
}

func TestFactoredFailedVerifyIsRetriedOnceThenUnsure(t *testing.T) {
	t.Parallel()
	model := &stubModel{rules: []stubRule{
		{contains: "Rewrite the answer", reply: "revised"},
		{contains: "Write one verification question per line", reply: "1. Where was A born?\n2. Where was B born?"},
		{contains: "Where was A born?</question>", err: errors.New("HTTP 500")},
		{contains: "Where was B born?</question>", reply: "Unsure."},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), Input{Question: "q?", Text: "A and B were born in X."})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Checks[0], res.Checks[1]
	if a.Status != CheckFailed || a.Answer != "unsure" || a.Attempts != 2 || a.Error == "" {
		t.Errorf("failed check: %+v", a)
	}
	if b.Status != CheckUnsure || b.Attempts != 1 {
		t.Errorf("unsure check: %+v", b)
	}
	if n := len(model.sent(StepVerify)); n != 3 {
		t.Errorf("verify calls: got %d, want 3 (one retry)", n)
	}
	if !strings.Contains(model.sent(StepRevise)[0], "Q: Where was A born?\nA: unsure\n") {
		t.Errorf("the failed check must reach the revise prompt as unsure:\n%s", model.sent(StepRevise)[0])
	}
}

func TestFactoredCapsQuestions(t *testing.T) {
	t.Parallel()
	var plan []string
	for i := range 15 {
		plan = append(plan, "Question number "+string(rune('a'+i))+"?")
	}
	model := &stubModel{rules: []stubRule{
		{contains: "Rewrite the answer", reply: "revised"},
		{contains: "Write one verification question per line", reply: strings.Join(plan, "\n")},
		{contains: "Question number", reply: "yes"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), Input{Question: "q?", Text: "draft text here", Options: Options{MaxQuestions: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 4 || len(model.sent(StepVerify)) != 4 {
		t.Fatalf("checks %d, verify calls %d: want 4", len(res.Checks), len(model.sent(StepVerify)))
	}
	// The questions over the cap are listed, never dropped silently.
	if len(res.Claims) != 15 {
		t.Fatalf("claims: got %d, want 4 checked and 11 not checked", len(res.Claims))
	}
	for i, c := range res.Claims[4:] {
		if c.Text != plan[4+i] || c.Verdict != VerdictNotChecked || c.Reason != "over the question cap of 4" || c.CheckPosition != 0 {
			t.Errorf("question over the cap: %+v", c)
		}
	}
}

func TestFactoredReportsEachCheckAsAClaim(t *testing.T) {
	t.Parallel()
	model := &stubModel{rules: []stubRule{
		{contains: "Rewrite the answer", reply: "A was born in X, B in Y."},
		{contains: "Write one verification question per line", reply: "Where was A born?\nWhere was B born?"},
		{contains: "Where was A born?</question>", reply: "X"},
		{contains: "Where was B born?</question>", reply: "unsure"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), Input{Question: "q?", Text: "A was born in X, B in Y."})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Claims) != 2 {
		t.Fatalf("claims: %+v", res.Claims)
	}
	a, b := res.Claims[0], res.Claims[1]
	if a.Text != "Where was A born?" || a.Verdict != VerdictSupported || a.VariantVerdict != CheckAnswered || a.CheckPosition != 1 {
		t.Errorf("an answered check with the draft unchanged: %+v", a)
	}
	if b.Verdict != VerdictUnverified || b.VariantVerdict != CheckUnsure || b.Reason == "" || b.CheckPosition != 2 {
		t.Errorf("an unsure check: %+v", b)
	}
	if res.Agreed != nil {
		t.Errorf("Agreed is for Joint runs only")
	}
}

func TestFactoredFailedRevisePropagatesWithTrace(t *testing.T) {
	t.Parallel()
	model := &stubModel{rules: []stubRule{
		{contains: "Rewrite the answer", err: Permanent(errors.New("model not found"))},
		{contains: "Write one verification question per line", reply: "Where was A born?"},
		{contains: "Where was A born?</question>", reply: "X"},
	}}
	res, err := Factored{Model: model}.Run(context.Background(), Input{Question: "q?", Text: "A was born in X."})
	if !IsPermanent(err) || !strings.Contains(err.Error(), "revise") {
		t.Fatalf("want a permanent revise error, got %v", err)
	}
	if len(res.Calls) != 3 || res.Calls[2].Error == "" {
		t.Fatalf("the failed run keeps its trace: %+v", res.Calls)
	}
}
