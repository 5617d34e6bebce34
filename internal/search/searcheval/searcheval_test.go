package searcheval_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// A link's text is read with where it leads when the target names what the text does not: the
// evidence an annotator chose often says who "Bologna" is only by its link.
func TestReadLinks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"near [[Pittsview,_Alabama|Pittsview]] in [[Russell_County,_Alabama|Russell County, Alabama]].", "near Pittsview (link: Pittsview, Alabama) in Russell County, Alabama."},
		{"signed with [[Virtus_Pallacanestro_Bologna|Bologna]] of the league", "signed with Bologna (link: Virtus Pallacanestro Bologna) of the league"},
		{"a [[Patio]] and [[Marble_hearth]]", "a Patio and Marble hearth"},
		{"no links [here", "no links [here"},
		{"[[A|]] empty text", " (link: A) empty text"},
	} {
		if got := searcheval.ReadLinks(tc.in); got != tc.want {
			t.Errorf("ReadLinks(%q) = %q, want %q", tc.in, got, tc.want)
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

// feverousFixture is a FEVEROUS-S file of our own, six made-up claims over five made-up pages,
// in the data set's format: the reader and the benchmark are tested on a plain clone with it.
const feverousFixture = "testdata/feverous_fixture.json"

// TestReadFeverousFixture: one document per title in order of first appearance, each evidence
// line once, link markup reduced to its text; claims keep their gold pages, and a claim without
// evidence, a line without a tab and a line without a title are left out.
func TestReadFeverousFixture(t *testing.T) {
	t.Parallel()
	docs, claims, err := searcheval.ReadFeverous(feverousFixture)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, d := range docs {
		titles = append(titles, d.Title)
		if d.URL != searcheval.PageURL(d.Title) || d.Publisher != "Wikipedia" || d.Language != "en" || strings.Contains(d.Body, "[[") {
			t.Errorf("document %+v", d)
		}
	}
	if got := strings.Join(titles, "|"); got != "Harbour Lighthouse of Vellmar|Vellmar|Amber Coast|Orla Brenning|The Salt Bell" {
		t.Fatalf("documents %s", got)
	}
	if docs[0].Body != "The lighthouse was first lit in 1872 and automated in 1961.\nThe Harbour Lighthouse of Vellmar is a stone lighthouse on the north pier of Vellmar." {
		t.Errorf("body %q", docs[0].Body)
	}
	if docs[2].Body != "The Amber Coast is a stretch of dunes and cliffs known for washed-up resin." {
		t.Errorf("a line given three times is kept once: %q", docs[2].Body)
	}
	if docs[4].Body != "The Salt Bell is an opera in three acts by Orla Brenning.\nIt premiered at the Vellmar Civic Theatre in 1983." {
		t.Errorf("body %q", docs[4].Body)
	}
	var ids []int
	for _, c := range claims {
		ids = append(ids, c.ID)
	}
	if fmt.Sprint(ids) != "[101 102 103 104 106]" {
		t.Fatalf("claims %v", ids)
	}
	if c := claims[1]; c.Label != "refutes" || c.Challenge != "Multi-hop Reasoning" ||
		fmt.Sprint(c.Gold) != fmt.Sprint([]string{searcheval.PageURL("Vellmar"), searcheval.PageURL("Amber Coast")}) {
		t.Errorf("claim %+v", c)
	}
	if c := claims[4]; len(c.Gold) != 1 || c.Gold[0] != searcheval.PageURL("Amber Coast") {
		t.Errorf("claim %+v", c)
	}
	if _, _, err := searcheval.ReadFeverous(""); err == nil || !strings.Contains(err.Error(), "set CORROBORATE_DATASETS") {
		t.Errorf("no path: %v", err)
	}
}

// TestFeverousRetrievalOnFixture runs the benchmark end to end on the fixture: loaded into real
// PostgreSQL, every ranking scored, the default one finding each claim's gold page.
func TestFeverousRetrievalOnFixture(t *testing.T) {
	t.Parallel()
	docs, claims, err := searcheval.ReadFeverous(feverousFixture)
	if err != nil {
		t.Fatal(err)
	}
	pool := testenv.Postgres(t, "searcheval_fixture")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := store.New(pool).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	scores, stats, err := searcheval.RunFeverous(ctx, pool, docs, claims, 2, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Inserted != len(docs) || len(scores) < 2 {
		t.Fatalf("load %+v, %d scores", stats, len(scores))
	}
	for _, s := range scores {
		if s.Queries != len(claims) || s.MRR < 0 || s.MRR > 1 || s.Hit < s.MRR {
			t.Errorf("score %+v", s)
		}
		if strings.HasPrefix(s.Name, "OR + BM25 in PostgreSQL, title x3 (the default)") && s.Hit != 1 {
			t.Errorf("default ranking: hit@10 %.3f on five pages, want 1", s.Hit)
		}
	}
	t.Logf("\n%s", searcheval.Table(scores))
}
