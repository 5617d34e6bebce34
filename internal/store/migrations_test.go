package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/corroborate/corroborate/internal/testenv"
	"github.com/corroborate/corroborate/migrations"
)

// Migration 00007 splits the review flags stored before it on their first ": " into codes
// (review_flags) and details (review_flag_details), and its Down joins them back as they were.
func TestTypedReviewFlagsMigrateExistingRunsBothWays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testenv.Postgres(t, "store_flags")
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 6); err != nil {
		t.Fatal(err)
	}
	before := []string{"max_hops_above_5", "correction_refused: claim 1: the gate: Low confidence", "citation_removed: [3]"}
	_, err = pool.Exec(ctx, `
		WITH s AS (INSERT INTO statements (content_key) VALUES ('k') RETURNING id)
		INSERT INTO runs (job_id, statement_id, method, requested_method, status, started_at, finished_at, duration_ms, review_flags)
		SELECT 'job-1', s.id, 'cove2', 'cove2', 'done', now(), now(), 1, $1 FROM s`, before)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO runs (job_id, statement_id, method, requested_method, status, started_at, finished_at, duration_ms)
		SELECT 'job-2', id, 'cove2', 'cove2', 'done', now(), now(), 1 FROM statements`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 7); err != nil {
		t.Fatal(err)
	}
	var codes []string
	var details string
	if err := pool.QueryRow(ctx, `SELECT review_flags, review_flag_details::text FROM runs WHERE job_id = 'job-1'`).Scan(&codes, &details); err != nil {
		t.Fatal(err)
	}
	if want := []string{"max_hops_above_5", "correction_refused", "citation_removed"}; !slices.Equal(codes, want) {
		t.Errorf("codes %q, want %q", codes, want)
	}
	if want := `[{"code": "max_hops_above_5"}, {"code": "correction_refused", "detail": "claim 1: the gate: Low confidence"}, {"code": "citation_removed", "detail": "[3]"}]`; details != want {
		t.Errorf("details %s, want %s", details, want)
	}
	if err := pool.QueryRow(ctx, `SELECT review_flags, review_flag_details::text FROM runs WHERE job_id = 'job-2'`).Scan(&codes, &details); err != nil {
		t.Fatal(err)
	}
	if len(codes) != 0 || details != "[]" {
		t.Errorf("a run without flags: %q %s", codes, details)
	}

	if _, err := p.DownTo(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT review_flags FROM runs WHERE job_id = 'job-1'`).Scan(&codes); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(codes, before) {
		t.Errorf("after Down: %q, want %q", codes, before)
	}
	// 00006 and 00007 go down and up again cleanly.
	if _, err := p.DownTo(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
}

// Migration 00012 adds job_leases and the duplicate status and removes the statements that
// copies left without a run; its Down turns duplicates back into what they were recorded as
// before it (done), and both go again cleanly.
func TestDuplicateStatusMigratesBothWays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := testenv.Postgres(t, "store_duplicates")
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO statements (content_key) VALUES ('orphan'), ('ran');
		INSERT INTO runs (job_id, statement_id, method, requested_method, status, started_at, finished_at, duration_ms)
		SELECT 'job-1', id, 'cove-factored', 'cove-factored', 'done', now(), now(), 1 FROM statements WHERE content_key = 'ran'`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 12); err != nil {
		t.Fatal(err)
	}
	var kept []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(content_key ORDER BY content_key) FROM statements`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, []string{"ran"}) {
		t.Errorf("statements after 00012: %q, want only the one with a run", kept)
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO messages (job_id, stream_seq, subject, status) VALUES ('job-1', 1, 's', 'done'), ('job-1', 2, 's', 'duplicate');
		INSERT INTO message_attempts (job_id, stream_seq, attempt, outcome, received_at) VALUES ('job-1', 2, 1, 'duplicate', now());
		INSERT INTO job_leases (job_id, token, expires_at) VALUES ('job-2', 't', now())`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO messages (job_id, stream_seq, subject, status) VALUES ('job-1', 3, 's', 'copied')`); err == nil {
		t.Error("a status outside the vocabulary was accepted")
	}
	if _, err := p.DownTo(ctx, 10); err != nil {
		t.Fatal(err)
	}
	var done, attempts int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM messages WHERE status = 'done'), (SELECT count(*) FROM message_attempts WHERE outcome = 'done')`).Scan(&done, &attempts); err != nil {
		t.Fatal(err)
	}
	if done != 2 || attempts != 1 {
		t.Errorf("after Down: %d done messages and %d done attempts, want 2 and 1", done, attempts)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
}
