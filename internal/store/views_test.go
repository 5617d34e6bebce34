package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// citedTwice saves a run whose two claims both cite sources [2] and [1]: each source is an
// evidence row of each claim, so source 1 has two rows with one URL, as the open-book methods
// store it. The first claim's verdict is verdict.
func citedTwice(t *testing.T, s *store.Store, st store.Statement, finished time.Time, verdict, url1, url2 string) store.Saved {
	t.Helper()
	rec := sampleRecord(newJobID(t))
	rec.Statement = st
	rec.StartedAt, rec.FinishedAt = finished.Add(-time.Second), finished
	rec.Result.Checks = nil
	rec.Result.Claims = []pipeline.Claim{
		claim(1, "The Eiffel Tower is 330 m tall", verdict, "the sources say so", "High", 2, 1),
		claim(2, "The Eiffel Tower stands in Paris", pipeline.VerdictSupported, "", "High", 1),
	}
	rec.Result.Evidence = []pipeline.Evidence{
		{ID: 1, SourceNumber: 1, ClaimPosition: 1, URL: url1},
		{ID: 2, SourceNumber: 2, ClaimPosition: 1, URL: url2},
		{ID: 3, SourceNumber: 1, ClaimPosition: 2, URL: url1},
	}
	saved, err := s.SaveRun(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

// A source number names one URL in a run: every view that lists a claim's cited URLs lists each
// once, in source-number order, however many evidence rows carry that number. verdict_changes
// repeated them (migration 00004 had fixed claim_results only).
func TestCitationURLsAreListedOncePerSource(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	st := store.Statement{ExternalID: newJobID(t), Text: "The Eiffel Tower is 330 m tall and stands in Paris.", Language: "en"}
	now := time.Now()
	citedTwice(t, s, st, now.Add(-2*time.Hour), pipeline.VerdictRefuted, "https://old.example/1", "https://old.example/2")
	latest := citedTwice(t, s, st, now.Add(-time.Hour), pipeline.VerdictSupported, "https://new.example/1", "https://new.example/2")

	var claimURLs []string
	if err := s.Pool().QueryRow(ctx, `SELECT citation_urls FROM claim_results WHERE run_id = $1 AND position = 1`, latest.RunID).Scan(&claimURLs); err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://new.example/1", "https://new.example/2"}; !slices.Equal(claimURLs, want) {
		t.Errorf("claim_results.citation_urls %q, want %q", claimURLs, want)
	}

	var oldURLs, newURLs []string
	if err := s.Pool().QueryRow(ctx, `SELECT old_citation_urls, new_citation_urls FROM verdict_changes WHERE new_run_id = $1`, latest.RunID).Scan(&oldURLs, &newURLs); err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://old.example/1", "https://old.example/2"}; !slices.Equal(oldURLs, want) {
		t.Errorf("verdict_changes.old_citation_urls %q, want %q", oldURLs, want)
	}
	if want := []string{"https://new.example/1", "https://new.example/2"}; !slices.Equal(newURLs, want) {
		t.Errorf("verdict_changes.new_citation_urls %q, want %q", newURLs, want)
	}
}
