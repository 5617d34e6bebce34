package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

func TestOpenReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	setup(t) // migrated, so that model_prices exists
	ro, err := store.OpenReadOnly(context.Background(), store.Config{URL: testenv.SchemaURL(t, "store"), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var n int
	if err := ro.Pool().QueryRow(context.Background(), `SELECT count(*) FROM model_prices`).Scan(&n); err != nil {
		t.Fatalf("a read: %v", err)
	}
	if _, err := ro.Pool().Exec(context.Background(), `DELETE FROM model_prices`); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write through a read-only store: %v", err)
	}
}

func TestOpenWithSearchPath(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), store.Config{URL: testenv.DatabaseURL(t), MaxConns: 1, SearchPath: "pg_catalog"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var path string
	if err := st.Pool().QueryRow(context.Background(), `SHOW search_path`).Scan(&path); err != nil || path != "pg_catalog" {
		t.Fatalf("search_path %q (%v), want pg_catalog", path, err)
	}
}
