package multihop

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A series named with a demonym: every page of another Ostmoorian series is relevant to its
// claims by the name's one content word and "series", so the series' own page competes with
// them for the few places a hop keeps and a claim is given of its neighbours' finds.
const ostmoorSeriesStatement = "The Ostmoorians is an Ostmoorian period spy drama series."

const (
	seriesOriginClaim = "The Ostmoorians is an Ostmoorian series"
	seriesGenreClaim  = "The Ostmoorians is a period spy drama series"
	seriesOwnPassage  = "The Ostmoorians is an Ostmoorian period spy drama television series"
)

var (
	srcSeriesOwn = pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/The_Ostmoorians_(2013_TV_series)", Title: "The Ostmoorians (2013 TV series)",
		Snippet: seriesOwnPassage + " created by Mara Quinn.", Domain: "en.wikipedia.org", Publisher: "Wikipedia"}
	// Other series' pages, each on its own site.
	srcHarbour = hit("https://harbour.example.com/", "Harbour", "Harbour Lights is an Ostmoorian drama television series set in a port town.", nil)
	srcMeadow  = hit("https://meadow.example.net/", "Meadow", "Meadow Lane is an Ostmoorian drama series about a farming family.", nil)
	srcNorth   = hit("https://north.example.org/", "North", "North Watch is an Ostmoorian police drama series of the network.", nil)
	srcCipher  = hit("https://cipher.example.com/", "Cipher", "Cipher is an Ostmoorian spy drama series set in the present day.", nil)
	srcLedger  = hit("https://ledger.example.net/", "Ledger", "The Ledger is an Ostmoorian period drama series about a bank.", nil)
	srcSignal  = hit("https://signal.example.org/", "Signal", "Signal is an Ostmoorian spy drama series of the cold war era.", nil)
)

func ostmoorSeriesPlan(originHops []PlanHop) Plan {
	return Plan{
		PlanID: "ostmoorians",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: seriesOriginClaim, SourceSpan: "The Ostmoorians is an Ostmoorian period spy drama series",
				Entities: []string{"The Ostmoorians"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"The Ostmoorians country of origin"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: seriesGenreClaim, SourceSpan: "period spy drama series",
				Entities: []string{"The Ostmoorians"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"The Ostmoorians genre"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: originHops},
			{ClaimID: "c2", Hops: []PlanHop{
				{1, "The Ostmoorians spy drama period", "encyclopedia", "the genre"},
				{2, "The Ostmoorians espionage era", "review", "the setting"},
			}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the series"}},
		CrossValidationQueries: []CrossValidationQuery{{"Ostmoorian television espionage", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// The claim's entity's own page comes before other pages that merely name it, both where a hop
// keeps at most evidencePerHop relevant results and where a claim is given at most
// maxSharedSources of its neighbours' finds. In a relay run "The Americans is an American series"
// was given eight pages of other American series and never the series' own page, which the
// genre claim had found: its judge found no source about the series, and a false statement
// about its creator stayed unverified.
func TestEntitysOwnPageIsKeptBeforePagesThatMerelyNameIt(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, tt := range []struct {
		name       string
		originHops []PlanHop
		rules      []searchRule
		// source is the number of the series' own page in the origin claim's judge prompt.
		source int
	}{
		{"its own hop found it fourth",
			[]PlanHop{{1, "The Ostmoorians drama series network", "encyclopedia", "the series"}},
			[]searchRule{{contains: "drama series network", results: []pipeline.SearchResult{srcHarbour, srcMeadow, srcNorth, srcSeriesOwn}}},
			1},
		{"a neighbouring claim found it after three others",
			[]PlanHop{{1, "The Ostmoorians drama series network", "encyclopedia", "the series"}},
			[]searchRule{
				{contains: "drama series network", results: []pipeline.SearchResult{srcHarbour, srcMeadow, srcNorth}},
				{contains: "spy drama period", results: []pipeline.SearchResult{srcCipher, srcLedger, srcSignal}},
				{contains: "espionage era", results: []pipeline.SearchResult{srcSeriesOwn}},
			},
			4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, ostmoorSeriesPlan(tt.originHops), map[string]string{
				seriesOriginClaim: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{tt.source, seriesOwnPassage, sup}),
				seriesGenreClaim:  judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{4, seriesOwnPassage, sup}),
			})
			searcher := &StubSearcher{honour: true, rules: tt.rules}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: ostmoorSeriesStatement})
			if err != nil {
				t.Fatal(err)
			}
			var judged string
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, "<untrusted_claim>\n"+seriesOriginClaim) {
					judged = p
				}
			}
			if !strings.Contains(judged, srcSeriesOwn.Snippet) {
				t.Errorf("the origin claim's judge was not given the series' own page:\n%s", judged)
			}
			if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 1 = %s: %s, want supported on the series' own page", c.Verdict, c.Reason)
			}
			// Still no more than the bounds: the series' page took another page's place.
			own := 0
			for _, e := range res.Evidence {
				if e.ClaimPosition == 1 && e.FromClaimPosition == 0 {
					own++
				}
			}
			if own > evidencePerHop {
				t.Errorf("claim 1 kept %d sources of its own hop, want at most %d", own, evidencePerHop)
			}
		})
	}
}
