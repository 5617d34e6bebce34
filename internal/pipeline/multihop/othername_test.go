package multihop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// Scripted-model tests of a bridge confirmed naming one entity while another fits the statement
// (issue 23): "Travis Barker is a member of an American rock supergroup" holds of +44 and of
// Antemasque, and only Antemasque has former members of a post-hardcore band. In three relay
// cohorts (sessions 46, 47 and 48) the bridge judge named +44 from Barker's page, which names
// both, every claim stated with +44 was left unverified, and a true statement with them.

const supergroupStatement = "Travis Barker is a member of an American rock supergroup with former members of a post-hardcore band."

const (
	supergroupClaim      = "Travis Barker is a member of an American rock supergroup"
	supergroupOnPlus44   = "+44 includes former members of a post-hardcore band"
	supergroupOnAntemask = "Antemasque includes former members of a post-hardcore band"
)

var (
	srcBarker     = hit("https://en.wikipedia.org/wiki/Travis_Barker", "Wikipedia", "Travis Barker founded the rock supergroup +44. Travis Barker is a member of Antemasque.", nil)
	srcPlus44     = hit("https://www.allmusic.com/artist/plus-44", "AllMusic", "+44 was an American rock supergroup formed by Travis Barker and Mark Hoppus of Blink-182.", nil)
	srcAntemasque = hit("https://www.rollingstone.com/antemasque", "Rolling Stone", "Antemasque was an American rock supergroup of former members of At the Drive-In, a post-hardcore band, with Travis Barker on drums.", nil)
)

func supergroupPlan() Plan {
	return Plan{
		PlanID: "supergroup",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: supergroupClaim, SourceSpan: "Travis Barker is a member of an American rock supergroup",
				Entities: []string{"Travis Barker"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Travis Barker supergroup"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "{c1} includes former members of a post-hardcore band", SourceSpan: "with former members of a post-hardcore band",
				Entities: []string{"post-hardcore band"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"{c1} former members post-hardcore band"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Travis Barker supergroup member", "encyclopedia", "band membership"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} former members post-hardcore band", "music database", "band members"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same band"}},
		CrossValidationQueries: []CrossValidationQuery{{"drummer joined rock supergroup of hardcore musicians", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

func supergroupSearcher() *StubSearcher {
	return &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Travis Barker supergroup member", results: []pipeline.SearchResult{srcBarker}},
		{contains: "44 former members", results: []pipeline.SearchResult{srcPlus44}},
		{contains: "supergroup includes former members", results: []pipeline.SearchResult{srcAntemasque}},
		{contains: "Antemasque former members", results: []pipeline.SearchResult{srcAntemasque}},
	}}
}

// supergroupRun runs the statement: c1's first judge names +44, c2 stated with it replies
// onPlus44, c1's judgement with the page the search by description found replies second, and
// c2 stated with Antemasque replies onAntemasque.
func supergroupRun(t *testing.T, onPlus44, second, onAntemasque string) (*pipeline.Result, *pipelinetest.StubModel, *StubSearcher) {
	t.Helper()
	sup := evidence.StanceSupports
	first := judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "+44", Source: 1, Passage: "Travis Barker founded the rock supergroup +44"},
		judgeCitation{1, "Travis Barker founded the rock supergroup +44", sup})
	model := planModel(t, supergroupPlan(), map[string]string{supergroupClaim: first, supergroupOnPlus44: onPlus44})
	// Most specific first: c2 stated with Antemasque is judged on Antemasque's page too.
	model.Rules = append([]pipelinetest.StubRule{judgeRuleFor(supergroupOnAntemask, onAntemasque), {Contains: "Antemasque was an American rock supergroup", Reply: second}}, model.Rules...)
	searcher := supergroupSearcher()
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: supergroupStatement})
	if err != nil {
		t.Fatal(err)
	}
	return res, model, searcher
}

// secondNaming is c1's judgement on Barker's page and Antemasque's naming name from passage.
func secondNaming(t testing.TB, name, passage string) string {
	sup := evidence.StanceSupports
	return judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: name, Source: 1, Passage: passage},
		judgeCitation{1, passage, sup}, judgeCitation{2, "Antemasque was an American rock supergroup", sup})
}

