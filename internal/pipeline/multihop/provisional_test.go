package multihop

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// Scripted-model tests of the provisional bridge (issue 23): a bridge claim whose judge named
// the entity from a source it cited but confirmed the claim only in part is judged again with
// what the claims building on it found about that entity.

const canadianStatement = "The Canadian actor who played Detective Chester Lake played Slipknot in Suicide Squad."

const (
	canadianClaim     = "A Canadian actor played Detective Chester Lake"
	canadianDependent = "Adam Beach played Slipknot in Suicide Squad"
)

// srcBeachCanadian is what c2's hop finds on the name c1's judge gave: the fact c1's own sources
// left out (that the actor is Canadian).
var srcBeachCanadian = hit("https://www.imdb.com/name/adam-beach", "IMDb", "Adam Beach, a Canadian actor, plays Slipknot in Suicide Squad (2016), written and directed by David Ayer.", nil)

func canadianPlan() Plan {
	p := slipknotPlan()
	p.PlanID = "canadian"
	p.Claims[0].ClaimText, p.Claims[0].SourceSpan = canadianClaim, "The Canadian actor who played Detective Chester Lake"
	p.Claims[0].SubQueries = []string{"Canadian actor Detective Chester Lake"}
	return p
}

func canadianSearcher() *StubSearcher {
	return &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLake}},
		{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{srcBeachCanadian}},
	}}
}

// c1's first judgement: the actor is named and cited, his nationality is not covered.
func canadianFirstJudgement(t testing.TB) string {
	return judgeReplyJSON(t, "partly_supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
		judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceSupports})
}

// canadianModel scripts c1's first judgement, c2's, and c1's second (the prompt that carries a
// source found by searching for the entity).
func canadianModel(t testing.TB, dependent, second string) *pipelinetest.StubModel {
	return canadianModelFrom(t, canadianFirstJudgement(t), dependent, second)
}

func canadianModelFrom(t testing.TB, first, dependent, second string) *pipelinetest.StubModel {
	model := planModel(t, canadianPlan(), map[string]string{canadianClaim: first, canadianDependent: dependent})
	model.Rules = append([]pipelinetest.StubRule{{Contains: relationBuiltOn, Reply: second}}, model.Rules...)
	return model
}

// The judge of c1 names Adam Beach but cannot confirm he is Canadian; c2 is searched and judged
// on that name; c1 is judged again with the source c2 cited, which says he is Canadian, and is
// supported: the bridge is established and the statement confirmed. c1's second judge gets
// that source marked, and no text of c2 or of the statement.
func TestProvisionalBridgeSettledByWhatItsDependentsFound(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	model := canadianModel(t,
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, plays Slipknot in Suicide Squad", sup}),
		judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}, judgeCitation{2, "Adam Beach, a Canadian actor", sup}))
	res, err := Multihop{Model: model, Searcher: canadianSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := res.Claims[0], res.Claims[1]
	if c1.Verdict != pipeline.VerdictSupported || c1.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2.Text != canadianDependent || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	if hop := findHop(res, 2, 1); !strings.Contains(hop.Query, "Adam Beach") || !strings.Contains(hop.Note, `{c1} is "Adam Beach"`) || !strings.Contains(hop.Note, "only in part") {
		t.Errorf("hop 1 of c2: %+v", hop)
	}
	checkSecondJudgement(t, model, res, canadianClaim, srcLake, srcBeachCanadian, 2, relationBuiltOn, canadianDependent, canadianStatement)
}

// A claim stated with the name may find the entity's own page and cite nothing from it, its own
// fact not being there (a planner's "Christopher Award was founded in 1945" where the page says
// the organization that gives it was): the page still reaches the bridge claim's second
// judgement, which confirms the bridge on it. In a relay run (EX-FEVER 3761-3840) "Simon Wincer
// won an award given by a Christian organization", the award named from his page, was never
// judged with the award's page that a claim on it had found, and a true statement stayed
// unverified.
func TestProvisionalBridgeSettledByTheEntitysOwnPage(t *testing.T) {
	t.Parallel()
	beachPage := hit("https://www.britannica.com/biography/Adam-Beach", "Britannica", "Adam Beach is a Canadian actor.", nil)
	beachPage.Title = "Adam Beach"
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLake}},
		{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{beachPage}},
	}}
	sup := evidence.StanceSupports
	model := canadianModel(t, judgeReplyJSON(t, "unverified", "Low", "", nil),
		judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}, judgeCitation{2, "Adam Beach is a Canadian actor", sup}))
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c1 := res.Claims[0]; c1.Verdict != pipeline.VerdictSupported || c1.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2 := res.Claims[1]; c2.Text != canadianDependent || c2.Verdict != pipeline.VerdictUnverified {
		t.Errorf("claim 2: %+v", c2)
	}
	checkSecondJudgement(t, model, res, canadianClaim, srcLake, beachPage, 2, relationBuiltOn, canadianDependent, canadianStatement)
}

