package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
)

// A claim checked once (issue 16, item 4), end to end: JetStream, the worker with
// --reuse-within, the fake model, the corpus, and the stored links.

// reusePlan is a one-claim multihop plan whose claim is statement without its final period.
func reusePlan(statement string) multihop.Plan {
	claim := strings.TrimSuffix(statement, ".")
	return multihop.Plan{
		PlanID: "reuse",
		Claims: []multihop.PlanClaim{{ClaimID: "c1", ClaimText: claim, SourceSpan: claim,
			Entities: []string{"Golden Gate Bridge"}, Verifiable: true, Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
			SubQueries: []string{"Golden Gate Bridge opening date"}, SourceIndependenceScore: 0.9}},
		QueryChains: []multihop.QueryChain{{ClaimID: "c1", Hops: []multihop.PlanHop{
			{HopNumber: 1, Query: "Golden Gate Bridge opening day 1937", TargetSourceType: "official site", ExpectedEvidenceType: "date of an event"},
		}}},
		CrossValidationPairs: []multihop.CrossValidationPair{}, CrossValidationQueries: []multihop.CrossValidationQuery{},
		ExecutionOrder: []string{"c1"},
	}
}

// reuseModel answers each plan prompt with the plan of the statement it holds, and every judge
// prompt with supported on the sources that give 1937.
func (b *bundle) reuseModel(t *testing.T, statements ...string) {
	t.Helper()
	plans := map[string]string{}
	for _, s := range statements {
		raw, err := json.Marshal(reusePlan(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, violations := multihop.ValidatePlan(string(raw), multihop.PlanContext{Statement: s, MaxHops: 3, Language: "en"}); len(violations) > 0 {
			t.Fatalf("the scripted plan of %q breaks rules: %v", s, violations)
		}
		plans[s] = string(raw)
	}
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		if strings.Contains(prompt, pipeline.MarkerMultihopPlan) {
			for s, plan := range plans {
				if strings.Contains(prompt, s) {
					return llmtest.Response{Text: plan}, true
				}
			}
		}
		return llmtest.Response{}, false
	})
	b.multihopModel(t, reusePlan(statements[0]), map[string]judgeAnswer{"Golden Gate Bridge": {verdict: pipeline.VerdictSupported, sourcesWith: "1937"}})
}

// reuseLink is what claim_results says of a run's one claim.
type reuseLink struct {
	verdict, confidence string
	citations           []int32
	fromRun             *int64
	fromPosition        *int
	fromJob             *string
}

func (b *bundle) reuseLinkOf(t *testing.T, job string) reuseLink {
	t.Helper()
	var l reuseLink
	err := b.store.Pool().QueryRow(context.Background(), `
		SELECT verdict, coalesce(confidence, ''), citations, reused_from_run, reused_from_position, reused_from_job
		FROM claim_results WHERE job_id = $1 AND position = 1`, job).Scan(&l.verdict, &l.confidence, &l.citations, &l.fromRun, &l.fromPosition, &l.fromJob)
	if err != nil {
		t.Fatalf("claim_results of job %s: %v", job, err)
	}
	return l
}

func (b *bundle) judgeCalls(t *testing.T, runID int64) int {
	t.Helper()
	return b.count(t, `SELECT count(*) FROM model_calls WHERE run_id = $1 AND step <> 'plan'`, runID)
}

