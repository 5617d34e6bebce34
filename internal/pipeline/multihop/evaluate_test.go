package multihop

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// hallucinatedPlan is validPlan with claim c1's span invented and two hops of c2 near-duplicates.
func hallucinatedPlan() Plan {
	p := validPlan()
	p.Claims[0].SourceSpan = "a gene variant doubles the risk of dementia"
	p.QueryChains[1].Hops = append(p.QueryChains[1].Hops, PlanHop{3, "cohort APOE4 overall incidence cancer carriers", "registry", "incidence"})
	return p
}

func TestPlanStatement(t *testing.T) {
	t.Parallel()
	valid, bad := planJSON(t, validPlan()), planJSON(t, hallucinatedPlan())
	opinion := `{"plan_id":"p","claims":[],"query_chains":[],"cross_validation_pairs":[],"cross_validation_queries":[],"execution_order":[]}`
	for _, tt := range []struct {
		name               string
		rules              []pipelinetest.StubRule
		outcome            PlanOutcome
		replies            int
		firstValid         bool
		firstHallucinated  int
		firstNearDuplicate int
		plan               bool
	}{
		{"first reply valid", []pipelinetest.StubRule{{Contains: pipeline.MarkerMultihopPlan, Reply: valid}}, PlanAccepted, 1, true, 0, 0, true},
		{"repaired", []pipelinetest.StubRule{{Contains: pipeline.MarkerRepair, Reply: valid}, {Contains: pipeline.MarkerMultihopPlan, Reply: bad}}, PlanAccepted, 2, false, 1, 1, true},
		{"invalid after repair", []pipelinetest.StubRule{{Contains: pipeline.MarkerMultihopPlan, Reply: bad}}, PlanInvalid, 2, false, 1, 1, false},
		{"not JSON, then still not", []pipelinetest.StubRule{{Contains: pipeline.MarkerMultihopPlan, Reply: "I cannot help with that."}}, PlanInvalid, 2, false, 0, 0, false},
		{"opinion only", []pipelinetest.StubRule{{Contains: pipeline.MarkerMultihopPlan, Reply: opinion}}, PlanNoVerifiableClaim, 1, true, 0, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &pipelinetest.StubModel{Rules: tt.rules}
			a, err := PlanStatement(context.Background(), model, pipeline.Input{Text: specStatement})
			if err != nil {
				t.Fatal(err)
			}
			if a.Outcome != tt.outcome || len(a.Replies) != tt.replies || len(a.Calls) != tt.replies {
				t.Fatalf("outcome %s with %d replies and %d calls, want %s with %d", a.Outcome, len(a.Replies), len(a.Calls), tt.outcome, tt.replies)
			}
			first := a.First()
			if first.Valid != tt.firstValid || first.Broke(RuleClaimHasSpan) != tt.firstHallucinated || first.Broke(RuleQueriesDistinct) != tt.firstNearDuplicate {
				t.Errorf("first reply: valid %v, %d hallucinated, %d near-duplicate pairs; want %v, %d, %d (violations %v)",
					first.Valid, first.Broke(RuleClaimHasSpan), first.Broke(RuleQueriesDistinct), tt.firstValid, tt.firstHallucinated, tt.firstNearDuplicate, first.Violations)
			}
			if (a.Plan != nil) != tt.plan {
				t.Errorf("plan %v, want one: %v", a.Plan, tt.plan)
			}
			if a.Plan != nil && len(a.Plan.Plan.Claims) != 2 {
				t.Errorf("accepted plan has %d claims", len(a.Plan.Plan.Claims))
			}
			if tt.name == "repaired" && (a.Last().Plan == nil || a.First().Plan == nil || a.First().Plan.Claims[0].SourceSpan == a.Last().Plan.Claims[0].SourceSpan) {
				t.Error("the replies are not decoded each as written")
			}
		})
	}
}

// TestPlanStatementSendsMultihopsPrompt: the evaluation measures the step the worker runs, not a
// copy: the same prompt, step name and request as a multihop run's first call.
func TestPlanStatementSendsMultihopsPrompt(t *testing.T) {
	t.Parallel()
	in := pipeline.Input{Text: specStatement, Options: pipeline.Options{MaxHops: 4}}
	evalModel := planModel(t, validPlan(), nil)
	a, err := PlanStatement(context.Background(), evalModel, in)
	if err != nil || a.Outcome != PlanAccepted {
		t.Fatalf("%v %s", err, a.Outcome)
	}
	runModel := planModel(t, validPlan(), nil)
	_, _ = Multihop{Model: runModel, Searcher: planSearcher(true)}.Run(context.Background(), in)
	got, want := evalModel.Sent(pipeline.StepPlan), runModel.Sent(pipeline.StepPlan)
	if len(got) != 1 || len(want) != 1 || got[0] != want[0] {
		t.Fatalf("the evaluation's plan prompt differs from multihop's:\n%q\n%q", got, want)
	}
	if a.Calls[0].Step != pipeline.StepPlan || a.Calls[0].Prompt != got[0] {
		t.Errorf("recorded call: step %q", a.Calls[0].Step)
	}
}

func TestPlanStatementErrors(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{}
	_, err := PlanStatement(context.Background(), model, pipeline.Input{Text: "Paris"})
	var rejected *pipeline.RejectedError
	if !errors.As(err, &rejected) || rejected.Field != fieldText || model.Calls() != 0 {
		t.Fatalf("single word: %v after %d calls", err, model.Calls())
	}
	failing := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{{Contains: pipeline.MarkerMultihopPlan, Err: errors.New("connection refused")}}}
	if _, err := PlanStatement(context.Background(), failing, pipeline.Input{Text: specStatement}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("model failure: %v", err)
	}
	repairFails := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerRepair, Err: errors.New("server error")},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, hallucinatedPlan())},
	}}
	if a, err := PlanStatement(context.Background(), repairFails, pipeline.Input{Text: specStatement}); err == nil || len(a.Replies) != 1 {
		t.Fatalf("repair call failure: %v with %d replies", err, len(a.Replies))
	}
	if _, err := PlanStatement(context.Background(), nil, pipeline.Input{Text: specStatement}); err == nil {
		t.Fatal("no model: no error")
	}
}
