package pipeline

import (
	"context"
	"strings"
)

// Steps shared by the Chain-of-Verification variants.
const (
	StepDraft  = "draft"
	StepPlan   = "plan"
	StepVerify = "verify"
	StepRevise = "revise"
)

// draftStep returns the draft to verify: the job's text when it has one (the Draft call is then
// skipped), else the model's answer to the question.
func draftStep(ctx context.Context, rec *recorder, in Input, res *Result) error {
	if strings.TrimSpace(in.Text) != "" {
		res.Draft = in.Text
		res.DraftFromInput = true
		return nil
	}
	draft, err := rec.prompt(ctx, StepDraft, 0, "cove_draft", struct{ Question string }{in.question()})
	if err != nil {
		return err
	}
	res.Draft = strings.TrimSpace(draft)
	return nil
}

// planQuestions asks for one verification question per line and returns at most limit of them.
func planQuestions(ctx context.Context, rec *recorder, question, draft string, limit int, res *Result) ([]string, error) {
	reply, err := rec.prompt(ctx, StepPlan, 0, "cove_plan_verification", struct{ Question, Draft string }{question, draft})
	if err != nil {
		return nil, err
	}
	res.Plan = reply
	questions := ParseQuestionLines(reply)
	if len(questions) > limit {
		questions = questions[:limit]
	}
	return questions, nil
}

// finishUnchecked ends a run whose plan produced nothing to check: the draft is the answer.
func finishUnchecked(res *Result, reason string) {
	res.Status = StatusNothingChecked
	res.StatusReason = reason
	res.RevisedText = res.Draft
}

// isUnsure reports whether a verification answer says the model is not sure.
func isUnsure(answer string) bool {
	a := strings.ToLower(strings.TrimSpace(answer))
	a = strings.Trim(a, " \t\"'`*_.!")
	return a == "" || a == "unsure" || strings.HasPrefix(a, "unsure.") || strings.HasPrefix(a, "unsure,") ||
		strings.HasPrefix(a, "unsure ") || a == "i am unsure" || a == "i'm unsure" || a == "not sure"
}
