package store_test

import (
	"context"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// What an editor reads first is stored per cited source: the passage and the stance of each
// source a claim cites, in claim_results.cited_passages; and Confirmed counts only supported
// claims at High or Medium, never one at Low or with no confidence.
func TestConfirmedAndCitedPassages(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	rec.Result.Checks = nil
	rec.Result.Claims = []pipeline.Claim{
		claim(1, "The Eiffel Tower is 330 m tall", pipeline.VerdictSupported, "", "High", 1, 2),
		claim(2, "It has 1,665 steps", pipeline.VerdictSupported, "", "Low", 1),
		claim(3, "It is in Paris", pipeline.VerdictSupported, "", ""),
		claim(4, "It opened in 1890", pipeline.VerdictRefuted, "", "Medium", 2),
	}
	rec.Result.Evidence = []pipeline.Evidence{
		{ID: 1, SourceNumber: 1, ClaimPosition: 1, URL: "https://a.example/1", Quote: "The tower is 330 m tall", Stance: "supports"},
		{ID: 2, SourceNumber: 2, ClaimPosition: 1, URL: "https://b.example/2", Quote: "stands 330 metres high", Stance: "supports"},
		{ID: 3, SourceNumber: 1, ClaimPosition: 2, URL: "https://a.example/1"},
		{ID: 4, SourceNumber: 2, ClaimPosition: 4, URL: "https://b.example/2", Quote: "opened in March 1889", Stance: "refutes"},
		{ID: 5, ClaimPosition: 4, URL: "https://c.example/3"},
	}
	saved, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	var confirmed int
	if err := s.Pool().QueryRow(ctx, `SELECT confirmed FROM statement_results WHERE run_id = $1`, saved.RunID).Scan(&confirmed); err != nil {
		t.Fatal(err)
	}
	if confirmed != 1 {
		t.Errorf("statement_results.confirmed = %d, want 1 (supported at Low or with no confidence confirms nothing)", confirmed)
	}
	want := map[int]struct {
		confirmed bool
		passages  string
	}{
		1: {true, `[{"n": 1, "url": "https://a.example/1", "stance": "supports", "passage": "The tower is 330 m tall"}, {"n": 2, "url": "https://b.example/2", "stance": "supports", "passage": "stands 330 metres high"}]`},
		2: {false, `[{"n": 1, "url": "https://a.example/1"}]`},
		3: {false, `[]`},
		4: {false, `[{"n": 2, "url": "https://b.example/2", "stance": "refutes", "passage": "opened in March 1889"}]`},
	}
	rows, err := s.Pool().Query(ctx, `SELECT position, confirmed, cited_passages::text FROM claim_results WHERE run_id = $1 ORDER BY position`, saved.RunID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var pos int
		var ok bool
		var passages string
		if err := rows.Scan(&pos, &ok, &passages); err != nil {
			t.Fatal(err)
		}
		n++
		if w := want[pos]; ok != w.confirmed || passages != w.passages {
			t.Errorf("claim %d: confirmed %v, cited_passages %s\nwant %v, %s", pos, ok, passages, w.confirmed, w.passages)
		}
	}
	if n != 4 {
		t.Errorf("%d claims", n)
	}
	var stances int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM evidence WHERE run_id = $1 AND stance IS NOT NULL`, saved.RunID).Scan(&stances); err != nil || stances != 3 {
		t.Errorf("evidence.stance: %d rows (%v)", stances, err)
	}
	sum, err := s.Summary(ctx, store.ReportFilter{ExternalIDPrefix: rec.Statement.ExternalID})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Confirmed != 1 {
		t.Errorf("Summary.Confirmed = %d, want 1", sum.Confirmed)
	}
}
