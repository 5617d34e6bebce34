package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
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
