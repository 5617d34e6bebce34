package main

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Model replies that no method can use end in a recorded outcome, and big ones stay bounded.
func TestBadModelRepliesEndInARecordedOutcome(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		method  string
		script  func(b *bundle)
		outcome string
		check   func(t *testing.T, b *bundle, job string)
	}{
		{"1 MB plan is capped", pipeline.MethodFactored, func(b *bundle) {
			b.model.Reply(pipeline.MarkerPlan, strings.Repeat("Who said it, and where, and when exactly?\n", 25000))
			b.factoredModel()
		}, "done", func(t *testing.T, b *bundle, job string) {
			if n := b.count(t, `SELECT count(*) FROM checks c JOIN runs r ON r.id = c.run_id WHERE r.job_id = $1`, job); n != 1 {
				t.Errorf("a plan of one question repeated 25,000 times is one check, got %d", n)
			}
		}},
		{"1 MB plan of distinct lines is capped at 10", pipeline.MethodFactored, func(b *bundle) {
			var plan strings.Builder
			for i := 0; plan.Len() < 1<<20; i++ {
				plan.WriteString("Question number " + strings.Repeat("x", i%50) + "?\n")
			}
			b.model.Reply(pipeline.MarkerPlan, plan.String())
			b.factoredModel()
		}, "done", func(t *testing.T, b *bundle, job string) {
			if n := b.count(t, `SELECT count(*) FROM checks c JOIN runs r ON r.id = c.run_id WHERE r.job_id = $1`, job); n != 10 {
				t.Errorf("checks: %d, want the cap of 10", n)
			}
		}},
		{"empty replies exhaust the attempts", pipeline.MethodFactored, func(b *bundle) {
			b.model.Reply(pipeline.MarkerPlan, "")
		}, "dead", func(t *testing.T, b *bundle, job string) {
			if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND reason LIKE '%empty reply%'`, job); n != 1 {
				t.Errorf("the dead job's reason does not say the model replied empty")
			}
		}},
		{"invalid cove2 plan twice fails", pipeline.MethodCove2, func(b *bundle) {
			b.model.Reply("", "this is { not JSON")
		}, "failed", func(t *testing.T, b *bundle, job string) {
			if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1 AND error <> '' AND model_calls = 2`, job); n != 1 {
				t.Errorf("a plan invalid after its one repair fails the run with both calls stored")
			}
		}},
		{"truncated cove2 plan fails", pipeline.MethodCove2, func(b *bundle) {
			b.model.Reply("", `{"draft": "The tower is tall", "needs_verification": true, "claims": [{"text": "The tow`).FinishReason("length")
		}, "failed", nil},
		{"schema-valid multihop plan with nonsense references fails", pipeline.MethodMultihop, func(b *bundle) {
			b.model.Reply("", `{"plan_id":"p","claims":[{"claim_id":"c7","claim_text":"Nothing like the statement","source_span":"not in it","entities":[],"verifiable":true,"requires_temporal_scope":false,"sub_queries":["q"],"source_independence_score":0.5}],"query_chains":[{"claim_id":"c99","hops":[{"hop_number":3,"query":"q","target_source_type":"news","expected_evidence_type":"fact"}]}],"cross_validation_pairs":[],"cross_validation_queries":[],"execution_order":["c42"]}`)
		}, "failed", func(t *testing.T, b *bundle, job string) {
			var reason string
			if err := b.store.Pool().QueryRow(context.Background(), `SELECT reason FROM job_outcomes WHERE job_id = $1`, job).Scan(&reason); err != nil {
				t.Fatal(err)
			}
			for _, rule := range []string{"claim_ids_sequential", "claim_maps_to_span"} {
				if !strings.Contains(reason, rule) {
					t.Errorf("the failure names no %s: %s", rule, reason)
				}
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.searcher = emptySearcher{}
			c.script(b)
			job := b.publish(t, jobs.Message{V: 1, Text: "The tower is tall and old, says " + b.text, Method: c.method})
			b.runWorkers(t, 1)
			var status string
			if err := b.store.Pool().QueryRow(context.Background(), `SELECT status FROM job_outcomes WHERE job_id = $1`, job).Scan(&status); err != nil {
				t.Fatal(err)
			}
			if status != c.outcome {
				t.Fatalf("outcome %s, want %s", status, c.outcome)
			}
			if c.check != nil {
				c.check(t, b, job)
			}
		})
	}
}

// emptySearcher finds nothing: for tests whose runs end before they search.
type emptySearcher struct{}

func (emptySearcher) Search(context.Context, pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	return pipeline.SearchResponse{Provider: "empty"}, nil
}
