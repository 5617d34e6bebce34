package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/store"
)

// reusableRecord is a stored run whose one claim can be reused under ctxKey.
func reusableRecord(jobID, claim, ctxKey, verdict string) store.RunRecord {
	rec := sampleRecord(jobID)
	rec.Method = pipeline.MethodMultihop
	rec.Result.Method = pipeline.MethodMultihop
	rec.Result.Checks = nil
	rec.Result.Claims = []pipeline.Claim{{Position: 1, Text: claim, Verdict: verdict, Confidence: pipeline.ConfidenceHigh,
		Reason: "the sources say so", Citations: []int{1},
		Reuse: pipeline.ClaimReuse{Key: evidence.ReuseKeyOf(claim), Context: ctxKey}}}
	rec.Result.Evidence = []pipeline.Evidence{
		{ID: 1, SourceNumber: 1, ClaimPosition: 1, HopNumber: 1, URL: "https://a.example/x", Title: "A", Snippet: "It opened in 1937.", Quote: "opened in 1937", Stance: "supports"},
		{ID: 2, ClaimPosition: 1, HopNumber: 1, URL: "https://b.example/y", Title: "B", Snippet: "Another page."},
	}
	return rec
}

func TestClaimReuseFindsWithinItsContextAndWindow(t *testing.T) {
	s := setup(t)
	ctx := context.Background()
	ctxKey := fmt.Sprintf("multihop/en/%d", time.Now().UnixNano())
	claim := "The Harlow Viaduct opened in 1937"
	job := newJobID(t)
	saved, err := s.SaveRun(ctx, reusableRecord(job, claim, ctxKey, pipeline.VerdictSupported))
	if err != nil {
		t.Fatal(err)
	}
	q := func(text, c string) pipeline.ClaimQuery {
		return pipeline.ClaimQuery{Text: text, Key: evidence.ReuseKeyOf(text), Context: c}
	}
	lookup := s.ClaimReuse(newJobID(t), time.Hour)
	defer func() { _ = lookup.Release(ctx) }()

	vc, err := lookup.Verified(ctx, q("In 1937, the Harlow Viaduct opened.", ctxKey))
	if err != nil || vc == nil {
		t.Fatalf("a rewording within the window: %v, %v; want the stored claim", vc, err)
	}
	if vc.From.RunID != saved.RunID || vc.From.Position != 1 || vc.From.JobID != job || vc.Claim.Verdict != pipeline.VerdictSupported ||
		len(vc.Evidence) != 2 || vc.Evidence[0].Quote != "opened in 1937" || vc.Evidence[0].SourceNumber != 1 {
		t.Errorf("reused %+v", vc)
	}
	// Another context (method, language, evidence options) or a window that ends before the run
	// finished finds nothing; the lookup then holds the lease of the claim.
	if vc, err := lookup.Verified(ctx, q(claim, ctxKey+"-other")); err != nil || vc != nil {
		t.Errorf("another context: %v, %v; want nothing", vc, err)
	}
	old := s.ClaimReuse(newJobID(t), time.Millisecond)
	defer func() { _ = old.Release(ctx) }()
	time.Sleep(5 * time.Millisecond)
	if vc, err := old.Verified(ctx, q(claim, ctxKey)); err != nil || vc != nil {
		t.Errorf("outside the window: %v, %v; want nothing", vc, err)
	}
	// An unverified claim is verified again.
	unverified := "The Harlow Viaduct was painted in 1950"
	if _, err := s.SaveRun(ctx, reusableRecord(newJobID(t), unverified, ctxKey, pipeline.VerdictUnverified)); err != nil {
		t.Fatal(err)
	}
	if vc, err := lookup.Verified(ctx, q(unverified, ctxKey)); err != nil || vc != nil {
		t.Errorf("an unverified claim: %v, %v; want nothing", vc, err)
	}
}

// A job that meets another's lease on its claim waits for it, and verifies the claim itself once
// the lease expires (a worker that died).
func TestClaimReuseWaitsForALease(t *testing.T) {
	s := setup(t)
	ctx := context.Background()
	ctxKey := fmt.Sprintf("multihop/en/%d", time.Now().UnixNano())
	claim := "The Selby Arcade opened in 1911"
	q := pipeline.ClaimQuery{Text: claim, Key: evidence.ReuseKeyOf(claim), Context: ctxKey}

	holder := s.ClaimReuse(newJobID(t), time.Hour)
	holder.LeaseTTL = 300 * time.Millisecond
	if vc, err := holder.Verified(ctx, q); err != nil || vc != nil {
		t.Fatalf("the first job: %v, %v; want the lease", vc, err)
	}
	waiter := s.ClaimReuse(newJobID(t), time.Hour)
	waiter.Poll = 20 * time.Millisecond
	defer func() { _ = waiter.Release(ctx) }()
	if vc, err := waiter.Verified(ctx, q); err != nil || vc != nil {
		t.Fatalf("after the lease expired: %v, %v; want the lease", vc, err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM claim_leases WHERE context = $1`, ctxKey); n != 1 {
		t.Errorf("%d leases of the claim, want the waiter's only", n)
	}

	// Released after its run is stored, the claim is found by the next job instead.
	if _, err := s.SaveRun(ctx, reusableRecord(newJobID(t), claim, ctxKey, pipeline.VerdictSupported)); err != nil {
		t.Fatal(err)
	}
	if err := waiter.Release(ctx); err != nil {
		t.Fatal(err)
	}
	next := s.ClaimReuse(newJobID(t), time.Hour)
	defer func() { _ = next.Release(ctx) }()
	if vc, err := next.Verified(ctx, q); err != nil || vc == nil {
		t.Errorf("after the run was stored: %v, %v; want the stored claim", vc, err)
	}
}
