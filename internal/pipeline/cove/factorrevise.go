package cove

import (
	"context"
	"fmt"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"golang.org/x/sync/errgroup"
)

// FactorRevise is Chain-of-Verification, Factor + revise variant (spec 001): draft, plan claims
// each with the question that checks it (capped by Options.MaxQuestions), answer every question in
// its own call from the question alone, cross-check every claim against its own check in its own
// call, then write the final answer from the consistent material. The verify and cross-check
// calls run in parallel under Options.Concurrency. 3 + 2n model calls for n claims (2 + 2n when
// the job carries the draft), plus one retry for a call that fails.
//
// Verdicts: CONSISTENT is supported, INCONSISTENT refuted, PARTIALLY CONSISTENT partly_supported
// with its ConsistentPart. A cross-check reply that starts with none of them is INCONSISTENT, as
// the specification requires, and refuted, with the raw reply in the claim's Reason. A claim is
// unverified, whatever the cross-check said, when its check got no answer or was answered unsure
// (the cross-check then judged the claim against no evidence), and when its cross-check call
// failed twice; such a claim reaches the Revise call as INCONSISTENT, so the final answer, built
// from consistent material only, leaves it out. Claims over the cap, and claims the plan gave no
// question, are listed as not checked and are not sent to the Revise call either.
type FactorRevise struct {
	Model pipeline.Model
}

// Name returns the job method name.
func (FactorRevise) Name() string { return pipeline.MethodFactorRevise }

// Run verifies one job.
func (f FactorRevise) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	return runCove(pipeline.MethodFactorRevise, f.Model, in, func(rec *pipeline.Recorder, opts pipeline.Options, res *pipeline.Result) error {
		return f.run(ctx, rec, in, opts, res)
	})
}

func (f FactorRevise) run(ctx context.Context, rec *pipeline.Recorder, in pipeline.Input, opts pipeline.Options, res *pipeline.Result) error {
	if err := draftStep(ctx, rec, in, res); err != nil {
		return err
	}
	reply, err := rec.Prompt(ctx, pipeline.StepPlan, 0, "factorrevise_plan", struct{ Question, Draft string }{in.QuestionOrDefault(), res.Draft})
	if err != nil {
		return err
	}
	res.Plan = reply
	parsed, unpaired := ParseClaimQuestionPairs(reply)
	pairs, dropped := capItems(parsed, opts.MaxQuestions)
	const unpairedReason = "the plan gave this claim no verification question"
	if len(pairs) == 0 {
		res.Claims = appendNotChecked(nil, unpaired, unpairedReason)
		finishUnchecked(res, "the plan produced no claim and question pairs")
		return nil
	}

	res.Checks = make([]pipeline.Check, len(pairs))
	res.Claims = make([]pipeline.Claim, len(pairs))
	var g errgroup.Group
	g.SetLimit(max(opts.Concurrency, 1))
	for i := range pairs {
		g.Go(func() error {
			check := answerCheck(ctx, rec, "factorrevise_verify", i+1, pairs[i].Question)
			check.ClaimPosition = i + 1
			res.Checks[i] = check
			res.Claims[i] = crossCheck(ctx, rec, i+1, pairs[i].Claim, check)
			return nil
		})
	}
	_ = g.Wait() // no call returns an error: each records its own failure
	if err := ctx.Err(); err != nil {
		return pipeline.StepError(pipeline.StepCrossCheck, err)
	}

	revised, err := rec.Prompt(ctx, pipeline.StepRevise, 0, "factorrevise_revise", struct{ Question, ClaimsWithVerdicts string }{
		in.QuestionOrDefault(), renderClaimVerdicts(res.Claims)})
	if err != nil {
		return err
	}
	res.RevisedText = strings.TrimSpace(revised)
	res.Status = pipeline.StatusChecked
	droppedClaims := make([]string, len(dropped))
	for i, p := range dropped {
		droppedClaims[i] = p.Claim
	}
	res.Claims = appendNotChecked(res.Claims, droppedClaims, pipeline.ClaimCapReason(opts.MaxQuestions))
	res.Claims = appendNotChecked(res.Claims, unpaired, unpairedReason)
	return nil
}

