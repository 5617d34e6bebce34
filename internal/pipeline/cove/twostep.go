package cove

import (
	"context"
	"fmt"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// TwoStep is Chain-of-Verification, Two-step variant (spec 001): draft, plan one question per line
// (capped by Options.MaxQuestions), answer all the questions in ONE call that sees only the
// numbered questions, then revise the draft against the checks. Exactly four model calls (three
// when the job carries the draft).
//
// Answers are matched to questions by number. A question the reply gives no answer of its number
// (missing, or only the number) is recorded as answered "unsure" with status CheckFailed and the
// reason in Check.Error, so that it neither confirms nor removes a claim and a reader can tell it
// from a model that said it was unsure (CheckUnsure). A failed Answer all checks call fails the
// run like a failed plan or revise call: there is no per-question call to retry in its place.
// Each check is reported as a claim by checkClaims; questions over the cap are listed as not
// checked.
type TwoStep struct {
	Model pipeline.Model
}

// Name returns the job method name.
func (TwoStep) Name() string { return pipeline.MethodTwoStep }

// Run verifies one job.
func (t TwoStep) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	return runCove(pipeline.MethodTwoStep, t.Model, in, func(rec *pipeline.Recorder, opts pipeline.Options, res *pipeline.Result) error {
		return t.run(ctx, rec, in, opts, res)
	})
}

func (t TwoStep) run(ctx context.Context, rec *pipeline.Recorder, in pipeline.Input, opts pipeline.Options, res *pipeline.Result) error {
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

	prompt, err := verifyAllPrompt(questions)
	if err != nil {
		return pipeline.StepError(pipeline.StepVerifyAll, err)
	}
	reply, err := rec.Complete(ctx, pipeline.StepVerifyAll, 0, pipeline.ModelRequest{Prompt: prompt})
	if err != nil {
		return err
	}
	res.Checks = pairNumberedAnswers(questions, ParseNumberedAnswers(reply))

	revised, err := rec.Prompt(ctx, pipeline.StepRevise, 0, "twostep_revise", struct{ Question, Draft, Checks string }{
		in.QuestionOrDefault(), res.Draft, renderCheckPairs(res.Checks)})
	if err != nil {
		return err
	}
	res.RevisedText = strings.TrimSpace(revised)
	res.Status = pipeline.StatusChecked
	res.Claims = checkClaims(res.Checks, res.Draft, res.RevisedText)
	res.Claims = appendNotChecked(res.Claims, dropped, questionCapReason(opts.MaxQuestions))
	return nil
}

// numberedQuestion is one question of the Answer all checks prompt.
type numberedQuestion struct {
	Number int
	Text   string
}

// verifyAllPrompt renders the Answer all checks prompt from the verification questions alone,
// numbered from 1: its signature admits nothing else, so neither the draft nor the user's question
// can reach the call that answers the checks.
func verifyAllPrompt(questions []string) (string, error) {
	numbered := make([]numberedQuestion, len(questions))
	for i, q := range questions {
		numbered[i] = numberedQuestion{Number: i + 1, Text: q}
	}
	return pipeline.RenderPrompt("twostep_verify_all", struct{ Questions []numberedQuestion }{numbered})
}

// pairNumberedAnswers pairs each question (number i+1) with the answer of its number. A model that
// repeats the question before its answer has the repetition removed. A question with no usable
// answer is recorded as "unsure" with status CheckFailed.
func pairNumberedAnswers(questions []string, answers map[int]string) []pipeline.Check {
	checks := make([]pipeline.Check, len(questions))
	for i, q := range questions {
		n := i + 1
		check := pipeline.Check{Position: n, Question: q, Attempts: 1}
		answer := stripEchoedQuestion(answers[n], q)
		switch {
		case answer == "":
			check.Answer = "unsure"
			check.Status = pipeline.CheckFailed
			if _, ok := answers[n]; ok {
				check.Error = fmt.Sprintf("the answer-all reply numbered %d but gave it no answer", n)
			} else {
				check.Error = fmt.Sprintf("the answer-all reply has no answer numbered %d", n)
			}
		case isUnsure(answer):
			check.Answer = answer
			check.Status = pipeline.CheckUnsure
		default:
			check.Answer = answer
			check.Status = pipeline.CheckAnswered
		}
		checks[i] = check
	}
	return checks
}

// stripEchoedQuestion removes the question from the start of an answer that repeats it
// ("Where was A born? Chicago"), with the separator after it.
func stripEchoedQuestion(answer, question string) string {
	if question != "" && len(answer) >= len(question) && strings.EqualFold(answer[:len(question)], question) {
		answer = strings.TrimLeft(answer[len(question):], " \t-–—:")
		answer = cleanAnswer(answer)
	}
	return strings.TrimSpace(answer)
}
