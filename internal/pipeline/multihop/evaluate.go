package multihop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Evaluation of the multihop plan step (spec 004's measurement methods). PlanStatement runs the
// very step a multihop run starts with (the same prompt, request schema, token bound, validation
// and single repair round-trip: Multihop's makePlan) and returns every reply as the validator
// judged it, so that an evaluation measures what the worker would do, not a copy of it.

// PlanOutcome is how the plan step of one statement ended.
type PlanOutcome string

// Outcomes of the plan step.
const (
	// PlanAccepted: a reply (the first, or the repair) broke no rule; the run would go on.
	PlanAccepted PlanOutcome = "accepted"
	// PlanNoVerifiableClaim: a reply was valid but held no verifiable claim (opinion only); the
	// run would end rejected.
	PlanNoVerifiableClaim PlanOutcome = "no_verifiable_claim"
	// PlanInvalid: the reply was still invalid after its repair round-trip; the run would fail.
	PlanInvalid PlanOutcome = "invalid"
)

// RuleReplyNotCutOff is broken by a reply that ended at the token limit (finish reason
// "length"): the plan step refuses it even when it parses.
const RuleReplyNotCutOff = "reply_not_cut_off"

// PlanReply is one reply of the plan step as the validator judged it.
type PlanReply struct {
	Text         string
	FinishReason string
	// Plan is the reply decoded, valid or not; nil when it does not decode as a plan.
	Plan *Plan
	// Violations are every rule the reply broke (ValidatePlan's, uncapped, and
	// RuleReplyNotCutOff), in the validator's order.
	Violations []PlanViolation
	// Valid says whether the plan step accepted the reply.
	Valid bool
}

// Broke returns how many violations of rule the reply has. The validator reports one violation
// per claim for RuleClaimHasSpan (a hallucinated claim) and one per pair of queries for
// RuleQueriesDistinct (a near-duplicate pair).
func (r PlanReply) Broke(rule string) int {
	n := 0
	for _, v := range r.Violations {
		if v.Rule == rule {
			n++
		}
	}
	return n
}

// PlanAttempt is what the plan step did with one statement.
type PlanAttempt struct {
	Outcome PlanOutcome
	// Replies are the model's plan replies in order: the first, then the repair's when the first
	// was invalid.
	Replies []PlanReply
	// Plan is the accepted plan: set for PlanAccepted, and for PlanNoVerifiableClaim when the
	// reply had claims (none of them verifiable); nil otherwise.
	Plan *ValidatedPlan
	// Calls are the model calls the step made, with prompts, tokens and latency.
	Calls []pipeline.ModelCall
}

// First returns the first reply.
func (a PlanAttempt) First() PlanReply { return a.Replies[0] }

// Last returns the last reply: the one the step ended on.
func (a PlanAttempt) Last() PlanReply { return a.Replies[len(a.Replies)-1] }

// PlanStatement runs the multihop plan step on in and reports every reply. A statement the
// plan step accepts, finds opinion-only, or still finds invalid after its repair is an outcome,
// not an error; the error is a *RejectedError for an input multihop refuses before any call
// (a single word, a bad option) and the model's error when a call failed.
func PlanStatement(ctx context.Context, model pipeline.Model, in pipeline.Input) (PlanAttempt, error) {
	var attempt PlanAttempt
	if model == nil {
		return attempt, pipeline.Permanent(errors.New("planning needs a model"))
	}
	mi, err := checkMultihopInput(in)
	if err != nil {
		return attempt, err
	}
	r := &multihopRun{in: mi, opts: in.Options.WithDefaults(), rec: pipeline.NewRecorder(model), res: &pipeline.Result{Method: pipeline.MethodMultihop}}
	planErr := r.makePlan(ctx)
	attempt.Calls = r.rec.Trace()
	pc := PlanContext{Statement: mi.statement, MaxHops: mi.maxHops, Language: mi.language, schemas: mi.schemas}
	var validated []*ValidatedPlan
	for _, c := range attempt.Calls {
		if (c.Step != pipeline.StepPlan && c.Step != pipeline.StepPlan+"_repair") || c.Error != "" {
			continue
		}
		reply, vp := judgePlanReply(c.Reply, c.FinishReason, pc)
		attempt.Replies = append(attempt.Replies, reply)
		validated = append(validated, vp)
	}
	var rejected *pipeline.RejectedError
	switch {
	case planErr == nil:
		attempt.Outcome, attempt.Plan = PlanAccepted, r.plan
	case len(attempt.Replies) == 0:
		return attempt, planErr
	case errors.As(planErr, &rejected) && attempt.Last().Valid:
		attempt.Outcome, attempt.Plan = PlanNoVerifiableClaim, validated[len(validated)-1]
	case len(attempt.Replies) == 2 && !attempt.Last().Valid:
		attempt.Outcome = PlanInvalid
	default:
		return attempt, planErr
	}
	return attempt, nil
}

// judgePlanReply judges one reply as the plan step does (noClaims, ValidatePlan, the cut-off
// rule of structuredStep) and decodes it whether or not it is valid.
func judgePlanReply(text, finishReason string, pc PlanContext) (PlanReply, *ValidatedPlan) {
	reply := PlanReply{Text: text, FinishReason: finishReason}
	var p Plan
	if json.Unmarshal(pipeline.ReplyJSONObject(text), &p) == nil {
		reply.Plan = &p
	}
	var vp *ValidatedPlan
	if !noClaims(text) {
		vp, reply.Violations = ValidatePlan(text, pc)
	}
	if finishReason == "length" {
		reply.Violations = slices.Insert(reply.Violations, 0, PlanViolation{RuleReplyNotCutOff,
			`the reply was cut off at the token limit (finish_reason "length")`})
		vp = nil
	}
	reply.Valid = len(reply.Violations) == 0
	return reply, vp
}
