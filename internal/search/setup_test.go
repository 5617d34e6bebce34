package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

var schemaCounter atomic.Int64

// bundle is what a corpus test works with: a pool on a schema of its own (ranking depends on the
// statistics of the whole corpus, so tests that load documents must not share one) and the
// corpus over it.
type bundle struct {
	pool   *pgxpool.Pool
	corpus *search.Corpus
}

// setup returns a corpus on a fresh, migrated schema of the test's own.
func setup(t *testing.T, opts search.CorpusOpts) bundle {
	t.Helper()
	pool := testenv.Postgres(t, fmt.Sprintf("search_%d_%d", time.Now().Unix()%100000, schemaCounter.Add(1)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := store.New(pool).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Registered after testenv's pool.Close, this runs before it: the schema goes with the
		// test.
		var schema string
		if err := pool.QueryRow(context.Background(), `SELECT current_schema()`).Scan(&schema); err == nil && strings.HasPrefix(schema, "test_search_") {
			_, _ = pool.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		}
	})
	return bundle{pool: pool, corpus: search.NewCorpus(pool, opts)}
}

// load loads docs (one JSON object each) and fails the test on error.
func (b bundle) load(t *testing.T, docs ...map[string]any) search.LoadStats {
	t.Helper()
	stats, err := b.corpus.Load(context.Background(), strings.NewReader(jsonl(t, docs...)), search.LoadOpts{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return stats
}

func jsonl(t *testing.T, docs ...map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, d := range docs {
		line, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}
