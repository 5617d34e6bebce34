package cove

import (
	"context"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Joint is Chain-of-Verification, Joint variant (spec 001): draft, one Plan and answer call that
// writes each verification question followed by its answer, then revise the draft against the
// pairs. Exactly three model calls (two when the job carries the draft).
//
// The joint reply is kept in full in Result.Plan: it is the only record of what was checked.
// Options.MaxQuestions does not apply: the cap bounds verification calls, and here the one call
// has answered every pair before any could be dropped, so the Revise call gets all the pairs the
// reply holds (at most maxParsedItems). Each pair is reported as a claim by checkClaims; a
// question the reply left unanswered is listed as not checked.
//
// Result.Agreed records whether the checks agreed with the draft, so the agreement rate per model
// can be measured (and a model whose checks almost always agree switched to the factored form).
// Agreed is true when the revised answer is the draft again, up to case, punctuation and
// whitespace (sameText): the Revise call removes what a check contradicts, so an unchanged draft
// means no check contradicted any claim. A revision that only rephrases counts as disagreement,
// which errs toward running the factored form. Agreed is nil when nothing was checked.
type Joint struct {
	Model pipeline.Model
}

// Name returns the job method name.
func (Joint) Name() string { return pipeline.MethodJoint }

// Run verifies one job.
func (j Joint) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	// Joint has no question cap (its one call has answered every pair already): opts unused.
	return runCove(pipeline.MethodJoint, j.Model, in, func(rec *pipeline.Recorder, _ pipeline.Options, res *pipeline.Result) error {
		return j.run(ctx, rec, in, res)
	})
}

func (j Joint) run(ctx context.Context, rec *pipeline.Recorder, in pipeline.Input, res *pipeline.Result) error {
	if err := draftStep(ctx, rec, in, res); err != nil {
		return err
	}
	reply, err := rec.Prompt(ctx, pipeline.StepPlanAnswer, 0, "joint_plan_answer", struct{ Question, Draft string }{in.QuestionOrDefault(), res.Draft})
	if err != nil {
		return err
	}
	res.Plan = reply
	pairs, unanswered := ParseJointPairs(reply)
	const unansweredReason = "the joint reply asked this question but gave it no answer"
	if len(pairs) == 0 {
		res.Claims = appendNotChecked(nil, unanswered, unansweredReason)
		finishUnchecked(res, "the joint reply held no question and answer pairs")
		return nil
	}

	res.Checks = make([]pipeline.Check, len(pairs))
	for i, p := range pairs {
		status := pipeline.CheckAnswered
		if isUnsure(p.Answer) {
			status = pipeline.CheckUnsure
		}
		res.Checks[i] = pipeline.Check{Position: i + 1, Question: p.Question, Answer: p.Answer, Status: status, Attempts: 1}
	}

	revised, err := rec.Prompt(ctx, pipeline.StepRevise, 0, "joint_revise", struct{ Question, Draft, Checks string }{
		in.QuestionOrDefault(), res.Draft, renderCheckPairs(res.Checks)})
	if err != nil {
		return err
	}
	res.RevisedText = strings.TrimSpace(revised)
	res.Status = pipeline.StatusChecked
	agreed := pipeline.SameText(res.Draft, res.RevisedText)
	res.Agreed = &agreed
	res.Claims = checkClaims(res.Checks, res.Draft, res.RevisedText)
	res.Claims = appendNotChecked(res.Claims, unanswered, unansweredReason)
	return nil
}
