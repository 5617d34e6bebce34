package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

func TestScratchSchemaIsMadeAndDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := store.NewScratchSchema(ctx, testenv.DatabaseURL(t), "public"); err == nil {
		t.Fatal("public must never be a scratch schema")
	}
	s, err := store.NewScratchSchema(ctx, testenv.DatabaseURL(t), "scratch_store_test")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil || schema != "scratch_store_test" {
		t.Fatalf("current schema %q, %v", schema, err)
	}
	conn.Close(ctx)
	if err := s.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, testenv.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = 'scratch_store_test'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the schema is still there: %d %v", n, err)
	}
}

// Two runs given one schema name (evaluate's default --schema, say) must not share it: the
// second would drop the first's corpus, and the first, ending, would drop the second's. In a
// relay run three `evaluate verdicts` runs on one schema lost the last statements of two of
// them to "relation corpus_configs does not exist". The second is refused, the first's schema
// untouched; once the first drops it, the name is free again.
func TestScratchSchemaInUseIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const name = "scratch_in_use_test"
	first, err := store.NewScratchSchema(ctx, testenv.DatabaseURL(t), name)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, first.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE kept (n int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewScratchSchema(ctx, testenv.DatabaseURL(t), name); err == nil || !strings.Contains(err.Error(), "in use by another run") || !strings.Contains(err.Error(), "--schema") {
		t.Fatalf("a second run on the schema: %v", err)
	}
	if _, err := conn.Exec(ctx, `SELECT count(*) FROM kept`); err != nil {
		t.Fatalf("the first run's schema was touched: %v", err)
	}
	if err := first.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := store.NewScratchSchema(ctx, testenv.DatabaseURL(t), name)
	if err != nil {
		t.Fatalf("the name is not free once dropped: %v", err)
	}
	if err := again.Drop(ctx); err != nil {
		t.Fatal(err)
	}
}
