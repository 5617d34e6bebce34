package evaluate

import (
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/testenv"
)

func TestJaccard(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b []string
		want float64
	}{
		{[]string{"u1", "u2", "u3"}, []string{"u2", "u3", "u4"}, 0.5},
		{[]string{"u1", "u2"}, []string{"u2", "u1"}, 1},
		{[]string{"u1"}, []string{"u2"}, 0},
		{nil, nil, 0},
		{[]string{"u1"}, nil, 0},
		{[]string{"u1", "u1", "u2"}, []string{"u1"}, 0.5},
	} {
		if got := jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// scriptedSearcher returns fixed URLs per query, ranked in the order given.
type scriptedSearcher map[string][]string

func (s scriptedSearcher) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	resp := pipeline.SearchResponse{Provider: "scripted"}
	for i, u := range s[q.Query] {
		if i == q.Limit {
			break
		}
		resp.Results = append(resp.Results, pipeline.SearchResult{URL: u, Rank: i + 1})
	}
	return resp, nil
}

// TestMeasureRetrievalArithmetic: MRR, statement hits, empty queries and the Jaccard of every
// pair within a statement, on hand-made rankings.
func TestMeasureRetrievalArithmetic(t *testing.T) {
	t.Parallel()
	s := scriptedSearcher{
		"q1": {"gold-a", "x", "y"},                                         // rank 1: 1
		"q2": {"x", "gold-a", "y", "z"},                                    // rank 2: 0.5; with q1: 3 of {gold-a,x,y,z} = 0.75, flagged
		"q3": {"p", "q"},                                                   // no gold: 0; with q1: 0; with q2: 0
		"q4": {"m", "n", "gold-b"},                                         // rank 3: 1/3
		"q5": {},                                                           // empty: 0; with q4: 0
		"q6": {"r", "s", "t", "u", "v", "w", "o", "k", "l", "j", "gold-c"}, // gold at rank 11: outside the top 10
	}
	stmts := []retrievalStatement{
		{ID: 1, Gold: []string{"gold-a"}, Queries: []string{"q1", "q2", "q3"}},
		{ID: 2, Gold: []string{"gold-b"}, Queries: []string{"q4", "q5"}},
		{ID: 3, Gold: []string{"gold-c"}, Queries: []string{"q6"}},
		{ID: 4, Gold: []string{"gold-d"}},
	}
	rep, err := measureRetrieval(context.Background(), s, stmts, 10, 2, DefaultJaccardFlag)
	if err != nil {
		t.Fatal(err)
	}
	wantMRR := (1 + 0.5 + 0 + 1.0/3 + 0 + 0) / 6
	if rep.Score.Queries != 6 || math.Abs(rep.Score.MRR-wantMRR) > 1e-9 || math.Abs(rep.Score.Hit-0.5) > 1e-9 {
		t.Errorf("score %+v, want 6 queries, MRR %.4f, hit 0.5", rep.Score, wantMRR)
	}
	if rep.StatementsHit != (ratio{2, 3}) || rep.EmptyQueries != (ratio{1, 6}) || rep.Unplanned != 1 {
		t.Errorf("statements hit %v, empty queries %v, unplanned %d; want 2/3, 1/6, 1", rep.StatementsHit, rep.EmptyQueries, rep.Unplanned)
	}
	wantPairs := []queryPair{
		{1, "q1", "q2", 0.75, true}, {1, "q1", "q3", 0, false}, {1, "q2", "q3", 0, false}, {2, "q4", "q5", 0, false},
	}
	if !slices.Equal(rep.Pairs, wantPairs) || rep.Flagged != 1 || math.Abs(rep.MeanJaccard-0.75/4) > 1e-9 {
		t.Errorf("pairs %v (flagged %d, mean %.4f), want %v", rep.Pairs, rep.Flagged, rep.MeanJaccard, wantPairs)
	}
	// Chain recall: gold-a (q1) and gold-b (q4) are found; gold-c is 11th; statement 4 has no
	// query; the statements' texts (empty here) find nothing.
	if want := []chainRecall{{Hops: 1, Statements: 4, Gold: 4, ChainFound: 2, ClaimFound: 0}}; !slices.Equal(rep.ByHops, want) {
		t.Errorf("chain recall %+v, want %+v", rep.ByHops, want)
	}
	var out strings.Builder
	writeRetrievalTable(&out, rep)
	for _, want := range []string{"| MRR@10 of a gold page, over queries | 0.306 (6 queries) |", "| pairs above 0.7 (flagged: same evidence) | 1 | none |",
		`- claim 1: "q1" and "q2": 0.75`, "4, mean Jaccard 0.188", "Statements without queries:\n- claim 4: no query"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestReadFactcheckBench(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "bench.jsonl", `{"sentences": {"sentence2": {"text": "He was born in Honolulu.", "decontext": "Barack Obama was born in Honolulu.", "claims": ["Barack Obama was born in Honolulu."], "claim_checkworthiness": ["factual"]}, "sentence10": {"text": "Is there more?", "decontext": "Is there more?", "claims": [], "claim_checkworthiness": []}, "sentence1": {"text": "Python is a language and the best one.", "decontext": "", "claims": ["Python is a language.", "Python is the best language."], "claim_checkworthiness": ["factual", "opinion"]}}}

{"sentences": {"sentence1": {"text": "Jazz is great.", "decontext": "Jazz is great.", "claims": ["Jazz is great."], "claim_checkworthiness": ["opinion"]}}}
{"sentences": {"sentence1": {"text": "Paris is in France.", "decontext": "Paris is in France.", "claims": ["Paris is in France."], "claim_checkworthiness": ["factual"]}}}
`)
	got, err := readFactcheckBench(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []goldStatement{
		{"1/sentence1", "Python is a language and the best one.", []string{"Python is a language."}},
		{"1/sentence2", "Barack Obama was born in Honolulu.", []string{"Barack Obama was born in Honolulu."}},
		{"4/sentence1", "Paris is in France.", []string{"Paris is in France."}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Text != want[i].Text || !slices.Equal(got[i].Gold, want[i].Gold) {
			t.Errorf("statement %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if two, _ := readFactcheckBench(path, 2); len(two) != 2 {
		t.Errorf("n=2 gave %d statements", len(two))
	}
	bad := writeFile(t, "bad.jsonl", "{\"sentences\": {}}\nnot json\n")
	if _, err := readFactcheckBench(bad, 0); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Errorf("a bad line: %v", err)
	}
}

// TestReadFactcheckBenchDataset holds the reader to the data set's figures (skipped where it is absent).
func TestReadFactcheckBenchDataset(t *testing.T) {
	t.Parallel()
	all, err := readFactcheckBench(testenv.Dataset(t, factcheckBenchFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	gold := 0
	for _, s := range all {
		gold += len(s.Gold)
	}
	// 311 sentences, 678 claims; without the sentences that have no factual claim and the
	// opinion claims: 277 statements, 661 gold claims.
	if len(all) != 277 || gold != 661 {
		t.Fatalf("%d statements with %d gold claims, want 277 with 661", len(all), gold)
	}
	if all[1].ID != "1/sentence2" || !strings.HasPrefix(all[1].Text, "Justice William O. Douglas was born") {
		t.Errorf("second statement %+v: not the decontextualised sentence", all[1])
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
