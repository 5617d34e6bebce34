package multihop

import (
	"context"
	"slices"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A claim checked once (issue 16, item 4): before a claim's hops run, the job's VerifiedClaims
// (pipeline.Input.Verified) is asked for the same claim verified by an earlier run. A claim found
// there takes that run's evidence and verdict and costs no search and no judge call; its claim
// row says where they came from. A time-sensitive claim is never looked up nor offered.

// reuseQuery is the lookup of a checked claim, and false when the claim must be verified anew
// whatever was stored: it is time-sensitive (the plan's requires_temporal_scope, or a freshness
// word in the claim or one of its hop queries) or has no word to key on.
func (r *multihopRun) reuseQuery(st *chainState) (pipeline.ClaimQuery, bool) {
	texts := []string{st.claim.ClaimText}
	for _, h := range st.hops {
		texts = append(texts, h.Query)
	}
	if evidence.TimeSensitive(st.claim.RequiresTemporalScope, texts...) {
		return pipeline.ClaimQuery{}, false
	}
	key := evidence.ReuseKeyOf(st.claim.ClaimText)
	if key == "" {
		return pipeline.ClaimQuery{}, false
	}
	return pipeline.ClaimQuery{Text: st.claim.ClaimText, Key: key, Context: r.reuseContext}, true
}

// reuse looks the claim up and, when it was verified before, takes that verification: the
// claim's evidence and its judgement. It reports whether it did; the chain then does not run.
// Every checked claim that could be reused later is given its key, found or not.
func (r *multihopRun) reuse(ctx context.Context, st *chainState) bool {
	q, ok := r.reuseQuery(st)
	if !ok {
		return false
	}
	r.res.Claims[st.index].Reuse = pipeline.ClaimReuse{Key: q.Key, Context: q.Context}
	if r.verified == nil {
		return false
	}
	vc, err := r.verified.Verified(ctx, q)
	if err != nil || vc == nil || len(vc.Evidence) == 0 {
		// A failed lookup costs a verification, never the job.
		return false
	}
	st.reused = vc
	var order []int // source numbers of the cited evidence, in the stored claim's order
	for _, e := range vc.Evidence {
		group := e.HopNumber
		if group == 0 {
			group = 100 // a cross-validation query of the earlier run
		}
		st.evidence = append(st.evidence, hopEvidence{
			Retrieved: evidence.Retrieved{SearchResult: pipeline.SearchResult{
				URL: e.URL, Title: e.Title, Snippet: e.Snippet, Domain: e.Domain, Publisher: e.Publisher,
				PublishedAt: e.PublishedAt, Provider: e.Provider, Rank: e.Rank,
			}, Page: e.Page, Passages: e.Passages},
			hop: e.HopNumber, group: group,
		})
		if e.SourceNumber != 0 {
			order = append(order, e.SourceNumber)
		}
	}
	c := vc.Claim
	v := judgement{Verdict: c.Verdict, VariantVerdict: c.VariantVerdict, Reason: c.Reason, Confidence: c.Confidence,
		SupportedPart: c.ConsistentPart, Correction: c.CorrectedText, quotes: map[int]string{}, stances: map[int]string{}}
	// The cited sources in the order of the stored claim's citations, then any other cited one.
	cites := slices.Clone(c.Citations)
	for _, n := range order {
		if !slices.Contains(cites, n) {
			cites = append(cites, n)
		}
	}
	for _, n := range cites {
		for i, e := range vc.Evidence {
			if e.SourceNumber == n && !slices.Contains(v.cited, i) {
				v.cited = append(v.cited, i)
				v.quotes[i], v.stances[i] = e.Quote, e.Stance
			}
		}
	}
	st.verdict = v
	from := vc.From
	r.res.Claims[st.index].Reuse.From = &from
	return true
}