// checkSecondJudgement checks that c1 (claim) was judged again exactly once, with its own source
// and the one a claim building on it found, marked with relation, in the exact prompt, that no
// text of that claim or of the statement reached it, and that the found source is stored as
// c1's cited evidence from claim 2.
func checkSecondJudgement(t *testing.T, model *pipelinetest.StubModel, res *pipeline.Result, claim string, own, found pipeline.SearchResult, from int, relation string, leaks ...string) {
	t.Helper()
	var second []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\n"+claim+"\n") && strings.Contains(p, relation) {
			second = append(second, p)
		}
	}
	var given []evidence.Retrieved
	if own.URL != "" { // c1's own hops found nothing: the zero result
		given = append(given, stubSource(own, ""))
	}
	want, err := renderJudgePrompt(claim, append(given, stubSource(found, relation)), DefaultGrounding, "", true, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(second) != 1 || second[0] != want {
		t.Fatalf("c1's second judge prompts (%d):\n%s\nwant\n%s", len(second), strings.Join(second, "\n----\n"), want)
	}
	for _, leak := range append(leaks, "{c1}") {
		if strings.Contains(second[0], leak) {
			t.Errorf("c1's second judge prompt holds %q", leak)
		}
	}
	if !slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool {
		return e.ClaimPosition == 1 && e.URL == found.URL && e.FromClaimPosition == from && e.SourceNumber > 0 && e.Quote != ""
	}) {
		t.Errorf("the source c%d found is not stored as c1's cited evidence: %+v", from, res.Evidence)
	}
}

// Evidence gathered on the one entity a judge named can establish it, never refute the claim
// that describes it: another entity may fit the description. When c1's second judgement does
// not confirm c1 with the same name, c1 keeps its first judgement, and whatever c2's judge made
// of Adam Beach (here a refutation) is unverified, for c2 is about an entity not established.
func TestProvisionalBridgeNotConfirmedLeavesItsDependentsUnverified(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	cite := judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}
	tests := []struct {
		name, second string
	}{
		{"refuted on the named entity's page", judgeReplyJSON(t, "refuted", "High", "",
			&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"}, cite, judgeCitation{2, "Adam Beach, a Canadian actor", ref})},
		{"confirmed for another name", judgeReplyJSON(t, "supported", "Medium", "",
			&judgeAnswer{Value: "Jason Momoa", Source: 1, Passage: "Adam Beach played Detective Chester Lake"}, cite, judgeCitation{2, "Adam Beach, a Canadian actor", sup})},
		{"confirmed at Low", judgeReplyJSON(t, "supported", "Low", "",
			&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"}, cite, judgeCitation{2, "Adam Beach, a Canadian actor", sup})},
		{"still unverified", judgeReplyJSON(t, "unverified", "Low", "", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := canadianModel(t, judgeCites("refuted", "Medium", "scripted", "Adam Beach played Deadshot in Suicide Squad",
				judgeCitation{1, "Adam Beach, a Canadian actor, plays Slipknot", ref}), tt.second)
			res, err := Multihop{Model: model, Searcher: canadianSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictUnverified || c1.VariantVerdict != pipeline.VerdictPartlySupported {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Verdict != pipeline.VerdictUnverified || c2.CorrectedText != "" || !strings.Contains(c2.Reason, `"Adam Beach"`) || !strings.Contains(c2.Reason, "not established") {
				t.Errorf("claim 2: %+v", c2)
			}
			if slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.ClaimPosition == 1 && e.URL == srcBeachCanadian.URL }) {
				t.Errorf("c1 keeps the source of a judgement that was not kept: %+v", res.Evidence)
			}
			if res.RevisedText != canadianStatement {
				t.Errorf("revised text: %q", res.RevisedText)
			}
		})
	}
}

// Only a judge that confirmed part of the claim, citing its sources, names a provisional
// entity: one that found the sources insufficient, or that refuted the claim, gives no name a
// later claim is stated with, whatever its answer says.
func TestNoProvisionalBridgeWithoutAConfirmation(t *testing.T) {
	t.Parallel()
	answer := &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"}
	for _, first := range []string{
		judgeReplyJSON(t, "unverified", "Low", "", answer),
		judgeReplyJSON(t, "refuted", "Low", "", answer, judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceRefutes}),
	} {
		model := planModel(t, canadianPlan(), map[string]string{
			canadianClaim: first,
			"The Canadian actor who played Detective Chester Lake played Slipknot in Suicide Squad": judgeReplyJSON(t, "unverified", "Low", "", nil),
		})
		searcher := canadianSearcher()
		res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
		if err != nil {
			t.Fatal(err)
		}
		if c2 := res.Claims[1]; strings.Contains(c2.Text, "Adam Beach") {
			t.Errorf("claim 2 stated with a name no confirmation gave: %+v", c2)
		}
		for _, q := range searcher.sent() {
			if strings.Contains(q.Query, "Adam Beach") {
				t.Errorf("a search ran with the name: %q", q.Query)
			}
		}
	}
}

// A confirmation at Low is no confirmation (the confidence gate), but its judge named the entity
// from a source it cited: the name is provisional like that of a partial confirmation.
func TestProvisionalBridgeFromAConfirmationAtLow(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	answer := &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"}
	model := canadianModelFrom(t,
		judgeReplyJSON(t, "supported", "Low", "", answer, judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, plays Slipknot", sup}),
		judgeReplyJSON(t, "supported", "Medium", "", answer, judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}, judgeCitation{2, "Adam Beach, a Canadian actor", sup}))
	res, err := Multihop{Model: model, Searcher: canadianSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c1, c2 := res.Claims[0], res.Claims[1]; c1.Verdict != pipeline.VerdictSupported || c2.Text != canadianDependent || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claims: %+v\n%+v", c1, c2)
	}
}

// A name written with or without its spaces is one name: in a relay run c1's first judge named
// "black bear" (the words of the page that called him so) and its second "Blackbear" (the
// musician's own page), and the bridge was refused as "another" entity, leaving four claims
// confirmed on his page unverified. The second judgement that names the entity so is kept.
func TestProvisionalBridgeConfirmedUnderTheNameWrittenWithoutSpaces(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	joined := hit("https://www.imdb.com/name/adambeach", "IMDb", "AdamBeach, a Canadian actor, plays Slipknot in Suicide Squad (2016).", nil)
	joined.Title = "AdamBeach"
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLake}},
		{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{joined}},
	}}
	model := canadianModel(t,
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "AdamBeach, a Canadian actor, plays Slipknot in Suicide Squad", sup}),
		judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "AdamBeach", Source: 2, Passage: "AdamBeach, a Canadian actor"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}, judgeCitation{2, "AdamBeach, a Canadian actor", sup}))
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c1, c2 := res.Claims[0], res.Claims[1]; c1.Verdict != pipeline.VerdictSupported || c2.Text != canadianDependent || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claims:\n%+v\n%+v", c1, c2)
	}
}

