package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A source's page attempt is stored with its evidence: what was read (hash, time, status, final
// URL, type, passages with offsets) or why not; evidence with no attempt leaves it all NULL.
func TestSaveRunStoresWhatEachPageRead(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	fetched := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	hash := "3f0a8b2c9d1e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f90"
	rec.Result.Evidence = []pipeline.Evidence{
		{ID: 1, ClaimPosition: 1, URL: "https://a.example/history", SourceNumber: 1, Quote: "completed on 31 March 1889",
			Page: &pipeline.Page{URL: "https://a.example/history", FinalURL: "https://a.example/en/history", Status: 200, ContentType: "text/html",
				FetchedAt: fetched, Text: "...", TextSHA256: hash, Cached: true},
			Passages: []pipeline.Passage{{Start: 120, End: 171, Text: "The tower was completed on 31 March 1889."}}},
		{ID: 2, ClaimPosition: 1, URL: "https://b.example/redirects-inside",
			Page: &pipeline.Page{URL: "https://b.example/redirects-inside", FetchedAt: fetched, Failure: pipeline.PageAddressRefused,
				Error: "dial tcp 169.254.169.254:80: address refused: 169.254.169.254 is not a public address"}},
		{ID: 3, ClaimPosition: 1, URL: "https://c.example/corpus"},
	}
	saved, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	type pageRow struct {
		fetchedAt                                 *time.Time
		cached                                    *bool
		status                                    *int
		finalURL, contentType, sha, failure, errs *string
		passages                                  []byte
	}
	read := func(id int) pageRow {
		var r pageRow
		if err := s.Pool().QueryRow(ctx, `SELECT page_fetched_at, page_cached, page_status, page_final_url, page_content_type,
			page_text_sha256, page_failure, page_error, page_passages FROM evidence WHERE run_id = $1 AND id = $2`, saved.RunID, id).
			Scan(&r.fetchedAt, &r.cached, &r.status, &r.finalURL, &r.contentType, &r.sha, &r.failure, &r.errs, &r.passages); err != nil {
			t.Fatal(err)
		}
		return r
	}
	read1 := read(1)
	var passages []pipeline.Passage
	if err := json.Unmarshal(read1.passages, &passages); err != nil {
		t.Fatal(err)
	}
	if read1.fetchedAt == nil || !read1.fetchedAt.Equal(fetched) || read1.cached == nil || !*read1.cached || *read1.status != 200 ||
		*read1.finalURL != "https://a.example/en/history" || *read1.contentType != "text/html" || *read1.sha != hash || read1.failure != nil ||
		len(passages) != 1 || passages[0].Start != 120 || passages[0].End != 171 {
		t.Errorf("the page read: %+v, passages %s", read1, read1.passages)
	}
	read2 := read(2)
	if read2.failure == nil || *read2.failure != pipeline.PageAddressRefused || read2.errs == nil || read2.status != nil || read2.sha != nil {
		t.Errorf("the refused page: %+v", read2)
	}
	read3 := read(3)
	if read3.fetchedAt != nil || read3.cached != nil || read3.failure != nil || read3.passages != nil {
		t.Errorf("evidence with no page attempt has page columns: %+v", read3)
	}
}

// A reused claim's evidence says what its pages held when they were read: the page attempt and
// passages come back with it.
func TestClaimReuseKeepsThePageRead(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	ctxKey := fmt.Sprintf("multihop/en/pages/%d", time.Now().UnixNano())
	claim := "The Brennock Footbridge opened in 1937"
	rec := reusableRecord(newJobID(t), claim, ctxKey, pipeline.VerdictSupported)
	fetched := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	rec.Result.Evidence[0].Page = &pipeline.Page{URL: rec.Result.Evidence[0].URL, FinalURL: "https://a.example/x/", Status: 200,
		ContentType: "text/html", FetchedAt: fetched, TextSHA256: strings.Repeat("ab", 32)}
	rec.Result.Evidence[0].Passages = []pipeline.Passage{{Start: 10, End: 24, Text: "opened in 1937"}}
	rec.Result.Evidence[1].Page = &pipeline.Page{URL: rec.Result.Evidence[1].URL, FetchedAt: fetched, Failure: pipeline.PageRobotsDisallowed, Error: "disallowed"}
	if _, err := s.SaveRun(ctx, rec); err != nil {
		t.Fatal(err)
	}
	lookup := s.ClaimReuse(newJobID(t), time.Hour)
	defer func() { _ = lookup.Release(ctx) }()
	vc, err := lookup.Verified(ctx, pipeline.ClaimQuery{Text: claim, Key: evidence.ReuseKeyOf(claim), Context: ctxKey})
	if err != nil || vc == nil || len(vc.Evidence) != 2 {
		t.Fatalf("the stored claim: %+v, %v", vc, err)
	}
	read, refused := vc.Evidence[0], vc.Evidence[1]
	if read.Page != nil && read.Page.FetchedAt.Equal(fetched) {
		read.Page.FetchedAt = fetched // PostgreSQL gives it back in the session's time zone
	}
	if read.Page == nil || *read.Page != *rec.Result.Evidence[0].Page || len(read.Passages) != 1 || read.Passages[0] != rec.Result.Evidence[0].Passages[0] {
		t.Errorf("the page read came back as %+v, %+v", read.Page, read.Passages)
	}
	if refused.Page == nil || refused.Page.Failure != pipeline.PageRobotsDisallowed || refused.Page.Error != "disallowed" || refused.Passages != nil {
		t.Errorf("the refused page came back as %+v", refused.Page)
	}
}
