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

// publicViewColumns is the public contract of the reporting views (docs/reporting.md, "Reporting views"):
// each view's columns as the migrations made them, with their types (information_schema's
// udt_name). A migration may add columns; one that drops, renames or retypes one of these breaks
// every query written against the view.
var publicViewColumns = map[string][]string{
	"statement_results": {
		"statement_id int8", "external_id text", "text text", "question text", "language text",
		"run_id int8", "job_id text", "method text", "requested_method text", "model text", "status text",
		"result_status text", "status_reason text", "error text", "draft text", "revised_text text", "report text",
		"checked int4", "claims int4", "supported int4", "refuted int4", "partly_supported int4", "unverified int4", "not_checked int4",
		"model_calls int4", "search_calls int4", "total_tokens int8", "reverify bool", "review_flags _text",
		"started_at timestamptz", "finished_at timestamptz", "duration_ms float8",
		// 00007
		"review_flag_details jsonb",
		// 00009
		"confirmed int4",
		// 00013
		"corrected bool", "standing_verdict text", "standing_source text",
		"source_url text", "source_author text", "published_at timestamptz",
	},
	"claim_results": {
		"statement_id int8", "external_id text", "run_id int8", "job_id text", "method text", "model text",
		"position int4", "claim_key text", "claim_text text", "span_text text", "tier text", "verification_query text",
		"verdict text", "variant_verdict text", "confidence text", "reason text", "consistent_part text", "corrected_text text",
		"check_position int4", "check_question text", "check_answer text", "citations _int4", "citation_urls _text",
		"finished_at timestamptz",
		// 00009
		"confirmed bool", "cited_passages jsonb",
		// 00013
		"standing_verdict text", "standing_source text",
		// 00015
		"reused_from_run int8", "reused_from_position int4", "reused_from_job text",
	},
	"editorial_verdicts": {
		"statement_id int8", "external_id text", "run_id int8", "position int4", "claim_text text",
		"machine_verdict text", "machine_confidence text", "machine_reason text",
		"decision_id int8", "decision text", "decision_verdict text", "decided_by text",
		"decided_at timestamptz", "decision_reason text", "recheck_job_id text",
		"standing_verdict text", "standing_source text", "finished_at timestamptz",
	},
	"job_outcomes": {
		"job_id text", "stream_seq int8", "subject text", "status text", "reason text", "attempts int4",
		"received_at timestamptz", "last_received_at timestamptz", "finished_at timestamptz",
		"run_id int8", "statement_id int8", "payload bytea",
	},
	"verdict_changes": {
		"statement_id int8", "external_id text", "claim_text text", "old_verdict text", "new_verdict text",
		"old_run_id int8", "new_run_id int8", "changed_at timestamptz", "new_reason text", "old_reason text",
		// 00003
		"old_finished_at timestamptz", "reverify bool", "old_method text", "new_method text",
		"old_confidence text", "new_confidence text", "old_citation_urls _text", "new_citation_urls _text",
		"new_check_question text", "new_check_answer text", "new_position int4",
	},
	"joint_agreement": {
		"model text", "runs int4", "agreed int4", "agreement_rate float8", "recent_runs int4",
		"recent_agreement_rate float8", "last_run_at timestamptz",
	},
	"usage_per_day": {
		"day date", "model text", "method text", "runs int4", "failed_runs int4", "reverify_runs int4",
		"model_calls int8", "prompt_tokens int8", "completion_tokens int8", "total_tokens int8", "searches int8",
		"cost_estimate numeric", "currency text",
	},
}

// Every public view keeps every column of its contract, by name and type. Columns added after
// them are fine.
func TestPublicViewsKeepTheirColumns(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	for view, want := range publicViewColumns {
		rows, err := s.Pool().Query(ctx, `SELECT column_name || ' ' || udt_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, view)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			got = append(got, c)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Errorf("there is no view %s", view)
			continue
		}
		for _, c := range want {
			if !slices.Contains(got, c) {
				t.Errorf("%s lost its column %q; it has %q", view, c, got)
			}
		}
	}
}