// A second judgement may name the entity in full where the first named it in part: in a relay
// run (EX-FEVER 3441-3520) c1's first judge named "Robin" ("his younger brother, Robin") and its
// second "Robin Gibb" from the page the claims stated with "Robin" had cited, and the bridge was
// refused as "another" entity, leaving four claims confirmed on that page unverified. A name
// that holds the first as its opening or closing words is the same entity, named in full; one
// that holds other words around it, or not all of it, is not.
func TestProvisionalBridgeConfirmedUnderTheNameInFull(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		first, second string
		settled       bool
	}{
		{"Beach", "Adam Beach", true},
		{"Adam", "Adam Beach", true},
		{"Adam Beach", "Adam Beach", true},
		{"Adam", "Adamo Beach", false},
		{"Beach", "Adam Beach Jones", false},
		{"Adam Beach", "Beach", false},
	} {
		t.Run(tc.first+" then "+tc.second, func(t *testing.T) {
			t.Parallel()
			sup := evidence.StanceSupports
			const played, cousins = "Adam Beach played Detective Chester Lake", "His cousins Adamo Beach and Adam Beach Jones act too"
			lake := hit(srcLake.URL, "Wikipedia", srcLake.Snippet+" "+cousins+".", nil)
			passage := played
			if !strings.Contains(played, tc.second) {
				passage = cousins
			}
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{lake}},
				{contains: "Slipknot", results: []pipeline.SearchResult{srcBeachCanadian}},
			}}
			first := judgeReplyJSON(t, "partly_supported", "Medium", "", &judgeAnswer{Value: tc.first, Source: 1, Passage: played},
				judgeCitation{1, played, sup})
			dependent := tc.first + " played Slipknot in Suicide Squad"
			model := planModel(t, canadianPlan(), map[string]string{canadianClaim: first,
				dependent: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, plays Slipknot in Suicide Squad", sup})})
			model.Rules = append([]pipelinetest.StubRule{{Contains: relationBuiltOn, Reply: judgeReplyJSON(t, "supported", "Medium", "",
				&judgeAnswer{Value: tc.second, Source: 1, Passage: passage}, judgeCitation{1, passage, sup}, judgeCitation{2, "Adam Beach, a Canadian actor", sup})}},
				model.Rules...)
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c2.Text != dependent {
				t.Fatalf("claim 2 was not stated with %q: %+v", tc.first, c2)
			}
			if settled := c1.Verdict == pipeline.VerdictSupported && c2.Verdict == pipeline.VerdictSupported; settled != tc.settled {
				t.Errorf("settled %v, want %v:\n%+v\n%+v", settled, tc.settled, c1, c2)
			}
		})
	}
}

// srcBeachAmerican is what c2's hop finds on the name c1's judge gave, in the scripted world
// where the statement is false: the entity c2 confirms is not Canadian.
var srcBeachAmerican = hit("https://www.imdb.com/name/adam-beach-us", "IMDb", "Adam Beach, an American actor, plays Slipknot in Suicide Squad (2016), written and directed by David Ayer.", nil)

// descriptionCheck is the claim c1's description makes of the entity its judge named.
const descriptionCheck = "Adam Beach is a Canadian actor"

// americanModel scripts c1's first judgement (Adam Beach named, "Canadian" not covered), c2's
// confirmation on the American page, c1's second judgement (still not confirmed) and the reply
// to the check of c1's description on Adam Beach.
func americanModel(t testing.TB, check string) *pipelinetest.StubModel {
	return americanModelWith(t, judgeReplyJSON(t, "partly_supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
		judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceSupports}), check)
}

// americanModelWith is americanModel with c1's second judgement given.
func americanModelWith(t testing.TB, second, check string) *pipelinetest.StubModel {
	model := canadianModel(t,
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, an American actor, plays Slipknot in Suicide Squad", evidence.StanceSupports}),
		second)
	model.Rules = append([]pipelinetest.StubRule{{Contains: "<untrusted_claim>\n" + descriptionCheck + "\n", Reply: check}}, model.Rules...)
	return model
}

