package multihop

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A statement defines a thing it names by what the thing's own page says, and that page is
// titled with another name for it: the page that names the thing links to it ("a
// Velkin-binding protein (link: V protein)"), and the linked page never writes the claim's
// name. In a relay run (FEVEROUS-S) "GTP-binding proteins are a family of proteins that act
// as molecular switches inside cells" kept nothing of the page titled "G protein", which says
// so word for word, though the hop's other result linked the claim's name to it: the claim
// stayed unverified.
const (
	velkinStatement   = "Trenolin is a Velkin-binding protein (a family of proteins that act as molecular switches inside cells)."
	velkinKindClaim   = "Velkin-binding proteins are a family of proteins that act as molecular switches inside cells"
	vProteinPassage   = "V proteins, also known as vanadyl nucleotide-binding proteins, are a family of proteins that act as molecular switches inside cells."
	trenolinPassage   = "Trenolin is a Velkin-binding protein (link: V protein) that is expressed in the liver of mammals."
	velkinClaimSource = 1 // the V protein page, the entity's own, before the Trenolin page
)

var (
	srcTrenolin = pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/Trenolin", Title: "Trenolin",
		Snippet: trenolinPassage, Domain: "en.wikipedia.org", Publisher: "Wikipedia"}
	srcVProtein = pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/V_protein", Title: "V protein",
		Snippet: vProteinPassage, Domain: "en.wikipedia.org", Publisher: "Wikipedia"}
	// A link from another thing's name ("a Velkin-binding domain") says nothing of which page
	// is the claim's thing's.
	srcDomain = pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/Relnin", Title: "Relnin",
		Snippet: "Relnin is a protein with a Velkin-binding domain (link: V protein) that is expressed in the liver.", Domain: "en.wikipedia.org", Publisher: "Wikipedia"}
)

func velkinPlan() Plan {
	return Plan{
		PlanID: "velkin",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: velkinKindClaim, SourceSpan: "Velkin-binding protein (a family of proteins that act as molecular switches inside cells)",
				Entities: []string{"Velkin-binding proteins"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Velkin-binding proteins family"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "V protein molecular switch inside cells", "encyclopedia", "the definition"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{},
		CrossValidationQueries: []CrossValidationQuery{},
		ExecutionOrder:         []string{"c1"},
	}
}

func TestThePageALinkLeadsToFromTheClaimsNameIsAboutIt(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, tt := range []struct {
		name    string
		results []pipeline.SearchResult
		// kept says whether the V protein page reaches the judge.
		kept bool
	}{
		{"a relevant result links the claim's name to the page", []pipeline.SearchResult{srcTrenolin, srcVProtein}, true},
		{"the page alone", []pipeline.SearchResult{srcVProtein}, false},
		{"a result links another thing's name to the page", []pipeline.SearchResult{srcDomain, srcVProtein}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, velkinPlan(), map[string]string{
				velkinKindClaim: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{velkinClaimSource, "are a family of proteins that act as molecular switches inside cells", sup}),
			})
			searcher := &StubSearcher{honour: true, rules: []searchRule{{contains: "molecular switch", results: tt.results}}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: velkinStatement})
			if err != nil {
				t.Fatal(err)
			}
			judged := strings.Join(model.Sent(pipeline.StepJudge), "\n")
			if got := strings.Contains(judged, vProteinPassage); got != tt.kept {
				t.Fatalf("the V protein page reached the judge: %v, want %v\n%s", got, tt.kept, judged)
			}
			if !tt.kept {
				return
			}
			if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 1 = %s: %s, want supported on the page the link leads to", c.Verdict, c.Reason)
			}
		})
	}
}
