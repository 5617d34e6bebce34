package searcheval_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

func TestStripLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"near [[Pittsview,_Alabama|Pittsview]] in [[Russell_County,_Alabama|Russell County, Alabama]].", "near Pittsview in Russell County, Alabama."},
		{"a [[Patio]] and [[Marble_hearth]]", "a Patio and Marble hearth"},
		{"no links [here", "no links [here"},
		{"[[A|]] empty text", " empty text"},
	} {
		if got := searcheval.StripLinks(tc.in); got != tc.want {
			t.Errorf("StripLinks(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := searcheval.PageURL("Glenn–Thompson Plantation"); got != "https://en.wikipedia.org/wiki/Glenn%E2%80%93Thompson_Plantation" {
		t.Errorf("PageURL: %s", got)
	}
}

// claimsForCI is the size of the benchmark CI runs: every document, the first claims.
const claimsForCI = 200

// TestFeverousRetrieval loads FEVEROUS-S (all 1,957 pages), queries with the first 200 claims,
// and holds the corpus's default ranking to the figures it reached when it was chosen (see
// ../README.md): at least plain BM25, well above PostgreSQL's own ranking.
func TestFeverousRetrieval(t *testing.T) {
	t.Parallel()
	docs, claims, err := searcheval.ReadFeverous(testenv.Dataset(t, searcheval.FeverousFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1957 || len(claims) != 2962 {
		t.Fatalf("%d documents and %d claims: the dataset changed", len(docs), len(claims))
	}
	claims = claims[:claimsForCI]
	pool := testenv.Postgres(t, "searcheval")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := store.New(pool).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var logged []string
	scores, stats, err := searcheval.RunFeverous(ctx, pool, docs, claims, 4, func(line string) { logged = append(logged, line) })
	if err != nil {
		t.Fatal(err)
	}
	if stats.Inserted != len(docs) {
		t.Fatalf("load: %+v", stats)
	}
	t.Logf("\n%s", searcheval.Table(scores))
	byName := map[string]searcheval.Score{}
	for _, s := range scores {
		byName[s.Name] = s
	}
	get := func(prefix string) searcheval.Score {
		t.Helper()
		for name, s := range byName {
			if strings.HasPrefix(name, prefix) {
				return s
			}
		}
		t.Fatalf("no score %q among %v", prefix, scores)
		return searcheval.Score{}
	}
	best := get("OR + BM25 in PostgreSQL, title x3 (the default)")
	plain := get("plain BM25 computed in Go")
	sqlPlain := get("OR + BM25 in PostgreSQL, every matching document scored")
	rankCD := get("OR of the claim's lexemes + ts_rank_cd")
	websearch := get("websearch_to_tsquery")
	if best.MRR < 0.95 || best.Hit < 0.98 || best.Recall < 0.98 {
		t.Errorf("default ranking: MRR@10 %.3f, hit@10 %.3f, recall@10 %.3f; want at least 0.95, 0.98, 0.98", best.MRR, best.Hit, best.Recall)
	}
	if best.MRR < plain.MRR || best.Hit < plain.Hit {
		t.Errorf("default ranking (MRR %.3f, hit %.3f) below plain BM25 (MRR %.3f, hit %.3f)", best.MRR, best.Hit, plain.MRR, plain.Hit)
	}
	if sqlPlain.MRR != plain.MRR {
		t.Errorf("BM25 in PostgreSQL (MRR %.4f) is not BM25 computed in Go (MRR %.4f)", sqlPlain.MRR, plain.MRR)
	}
	if best.MRR < rankCD.MRR || websearch.MRR > 0.5 {
		t.Errorf("ts_rank_cd MRR %.3f, websearch %.3f, against BM25 %.3f", rankCD.MRR, websearch.MRR, best.MRR)
	}
	if len(logged) == 0 {
		t.Error("no progress reported")
	}
	// Queries must stay fast: the whole corpus is two thousand pages.
	if best.MeanLatency > 500*time.Millisecond {
		t.Errorf("a query takes %s", best.MeanLatency)
	}
}