// Every claim stated with +44 was left unverified: the entity is searched for by what the
// statement says of it (c1's words and c2's), c1 is judged again with what that finds, and the
// other name it confirms (Antemasque, from Barker's page) is tried: c2, stated with it after a
// search of its own, is confirmed, so both claims are stated and judged with Antemasque, and the
// statement is confirmed. c1's second judge sees sources, never c2's text or the statement.
func TestBridgeWhoseClaimsAllFailedIsNamedAgainByDescription(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	onAntemasque := judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{2, "Antemasque was an American rock supergroup of former members of At the Drive-In, a post-hardcore band", sup})
	res, model, searcher := supergroupRun(t, judgeReplyJSON(t, "unverified", "Low", "", nil), secondNaming(t, "Antemasque", "Travis Barker is a member of Antemasque"), onAntemasque)
	c1, c2 := res.Claims[0], res.Claims[1]
	if c1.Verdict != pipeline.VerdictSupported || !strings.Contains(c1.Reason, `"+44"`) {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2.Text != supergroupOnAntemask || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	if !slices.ContainsFunc(res.Hops, func(h pipeline.Hop) bool {
		return h.ClaimPosition == 1 && strings.Contains(h.Query, "post-hardcore") && strings.Contains(h.Note, "+44")
	}) {
		t.Errorf("c1 has no search for the entity by description: %+v", res.Hops)
	}
	if !slices.ContainsFunc(res.Hops, func(h pipeline.Hop) bool { return h.ClaimPosition == 2 && strings.Contains(h.Query, "Antemasque") }) {
		t.Errorf("c2 has no hop with the other name: %+v", res.Hops)
	}
	if !slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.ClaimPosition == 2 && e.URL == srcAntemasque.URL }) {
		t.Errorf("c2's evidence lacks the page that confirms it: %+v", res.Evidence)
	}
	var seconds []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\n"+supergroupClaim+"\n") && strings.Contains(p, "Antemasque was an American rock supergroup") {
			seconds = append(seconds, p)
		}
	}
	if len(seconds) != 1 {
		t.Fatalf("c1 was judged again %d times", len(seconds))
	}
	for _, leak := range []string{supergroupStatement, "includes former members", "{c1}"} {
		if strings.Contains(seconds[0], leak) {
			t.Errorf("c1's second judge prompt holds %q", leak)
		}
	}
	if n := len(searcher.sent()); n == 0 {
		t.Error("no search was recorded")
	}
}

// What keeps the first name: a second judgement naming it again, or naming another one that
// does not ground it (a passage no source holds), or a claim stated with the other name not
// confirmed; and no search by description runs when a claim stated with the name was refuted
// (the statement may be false of the entity its facts single out).
func TestBridgeKeepsItsNameUnlessAnotherIsConfirmedByItsClaims(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	confirmed := judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{2, "Antemasque was an American rock supergroup of former members of At the Drive-In, a post-hardcore band", sup})
	unverified := judgeReplyJSON(t, "unverified", "Low", "", nil)
	refuted := judgeCites("refuted", "Medium", "scripted", "+44 includes former members of Blink-182", judgeCitation{1, "+44 was an American rock supergroup formed by Travis Barker and Mark Hoppus of Blink-182", evidence.StanceRefutes})
	tests := []struct {
		name, onPlus44, second, onAntemasque string
		searched                             bool
	}{
		{"the same name again", unverified, secondNaming(t, "+44", "Travis Barker founded the rock supergroup +44"), confirmed, true},
		{"a name from a passage no source holds", unverified, secondNaming(t, "Antemasque", "Travis Barker drums for Antemasque"), confirmed, true},
		{"the other name not confirmed by its claim", unverified, secondNaming(t, "Antemasque", "Travis Barker is a member of Antemasque"), unverified, true},
		{"a claim stated with the name refuted", refuted, secondNaming(t, "Antemasque", "Travis Barker is a member of Antemasque"), confirmed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, _, searcher := supergroupRun(t, tt.onPlus44, tt.second, tt.onAntemasque)
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictSupported || strings.Contains(c1.Reason, "Antemasque") {
				t.Errorf("claim 1 changed: %+v", c1)
			}
			if c2.Text != supergroupOnPlus44 {
				t.Errorf("claim 2 was stated again: %+v", c2)
			}
			if slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.URL == srcAntemasque.URL }) {
				t.Errorf("a source of a name not kept is stored: %+v", res.Evidence)
			}
			searched := slices.ContainsFunc(searcher.sent(), func(q pipeline.SearchQuery) bool {
				return strings.Contains(q.Query, "supergroup includes former members")
			})
			if searched != tt.searched {
				t.Errorf("searched by description: %v, want %v", searched, tt.searched)
			}
		})
	}
}