func TestReuseOfAClaimVerifiedBefore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.openBook(t)
	b.cfg.ReuseWithin = 7 * 24 * time.Hour
	ref := b.cfg.Stream.Stream
	same := "The Golden Gate Bridge opened in 1937 according to record " + ref + "."
	// Reworded with its names in the same order (a rewording that moves a name is verified
	// again, see evidence.SameClaim).
	reworded := "In 1937, the Golden Gate Bridge was opened according to record " + ref + "."
	otherYear := "The Golden Gate Bridge opened in 1938 according to record " + ref + "."
	b.reuseModel(t, same, reworded, otherYear)
	n := func(i int) *int { return &i }
	method := pipeline.MethodMultihop

	first := b.publish(t, jobs.Message{V: 1, ID: "reuse-1", Text: same, Method: method})
	b.runWorkers(t, 1)
	run1 := b.runOf(t, first)
	if run1.ModelCalls != 2 || run1.SearchCalls != 1 {
		t.Fatalf("the first job: %d model calls and %d searches, want 1 plan + 1 judge and 1 hop", run1.ModelCalls, run1.SearchCalls)
	}
	l1 := b.reuseLinkOf(t, first)
	if l1.verdict != pipeline.VerdictSupported || l1.fromRun != nil {
		t.Fatalf("the first job's claim: %+v, want supported and verified here", l1)
	}

	// The same claim in another job: no judge call, no search, the verdict and its link.
	second := b.publish(t, jobs.Message{V: 1, ID: "reuse-2", Text: same, Method: method, Options: jobs.MessageOptions{MaxQuestions: n(9)}})
	// Reworded: the same claim.
	third := b.publish(t, jobs.Message{V: 1, ID: "reuse-3", Text: reworded, Method: method})
	b.runWorkers(t, 1)
	for _, job := range []string{second, third} {
		run := b.runOf(t, job)
		if run.ModelCalls != 1 || run.SearchCalls != 0 || b.judgeCalls(t, run.ID) != 0 {
			t.Errorf("job %s: %d model calls (%d not the plan) and %d searches, want the plan call only", job, run.ModelCalls, b.judgeCalls(t, run.ID), run.SearchCalls)
		}
		l := b.reuseLinkOf(t, job)
		if l.fromRun == nil || *l.fromRun != run1.ID || l.fromPosition == nil || *l.fromPosition != 1 || l.fromJob == nil || *l.fromJob != first {
			t.Errorf("job %s: claim_results links %+v, want run %d claim 1 of job %s", job, l, run1.ID, first)
		}
		if l.verdict != l1.verdict || l.confidence != l1.confidence || len(l.citations) != len(l1.citations) {
			t.Errorf("job %s: reused claim %+v differs from the one it came from %+v", job, l, l1)
		}
		if got, want := b.count(t, `SELECT count(*) FROM evidence WHERE run_id = $1 AND source_number IS NOT NULL`, run.ID),
			b.count(t, `SELECT count(*) FROM evidence WHERE run_id = $1 AND source_number IS NOT NULL`, run1.ID); got != want || got == 0 {
			t.Errorf("job %s: %d cited evidence rows, want the %d of the run it came from", job, got, want)
		}
	}
	// Another year: another claim. A re-verification checks again, and so does a job that says
	// "reuse": false. (Run after the reuses above: a claim reuses the latest verification.)
	fourth := b.publish(t, jobs.Message{V: 1, ID: "reuse-4", Text: otherYear, Method: method})
	reverify := true
	fifth := b.publish(t, jobs.Message{V: 1, ID: "reuse-5", Text: same, Method: method, Options: jobs.MessageOptions{Reverify: &reverify}})
	off := false
	sixth := b.publish(t, jobs.Message{V: 1, ID: "reuse-6", Text: same, Method: method, Options: jobs.MessageOptions{Reuse: &off}})
	b.runWorkers(t, 1)
	for job, why := range map[string]string{fourth: "another year", fifth: "a re-verification", sixth: `"reuse": false`} {
		run := b.runOf(t, job)
		if b.judgeCalls(t, run.ID) != 1 || run.SearchCalls != 1 {
			t.Errorf("%s: %d judge calls and %d searches, want its own verification", why, b.judgeCalls(t, run.ID), run.SearchCalls)
		}
		if l := b.reuseLinkOf(t, job); l.fromRun != nil {
			t.Errorf("%s reused run %d", why, *l.fromRun)
		}
	}
}

