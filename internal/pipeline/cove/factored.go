package cove

import (
	"context"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"golang.org/x/sync/errgroup"
)

// Factored is Chain-of-Verification, Factored variant (spec 001): draft, plan one question per
// line, answer every question in its own call from the question alone (in parallel, under a
// limit), then revise the draft against the checks. 3 + n model calls for n checks. Each check
// is reported as a claim by checkClaims; questions over the cap are listed as not checked.
type Factored struct {
	Model pipeline.Model
}

// Name returns the job method name.
func (Factored) Name() string { return pipeline.MethodFactored }

// Run verifies one job.
func (f Factored) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	return runCove(pipeline.MethodFactored, f.Model, in, func(rec *pipeline.Recorder, opts pipeline.Options, res *pipeline.Result) error {
		return f.run(ctx, rec, in, opts, res)
	})
}

func (f Factored) run(ctx context.Context, rec *pipeline.Recorder, in pipeline.Input, opts pipeline.Options, res *pipeline.Result) error {
	if err := draftStep(ctx, rec, in, res); err != nil {
		return err
	}
	questions, dropped, err := planQuestions(ctx, rec, in.QuestionOrDefault(), res.Draft, opts.MaxQuestions, res)
	if err != nil {
		return err
	}
	if len(questions) == 0 {
		finishUnchecked(res, "the plan produced no verification questions")
		return nil
	}

	res.Checks = make([]pipeline.Check, len(questions))
	var g errgroup.Group
	g.SetLimit(max(opts.Concurrency, 1))
	for i := range questions {
		g.Go(func() error {
			res.Checks[i] = answerCheck(ctx, rec, "factored_verify", i+1, questions[i])
			return nil
		})
	}
	_ = g.Wait() // no call returns an error: each records its own failure
	if err := ctx.Err(); err != nil {
		return pipeline.StepError(pipeline.StepVerify, err)
	}

	revised, err := rec.Prompt(ctx, pipeline.StepRevise, 0, "factored_revise", struct {
		Question, Draft string
		Checks          []pipeline.Check
	}{in.QuestionOrDefault(), res.Draft, res.Checks})
	if err != nil {
		return err
	}
	res.RevisedText = strings.TrimSpace(revised)
	res.Status = pipeline.StatusChecked
	res.Claims = checkClaims(res.Checks, res.Draft, res.RevisedText)
	res.Claims = appendNotChecked(res.Claims, dropped, questionCapReason(opts.MaxQuestions))
	return nil
}
