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
