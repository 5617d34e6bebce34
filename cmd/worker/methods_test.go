package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// coveModel scripts the fake model for every CoVe variant: two checks per draft, each answered,
// cross-checks CONSISTENT, and revisions that return the draft when agree is set (else a
// shortened one).
func (b *bundle) coveModel(agree bool) {
	revise := func(prompt string) llmtest.Response {
		d := pipeline.PromptDraft.FindStringSubmatch(prompt)[1]
		if agree {
			return llmtest.Response{Text: d}
		}
		return llmtest.Response{Text: "Revised: " + d}
	}
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		switch {
		// Revisions and cross-checks first: they quote the questions that other rules match.
		case strings.Contains(prompt, pipeline.MarkerFinalAnswer):
			return llmtest.Response{Text: "Final answer from consistent claims."}, true
		case strings.Contains(prompt, pipeline.MarkerRevise):
			return revise(prompt), true
		case strings.Contains(prompt, pipeline.MarkerCrossCheck):
			return llmtest.Response{Text: "CONSISTENT"}, true
		case strings.Contains(prompt, pipeline.MarkerPlan):
			return llmtest.Response{Text: "Who said it?\nWhere was it said?"}, true
		case strings.Contains(prompt, pipeline.MarkerJointPlan):
			return llmtest.Response{Text: "Q: Who said it?\nA: A test\nQ: Where was it said?\nA: Paris"}, true
		case strings.Contains(prompt, pipeline.MarkerFactorRevisePlan):
			return llmtest.Response{Text: "Claim: A test said it\nQuestion: Who said it?\nClaim: It was said in Paris\nQuestion: Where was it said?"}, true
		case strings.Contains(prompt, pipeline.MarkerVerifyAll):
			return llmtest.Response{Text: "1. A test\n2. Paris"}, true
		case strings.Contains(prompt, pipeline.MarkerVerify):
			return llmtest.Response{Text: "Paris"}, true
		}
		return llmtest.Response{}, false
	})
}

// Every CoVe method runs through JetStream, the worker and PostgreSQL, with the model-call count
// the specification gives it (n = 2 checks here), and no verification call sees the draft.
func TestEveryCoveMethodEndToEnd(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method string
		calls  int
		steps  map[string]int
	}{
		{pipeline.MethodFactored, 3 + 2, map[string]int{"draft": 1, "plan": 1, "verify": 2, "revise": 1}},
		{pipeline.MethodJoint, 3, map[string]int{"draft": 1, "plan_answer": 1, "revise": 1}},
		{pipeline.MethodTwoStep, 4, map[string]int{"draft": 1, "plan": 1, "verify_all": 1, "revise": 1}},
		{pipeline.MethodFactorRevise, 3 + 2*2, map[string]int{"draft": 1, "plan": 1, "verify": 2, "cross_check": 2, "revise": 1}},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.coveModel(false)
			question := "Which test said what, and where? " + b.text
			draftText := "A test said it in Paris (" + b.text + ")."
			b.model.Reply(pipeline.MarkerDraft, draftText)
			job := b.publish(t, jobs.Message{V: 1, Question: question, Method: c.method})
			b.runWorkers(t, 1)

			var status, method string
			var calls int
			err := b.store.Pool().QueryRow(context.Background(), `SELECT r.status, r.method, r.model_calls FROM runs r WHERE r.job_id = $1`, job).Scan(&status, &method, &calls)
			if err != nil {
				t.Fatal(err)
			}
			if status != "done" || method != c.method || calls != c.calls {
				t.Fatalf("run: status %s method %s calls %d, want done %s %d", status, method, calls, c.method, c.calls)
			}
			rows, err := b.store.Pool().Query(context.Background(), `SELECT m.step, m.prompt FROM model_calls m JOIN runs r ON r.id = m.run_id WHERE r.job_id = $1`, job)
			if err != nil {
				t.Fatal(err)
			}
			steps := map[string]int{}
			for rows.Next() {
				var step, prompt string
				if err := rows.Scan(&step, &prompt); err != nil {
					t.Fatal(err)
				}
				steps[step]++
				if (step == "verify" || step == "verify_all") && (strings.Contains(prompt, draftText) || strings.Contains(prompt, question)) {
					t.Errorf("a %s prompt contains the draft or the question:\n%s", step, prompt)
				}
			}
			if fmt.Sprint(steps) != fmt.Sprint(c.steps) {
				t.Errorf("steps %v, want %v", steps, c.steps)
			}
			if n := b.count(t, `SELECT count(*) FROM claim_results WHERE job_id = $1 AND verdict IS NOT NULL`, job); n != 2 {
				t.Errorf("claim_results rows: %d, want 2", n)
			}
		})
	}
}

// Factor + revise verdicts reach claim_results in the shared vocabulary, each traced to its check.
func TestFactorReviseVerdictsInClaimResults(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.model.Reply("<claim>It was said in Paris</claim>", "INCONSISTENT")
	b.coveModel(false)
	job := b.publish(t, jobs.Message{V: 1, Question: "Who said it?", Text: b.text, Method: pipeline.MethodFactorRevise})
	b.runWorkers(t, 1)
	rows, err := b.store.Pool().Query(context.Background(), `
		SELECT claim_text, verdict, variant_verdict, check_question, check_answer
		FROM claim_results WHERE job_id = $1 ORDER BY position`, job)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var text, verdict, variant, question, answer string
		if err := rows.Scan(&text, &verdict, &variant, &question, &answer); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s", text, verdict, variant, question, answer))
	}
	want := []string{
		"A test said it|supported|CONSISTENT|Who said it?|Paris",
		"It was said in Paris|refuted|INCONSISTENT|Where was it said?|Paris",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("claim_results:\n%q\nwant\n%q", got, want)
	}
}

// Joint runs whose checks always agree with the draft switch the model to cove-factored.
func TestJointSwitchesToFactoredWhenChecksAlwaysAgree(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.cfg.JointSwitch, b.cfg.JointSwitchThreshold, b.cfg.JointSwitchWindow = true, 0.95, 3
	b.coveModel(true)
	for i := range 3 {
		b.publish(t, jobs.Message{V: 1, Question: "Who said it?", Text: fmt.Sprintf("Statement %d: %s", i, b.text), Method: pipeline.MethodJoint})
	}
	b.runWorkers(t, 1)
	var rate float64
	var runs int
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT recent_agreement_rate, recent_runs FROM joint_agreement WHERE model = $1`, b.cfg.Model).Scan(&rate, &runs); err != nil {
		t.Fatal(err)
	}
	if rate != 1 || runs != 3 {
		t.Fatalf("joint_agreement: rate %v over %d runs, want 1 over 3", rate, runs)
	}

	job := b.publish(t, jobs.Message{V: 1, Question: "Who said it?", Text: "Statement four: " + b.text, Method: pipeline.MethodJoint})
	b.runWorkers(t, 1)
	var method, requested, reason string
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT method, requested_method, method_reason FROM runs WHERE job_id = $1`, job).Scan(&method, &requested, &reason); err != nil {
		t.Fatal(err)
	}
	if method != pipeline.MethodFactored || requested != pipeline.MethodJoint || !strings.Contains(reason, "100%") {
		t.Fatalf("fourth joint job ran %s (asked %s): %q", method, requested, reason)
	}
}
