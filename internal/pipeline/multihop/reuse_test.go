package multihop

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// memVerified is a pipeline.VerifiedClaims in memory: the claims of earlier runs by key, and the
// queries it was asked.
type memVerified struct {
	mu      sync.Mutex
	queries []pipeline.ClaimQuery
	claims  map[string]*pipeline.VerifiedClaim
}

func (m *memVerified) Verified(_ context.Context, q pipeline.ClaimQuery) (*pipeline.VerifiedClaim, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries = append(m.queries, q)
	return m.claims[q.Key], nil
}

// remember keeps the reusable claims of a run as a store would.
func (m *memVerified) remember(runID int64, res *pipeline.Result) {
	for _, c := range res.Claims {
		if c.Reuse.Key == "" {
			continue
		}
		vc := &pipeline.VerifiedClaim{From: pipeline.ClaimRef{RunID: runID, Position: c.Position, JobID: "job-1"}, Claim: c}
		for _, e := range res.Evidence {
			if e.ClaimPosition == c.Position {
				vc.Evidence = append(vc.Evidence, e)
			}
		}
		m.claims[c.Reuse.Key] = vc
	}
}

// A claim verified before takes that verification: no search and no judge call for it, the same
// verdict, citations and quotes, and the link. A time-sensitive claim (the plan's
// requires_temporal_scope, "recent studies") is never looked up nor offered.
func TestMultihopReusesAClaimVerifiedBefore(t *testing.T) {
	t.Parallel()
	judgements := map[string]string{
		apoeClaim1: judgeJSON("supported", []int{1, 2}, "High", "Both sources tie APOE4 to Alzheimer's risk.", "", "the strongest genetic risk factor", "not in any source", "increases the risk of Alzheimer's disease"),
		apoeClaim2: judgeJSON("supported", []int{1, 2, 3}, "High", "Three sources report lower cancer risk.", "",
			"a lower incidence of several cancers", "reduced breast cancer risk", "an inverse comorbidity linked to APOE"),
	}
	mem := &memVerified{claims: map[string]*pipeline.VerifiedClaim{}}
	first, err := Multihop{Model: planModel(t, validPlan(), judgements), Searcher: planSearcher(true)}.Run(context.Background(),
		pipeline.Input{Text: specStatement, Verified: mem})
	if err != nil {
		t.Fatal(err)
	}
	if len(mem.queries) != 1 || mem.queries[0].Text != apoeClaim1 {
		t.Fatalf("looked up %+v, want claim 1 only (claim 2 is time-sensitive)", mem.queries)
	}
	if first.Claims[0].Reuse.Key == "" || first.Claims[0].Reuse.From != nil || first.Claims[1].Reuse.Key != "" {
		t.Errorf("reuse of the first run's claims: %+v, %+v", first.Claims[0].Reuse, first.Claims[1].Reuse)
	}
	mem.remember(7, first)

	model := planModel(t, validPlan(), judgements)
	searcher := planSearcher(true)
	again, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: specStatement, Verified: mem})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(model.Sent(pipeline.StepJudge)); n != 1 {
		t.Errorf("judge calls: %d, want 1 (claim 2 only)", n)
	}
	for _, q := range searcher.sent() {
		for _, h := range validPlan().QueryChains[0].Hops {
			if q.Query == h.Query {
				t.Errorf("claim 1's hop %d was searched again", h.HopNumber)
			}
		}
	}
	c1, was := again.Claims[0], first.Claims[0]
	if c1.Reuse.From == nil || *c1.Reuse.From != (pipeline.ClaimRef{RunID: 7, Position: 1, JobID: "job-1"}) {
		t.Errorf("claim 1's link: %+v", c1.Reuse.From)
	}
	if c1.Verdict != was.Verdict || c1.Confidence != was.Confidence || c1.Reason != was.Reason || !slices.Equal(c1.Citations, was.Citations) {
		t.Errorf("reused claim 1: %s %s %v %q; it was %s %s %v %q", c1.Verdict, c1.Confidence, c1.Citations, c1.Reason, was.Verdict, was.Confidence, was.Citations, was.Reason)
	}
	var quotes, wasQuotes []string
	for _, e := range again.Evidence {
		if e.ClaimPosition == 1 && e.Quote != "" {
			quotes = append(quotes, e.Quote)
		}
	}
	for _, e := range first.Evidence {
		if e.ClaimPosition == 1 && e.Quote != "" {
			wasQuotes = append(wasQuotes, e.Quote)
		}
	}
	if !slices.Equal(quotes, wasQuotes) || len(quotes) == 0 {
		t.Errorf("claim 1's quotes %q, were %q", quotes, wasQuotes)
	}
	if again.Claims[1].Reuse.From != nil || again.Claims[1].Verdict != first.Claims[1].Verdict {
		t.Errorf("claim 2 (time-sensitive): %+v", again.Claims[1])
	}
}
