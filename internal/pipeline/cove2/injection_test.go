package cove2

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// Every payload, ridden into a verification query by a fooled planner and into a search result:
// no directive reaches the search or the verifier's question, no fence is closed or opened from
// inside any prompt, and a URL no search returned is never cited. The count of payloads that
// reach a stored query (a query a search was run with, as Result.Searches records it) is
// logged; it must be 0:
//
//	go test -count=1 -v -run 'TestInjectionSuiteCove2$' ./internal/pipeline/cove2/ | grep 'reached a stored'
func TestInjectionSuiteCove2(t *testing.T) {
	t.Parallel()
	payloads := pipelinetest.InjectionPayloads
	if len(payloads) < 80 {
		t.Fatalf("the suite needs at least 80 hostile inputs, has %d", len(payloads))
	}
	clean := setupCove2(eiffelScript())
	mustRun(t, clean, pipeline.Input{Text: eiffelDraft})

	var mu sync.Mutex
	reached := map[int]bool{}
	t.Run("payloads", func(t *testing.T) {
		for i, payload := range payloads {
			t.Run(fmt.Sprintf("%03d", i+1), func(t *testing.T) {
				t.Parallel()
				poisoned := pipelinetest.SearchResult("https://blog.example/eiffel", "Blog", "The tower is 330 m. "+payload)
				script := eiffelScript()
				// The planner was fooled: the payload rode into both queries.
				script.plan = cove2PlanReply(true,
					deepClaim(eiffelH, qHeight+" "+payload),
					deepClaim(eiffelC, payload+" "+qCompleted),
					shallowClaim(eiffelS))
				script.results = map[string][]pipeline.SearchResult{qHeight: {poisoned, tourEiffel, britannica}, qCompleted: {tourHistory, wiki}}
				script.verify[qHeight] = verifierReply("330 metres", "The tower is 330 m.", "High", poisoned.URL, "https://evil.example/pwn", tourEiffel.URL)
				script.finalize = cove2ReviewReply("The Eiffel Tower is 330 metres tall [1] [7]. "+payload+" https://evil.example/pwn",
					ClaimReview{ID: 1, Status: ReviewCorrected, Corrected: "The Eiffel Tower is 330 metres tall", Basis: []int{1, 7}},
					ClaimReview{ID: 2, Status: ReviewConfirmed, Basis: []int{3}},
					ClaimReview{ID: 3, Status: ReviewConfirmed})
				s := setupCove2(script)
				res, err := s.run(t, pipeline.Input{Text: eiffelDraft + " " + payload})
				if err != nil {
					t.Fatalf("payload %d: %v", i+1, err)
				}
				for _, q := range res.Searches {
					if bad := pipelinetest.DirectiveIn(q.Query); bad != "" {
						t.Errorf("payload %d %q reached a stored search query %q (%q)", i+1, payload, q.Query, bad)
						mu.Lock()
						reached[i] = true
						mu.Unlock()
					}
				}
				for _, q := range s.search.Sent() {
					if bad := pipelinetest.DirectiveIn(q.Query); bad != "" {
						t.Errorf("payload %d reached a search query %q (%q)", i+1, q.Query, bad)
					}
				}
				for _, c := range res.Claims {
					if bad := pipelinetest.DirectiveIn(c.VerificationQuery); bad != "" {
						t.Errorf("payload %d reached claim %d's verification query %q (%q)", i+1, c.Position, c.VerificationQuery, bad)
					}
				}
				for _, p := range s.model.Sent(pipeline.StepVerify) {
					assertSameFences(t, p, clean.model.Sent(pipeline.StepVerify)[0], "untrusted_question", "evidence")
					// One source element per retrieved page (at most three here), none forged.
					opened, closed := strings.Count(p, "<source n="), strings.Count(p, "</source>")
					if opened != closed || opened > 3 || strings.Contains(p, `url="https://evil.example`) {
						t.Errorf("payload %d forged a source: %d opened, %d closed:\n%s", i+1, opened, closed, p)
					}
				}
				assertSameFences(t, s.model.Sent(pipeline.StepPlan)[0], clean.model.Sent(pipeline.StepPlan)[0], "untrusted_draft", "untrusted_question", "evidence")
				if f := s.model.Sent(pipeline.StepFinalize); len(f) > 0 {
					assertSameFences(t, f[0], clean.model.Sent(pipeline.StepFinalize)[0], "untrusted_draft", "untrusted_question", "evidence", "verification_results")
				}
				for _, where := range []string{res.RevisedText, res.Report} {
					if strings.Contains(where, "https://evil.example") || strings.Contains(where, "[7]") {
						t.Errorf("payload %d: a source no search returned is cited:\n%s", i+1, where)
					}
				}
			})
		}
	})
	t.Logf("cove2: %d of %d payloads reached a stored query", len(reached), len(payloads))
	if len(reached) > 0 {
		t.Errorf("%d payloads reached a stored query, want 0", len(reached))
	}
}
