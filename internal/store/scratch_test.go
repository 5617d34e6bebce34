package store_test

import (
	"context"
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