// Two jobs with one claim at once pay for one verification: the second waits for the first.
func TestReuseConcurrentJobsPayOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.openBook(t)
	b.cfg.ReuseWithin = 7 * 24 * time.Hour
	statement := "The Golden Gate Bridge opened in 1937 according to ledger " + b.cfg.Stream.Stream + "."
	b.reuseModel(t, statement)
	n := func(i int) *int { return &i }
	a := b.publish(t, jobs.Message{V: 1, ID: "once-1", Text: statement, Method: pipeline.MethodMultihop, Options: jobs.MessageOptions{MaxQuestions: n(7)}})
	c := b.publish(t, jobs.Message{V: 1, ID: "once-2", Text: statement, Method: pipeline.MethodMultihop, Options: jobs.MessageOptions{MaxQuestions: n(8)}})
	b.runWorkers(t, 2)
	ra, rc := b.runOf(t, a), b.runOf(t, c)
	if judged := b.judgeCalls(t, ra.ID) + b.judgeCalls(t, rc.ID); judged != 1 {
		t.Errorf("two jobs with one claim made %d judge calls, want 1", judged)
	}
	if searched := ra.SearchCalls + rc.SearchCalls; searched != 1 {
		t.Errorf("two jobs with one claim made %d searches, want 1", searched)
	}
	if b.count(t, `SELECT count(*) FROM claim_leases WHERE job_id IN ($1, $2)`, a, c) != 0 {
		t.Error("a lease outlived its job's run")
	}
}

// cove2 reuses a deep claim's verification: the second job makes no verify call and no search,
// and its review (one call per statement) decides on the stored answer and sources.
func TestReuseCove2Verification(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.openBook(t)
	b.cfg.ReuseWithin = 7 * 24 * time.Hour
	claim := "The Eiffel Tower was completed in 1889 according to file " + b.cfg.Stream.Stream
	draft := claim + "."
	b.cove2Model(t, cove2Script{
		plan:   cove2.Plan{Draft: draft, NeedsVerification: true, Claims: []cove2.PlanClaim{deepClaim(claim, "When was the Eiffel Tower completed?")}},
		verify: map[string]verifierAnswer{"completed": {answer: "31 March 1889", sourcesWith: "March 1889"}},
		finalize: func(sources map[int][]int) cove2.Review {
			return cove2.Review{Claims: []cove2.ClaimReview{{ID: 1, Status: cove2.ReviewConfirmed, Basis: sources[1]}},
				RevisedResponse: claim + " " + citation(sources[1]) + "."}
		},
	})
	n := func(i int) *int { return &i }
	first := b.publish(t, jobs.Message{V: 1, ID: "cove2-reuse-1", Text: draft, Method: pipeline.MethodCove2})
	b.runWorkers(t, 1)
	second := b.publish(t, jobs.Message{V: 1, ID: "cove2-reuse-2", Text: draft, Method: pipeline.MethodCove2, Options: jobs.MessageOptions{MaxQuestions: n(9)}})
	b.runWorkers(t, 1)

	run1, run2 := b.runOf(t, first), b.runOf(t, second)
	verifies := func(runID int64) int {
		return b.count(t, `SELECT count(*) FROM model_calls WHERE run_id = $1 AND step = 'verify'`, runID)
	}
	if verifies(run1.ID) != 1 || run1.SearchCalls != 1 {
		t.Fatalf("the first job: %d verify calls, %d searches; want its own verification", verifies(run1.ID), run1.SearchCalls)
	}
	if verifies(run2.ID) != 0 || run2.SearchCalls != 0 || run2.ModelCalls != 2 {
		t.Errorf("the second job: %d model calls (%d verify) and %d searches, want the plan and the review only", run2.ModelCalls, verifies(run2.ID), run2.SearchCalls)
	}
	l1, l2 := b.reuseLinkOf(t, first), b.reuseLinkOf(t, second)
	if l2.fromRun == nil || *l2.fromRun != run1.ID || l2.fromJob == nil || *l2.fromJob != first {
		t.Errorf("the second job's claim links %+v, want run %d", l2, run1.ID)
	}
	if l1.verdict != pipeline.VerdictSupported || l2.verdict != l1.verdict || len(l2.citations) == 0 || len(l2.citations) != len(l1.citations) {
		t.Errorf("verdicts: first %+v, second %+v", l1, l2)
	}
}
