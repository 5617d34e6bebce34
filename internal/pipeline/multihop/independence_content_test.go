package multihop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// syndicated is one wire story's text, as each paper that runs it prints it.
const syndicated = "The Eiffel Tower was completed in 1889 for the World's Fair in Paris, after two years, two months " +
	"and five days of construction by the company of Gustave Eiffel, and it opened to the public on 15 May of that year."

// Rule 6 of issue 12 in multihop: a later hop's result that is a copy of an earlier hop's
// evidence (near-duplicate text on another domain and publisher), or the same DOI on another
// host, shares a source with it; one that only reports the same facts does not.
func TestIndependenceConflictOfContent(t *testing.T) {
	t.Parallel()
	rules, err := ParseIndependenceRules(nil)
	if err != nil {
		t.Fatal(err)
	}
	var used usedSources
	used.add(pipeline.SearchResult{URL: "https://news.example.com/eiffel", Title: "Eiffel Tower completed", Snippet: syndicated, Publisher: "Example News"})
	used.add(pipeline.SearchResult{URL: "https://doi.org/10.5555/tower.1889", Title: "A history of the tower", Snippet: "Abstract.", Publisher: "Journal of Towers"})
	for _, c := range []struct {
		r    pipeline.SearchResult
		want string
	}{
		{pipeline.SearchResult{URL: "https://paper.example.org/world/tower", Title: "Tower finished", Snippet: "PARIS (Wire) — " + syndicated + " Copyright Wire.", Publisher: "Paper"}, "copy"},
		{pipeline.SearchResult{URL: "https://mirror.example.net/papers/10.5555/tower.1889", Title: "PDF", Snippet: "Download.", Publisher: "Mirror"}, "doi:10.5555/tower.1889"},
		{pipeline.SearchResult{URL: "https://other.example.org/tower", Title: "Paris landmark at 1889", Publisher: "Other",
			Snippet: "Built for the 1889 exposition, Gustave Eiffel's iron lattice tower took just over two years to erect and welcomed its first visitors that May."}, ""},
	} {
		got, _ := rules.conflict(used, evidence.KeysOf(c.r))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("conflict(%s) = %q, want it to name %q", c.r.URL, got, c.want)
		}
	}
}

// End to end in the method: hop 2 finds only a syndicated copy of hop 1's source. It is dropped
// like a source shared with hop 1 (no_independent_source), and the claim stays at Medium.
func TestMultihopSyndicatedCopyIsNotIndependent(t *testing.T) {
	t.Parallel()
	first := hit("https://news.example.com/eiffel", "Example Media", syndicated, nil)
	copied := hit("https://paper.example.org/world/tower", "Other Paper", "PARIS (Wire) — "+syndicated, nil)
	plan := examplePlan()
	plan.Claims, plan.QueryChains = plan.Claims[:1], plan.QueryChains[:1]
	plan.CrossValidationPairs, plan.CrossValidationQueries, plan.ExecutionOrder = []CrossValidationPair{}, []CrossValidationQuery{}, []string{"c1"}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "official history", results: []pipeline.SearchResult{first}},
		{contains: "encyclopedia", results: []pipeline.SearchResult{copied}},
	}}
	model := planModel(t, plan, map[string]string{
		plan.Claims[0].ClaimText: judgeJSON("supported", []int{1, 2}, "High", "Two sources agree.", ""),
	})
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: examplePlanStatement})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 1, 2); hop.Status != HopNoIndependentSource || !strings.Contains(hop.Note, "copy") {
		t.Errorf("hop 2: status %s, note %q; want %s and a note that names the copy", hop.Status, hop.Note, HopNoIndependentSource)
	}
	if len(res.Evidence) != 1 || res.Evidence[0].URL != first.URL {
		t.Errorf("evidence %v, want only the first source", res.Evidence)
	}
	if c := res.Claims[0]; c.Confidence == pipeline.ConfidenceHigh {
		t.Errorf("claim %+v: High on one wire story", c)
	}
	if !slices.Contains(res.ReviewFlags, pipeline.Flag(pipeline.FlagNoIndependentSource)) {
		t.Errorf("review flags %v lack %s", res.ReviewFlags, pipeline.FlagNoIndependentSource)
	}
}
