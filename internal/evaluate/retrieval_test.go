package evaluate

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
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