func americanSearcher() *StubSearcher {
	return &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLake}},
		{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{srcBeachAmerican}},
	}}
}

// The statement's other facts single out the entity c1's judge named (c2, stated with it, is
// confirmed) and the sources contradict what c1 says of it: c1's description is asked of Adam
// Beach by name, in a prompt of its own that holds neither the statement nor c2, and its
// contradiction makes c1 partly supported, the bridge Adam Beach and c2 confirmed. In a relay
// run (EX-FEVER 2561-2640) "Scott Eastwood is best known for a 2009 American drama film directed
// and produced by Clint Eastwood" was left unverified so, Gran Torino's page giving 2008.
func TestDescriptionContradictedOnTheEntityItsDependentsConfirm(t *testing.T) {
	t.Parallel()
	model := americanModel(t, judgeCites("refuted", "Medium", "scripted: an American actor", "Adam Beach is an American actor",
		judgeCitation{2, "Adam Beach, an American actor", evidence.StanceRefutes}))
	res, err := Multihop{Model: model, Searcher: americanSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := res.Claims[0], res.Claims[1]
	if c1.Verdict != pipeline.VerdictPartlySupported || c1.Confidence != pipeline.ConfidenceMedium || c1.CorrectedText != "Adam Beach is an American actor" ||
		!strings.Contains(c1.Reason, `"Adam Beach"`) || !strings.Contains(c1.Reason, "claim 2") || !strings.Contains(c1.Reason, descriptionCheck) {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2.Text != canadianDependent || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	var checks []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\n"+descriptionCheck+"\n") {
			checks = append(checks, p)
		}
	}
	sources := []evidence.Retrieved{stubSource(srcLake, ""), stubSource(srcBeachAmerican, relationBuiltOn)}
	want, err := renderJudgePrompt(descriptionCheck, sources, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 || checks[0] != want {
		t.Fatalf("description checks (%d):\n%s\nwant\n%s", len(checks), strings.Join(checks, "\n----\n"), want)
	}
	for _, leak := range []string{canadianStatement, canadianDependent, canadianClaim} {
		if strings.Contains(checks[0], leak) {
			t.Errorf("the description check holds %q", leak)
		}
	}
	if !slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool {
		return e.ClaimPosition == 1 && e.URL == srcBeachAmerican.URL && e.Stance == evidence.StanceRefutes && e.Quote == "Adam Beach, an American actor"
	}) {
		t.Errorf("the contradicting source is not stored as c1's evidence: %+v", res.Evidence)
	}
}

// A dishonest or unsure check changes nothing: c1 keeps its first judgement and c2, about an
// entity not established, is unverified, as when no check is asked. A contradiction at Low
// corrects nothing; a passage no source holds, or a source the check was not shown, is dropped
// and flagged; a confirmation is the second judgement's to give, never the check's.
func TestDescriptionCheckThatDoesNotContradictChangesNothing(t *testing.T) {
	t.Parallel()
	ref := evidence.StanceRefutes
	tests := []struct {
		name, check string
		flagged     bool
	}{
		{"contradicted at Low", judgeCites("refuted", "Low", "scripted", "Adam Beach is an American actor", judgeCitation{2, "Adam Beach, an American actor", ref}), false},
		{"a quote no source holds", judgeCites("refuted", "Medium", "scripted", "Adam Beach is a Mexican actor", judgeCitation{2, "Adam Beach, a Mexican actor", ref}), true},
		{"a source it was not shown", judgeCites("refuted", "Medium", "scripted", "Adam Beach is an American actor", judgeCitation{7, "Adam Beach, an American actor", ref}), false},
		{"confirmed", judgeCites("supported", "Medium", "scripted", "", judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceSupports}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Multihop{Model: americanModel(t, tt.check), Searcher: americanSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictUnverified || c1.VariantVerdict != pipeline.VerdictPartlySupported || c1.CorrectedText != "" {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "not established") {
				t.Errorf("claim 2: %+v", c2)
			}
			if slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.ClaimPosition == 1 && e.URL == srcBeachAmerican.URL }) {
				t.Errorf("c1 keeps the source of a check that was not kept: %+v", res.Evidence)
			}
			flagged := slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
				return f.Code == pipeline.FlagQuoteNotInSource && strings.Contains(f.Detail, "Mexican")
			})
			if flagged != tt.flagged {
				t.Errorf("quote_not_in_source flag for the made-up passage: %v, want %v (%+v)", flagged, tt.flagged, res.ReviewFlags)
			}
		})
	}
}

// descriptionOf reads what a bridge claim says of its entity beyond its kind; a kind alone, or a
// claim it cannot read, gives no check.
func TestDescriptionOf(t *testing.T) {
	t.Parallel()
	for claim, want := range map[string]string{
		"Jason Moore directed a 2015 American drama film":                                      "a 2015 American drama film",
		"A Marvel Comics character is the identity used by Clark":                              "a Marvel Comics character",
		"A Canadian actor played Detective Chester Lake":                                       "a Canadian actor",
		"An actor played Detective Chester Lake":                                               "",
		"{c1} directed a 2015 American drama film":                                             "",
		"A company manufactures cars that were designed in Turin":                              "",
		"A branch of a nation's armed forces is principally designated for amphibious warfare": "a branch of a nation's armed forces",
		"An American sports action film stars Chevy Chase":                                     "an American sports action film",
		"A branch of a nation's is principally designated for amphibious warfare":              "",
	} {
		got, ok := descriptionOf(claim)
		if got != want || ok != (want != "") {
			t.Errorf("descriptionOf(%q) = %q, %v; want %q", claim, got, ok, want)
		}
	}
}