// crossCheck sets exactly one claim next to its own check and returns the claim with its verdict:
// its signature admits nothing else, so verdicts cannot bleed between claims. A failed call is
// retried once; a second failure leaves the claim unverified.
func crossCheck(ctx context.Context, rec *pipeline.Recorder, position int, claim string, check pipeline.Check) pipeline.Claim {
	data := struct{ Claim, VerificationQuestion, VerificationAnswer string }{claim, check.Question, check.Answer}
	var (
		reply string
		err   error
	)
	for attempt := 1; attempt <= 2; attempt++ {
		reply, err = rec.Prompt(ctx, pipeline.StepCrossCheck, position, "factorrevise_cross_check", data)
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return pipeline.Claim{
			Position:       position,
			Text:           claim,
			Verdict:        pipeline.VerdictUnverified,
			VariantVerdict: CrossCheckInconsistent,
			Reason:         fmt.Sprintf("the cross-check call failed (%v); treated as INCONSISTENT, so the final answer leaves the claim out", err),
			CheckPosition:  check.Position,
		}
	}
	return crossCheckClaim(position, claim, check, reply)
}

// crossCheckClaim maps a cross-check reply on claim, checked by check, onto the verdict labels.
func crossCheckClaim(position int, claim string, check pipeline.Check, reply string) pipeline.Claim {
	v := ParseCrossCheckVerdict(reply)
	c := pipeline.Claim{Position: position, Text: claim, VariantVerdict: v.Verdict, CheckPosition: check.Position}
	if v.Verdict == CrossCheckPartial {
		// Kept for every partial verdict: it is what the Revise call was told to keep.
		c.ConsistentPart = v.ConsistentPart
	}
	switch {
	case check.Status != pipeline.CheckAnswered:
		c.Verdict = pipeline.VerdictUnverified
		c.Reason = fmt.Sprintf("the check was not answered (%s, recorded as unsure), so the cross-check's %s rests on no evidence",
			check.Status, v.Line())
	case !v.Recognized:
		c.Verdict = pipeline.VerdictRefuted
		c.Reason = "the cross-check reply starts with none of CONSISTENT, INCONSISTENT, PARTIALLY CONSISTENT; " +
			"treated as INCONSISTENT. Reply: " + text.Truncate(strings.TrimSpace(reply), pipeline.MaxLineBytes)
	case v.Verdict == CrossCheckConsistent:
		c.Verdict = pipeline.VerdictSupported
	case v.Verdict == CrossCheckPartial:
		c.Verdict = pipeline.VerdictPartlySupported
	default:
		c.Verdict = pipeline.VerdictRefuted
	}
	return c
}

// renderClaimVerdicts renders the checked claims for the {{claims_with_verdicts}} placeholder of
// the Revise prompt, in plan order, in the layout of the other variants' checks: a newline, then
// "Claim: <claim>\nVerdict: <verdict line>\n" per claim, where the verdict line is CONSISTENT,
// INCONSISTENT or "PARTIALLY CONSISTENT: " plus the consistent part. The prompt's
// "<verdicts>{{claims_with_verdicts}}</verdicts>" so reads:
//
//	<verdicts>
//	Claim: Donald Trump was born in Queens in 1948
//	Verdict: PARTIALLY CONSISTENT: Donald Trump was born in Queens
//	</verdicts>
func renderClaimVerdicts(claims []pipeline.Claim) string {
	var b strings.Builder
	b.WriteString("\n")
	for _, c := range claims {
		line := CrossCheckVerdict{Verdict: c.VariantVerdict, ConsistentPart: c.ConsistentPart}.Line()
		b.WriteString("Claim: " + pipeline.FenceLine(c.Text) + "\nVerdict: " + pipeline.FenceLine(line) + "\n")
	}
	return b.String()
}
