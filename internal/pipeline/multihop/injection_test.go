package multihop

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// runPoisonedPlan runs the example plan with poison applied to it against a statement that also
// carries the payload, and returns the queries its searches were run with as the run stores
// them (Result.Searches).
func runPoisonedPlan(t *testing.T, payload string, poison func(*Plan)) []string {
	t.Helper()
	plan := examplePlan()
	poison(&plan)
	model := planModel(t, plan, map[string]string{
		plan.Claims[0].ClaimText: judgeJSON("supported", []int{1}, "Medium", "ok", ""),
		plan.Claims[1].ClaimText: judgeJSON("supported", []int{1}, "Medium", "ok", ""),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "1889", results: []pipeline.SearchResult{hit("https://a.org/1", "A", "Completed in 1889. "+payload, nil)}},
		{contains: "tallest", results: []pipeline.SearchResult{hit("https://b.org/2", "B", "Tallest until 1930.", nil)}},
		{contains: "record", results: []pipeline.SearchResult{hit("https://c.org/3", "C", "Record held 41 years.", nil)}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: examplePlanStatement + " " + payload})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(res.Searches) == 0 {
		t.Fatalf("nothing was searched: the suite tests no query check")
	}
	var stored []string
	for _, s := range res.Searches {
		stored = append(stored, s.Query)
	}
	return stored
}

// Every payload, ridden by a fooled planner into hop queries (after the query, before it, and
// as a cross-validation query's first sentence), and every split payload, cut in two across the
// two hops of a chain: none reaches a query a search was run with. The count of payloads that
// reach a stored query is logged; it must be 0:
//
//	go test -count=1 -v -run 'TestInjectionSuiteMultihop$' ./internal/pipeline/multihop/ | grep 'reached a stored'
func TestInjectionSuiteMultihop(t *testing.T) {
	t.Parallel()
	payloads := pipelinetest.InjectionPayloads
	if len(payloads) < 80 || len(pipelinetest.SplitPayloads) == 0 {
		t.Fatalf("the suite needs at least 80 hostile inputs and split ones, has %d and %d", len(payloads), len(pipelinetest.SplitPayloads))
	}
	var mu sync.Mutex
	reached := map[string]bool{}
	check := func(t *testing.T, name string, stored []string) {
		for _, q := range stored {
			if bad := pipelinetest.DirectiveIn(q); bad != "" {
				t.Errorf("%s reached a stored search query %q (%q)", name, q, bad)
				mu.Lock()
				reached[name] = true
				mu.Unlock()
			}
		}
	}
	t.Run("payloads", func(t *testing.T) {
		for i, payload := range payloads {
			t.Run(fmt.Sprintf("%03d", i+1), func(t *testing.T) {
				t.Parallel()
				stored := runPoisonedPlan(t, payload, func(p *Plan) {
					h := &p.QueryChains[0].Hops[0]
					h.Query = h.Query + " " + payload
					h = &p.QueryChains[1].Hops[1]
					h.Query = payload + " " + h.Query
					cv := &p.CrossValidationQueries[0]
					cv.QueryText = payload + ". " + cv.QueryText
				})
				check(t, fmt.Sprintf("payload %d %q", i+1, payload), stored)
			})
		}
		for i, split := range pipelinetest.SplitPayloads {
			t.Run(fmt.Sprintf("split%02d", i+1), func(t *testing.T) {
				t.Parallel()
				stored := runPoisonedPlan(t, split[0]+" "+split[1], func(p *Plan) {
					for c := range p.QueryChains {
						hops := p.QueryChains[c].Hops
						hops[0].Query = hops[0].Query + " " + split[0]
						hops[1].Query = split[1] + " " + hops[1].Query
					}
				})
				check(t, fmt.Sprintf("split payload %d %q", i+1, split), stored)
			})
		}
	})
	total := len(payloads) + len(pipelinetest.SplitPayloads)
	t.Logf("multihop: %d of %d payloads reached a stored query", len(reached), total)
	if len(reached) > 0 {
		t.Errorf("%d payloads reached a stored query, want 0", len(reached))
	}
}