// A second judgement that confirms c1 naming another entity says the sources point at two
// candidates: the one c2 was stated with is not singled out, and no check is asked of it.
func TestNoDescriptionCheckWhenTheSecondJudgementNamesAnother(t *testing.T) {
	t.Parallel()
	second := judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Jason Momoa", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
		judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceSupports})
	model := americanModelWith(t, second, judgeCites("refuted", "Medium", "scripted", "Adam Beach is an American actor",
		judgeCitation{2, "Adam Beach, an American actor", evidence.StanceRefutes}))
	res, err := Multihop{Model: model, Searcher: americanSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\n"+descriptionCheck+"\n") {
			t.Fatalf("a description check was asked:\n%s", p)
		}
	}
	if c1, c2 := res.Claims[0], res.Claims[1]; c1.Verdict != pipeline.VerdictUnverified || c2.Verdict != pipeline.VerdictUnverified {
		t.Errorf("claims:\n%+v\n%+v", c1, c2)
	}
}

// srcBeachBoth is the one page c1's hop and c2's find: it names the actor, says he is Canadian
// and that he plays Slipknot, so the claim stated with his name finds nothing c1 was not given.
var srcBeachBoth = hit("https://en.wikipedia.org/wiki/Adam_Beach", "Wikipedia",
	"Adam Beach, a Canadian actor, played Detective Chester Lake in Law & Order: Special Victims Unit and plays Slipknot in Suicide Squad.", nil)

// dependentConfirmedOnBoth is c2's judge confirming the claim stated with the name on
// srcBeachBoth.
func dependentConfirmedOnBoth(t testing.TB) string {
	return judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, played Detective Chester Lake in Law & Order: Special Victims Unit and plays Slipknot in Suicide Squad", evidence.StanceSupports})
}

// lowBridgeRun runs the Canadian statement with c1 confirmed at Low (the actor named), c2 stated
// with the name and judged dependent, and look as the reply to the look at Low.
func lowBridgeRun(t *testing.T, dependent, look string) (*pipeline.Result, *pipelinetest.StubModel) {
	t.Helper()
	first := judgeReplyJSON(t, "supported", "Low", "", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach, a Canadian actor, played Detective Chester Lake"},
		judgeCitation{1, "Adam Beach, a Canadian actor, played Detective Chester Lake", evidence.StanceSupports})
	return bridgeLookRun(t, first, dependent, lowLookMarker, look)
}

// bridgeLookRun runs the Canadian statement on srcBeachBoth alone, so that the claim stated with
// the name finds nothing c1 was not given: c1's judge replies first, c2's dependent, and the
// look whose prompt holds marker replies look.
func bridgeLookRun(t *testing.T, first, dependent, marker, look string) (*pipeline.Result, *pipelinetest.StubModel) {
	t.Helper()
	model := planModel(t, canadianPlan(), map[string]string{canadianClaim: first, canadianDependent: dependent})
	model.Rules = append([]pipelinetest.StubRule{{Contains: marker, Reply: look}}, model.Rules...)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake", results: []pipeline.SearchResult{srcBeachBoth}},
		{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{srcBeachBoth}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	return res, model
}

// A bridge its judge confirmed at Low, whose name every claim stated with it confirmed, and for
// which those claims found nothing it was not given, was never judged again, and the statement
// stayed unverified (session 46's second cohort, exfever-3730: "An actress has established her
// career predominantly in Tamil-language films" confirmed at Low, the claim stated with Catherine
// Tresa Alexander confirmed, nothing more found). It gets
// the look at Low a claim no other builds on gets (secondLook), on the sources its judge cited;
// only a grounded confirmation at Medium settles it, and the name stays the one its first judge
// read from a cited passage.
func TestBridgeConfirmedAtLowWithNothingNewGetsTheLookAtLow(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	dependent := dependentConfirmedOnBoth(t)
	res, model := lowBridgeRun(t, dependent, judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "Adam Beach, a Canadian actor, played Detective Chester Lake", sup}))
	c1, c2 := res.Claims[0], res.Claims[1]
	if c1.Verdict != pipeline.VerdictSupported || c1.Confidence != pipeline.ConfidenceMedium || !strings.Contains(c1.Reason, "second look") {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2.Text != canadianDependent || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	looks := 0
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, lowLookMarker) {
			looks++
			if strings.Contains(p, "Slipknot in Suicide Squad\n</untrusted_claim>") || strings.Contains(p, canadianStatement) {
				t.Errorf("the look got another claim's or the statement's text:\n%s", p)
			}
		}
	}
	if looks != 1 {
		t.Errorf("looks at Low: %d, want 1", looks)
	}
}

