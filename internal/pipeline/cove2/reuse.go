package cove2

import (
	"context"
	"slices"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A claim checked once (issue 16, item 4): before a deep claim's verifier runs, the job's
// VerifiedClaims (pipeline.Input.Verified) is asked for the same claim verified by an earlier
// cove2 run. A claim found there takes that run's verification (the verifier's answer, what it
// read and the sources it cited, with their quotes) and costs no search and no verify call; the
// statement's review (Phase 3) then decides its verdict on it, as on a fresh one. A re-verification
// pass (Options.Iterate) and a time-sensitive claim never reuse.

// reuseQuery is the lookup of a planned claim, and false when it must be verified anew: it is not
// a deep claim with a query, or it is time-sensitive (a freshness word in the claim or its query,
// which the query checks anchored to a date).
func (r *cove2Run) reuseQuery(c pipeline.Claim) (pipeline.ClaimQuery, bool) {
	if c.Tier != pipeline.TierDeep || c.VerificationQuery == "" || slices.Contains(c.QueryFlags, evidence.QueryDateAnchored) ||
		evidence.TimeSensitive(false, c.Text, c.VerificationQuery) {
		return pipeline.ClaimQuery{}, false
	}
	key := evidence.ReuseKeyOf(c.Text)
	if key == "" {
		return pipeline.ClaimQuery{}, false
	}
	return pipeline.ClaimQuery{Text: c.Text, Key: key, Context: evidence.ReuseContext(pipeline.MethodCove2, r.in)}, true
}

// reuse returns the stored verification of the planned claim at idx, and whether there is one.
// Every claim that could be reused later is given its key, found or not.
func (r *cove2Run) reuse(ctx context.Context, idx int) (Verification, bool) {
	c := &r.planned[idx]
	q, ok := r.reuseQuery(*c)
	if !ok {
		return Verification{}, false
	}
	c.Reuse = pipeline.ClaimReuse{Key: q.Key, Context: q.Context}
	if r.in.Verified == nil {
		return Verification{}, false
	}
	vc, err := r.in.Verified.Verified(ctx, q)
	if err != nil || vc == nil || vc.Answer == "" {
		// A failed lookup costs a verification, never the job.
		return Verification{}, false
	}
	v := Verification{Query: c.VerificationQuery, Status: VerificationAnswered, Answer: vc.Answer,
		StatedConfidence: vc.Claim.Confidence, Confidence: vc.Claim.Confidence}
	for _, e := range vc.Evidence {
		got := evidence.Retrieved{SearchResult: pipeline.SearchResult{URL: e.URL, Title: e.Title, Snippet: e.Snippet, Domain: e.Domain,
			Publisher: e.Publisher, PublishedAt: e.PublishedAt, Provider: e.Provider, Rank: e.Rank}, Quote: e.Quote,
			Page: e.Page, Passages: e.Passages}
		v.Retrieved = append(v.Retrieved, got)
		if e.SourceNumber != 0 {
			v.Sources = append(v.Sources, got)
			v.Quotes = append(v.Quotes, e.Quote)
		}
	}
	if !v.Grounded() {
		return Verification{}, false
	}
	from := vc.From
	c.Reuse.From = &from
	return v, true
}
