package cove

import (
	"context"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// runCove runs the steps of a CoVe variant with a recorder of their own and returns the result
// with the whole trace of model calls, whether the steps failed or not: a failed run is stored
// with the calls it made.
func runCove(method string, m pipeline.Model, in pipeline.Input, steps func(rec *pipeline.Recorder, opts pipeline.Options, res *pipeline.Result) error) (*pipeline.Result, error) {
	rec := pipeline.NewRecorder(m)
	res := &pipeline.Result{Method: method}
	err := steps(rec, in.Options.WithDefaults(), res)
	res.Calls = rec.Trace()
	return res, err
}

// draftStep returns the draft to verify: the job's text when it has one (the Draft call is then
// skipped), else the model's answer to the question.
func draftStep(ctx context.Context, rec *pipeline.Recorder, in pipeline.Input, res *pipeline.Result) error {
	if strings.TrimSpace(in.Text) != "" {
		res.Draft = in.Text
		res.DraftFromInput = true
		return nil
	}
	draft, err := rec.Prompt(ctx, pipeline.StepDraft, 0, "cove_draft", struct{ Question string }{in.QuestionOrDefault()})
	if err != nil {
		return err
	}
	res.Draft = strings.TrimSpace(draft)
	return nil
}

// planQuestions asks for one verification question per line and returns at most limit of them,
// in plan order, and the ones over the limit, which the caller lists as not checked: nothing the
// plan asked for is dropped silently.
func planQuestions(ctx context.Context, rec *pipeline.Recorder, question, draft string, limit int, res *pipeline.Result) (kept, dropped []string, err error) {
	reply, err := rec.Prompt(ctx, pipeline.StepPlan, 0, "cove_plan_verification", struct{ Question, Draft string }{question, draft})
	if err != nil {
		return nil, nil, err
	}
	res.Plan = reply
	kept, dropped = capItems(ParseQuestionLines(reply), limit)
	return kept, dropped, nil
}

// capItems splits items into the first limit and the rest.
func capItems[T any](items []T, limit int) (kept, dropped []T) {
	if limit < 0 {
		limit = 0
	}
	if len(items) <= limit {
		return items, nil
	}
	return items[:limit], items[limit:]
}

// answerCheck answers one verification question with the named verify prompt, from the question
// alone: its signature admits nothing else, so neither the draft nor the user's question can reach
// the prompt. A failed call is retried once; a second failure is recorded as "unsure", which
// neither confirms nor removes a claim.
func answerCheck(ctx context.Context, rec *pipeline.Recorder, prompt string, position int, verificationQuestion string) pipeline.Check {
	check := pipeline.Check{Position: position, Question: verificationQuestion}
	data := struct{ VerificationQuestion string }{verificationQuestion}
	for attempt := 1; attempt <= 2; attempt++ {
		check.Attempts = attempt
		answer, err := rec.Prompt(ctx, pipeline.StepVerify, position, prompt, data)
		if err == nil {
			check.Answer = strings.TrimSpace(answer)
			check.Status = pipeline.CheckAnswered
			check.Error = ""
			if isUnsure(check.Answer) {
				check.Status = pipeline.CheckUnsure
			}
			return check
		}
		check.Error = err.Error()
		if ctx.Err() != nil {
			break
		}
	}
	check.Answer = "unsure"
	check.Status = pipeline.CheckFailed
	return check
}

// renderCheckPairs renders the checks for the {{checks}} placeholder of the Joint and Two-step
// Revise prompts, in plan order, in the layout of Factored's {{#each checks}} block: a newline,
// then "Q: <question>\nA: <answer>\n" per check. The prompt's "<checks>{{checks}}</checks>" so
// reads exactly like Factored's:
//
//	<checks>
//	Q: Where was Hillary Clinton born?
//	A: Chicago
//	</checks>
func renderCheckPairs(checks []pipeline.Check) string {
	var b strings.Builder
	b.WriteString("\n")
	for _, c := range checks {
		b.WriteString("Q: " + pipeline.FenceLine(c.Question) + "\nA: " + pipeline.FenceLine(c.Answer) + "\n")
	}
	return b.String()
}

// finishUnchecked ends a run whose plan produced nothing to check: the draft is the answer.
func finishUnchecked(res *pipeline.Result, reason string) {
	res.Status = pipeline.StatusNothingChecked
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