// The look settles nothing when it does not confirm with a passage of a source it was shown, and
// is not asked when a claim stated with the name was not confirmed: the claims stated with the
// name stay unverified.
func TestBridgeConfirmedAtLowLookCannotSmuggle(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	confirmed := dependentConfirmedOnBoth(t)
	for _, tc := range []struct {
		name, dependent, look string
		looks                 int
	}{
		{"quotes what no source says", confirmed, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach was born in Manitoba, Canada", sup}), 1},
		{"cites a source it was not shown", confirmed, judgeReplyJSON(t, "supported", "High", "", nil, judgeCitation{4, "Adam Beach, a Canadian actor", sup}), 1},
		{"Low again", confirmed, judgeReplyJSON(t, "supported", "Low", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor", sup}), 1},
		{"a dependent not confirmed", judgeReplyJSON(t, "unverified", "Low", "", nil), judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor", sup}), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, model := lowBridgeRun(t, tc.dependent, tc.look)
			checkBridgeLook(t, res, model, lowLookMarker, false, tc.looks)
		})
	}
}

// canadianPartFirst is c1's first judgement confirming the actor and not his nationality, in
// part: the bridge is provisional, named from its cited passage.
func canadianPartFirst(t testing.TB, passage string) string {
	first := judgeReplyJSON(t, "partly_supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: passage},
		judgeCitation{1, passage, evidence.StanceSupports})
	return strings.Replace(first, `"supported_part":""`, `"supported_part":"Adam Beach played Detective Chester Lake."`, 1)
}

// A bridge its judge confirmed in part, whose dependents were all confirmed with its name and
// found nothing it was not given, was never read again (session 46's cohort: exfever-3816
// "Bohemian Rhapsody belongs to a loosely defined subgenre of popular music", -4077): the look
// at the part left uncovered that a claim no other builds on gets (secondLook) is asked of it,
// on the sources its judge cited, and only a grounded confirmation at Medium settles it. Its
// prompt carries neither the dependent's text nor the statement.
func TestBridgeConfirmedInPartWithNothingNewGetsTheLook(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	dependent := dependentConfirmedOnBoth(t)
	for _, tc := range []struct {
		name, dependent, look string
		settled               bool
		looks                 int
	}{
		{"confirmed", dependent, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, played Detective Chester Lake", sup}), true, 1},
		{"quotes what no source says", dependent, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach was born in Manitoba, Canada", sup}), false, 1},
		{"cites a source it was not shown", dependent, judgeReplyJSON(t, "supported", "High", "", nil, judgeCitation{3, "Adam Beach, a Canadian actor", sup}), false, 1},
		{"in part again", dependent, canadianPartFirst(t, "Adam Beach, a Canadian actor, played Detective Chester Lake"), false, 1},
		{"a dependent not confirmed", judgeReplyJSON(t, "unverified", "Low", "", nil), judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor", sup}), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, model := bridgeLookRun(t, canadianPartFirst(t, "Adam Beach, a Canadian actor, played Detective Chester Lake"),
				tc.dependent, secondLookMarker, tc.look)
			checkBridgeLook(t, res, model, secondLookMarker, tc.settled, tc.looks)
		})
	}
}

// A bridge judged again with what its dependents found can be confirmed at Low or in part a
// second time, with every dependent confirmed with its name (session 46's second cohort:
// exfever-3728 Walt Disney, -6030 Albert Brooks); that judgement gets the look a claim no other
// builds on gets, on the sources it cited (its own and the one found by searching for the
// entity), and only a grounded confirmation at Medium settles the bridge, under the name its
// first judge read from a cited passage. A second judgement naming another entity gets no look.
func TestBridgeJudgedAgainAtLowGetsTheLook(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	dependent := judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, plays Slipknot in Suicide Squad", sup})
	atLow := func(name string) string {
		return judgeReplyJSON(t, "supported", "Low", "", &judgeAnswer{Value: name, Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}, judgeCitation{2, "Adam Beach, a Canadian actor", sup})
	}
	confirmedLook := judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}, judgeCitation{2, "Adam Beach, a Canadian actor", sup})
	for _, tc := range []struct {
		name, second, look string
		settled            bool
		looks              int
	}{
		{"confirmed", atLow("Adam Beach"), confirmedLook, true, 1},
		{"Low again", atLow("Adam Beach"), judgeReplyJSON(t, "supported", "Low", "", nil, judgeCitation{2, "Adam Beach, a Canadian actor", sup}), false, 1},
		{"quotes what no source says", atLow("Adam Beach"), judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{2, "Adam Beach, a Canadian actor born in Manitoba", sup}), false, 1},
		{"the second judgement named another", atLow("Jason Momoa"), confirmedLook, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			model := canadianModel(t, dependent, tc.second)
			model.Rules = append([]pipelinetest.StubRule{{Contains: lowLookMarker, Reply: tc.look}}, model.Rules...)
			res, err := Multihop{Model: model, Searcher: canadianSearcher()}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
			if err != nil {
				t.Fatal(err)
			}
			for _, look := range checkBridgeLook(t, res, model, lowLookMarker, tc.settled, tc.looks) {
				if !strings.Contains(look, srcBeachCanadian.Snippet) {
					t.Errorf("the look did not get the source c2 found:\n%s", look)
				}
			}
			found := slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool {
				return e.ClaimPosition == 1 && e.URL == srcBeachCanadian.URL && e.FromClaimPosition == 2
			})
			if found != tc.settled {
				t.Errorf("c1 keeps the source c2 found: %v, want %v: %+v", found, tc.settled, res.Evidence)
			}
		})
	}
}

// checkBridgeLook checks that the Canadian statement's bridge c1 was settled by the look whose
// prompt holds marker (c1 confirmed at Medium by a second look, c2 stated with the name and
// confirmed) exactly when settled, both left unverified otherwise, and that the look was asked
// looks times, each without c2's text or the statement's. It returns the looks' prompts.
func checkBridgeLook(t *testing.T, res *pipeline.Result, model *pipelinetest.StubModel, marker string, settled bool, looks int) []string {
	t.Helper()
	c1, c2 := res.Claims[0], res.Claims[1]
	got := c1.Verdict == pipeline.VerdictSupported && c1.Confidence == pipeline.ConfidenceMedium && strings.Contains(c1.Reason, "second look") &&
		c2.Text == canadianDependent && c2.Verdict == pipeline.VerdictSupported
	if got != settled || !settled && (c1.Verdict != pipeline.VerdictUnverified || c2.Verdict != pipeline.VerdictUnverified) {
		t.Errorf("settled %v, want %v:\n%+v\n%+v", got, settled, c1, c2)
	}
	var prompts []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, marker) {
			prompts = append(prompts, p)
			if strings.Contains(p, canadianDependent+"\n</untrusted_claim>") || strings.Contains(p, canadianStatement) {
				t.Errorf("the look got another claim's or the statement's text:\n%s", p)
			}
		}
	}
	if len(prompts) != looks {
		t.Errorf("looks: %d, want %d", len(prompts), looks)
	}
	return prompts
}

// canadianStatedRun runs the Canadian statement and checks that c2 was stated with the name c1's
// judge gave.
func canadianStatedRun(t *testing.T, model *pipelinetest.StubModel, searcher *StubSearcher) *pipeline.Result {
	t.Helper()
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: canadianStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c2 := res.Claims[1]; c2.Text != canadianDependent {
		t.Fatalf("claim 2 was not stated with the name: %+v", c2)
	}
	return res
}

// partlyCorrected is a judge reply that confirms part (its supported part) of a claim and
// corrects the rest, at confidence, naming answer.
func partlyCorrected(t testing.TB, confidence, part, correction string, answer *judgeAnswer, cites ...judgeCitation) string {
	t.Helper()
	var raw []json.RawMessage
	for _, c := range cites {
		b, _ := json.Marshal(c)
		raw = append(raw, b)
	}
	b, err := json.Marshal(judgeReply{Verdict: "partly_supported", Citations: raw, Reason: "scripted: " + correction, SupportedPart: part,
		Correction: correction, Confidence: confidence, Answer: answer})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// secondJudgementCorrecting is c1's second judgement (with what c2 found) confirming in part,
// naming Adam Beach from the source c1's hop found, and correcting the claim on the passage
// refuting, at confidence.
func secondJudgementCorrecting(t testing.TB, confidence, refuting string) string {
	played := "Adam Beach played Detective Chester Lake"
	return partlyCorrected(t, confidence, played, "Adam Beach, an American actor, played Detective Chester Lake", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: played},
		judgeCitation{1, played, evidence.StanceSupports}, judgeCitation{2, refuting, evidence.StanceRefutes})
}

// A provisional bridge judged again with what the claims stated with its name found may be
// contradicted there, at Medium, on the entity its first judge named: that is the finding the
// description check asks for (describedOtherwise), given by the second judgement itself, and it
// settles the bridge when every claim stated with the name was confirmed (they single the entity
// out). In a relay run (session 48, exfever-3814) "A television drama series aired on JTBC on
// December 20, 2022" was judged again with the page that says "On December 20, 2021, JTBC
// broadcast The One and Only", corrected to 2021 at Medium naming The One and Only, which the
// claim stated with the name confirmed Joy starred in; the check asked of its description ("a
// television drama series") found nothing wrong, the bridge was unsettled and the false
// statement left unverified. A contradiction at Low, one no cited passage grounds, one on
// another entity, or one with a claim stated with the name not confirmed, settles nothing.
func TestSecondJudgementContradictingTheNamedEntitySettlesTheBridge(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	confirmed := judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, an American actor, plays Slipknot in Suicide Squad", sup})
	notConfirmed := judgeReplyJSON(t, "unverified", "Low", "", nil)
	// The check of c1's description finds nothing wrong with it, as in the relay run.
	check := judgeCites("supported", "Medium", "scripted", "", judgeCitation{2, "Adam Beach, an American actor", sup})
	tests := []struct {
		name, dependent, second string
		settled                 bool
	}{
		{"contradicted at Medium on the entity", confirmed, secondJudgementCorrecting(t, "Medium", "Adam Beach, an American actor"), true},
		{"contradicted at Low", confirmed, secondJudgementCorrecting(t, "Low", "Adam Beach, an American actor"), false},
		{"a refuting quote no source holds", confirmed, secondJudgementCorrecting(t, "Medium", "Adam Beach, a Mexican actor"), false},
		{"the claim stated with the name not confirmed", notConfirmed, secondJudgementCorrecting(t, "Medium", "Adam Beach, an American actor"), false},
		{"another entity named", confirmed, strings.Replace(secondJudgementCorrecting(t, "Medium", "Adam Beach, an American actor"), `"value":"Adam Beach"`, `"value":"Jason Momoa"`, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := canadianModel(t, tt.dependent, tt.second)
			model.Rules = append([]pipelinetest.StubRule{{Contains: "<untrusted_claim>\n" + descriptionCheck + "\n", Reply: check}}, model.Rules...)
			res := canadianStatedRun(t, model, americanSearcher())
			c1, c2 := res.Claims[0], res.Claims[1]
			stored := slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool {
				return e.ClaimPosition == 1 && e.URL == srcBeachAmerican.URL && e.Stance == evidence.StanceRefutes
			})
			if !tt.settled {
				if c1.Verdict != pipeline.VerdictUnverified || c1.CorrectedText != "" {
					t.Errorf("claim 1: %+v", c1)
				}
				if c2.Verdict != pipeline.VerdictUnverified {
					t.Errorf("claim 2: %+v", c2)
				}
				if stored {
					t.Errorf("c1 keeps the refuting source of a judgement not kept: %+v", res.Evidence)
				}
				return
			}
			if c1.Verdict != pipeline.VerdictPartlySupported || c1.Confidence != pipeline.ConfidenceMedium || c1.CorrectedText == "" ||
				!strings.Contains(c1.Reason, `"Adam Beach"`) || !strings.Contains(c1.Reason, "claim 2") {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 2: %+v", c2)
			}
			if !stored {
				t.Errorf("the refuting source is not stored as c1's evidence: %+v", res.Evidence)
			}
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, "<untrusted_claim>\n"+descriptionCheck+"\n") {
					t.Errorf("the description was checked although the second judgement had contradicted it:\n%s", p)
				}
			}
		})
	}
}

// A bridge claim its judge contradicted in part, naming the entity, may be contradicted on a page
// that only fails to say what the claims stated with the name then confirm elsewhere: in session
// 48's tenth cohort (exfever-3931) "... had been broadcast for 17 years on a sports television
// network" was partly supported naming CBS, corrected on CBS's page ("a commercial broadcast
// television and radio network ... rather than a sports television network"), while "CBS is a
// sports television network", stated with the name, was confirmed on another page; a true
// statement was refuted. When every claim stated with the name was confirmed, the bridge claim is
// judged again with what they cited, as a provisional bridge is, and a grounded confirmation at
// Medium or above naming the same entity replaces the contradiction. Anything else keeps it: a
// second contradiction, a confirmation naming another entity, a quote no source holds; and with a
// claim stated with the name not confirmed, no second judgement is asked.
func TestContradictedBridgeJudgedAgainWithWhatItsDependentsFound(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	played := "Adam Beach played Detective Chester Lake"
	first := partlyCorrected(t, "Medium", played, "Adam Beach, an actor, played Detective Chester Lake", &judgeAnswer{Value: "Adam Beach", Source: 1, Passage: played},
		judgeCitation{1, played, sup}, judgeCitation{1, "Adam Beach played Detective Chester Lake in Law & Order", ref})
	confirmed := judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, a Canadian actor, plays Slipknot in Suicide Squad", sup})
	second := func(name, passage string) string {
		return judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: name, Source: 1, Passage: played},
			judgeCitation{1, played, sup}, judgeCitation{2, passage, sup})
	}
	tests := []struct {
		name, dependent, second string
		settled, asked          bool
	}{
		{"confirmed on what the dependent found", confirmed, second("Adam Beach", "Adam Beach, a Canadian actor"), true, true},
		{"contradicted again", confirmed, first, false, true},
		{"confirmed naming another entity", confirmed, second("Jason Momoa", "Adam Beach, a Canadian actor"), false, true},
		{"a quote no source holds", confirmed, second("Adam Beach", "Adam Beach, a Canadian-born actor"), false, true},
		{"the claim stated with the name not confirmed", judgeReplyJSON(t, "unverified", "Low", "", nil), second("Adam Beach", "Adam Beach, a Canadian actor"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := canadianModelFrom(t, first, tt.dependent, tt.second)
			res := canadianStatedRun(t, model, canadianSearcher())
			c1, c2 := res.Claims[0], res.Claims[1]
			asked := slices.ContainsFunc(model.Sent(pipeline.StepJudge), func(p string) bool { return strings.Contains(p, relationBuiltOn) })
			if asked != tt.asked {
				t.Errorf("judged again: %v, want %v", asked, tt.asked)
			}
			flagged := slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
				return f.Code == pipeline.FlagQuoteNotInSource && strings.Contains(f.Detail, "Canadian-born")
			})
			if flagged != (tt.name == "a quote no source holds") {
				t.Errorf("quote_not_in_source flag for the made-up passage: %v (%+v)", flagged, res.ReviewFlags)
			}
			if !tt.settled {
				if c1.Verdict != pipeline.VerdictPartlySupported || c1.CorrectedText != "Adam Beach, an actor, played Detective Chester Lake" {
					t.Errorf("claim 1 lost its first judgement: %+v", c1)
				}
				if slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.ClaimPosition == 1 && e.URL == srcBeachCanadian.URL }) {
					t.Errorf("c1 keeps a source of a judgement not kept: %+v", res.Evidence)
				}
				return
			}
			if c1.Verdict != pipeline.VerdictSupported || c1.Confidence != pipeline.ConfidenceMedium || c1.CorrectedText != "" || !strings.Contains(c1.Reason, "claim 2") {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 2: %+v", c2)
			}
			checkSecondJudgement(t, model, res, canadianClaim, srcLake, srcBeachCanadian, 2, relationBuiltOn, canadianDependent, canadianStatement)
		})
	}
}
