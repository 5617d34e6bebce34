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

// Scripted-model tests of issue 23: a claim is judged with the facts it depends on.

const slipknotStatement = "The actor who played Detective Chester Lake played Slipknot in Suicide Squad."

var (
	srcLake     = hit("https://en.wikipedia.org/wiki/Adam_Beach", "Wikipedia", "Adam Beach played Detective Chester Lake in Law & Order: Special Victims Unit.", nil)
	srcLakeFan  = hit("https://svu.fandom.com/wiki/Chester_Lake", "Fandom", "Chester Lake was a detective of the 16th precinct, played by a Canadian actor.", nil)
	srcSlipknot = hit("https://www.imdb.com/title/suicide-squad", "IMDb", "Suicide Squad (2016), written and directed by David Ayer. Adam Beach plays Slipknot.", nil)
)

// slipknotPlan bridges c2 to c1: c2's text and hop write {c1} for the actor c1 describes.
func slipknotPlan() Plan {
	return Plan{
		PlanID: "slipknot",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "An actor played Detective Chester Lake", SourceSpan: "The actor who played Detective Chester Lake",
				Entities: []string{"Detective Chester Lake"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Detective Chester Lake actor"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "{c1} played Slipknot in Suicide Squad",
				SourceSpan: "played Slipknot in Suicide Squad", Entities: []string{"Slipknot", "Suicide Squad"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"{c1} Slipknot Suicide Squad film cast"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{
				{1, "Detective Chester Lake Law Order actor", "encyclopedia", "cast member"},
				{2, "Chester Lake character precinct fandom", "fan wiki", "cast member"},
			}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} Slipknot Suicide Squad cast", "film database", "cast member"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same actor"}},
		CrossValidationQueries: []CrossValidationQuery{{"television detective actor later cast in comic book film villain team", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

func slipknotSearcher() *StubSearcher {
	return &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLake}},
		{contains: "Chester Lake character", results: []pipeline.SearchResult{srcLakeFan}},
		{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{srcSlipknot}},
	}}
}

// judgeReplyJSON encodes a scripted judge reply.
func judgeReplyJSON(t testing.TB, verdict, confidence, missing string, answer *judgeAnswer, cites ...judgeCitation) string {
	t.Helper()
	raw := []json.RawMessage{}
	for _, c := range cites {
		b, _ := json.Marshal(c)
		raw = append(raw, b)
	}
	b, err := json.Marshal(judgeReply{Verdict: verdict, Citations: raw, Reason: "scripted", Confidence: confidence, Missing: textOrList(missing), Answer: answer})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const resolvedSlipknot = "Adam Beach played Slipknot in Suicide Squad"

// Bridge substitution and the dependency's passages: c1's judge names the actor from its cited
// passage; c2's hop searches with that name and c2's judge gets c1's cited source, marked, and
// nothing of c1's text or the statement.
func TestBridgeResolvedFromTheCitedFinding(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	model := planModel(t, slipknotPlan(), map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
			&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
		resolvedSlipknot: judgeReplyJSON(t, "supported", "High", "", nil,
			judgeCitation{1, "written and directed by David Ayer. Adam Beach plays Slipknot", sup},
			judgeCitation{2, "Adam Beach played Detective Chester Lake", sup}),
	})
	searcher := slipknotSearcher()
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	hop := findHop(res, 2, 1)
	if !strings.Contains(hop.Query, "Adam Beach") || strings.Contains(hop.Query, "{c1}") || hop.Status != HopFound ||
		!strings.Contains(hop.Note, `{c1} is "Adam Beach"`) || !strings.Contains(hop.Note, srcLake.URL) || hop.Reason != HopReasonPlan {
		t.Errorf("hop 1 of c2: %+v", hop)
	}
	c2 := res.Claims[1]
	if c2.Text != resolvedSlipknot || c2.Verdict != pipeline.VerdictSupported || !slices.Equal(c2.Citations, []int{2, 1}) {
		t.Errorf("claim 2: %+v", c2)
	}
	judged := model.Sent(pipeline.StepJudge)
	var c1Prompt, c2Prompt string
	for _, p := range judged {
		switch {
		case strings.Contains(p, "<untrusted_claim>\nAn actor played"):
			c1Prompt = p
		case strings.Contains(p, "<untrusted_claim>\n"+resolvedSlipknot):
			c2Prompt = p
		}
	}
	if !strings.Contains(c1Prompt, `In "answer" give "value"`) {
		t.Errorf("c1's judge was not asked to name the actor:\n%s", c1Prompt)
	}
	// Sources that list the candidates without saying which one is meant: the follow-up
	// searches their names. Only a claim others build on is asked so.
	const candidates = `"missing" is a search query of those names`
	if !strings.Contains(c1Prompt, candidates) || strings.Contains(c2Prompt, candidates) {
		t.Errorf("only c1's judge should be asked to name the candidates in missing:\n%s\n---\n%s", c1Prompt, c2Prompt)
	}
	// The exact prompt c2's judge got: its own source, then c1's cited one, marked.
	own, dep := stubSource(srcSlipknot, ""), stubSource(srcLake, relationEstablished)
	want, err := renderJudgePrompt(resolvedSlipknot, []evidence.Retrieved{own, dep}, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	if c2Prompt != want {
		t.Errorf("c2's judge prompt:\n%s\nwant\n%s", c2Prompt, want)
	}
	for _, leak := range []string{"An actor played", slipknotStatement, srcLakeFan.Snippet, "{c1}"} {
		if strings.Contains(c2Prompt, leak) {
			t.Errorf("c2's judge prompt holds %q", leak)
		}
	}
	var stored []pipeline.Evidence
	for _, e := range res.Evidence {
		if e.ClaimPosition == 2 && e.FromClaimPosition == 1 {
			stored = append(stored, e)
		}
	}
	if len(stored) != 1 || stored[0].URL != srcLake.URL || stored[0].SourceNumber != 1 || stored[0].Quote == "" {
		t.Errorf("c1's finding stored for c2: %+v", stored)
	}
}

// A dependency's finding reaches the dependent claim's judge with the passage its judge cited:
// in a relay run (EX-FEVER) "<a team> play their home games in an arena" was confirmed from a
// sentence of the team's page, read below its snippet, that also names a second team sharing the
// arena; the claim about the second team was given the page's snippet only, which stops before
// that sentence, and stayed unverified although its dependency had cited it. Only the cited
// passage comes: a dependent judge citing another passage of the page, which the dependency's
// judge read and did not cite, cites what it was not given, and the citation is dropped.
func TestDependencyFindingCarriesTheCitedPagePassage(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	const sentence = "On television Adam Beach played Detective Chester Lake, and in the 2016 film Suicide Squad he played Slipknot."
	short := hit(srcLake.URL, "Wikipedia", "Adam Beach, a Canadian actor, is known as Detective Chester Lake of Law & Order.", nil)
	page := "Adam Beach is a Canadian actor who played Slipknot, born in Manitoba.\n\n" + sentence
	for _, tt := range []struct {
		name, passage string
		supported     bool
	}{
		{"the cited passage", "in the 2016 film Suicide Squad he played Slipknot", true},
		{"a passage the dependency's judge did not cite", "Adam Beach is a Canadian actor who played Slipknot", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, slipknotPlan(), map[string]string{
				"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
					&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
					judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
				resolvedSlipknot: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, tt.passage, sup}),
			})
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{short}},
			}}
			pages := &pipelinetest.StubPages{Texts: map[string]string{srcLake.URL: page}}
			res, err := Multihop{Model: model, Searcher: searcher, Pages: evidence.PageReading{Reader: pages}}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
			if err != nil {
				t.Fatal(err)
			}
			var c1Prompt, c2Prompt string
			for _, p := range model.Sent(pipeline.StepJudge) {
				switch {
				case strings.Contains(p, "<untrusted_claim>\nAn actor played"):
					c1Prompt = p
				case strings.Contains(p, "<untrusted_claim>\n"+resolvedSlipknot):
					c2Prompt = p
				}
			}
			if !strings.Contains(c1Prompt, "born in Manitoba") {
				t.Fatalf("c1's judge was not given the page's first passage, so the case tests nothing:\n%s", c1Prompt)
			}
			if !strings.Contains(c2Prompt, sentence) || !strings.Contains(c2Prompt, relationEstablished) || strings.Contains(c2Prompt, "born in Manitoba") {
				t.Errorf("c2's judge was not given the page passage c1's judge cited, and only that:\n%s", c2Prompt)
			}
			if c2 := res.Claims[1]; (c2.Verdict == pipeline.VerdictSupported) != tt.supported {
				t.Errorf("claim 2 is %s (%s), want supported %v", c2.Verdict, c2.Reason, tt.supported)
			}
		})
	}
}

// A dishonest judge cannot smuggle a name into a later claim: the bridge value must be in the
// passage, the passage in the source, and the source one that grounds the verdict. A refused
// name reaches no search and no prompt: the dependent claim is stated with the statement's own
// words for the entity, as when no name was given.
func TestBridgeRefusedWhenNotInTheCitedPassage(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	cite := judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}
	const described = "The actor who played Detective Chester Lake played Slipknot in Suicide Squad"
	tests := []struct {
		name   string
		answer judgeAnswer
		reason string
	}{
		{"a name the passage does not hold", judgeAnswer{"Jason Momoa", 1, "Adam Beach played Detective Chester Lake"}, "not in the passage"},
		{"a passage the source does not hold", judgeAnswer{"Jason Momoa", 1, "Jason Momoa played Detective Chester Lake"}, "is not in source [1]"},
		{"a source that is not cited", judgeAnswer{"Canadian actor", 2, "played by a Canadian actor"}, "not a source grounding its verdict"},
		{"a source it was not given", judgeAnswer{"Adam Beach", 7, "Adam Beach played Detective Chester Lake"}, "not a source grounding its verdict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answer := tt.answer
			model := planModel(t, slipknotPlan(), map[string]string{
				"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "", &answer, cite),
				described:                                judgeReplyJSON(t, "unverified", "Low", "", nil),
			})
			searcher := slipknotSearcher()
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
			if err != nil {
				t.Fatal(err)
			}
			c2 := res.Claims[1]
			if c2.Text != described || strings.Contains(c2.Text, tt.answer.Value) {
				t.Errorf("claim 2: %+v", c2)
			}
			for _, q := range searcher.sent() {
				if strings.Contains(q.Query, tt.answer.Value) || strings.Contains(q.Query, "{c1}") {
					t.Errorf("a search ran with the refused bridge: %q", q.Query)
				}
			}
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, "<untrusted_claim>\n"+described) && strings.Contains(p, tt.answer.Value) && tt.answer.Value != "Adam Beach" {
					t.Errorf("c2's judge prompt holds the refused name %q", tt.answer.Value)
				}
			}
			if h := findHop(res, 2, 1); h.Query != "Slipknot Suicide Squad cast" || !strings.Contains(h.Note, "{c1} was not established") || !strings.Contains(h.Note, tt.reason) {
				t.Errorf("hop 1 of c2: %+v", h)
			}
			if !slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
				return f.Code == pipeline.FlagQuoteNotInSource && strings.Contains(f.Detail, "refused as a bridge")
			}) {
				t.Errorf("review flags: %v", res.ReviewFlags)
			}
		})
	}
}

// When the statement has no words of its own for the entity (the claim a bridge stands on
// spans the dependent claim's words, or its span is no noun phrase: a real model's plan spanned
// "released an album on June 29, 2015, ..." for "An artist released an album ...", and the
// dependent claim read "See.SZA.Run was compared to the work of released an album ..."), an
// unestablished bridge leaves the claim unverified. It runs one search for the entity by what the
// statement says of it (nameByDescription); here that finds nothing, and the bridge claim is not
// judged again.
func TestUnestablishedBridgeWithoutWordsOfItsOwn(t *testing.T) {
	t.Parallel()
	for _, span := range []string{slipknotStatement, "played Detective Chester Lake"} {
		t.Run(span, func(t *testing.T) {
			t.Parallel()
			testUnestablishedBridgeWithoutWordsOfItsOwn(t, span)
		})
	}
}

func testUnestablishedBridgeWithoutWordsOfItsOwn(t *testing.T, span string) {
	plan := slipknotPlan()
	plan.Claims[0].SourceSpan = span
	model := planModel(t, plan, map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "unverified", "Low", "", nil),
	})
	searcher := slipknotSearcher()
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "no words of its own") {
		t.Errorf("claim 2: %+v", c2)
	}
	if h := findHop(res, 2, 1); h.Query != "An actor played Detective Chester Lake played Slipknot in Suicide Squad" || h.Reason != HopReasonDescription || h.Status != HopNoResults {
		t.Errorf("hop 1 of c2: %+v", h)
	}
	if n := len(model.Sent(pipeline.StepJudge)); n != 1 {
		t.Errorf("judge calls: %d, want c1's only", n)
	}
}

// A claim whose text is whole, the placeholder written only in its hops ("A request was put to
// Francis Fisher to stand in the City of Wellington electorate to fill the vacancy", its hop
// "{c2} City of Wellington seat vacancy ...", c2 the father no source named: FEVEROUS-S 22927,
// true, left unverified), is judged as written when the bridge was not established and the
// statement has no words for it: its hops search without the placeholder, and say so. On the
// old code it was "cannot be stated", unjudged.
func TestUnestablishedBridgeOnlyInTheHopsLeavesTheClaimWhole(t *testing.T) {
	t.Parallel()
	const whole = "Slipknot is a character of Suicide Squad"
	plan := slipknotPlan()
	plan.Claims[0].SourceSpan = slipknotStatement // the statement has no words of its own for c1
	plan.Claims[1].ClaimText = whole
	plan.Claims[1].SubQueries = []string{"Slipknot Suicide Squad character"}
	model := planModel(t, plan, map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "unverified", "Low", "", nil),
		whole: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "Adam Beach plays Slipknot", evidence.StanceSupports}),
	})
	searcher := slipknotSearcher()
	searcher.rules = append(searcher.rules, searchRule{contains: "Slipknot Suicide Squad cast", results: []pipeline.SearchResult{srcSlipknot}})
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Text != whole || c2.Verdict != pipeline.VerdictSupported || strings.Contains(c2.Reason, "cannot be stated") {
		t.Errorf("claim 2: %+v", c2)
	}
	if h := findHop(res, 2, 1); h.Query != "Slipknot Suicide Squad cast" || h.Status != HopFound || h.Reason != HopReasonPlan ||
		!strings.Contains(h.Note, "{c1} was not established") || !strings.Contains(h.Note, "searched without it") {
		t.Errorf("hop 1 of c2: %+v", h)
	}
}

// A bridge claim whose judge refuted it describes no entity worth searching for: the claims
// building on it run no hop at all.
func TestRefutedBridgeIsNotSearchedForByDescription(t *testing.T) {
	t.Parallel()
	plan := slipknotPlan()
	plan.Claims[0].SourceSpan = "played Detective Chester Lake"
	model := planModel(t, plan, map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "refuted", "Medium", "", nil,
			judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceRefutes}),
	})
	searcher := slipknotSearcher()
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	if h := findHop(res, 2, 1); h.Status != HopRejected || !strings.HasPrefix(h.Note, "not run: ") {
		t.Errorf("hop 1 of c2: %+v", h)
	}
	for _, q := range searcher.sent() {
		if strings.Contains(q.Query, "Slipknot") {
			t.Errorf("c2 searched: %q", q.Query)
		}
	}
}

// A judge cannot cite a dependency's passage it was not given: c1's judge saw the fan wiki but
// did not cite it, so c2's judge never gets it; citing it by a number it was not shown, or its
// words from a source it was shown, grounds nothing.
func TestDependentJudgeCitingAnUngivenDependencyPassage(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	fanPassage := "played by a Canadian actor"
	tests := []struct {
		name string
		cite judgeCitation
		flag string
	}{
		{"by a number it was not shown", judgeCitation{3, fanPassage, sup}, pipeline.FlagCitationRemoved},
		{"with a given source's number", judgeCitation{2, fanPassage, sup}, pipeline.FlagQuoteNotInSource},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, slipknotPlan(), map[string]string{
				"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
					&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
					judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
				resolvedSlipknot: judgeReplyJSON(t, "supported", "High", "", nil, tt.cite),
			})
			res, err := Multihop{Model: model, Searcher: slipknotSearcher()}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
			if err != nil {
				t.Fatal(err)
			}
			c2 := res.Claims[1]
			if c2.Verdict != pipeline.VerdictUnverified || len(c2.Citations) != 0 {
				t.Errorf("claim 2: %+v", c2)
			}
			for _, e := range res.Evidence {
				if e.ClaimPosition == 2 && (e.URL == srcLakeFan.URL || e.Quote != "") {
					t.Errorf("claim 2 stores %+v", e)
				}
			}
			if !flaggedOnClaim(res, tt.flag, 2) {
				t.Errorf("review flags %v lack %s for claim 2", res.ReviewFlags, tt.flag)
			}
		})
	}
}

// A follow-up hop: the judge finds the evidence short and names what is missing; one more hop
// searches for it under the same rules (excluding the chain's sources), is recorded with its
// reason, and the claim is judged again.
func TestFollowUpHopForWhatIsMissing(t *testing.T) {
	t.Parallel()
	plan := examplePlan()
	plan.Claims, plan.QueryChains = plan.Claims[:1], plan.QueryChains[:1]
	plan.QueryChains[0].Hops = plan.QueryChains[0].Hops[:1]
	plan.CrossValidationPairs, plan.CrossValidationQueries, plan.ExecutionOrder = []CrossValidationPair{}, []CrossValidationQuery{}, []string{"c1"}
	first := hit("https://www.toureiffel.paris/history", "SETE", "The Eiffel Tower was built for the Exposition Universelle of 1889.", nil)
	later := hit("https://www.britannica.com/eiffel", "Britannica", "The Eiffel Tower was completed in March 1889.", nil)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "official history", results: []pipeline.SearchResult{first}},
		{contains: "completion year", results: []pipeline.SearchResult{first, later}},
	}}
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: later.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{2, "completed in March 1889", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "Eiffel Tower completion year", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: examplePlanStatement})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(model.Sent(pipeline.StepJudge)); n != 2 {
		t.Fatalf("judge calls: %d, want 2 (before and after the follow-up)", n)
	}
	hop := findHop(res, 1, 2)
	if hop.Reason != HopReasonFollowUp || hop.Status != HopFound || !strings.Contains(hop.Note, "Eiffel Tower completion year") ||
		!slices.Equal(hop.ExcludedDomains, []string{"toureiffel.paris"}) {
		t.Errorf("follow-up hop: %+v", hop)
	}
	if q := searcher.sent()[hop.SearchSeq-1]; !slices.Contains(q.ExcludeDomains, "toureiffel.paris") {
		t.Errorf("the follow-up search excluded %v", q.ExcludeDomains)
	}
	c := res.Claims[0]
	if c.Verdict != pipeline.VerdictSupported || !slices.Equal(c.Citations, []int{1}) {
		t.Errorf("claim: %+v", c)
	}
	if len(res.Evidence) != 2 || res.Evidence[1].URL != later.URL || res.Evidence[1].HopNumber != 2 {
		t.Errorf("evidence: %+v", res.Evidence)
	}
}

// A claim whose hops all retrieved, as many as max_hops, gets no follow-up: the bound holds.
func TestFollowUpWithinMaxHops(t *testing.T) {
	t.Parallel()
	plan := examplePlan()
	plan.Claims, plan.QueryChains = plan.Claims[:1], plan.QueryChains[:1]
	plan.CrossValidationPairs, plan.CrossValidationQueries, plan.ExecutionOrder = []CrossValidationPair{}, []CrossValidationQuery{}, []string{"c1"}
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "Eiffel Tower completion year", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	searcher := &StubSearcher{rules: []searchRule{
		{contains: "official history", results: []pipeline.SearchResult{hit("https://a.example/1", "A", "The Eiffel Tower was opened for the 1889 exposition.", nil)}},
		{contains: "encyclopedia", results: []pipeline.SearchResult{hit("https://b.example/2", "B", "The Eiffel Tower was finished for the 1889 world fair.", nil)}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: examplePlanStatement, Options: pipeline.Options{MaxHops: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(model.Sent(pipeline.StepJudge)); n != 1 || len(res.Hops) != 2 {
		t.Errorf("judge calls %d, hops %d: want 1 and the 2 planned", n, len(res.Hops))
	}
}

// max_hops bounds the hops that retrieve (spec 004): a planned hop whose exclusions left it
// nothing but what the chain already held retrieved nothing, and the follow-up may run in its
// place. In a relay run on FEVEROUS-S (one publisher) "Rugby teams from the United Kingdom
// participated in the 1955 Five Nations Championship" spent hops 2 and 3 finding the page hop 1
// had, and the judge's query for what that page left out never ran.
func TestFollowUpInPlaceOfAnEmptiedHop(t *testing.T) {
	t.Parallel()
	const (
		claim = "Teams from the Kingdom of Westmoor played in the 1955 Ostmoor Cup"
		asked = "Harlow Denby Kingdom of Westmoor"
	)
	cupHit := hit("https://en.wikipedia.org/wiki/1955_Ostmoor_Cup", "Wikipedia", "The 1955 Ostmoor Cup was contested by Harlow and Denby.", nil)
	kingdomHit := hit("https://en.wikipedia.org/wiki/Kingdom_of_Westmoor", "Wikipedia", "Harlow and Denby are the two provinces of the Kingdom of Westmoor.", nil)
	plan := oneClaimPlan(claim, "1955 Ostmoor Cup", "1955 Ostmoor Cup teams")
	plan.QueryChains[0].Hops = append(plan.QueryChains[0].Hops,
		PlanHop{2, "1955 Ostmoor Cup results", "news", "results"}, PlanHop{3, "1955 Ostmoor Cup match reports", "archive", "match reports"})
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: kingdomHit.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "contested by Harlow and Denby", sup}, judgeCitation{2, "the two provinces of the Kingdom of Westmoor", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", asked, nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "1955 Ostmoor Cup", results: []pipeline.SearchResult{cupHit}},
		{contains: asked, results: []pipeline.SearchResult{kingdomHit, cupHit}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: claim + "."})
	if err != nil {
		t.Fatal(err)
	}
	for n := 2; n <= 3; n++ {
		if h := findHop(res, 1, n); h.Status != HopNoIndependentSource {
			t.Errorf("planned hop %d: %+v, want it emptied by its exclusions", n, h)
		}
	}
	if len(res.Hops) != 4 {
		t.Fatalf("hops: %+v, want the 3 planned and a follow-up", res.Hops)
	}
	if h := findHop(res, 1, 4); h.Reason != HopReasonFollowUp || h.Query != asked {
		t.Errorf("follow-up hop: %+v", h)
	}
	if n := len(model.Sent(pipeline.StepJudge)); n != 2 {
		t.Errorf("judge calls: %d, want 2 (before and after the follow-up)", n)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported || c.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim: %+v", c)
	}
}

const peschkeStatement = "Květa Peschke is older than John Newcombe."

var (
	srcPeschke  = hit("https://en.wikipedia.org/wiki/Kveta_Peschke", "Wikipedia", "Květa Peschke (born 9 July 1975) is a Czech former professional tennis player.", nil)
	srcNewcombe = hit("https://en.wikipedia.org/wiki/John_Newcombe", "Wikipedia", "John Newcombe (born 23 May 1944) is an Australian former professional tennis player.", nil)
)

// peschkePlan checks one comparison, "Květa Peschke is older than John Newcombe", in two hops
// that seek a birth date each.
func peschkePlan() Plan {
	return Plan{
		PlanID: "peschke",
		Claims: []PlanClaim{{ClaimID: "c1", ClaimText: "Květa Peschke is older than John Newcombe", SourceSpan: "Květa Peschke is older than John Newcombe",
			Entities: []string{"Květa Peschke", "John Newcombe"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
			SubQueries: []string{"Květa Peschke date of birth"}, SourceIndependenceScore: 1}},
		QueryChains: []QueryChain{{ClaimID: "c1", Hops: []PlanHop{
			{1, "Květa Peschke tennis born", "encyclopedia", "date of birth"},
			{2, "John Newcombe tennis born", "encyclopedia", "date of birth"},
		}}},
		CrossValidationPairs: []CrossValidationPair{}, CrossValidationQueries: []CrossValidationQuery{}, ExecutionOrder: []string{"c1"},
	}
}

// Independence decides confidence, not visibility: hop 2 seeks a different fact (Newcombe's
// birth) and its exclusions (hop 1's domain) empty it; what the same search finds without them
// reaches the judge marked as not independent of hop 1, and the two count as one voice.
func TestSameDomainFactReachesTheJudge(t *testing.T) {
	t.Parallel()
	plan := peschkePlan()
	ref := evidence.StanceRefutes
	model := planModel(t, plan, map[string]string{
		plan.Claims[0].ClaimText: judgeReplyJSON(t, "refuted", "High", "", nil,
			judgeCitation{1, "born 9 July 1975", ref}, judgeCitation{2, "born 23 May 1944", ref}),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Peschke", results: []pipeline.SearchResult{srcPeschke}},
		{contains: "Newcombe", results: []pipeline.SearchResult{srcNewcombe}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: peschkeStatement})
	if err != nil {
		t.Fatal(err)
	}
	hop := findHop(res, 1, 2)
	if hop.Status != HopNoIndependentSource || !slices.Equal(hop.ExcludedDomains, []string{"wikipedia.org"}) || !strings.Contains(hop.Note, "not independent") {
		t.Errorf("hop 2 (its exclusions still recorded): %+v", hop)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) != 1 || !strings.Contains(judged[0], srcNewcombe.Snippet) || !strings.Contains(judged[0], `relation="not independent of source 1"`) {
		t.Fatalf("the judge did not get Newcombe's page marked:\n%s", judged)
	}
	c := res.Claims[0]
	if c.Verdict != pipeline.VerdictRefuted || c.Confidence != pipeline.ConfidenceMedium || !slices.Equal(c.Citations, []int{1, 2}) {
		t.Errorf("claim: %+v (two pages of one domain are one voice: at most Medium)", c)
	}
	if !slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool { return f.Code == pipeline.FlagSingleSource }) ||
		!slices.Contains(res.ReviewFlags, pipeline.Flag(pipeline.FlagNoIndependentSource)) {
		t.Errorf("review flags: %v", res.ReviewFlags)
	}
	if len(res.Evidence) != 2 || res.Evidence[1].NotIndependentOfHop != 1 || res.Evidence[1].SourceNumber != 2 {
		t.Errorf("evidence: %+v", res.Evidence)
	}
}

// A comparison gets one claim per fact compared plus the comparison, which depends on them and
// is judged from their findings, even when its own hop finds nothing.
func TestComparisonJudgedFromTheFactsFindings(t *testing.T) {
	t.Parallel()
	plan := Plan{
		PlanID: "peschke-newcombe",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "Květa Peschke was born on a known date", SourceSpan: "Květa Peschke", Entities: []string{"Květa Peschke"},
				Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Květa Peschke date of birth"}, SourceIndependenceScore: 1},
			{ClaimID: "c2", ClaimText: "John Newcombe was born on a known date", SourceSpan: "John Newcombe", Entities: []string{"John Newcombe"},
				Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"John Newcombe date of birth"}, SourceIndependenceScore: 1},
			{ClaimID: "c3", ClaimText: "Květa Peschke is older than John Newcombe", SourceSpan: "Květa Peschke is older than John Newcombe",
				Entities: []string{"Květa Peschke", "John Newcombe"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1", "c2"},
				SubQueries: []string{"Peschke Newcombe age difference"}, SourceIndependenceScore: 0.2},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Květa Peschke tennis player born", "encyclopedia", "date of birth"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "John Newcombe tennis player born", "encyclopedia", "date of birth"}}},
			{ClaimID: "c3", Hops: []PlanHop{{1, "oldest Czech Australian doubles champions ages compared", "sports statistics", "ages"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c3", "the birth date is compared"}, {"c2", "c3", "the birth date is compared"}},
		CrossValidationQueries: []CrossValidationQuery{{"Grand Slam doubles champions list birth years", []int{0, 1, 2}}},
		ExecutionOrder:         []string{"c1", "c2", "c3"},
	}
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	model := planModel(t, plan, map[string]string{
		"Květa Peschke was born on a known date": judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "born 9 July 1975", sup}),
		"John Newcombe was born on a known date": judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "born 23 May 1944", sup}),
		"Květa Peschke is older than John Newcombe": judgeReplyJSON(t, "refuted", "High", "", nil,
			judgeCitation{1, "born 9 July 1975", ref}, judgeCitation{2, "born 23 May 1944", ref}),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Peschke tennis", results: []pipeline.SearchResult{srcPeschke}},
		{contains: "Newcombe tennis", results: []pipeline.SearchResult{srcNewcombe}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: peschkeStatement})
	if err != nil {
		t.Fatal(err)
	}
	c3 := res.Claims[2]
	if c3.Verdict != pipeline.VerdictRefuted || c3.Confidence != pipeline.ConfidenceMedium ||
		!slices.Equal(c3.Citations, []int{res.Claims[0].Citations[0], res.Claims[1].Citations[0]}) {
		t.Errorf("the comparison: %+v (claims: %+v)", c3, res.Claims[:2])
	}
	var judgedC3 string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\nKvěta Peschke is older") {
			judgedC3 = p
		}
	}
	for _, want := range []string{srcPeschke.Snippet, srcNewcombe.Snippet, relationEstablished} {
		if !strings.Contains(judgedC3, want) {
			t.Errorf("the comparison's judge prompt lacks %q:\n%s", want, judgedC3)
		}
	}
	if strings.Contains(judgedC3, "born on a known date") {
		t.Errorf("the comparison's judge saw another claim's text:\n%s", judgedC3)
	}
}

// A placeholder must name another verifiable claim of the plan; the wording rules read the
// claim without it. The placeholder declares the dependency: a claim that writes "{c1}" depends
// on c1 whether or not its depends_on lists it (a real model left it out in 5 of 12 plan
// repairs, each a second plan call of some 5,000 tokens), and the validated plan lists it.
func TestBridgePlaceholdersAreValidated(t *testing.T) {
	t.Parallel()
	if _, v := ValidatePlan(planJSON(t, slipknotPlan()), PlanContext{Statement: slipknotStatement}); len(v) != 0 {
		t.Fatalf("the bridged plan breaks %v", v)
	}
	plan := slipknotPlan()
	plan.Claims[1].DependsOn = []string{}
	vp, v := ValidatePlan(planJSON(t, plan), PlanContext{Statement: slipknotStatement})
	if len(v) != 0 {
		t.Fatalf("a placeholder whose claim depends_on does not list breaks %v", v)
	}
	if got := vp.Plan.Claims[1].DependsOn; !slices.Equal(got, []string{"c1"}) {
		t.Errorf("the validated plan's c2 depends on %v, want [c1] from its placeholder", got)
	}
	if !strings.Contains(string(vp.JSON), `"depends_on":["c1"]`) {
		t.Errorf("the stored plan does not list the dependency: %s", vp.JSON)
	}
	plan = slipknotPlan()
	plan.Claims[1].ClaimText = "{c3} played Slipknot in Suicide Squad"
	_, v = ValidatePlan(planJSON(t, plan), PlanContext{Statement: slipknotStatement})
	if !slices.ContainsFunc(v, func(p PlanViolation) bool { return p.Rule == RuleBridgeDeclared && strings.Contains(p.Message, "{c3}") }) {
		t.Errorf("violations: %v", v)
	}
}

// A reading's query may carry the bridge too (seen with a real model: the plan was refused
// because the interpretation's "{c1}" query did not match its hop, whose placeholder the
// wording rules had stripped); and a reading's placeholder must name a dependency like any other.
func TestBridgeInAnInterpretationQuery(t *testing.T) {
	t.Parallel()
	plan := slipknotPlan()
	c2 := &plan.Claims[1]
	c2.AmbiguityNote = "Suicide Squad names a 2016 film and a 2021 film"
	c2.Interpretations = []Interpretation{
		{Reading: "the 2016 film", Query: "{c1} Slipknot Suicide Squad 2016 cast"},
		{Reading: "the 2021 film", Query: "{c1} Slipknot The Suicide Squad 2021 cast"},
	}
	plan.QueryChains[1].Hops = []PlanHop{
		{1, "{c1} Slipknot Suicide Squad 2016 cast", "film database", "cast member"},
		{2, "{c1} Slipknot The Suicide Squad 2021 cast", "encyclopedia", "cast member"},
	}
	if _, v := ValidatePlan(planJSON(t, plan), PlanContext{Statement: slipknotStatement}); len(v) != 0 {
		t.Fatalf("the bridged readings break %v", v)
	}
	plan.Claims[1].Interpretations[1].Query = "{c3} Slipknot The Suicide Squad 2021 cast"
	plan.QueryChains[1].Hops[1].Query = "{c3} Slipknot The Suicide Squad 2021 cast"
	_, v := ValidatePlan(planJSON(t, plan), PlanContext{Statement: slipknotStatement})
	if !slices.ContainsFunc(v, func(p PlanViolation) bool { return p.Rule == RuleBridgeDeclared && strings.Contains(p.Message, "{c3}") }) {
		t.Errorf("an undeclared placeholder in a reading passed: %v", v)
	}
}

// When a judge confirms the claim a bridge stands on but names no entity (seen with a real
// model on EX-FEVER: no source names the album in so many words), the dependent claim is
// stated with the statement's own words for the entity, the span of the claim it builds on,
// and searched without the placeholder; its judge gets that claim's cited sources, so it can
// join the two facts itself. No name of the model's enters the claim.
func TestUnnamedBridgeStatesTheClaimWithTheStatementsWords(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	const described = "The actor who played Detective Chester Lake played Slipknot in Suicide Squad"
	model := planModel(t, slipknotPlan(), map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
			&judgeAnswer{Value: "", Source: 0, Passage: ""},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
		described: judgeReplyJSON(t, "supported", "High", "", nil,
			judgeCitation{1, "Adam Beach plays Slipknot", sup},
			judgeCitation{2, "Adam Beach played Detective Chester Lake", sup}),
	})
	searcher := slipknotSearcher()
	searcher.rules = append(searcher.rules, searchRule{contains: "Slipknot Suicide Squad cast", results: []pipeline.SearchResult{srcSlipknot}})
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	hop := findHop(res, 2, 1)
	if hop.Query != "Slipknot Suicide Squad cast" || hop.Status != HopFound || !strings.Contains(hop.Note, "{c1} was not established") {
		t.Errorf("hop 1 of c2: %+v", hop)
	}
	c2 := res.Claims[1]
	if c2.Text != described || c2.Verdict != pipeline.VerdictSupported || !slices.Equal(c2.Citations, []int{2, 1}) {
		t.Errorf("claim 2: %+v", c2)
	}
}

// A placeholder stands for a name the query will hold, so the near-duplicate rule counts it as
// a term (seen with a real model: "Kristen Bell Broadway credits revival cast" and "{c2}
// Broadway revival cast Kristen Bell" were refused at 83% overlap, counted without "{c2}").
func TestPlaceholderCountsAsAQueryTerm(t *testing.T) {
	t.Parallel()
	plan := slipknotPlan()
	plan.Claims[1].SubQueries = []string{"Slipknot Suicide Squad film cast credits", "{c1} Slipknot Suicide Squad film cast"}
	if _, v := ValidatePlan(planJSON(t, plan), PlanContext{Statement: slipknotStatement}); len(v) != 0 {
		t.Fatalf("violations: %v", v)
	}
	plan.Claims[1].SubQueries = []string{"{c1} Slipknot Suicide Squad film cast", "{c1} Suicide Squad Slipknot film cast"}
	_, v := ValidatePlan(planJSON(t, plan), PlanContext{Statement: slipknotStatement})
	if !slices.ContainsFunc(v, func(p PlanViolation) bool { return p.Rule == RuleQueriesDistinct }) {
		t.Errorf("two queries alike but for their order passed: %v", v)
	}
}

// Two claims that differ only in their placeholders are about two entities (seen with a real
// model: "{c4} is American" for the actress and "{c8} is American" for the director were refused
// as the same claim_text "is American").
func TestClaimsDifferingInTheirBridgesAreDistinct(t *testing.T) {
	t.Parallel()
	const statement = "The actor who played Detective Chester Lake and the director of Suicide Squad are Canadian."
	plan := Plan{
		PlanID: "two-bridges",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "An actor played Detective Chester Lake", SourceSpan: "The actor who played Detective Chester Lake",
				Entities: []string{"Detective Chester Lake"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Detective Chester Lake actor"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "A director directed Suicide Squad", SourceSpan: "the director of Suicide Squad",
				Entities: []string{"Suicide Squad"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Suicide Squad director"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c3", ClaimText: "{c1} is Canadian", SourceSpan: "are Canadian", Entities: []string{}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{"c1"}, SubQueries: []string{"{c1} nationality"}, SourceIndependenceScore: 0.5},
			{ClaimID: "c4", ClaimText: "{c2} is Canadian", SourceSpan: "are Canadian", Entities: []string{}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{"c2"}, SubQueries: []string{"{c2} birthplace"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Detective Chester Lake Law Order actor", "encyclopedia", "cast member"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Suicide Squad 2016 film director", "encyclopedia", "director"}}},
			{ClaimID: "c3", Hops: []PlanHop{{1, "{c1} nationality born", "encyclopedia", "biography"}}},
			{ClaimID: "c4", Hops: []PlanHop{{1, "{c2} birthplace early life", "news report", "biography"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{},
		CrossValidationQueries: []CrossValidationQuery{},
		ExecutionOrder:         []string{"c1", "c2", "c3", "c4"},
	}
	_, v := ValidatePlan(planJSON(t, plan), PlanContext{Statement: statement})
	if slices.ContainsFunc(v, func(p PlanViolation) bool { return p.Rule == RuleClaimTextUnique }) {
		t.Errorf("violations: %v", v)
	}
	plan.Claims[3].ClaimText = "{c1} is Canadian"
	plan.Claims[3].DependsOn = []string{"c1"}
	plan.Claims[3].SubQueries = []string{"{c1} birthplace"}
	plan.QueryChains[3].Hops[0].Query = "{c1} birthplace early life"
	_, v = ValidatePlan(planJSON(t, plan), PlanContext{Statement: statement})
	if !slices.ContainsFunc(v, func(p PlanViolation) bool { return p.Rule == RuleClaimTextUnique }) {
		t.Errorf("the same claim twice passed: %v", v)
	}
}

const teslaStatement = "The Tesla Model S is produced by Tesla, Inc., an American company."

var (
	srcModelS = hit("https://en.wikipedia.org/wiki/Tesla_Model_S", "Wikipedia", "The Tesla Model S is a battery electric car produced by Tesla, Inc. since 2012.", nil)
	srcTesla  = hit("https://www.britannica.com/topic/Tesla-Motors", "Britannica", "Tesla, Inc. is an American multinational automotive and clean energy company.", nil)
	srcMotor  = hit("https://www.motortrend.com/cars/tesla/model-s", "MotorTrend", "MotorTrend is an American automobile magazine that reviewed the Model S.", nil)
)

// The facts of one statement are often found by another claim's searches: a real model's run
// judged "Tesla, Inc. is American" unverified on the one source its own hop kept while the
// Model S chain had retrieved the page that says so. A claim's judge is also given what the
// other claims' hops kept that is about its own claim (the hop relevance test), marked, at most
// maxSharedSources; it never gets another claim's text.
func TestJudgeGetsTheStatementsOtherFindingsAboutItsClaim(t *testing.T) {
	t.Parallel()
	plan := Plan{
		PlanID: "tesla",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "The Tesla Model S is produced by Tesla, Inc.", SourceSpan: "The Tesla Model S is produced by Tesla, Inc.",
				Entities: []string{"Tesla Model S", "Tesla, Inc."}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Tesla Model S manufacturer"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "Tesla, Inc. is an American company", SourceSpan: "Tesla, Inc., an American company",
				Entities: []string{"Tesla, Inc."}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Tesla Inc headquarters country"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{
				{1, "Tesla Model S electric car manufacturer", "encyclopedia", "manufacturer"},
				{2, "Tesla company automotive clean energy", "encyclopedia", "company profile"},
			}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Tesla Inc nationality headquarters", "news report", "company profile"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the maker's country"}},
		CrossValidationQueries: []CrossValidationQuery{{"electric sedan maker origin country", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
	sup := evidence.StanceSupports
	model := planModel(t, plan, map[string]string{
		"The Tesla Model S is produced by Tesla, Inc.": judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "produced by Tesla, Inc.", sup}),
		"Tesla, Inc. is an American company": judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "Tesla, Inc. is an American multinational automotive and clean energy company", sup}),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Model S electric car", results: []pipeline.SearchResult{srcModelS}},
		{contains: "automotive clean energy", results: []pipeline.SearchResult{srcTesla}},
		{contains: "nationality headquarters", results: []pipeline.SearchResult{srcMotor}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: teslaStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c2 := res.Claims[1]; c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	var judgedC2 string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\nTesla, Inc. is an American company") {
			judgedC2 = p
		}
	}
	// Its own hop found only the magazine's page, which the relevance test does not keep.
	for _, want := range []string{srcTesla.Snippet, relationShared} {
		if !strings.Contains(judgedC2, want) {
			t.Errorf("claim 2's judge prompt lacks %q:\n%s", want, judgedC2)
		}
	}
	if strings.Contains(judgedC2, "produced by Tesla, Inc.\n</untrusted_claim>") {
		t.Errorf("claim 2's judge saw another claim's text:\n%s", judgedC2)
	}
	var shared []pipeline.Evidence
	for _, e := range res.Evidence {
		if e.ClaimPosition == 2 && e.FromClaimPosition == 1 {
			shared = append(shared, e)
		}
	}
	if len(shared) == 0 || !slices.ContainsFunc(shared, func(e pipeline.Evidence) bool { return e.URL == srcTesla.URL && e.Quote != "" }) {
		t.Errorf("claim 1's finding stored for claim 2: %+v", shared)
	}
}

const makerStatement = "The Tesla Model S is a battery-powered liftback car produced by an American automotive and clean energy company."

var (
	srcModelSPage = hit("https://en.wikipedia.org/wiki/Tesla_Model_S", "Wikipedia", "The Tesla Model S is a battery-powered liftback car produced by Tesla, Inc.", nil)
	srcTeslaPage  = hit("https://en.wikipedia.org/wiki/Tesla,_Inc.", "Wikipedia", "Tesla, Inc. is an American automotive and clean energy company based in Austin, Texas.", nil)
	srcMuskPage   = hit("https://en.wikipedia.org/wiki/Elon_Musk", "Wikipedia", "Elon Musk is a businessman who leads an automotive and clean energy company.", nil)
)

// makerPlan is one claim whose entity is the car; what it says of the maker is on the maker's
// page, which names no entity of the claim.
func makerPlan() Plan {
	return Plan{
		PlanID: "tesla",
		Claims: []PlanClaim{{ClaimID: "c1", ClaimText: "An automotive and clean energy company produces the Tesla Model S",
			SourceSpan: "produced by an American automotive and clean energy company", Entities: []string{"Tesla Model S"}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Tesla Model S manufacturer"}, SourceIndependenceScore: 1}},
		QueryChains:          []QueryChain{{ClaimID: "c1", Hops: []PlanHop{{1, "Tesla Model S produced by company", "encyclopedia", "maker"}}}},
		CrossValidationPairs: []CrossValidationPair{}, CrossValidationQueries: []CrossValidationQuery{}, ExecutionOrder: []string{"c1"},
	}
}

// The judge names what its sources lack, by the name a source gives ("Tesla, Inc."): the
// follow-up search finds that entity's page, which names none of the claim's entities, and it is
// about the claim all the same: it reaches the judge (marked, for it shares the domain of hop 1),
// and the claim is supported from the two pages. A real model's run left this claim unverified:
// the follow-up kept nothing, for the page "was not about the claim".
func TestFollowUpFindsTheEntityTheJudgeNamed(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: srcTeslaPage.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "produced by Tesla, Inc.", sup}, judgeCitation{2, "Tesla, Inc. is an American automotive and clean energy company", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "partly_supported", "Medium", "Tesla, Inc. automotive and clean energy company", nil,
			judgeCitation{1, "produced by Tesla, Inc.", sup})},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, makerPlan())},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "produced by company", results: []pipeline.SearchResult{srcModelSPage}},
		{contains: "Tesla, Inc.", results: []pipeline.SearchResult{srcTeslaPage, srcModelSPage}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: makerStatement})
	if err != nil {
		t.Fatal(err)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) != 2 || !strings.Contains(judged[1], srcTeslaPage.Snippet) {
		t.Fatalf("judge calls %d; the second did not get the page of the entity the judge named", len(judged))
	}
	hop := findHop(res, 1, 2)
	if hop.Reason != HopReasonFollowUp || hop.Status != HopNoIndependentSource || !strings.Contains(hop.Note, "not independent") {
		t.Errorf("follow-up hop: %+v", hop)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported || c.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim: %+v", c)
	}
}

// A name the judge asks for that no source it was given holds (one from its memory, or one a
// hostile page planted in its reply) anchors nothing: the follow-up still runs, but a page about
// that name alone is not about the claim, and is neither kept nor judged.
func TestFollowUpNameNoSourceHoldsAnchorsNothing(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "partly_supported", "Medium", "Elon Musk automotive and clean energy company", nil,
			judgeCitation{1, "produced by Tesla, Inc.", evidence.StanceSupports})},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, makerPlan())},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "produced by company", results: []pipeline.SearchResult{srcModelSPage}},
		{contains: "Elon Musk", results: []pipeline.SearchResult{srcMuskPage}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: makerStatement})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(model.Sent(pipeline.StepJudge)); n != 1 {
		t.Errorf("judge calls %d, want 1: the follow-up kept nothing", n)
	}
	for _, e := range res.Evidence {
		if e.URL == srcMuskPage.URL {
			t.Errorf("a page about a name no source holds was kept: %+v", e)
		}
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictUnverified {
		t.Errorf("claim: %+v", c)
	}
}

const industryStatement = "Ostmark Werke focuses on the world's smallest industry by revenue."

// withTitle is r with the title its page has (hit's titles are its URL's).
func withTitle(r pipeline.SearchResult, title string) pipeline.SearchResult {
	r.Title = title
	return r
}

var (
	srcOstmarkPage      = withTitle(hit("https://en.wikipedia.org/wiki/Ostmark_Werke", "Wikipedia", "Ostmark Werke is headquartered in Kiel, a subsidiary of the German manufacturer Ostmark Group that focuses on shipbuilding.", nil), "Ostmark Werke")
	srcShipbuildingPage = withTitle(hit("https://en.wikipedia.org/wiki/Shipbuilding", "Wikipedia", "Shipbuilding is the world's largest by revenue, an industry that comprises a wide range of companies.", nil), "Shipbuilding")
	srcTanningPage      = withTitle(hit("https://en.wikipedia.org/wiki/Tanning", "Wikipedia", "Tanning is the world's largest by revenue, an industry of leather.", nil), "Tanning")
)

// industryPlan is one claim about a company's industry that the company's page names
// ("shipbuilding") and the claim does not: what the claim says of the industry is on the
// industry's own page, which names nothing of the claim but its words.
func industryPlan() Plan {
	return Plan{
		PlanID: "industry",
		Claims: []PlanClaim{{ClaimID: "c1", ClaimText: "Ostmark Werke focuses on the world's smallest industry by revenue",
			SourceSpan: "Ostmark Werke focuses on the world's smallest industry by revenue", Entities: []string{"Ostmark Werke"}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Ostmark Werke industry"}, SourceIndependenceScore: 1}},
		QueryChains:          []QueryChain{{ClaimID: "c1", Hops: []PlanHop{{1, "Ostmark Werke business focus", "encyclopedia", "industry"}}}},
		CrossValidationPairs: []CrossValidationPair{}, CrossValidationQueries: []CrossValidationQuery{}, ExecutionOrder: []string{"c1"},
	}
}

// The judge asks for what its source names in lower case ("focuses on shipbuilding"), a kind of
// thing and no name: the follow-up's page titled with it is the page of what the judge asked
// for, though it names nothing of the claim, and it reaches the judge. In a relay run (EX-FEVER,
// exfever-5953) "BYD Company focuses on the world's smallest industries by revenue" stayed
// unverified: its follow-up "automotive industry size by revenue world ranking BYD Company" had
// the page titled "Automotive" first, and kept nothing of it, for it names nothing of the claim.
func TestFollowUpKeepsThePageTitledWithWhatTheJudgeAskedForThatASourceNames(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: srcShipbuildingPage.Snippet, Reply: judgeReplyJSON(t, "refuted", "Medium", "", nil,
			judgeCitation{1, "focuses on shipbuilding", evidence.StanceRefutes}, judgeCitation{2, "Shipbuilding is the world's largest by revenue", evidence.StanceRefutes})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "shipbuilding industry size by revenue world ranking Ostmark Werke", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, industryPlan())},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "business focus", results: []pipeline.SearchResult{srcOstmarkPage}},
		{contains: "shipbuilding industry", results: []pipeline.SearchResult{srcShipbuildingPage, srcOstmarkPage}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: industryStatement})
	if err != nil {
		t.Fatal(err)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) != 2 || !strings.Contains(judged[1], srcShipbuildingPage.Snippet) {
		t.Fatalf("judge calls %d; the second did not get the page titled with what the judge asked for; hops %+v", len(judged), res.Hops)
	}
	if hop := findHop(res, 1, 2); hop.Reason != HopReasonFollowUp {
		t.Errorf("follow-up hop: %+v", hop)
	}
	if !slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.URL == srcShipbuildingPage.URL && e.HopNumber == 2 }) {
		t.Errorf("the industry's page is not stored as the follow-up's evidence: %+v", res.Evidence)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictRefuted {
		t.Errorf("claim: %+v", c)
	}
}

// What a follow-up asks for makes no page relevant by its title when no source the judge was
// given writes it ("tanning", from its memory or a hostile page), when it is one of the claim's
// own words ("industry"), or when a source writes it with a capital, as a word of a name ("Ostmark
// Group"): the page titled with that word alone ("Group (mathematics)") is another thing's. In a
// relay run (EX-FEVER, exfever-6095, replayed) "Ervin Drake" in a follow-up query had kept the
// page "Drake (entertainer)".
func TestFollowUpTitleOfNoKindASourceNamesAnchorsNothing(t *testing.T) {
	t.Parallel()
	srcGroupMaths := withTitle(hit("https://en.wikipedia.org/wiki/Group_(mathematics)", "Wikipedia", "In mathematics, a group is a set with an operation that associates an element of the set to every pair of elements.", nil), "Group (mathematics)")
	for _, tt := range []struct {
		name, missing string
		results       []pipeline.SearchResult
	}{
		{"a word no source writes, or the claim's own", "tanning industry size by revenue world ranking Ostmark Werke", []pipeline.SearchResult{srcTanningPage, withTitle(srcTanningPage, "Industry")}},
		{"a word of a name", "Ostmark Group revenue ranking", []pipeline.SearchResult{srcGroupMaths}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
				{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", tt.missing, nil)},
				{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, industryPlan())},
			}}
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "business focus", results: []pipeline.SearchResult{srcOstmarkPage}},
				{contains: tt.missing, results: tt.results},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: industryStatement})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(model.Sent(pipeline.StepJudge)); n != 1 {
				t.Errorf("judge calls %d, want 1: the follow-up kept nothing", n)
			}
			for _, e := range res.Evidence {
				if e.HopNumber == 2 {
					t.Errorf("the follow-up kept a page titled with a word no source names as a kind: %+v", e)
				}
			}
		})
	}
}

const mallratsStatement = "Ben Affleck appeared in Mallrats, which stars an Irish actor and podcaster."

var (
	srcMallrats = hit("https://en.wikipedia.org/wiki/Mallrats", "Wikipedia", "Mallrats is a 1995 buddy comedy film starring Jason Mewes and Ben Affleck.", nil)
	srcMewes    = hit("https://en.wikipedia.org/wiki/Jason_Mewes", "Wikipedia", "Jason Edward Mewes is an American actor, comedian and podcaster.", nil)
)

// mallratsPlan: c2 describes an actor of the film c1 establishes; its own hop finds nothing.
func mallratsPlan() Plan {
	return Plan{
		PlanID: "mallrats",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "Ben Affleck appeared in Mallrats", SourceSpan: "Ben Affleck appeared in Mallrats",
				Entities: []string{"Ben Affleck", "Mallrats"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Mallrats cast"}, SourceIndependenceScore: 1},
			{ClaimID: "c2", ClaimText: "Mallrats stars an Irish actor and podcaster", SourceSpan: "Mallrats, which stars an Irish actor and podcaster",
				Entities: []string{"Mallrats"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"Mallrats Irish actor podcaster"}, SourceIndependenceScore: 1},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Mallrats cast Ben Affleck", "encyclopedia", "cast"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Mallrats Irish actor podcaster", "encyclopedia", "cast"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same film"}},
		CrossValidationQueries: []CrossValidationQuery{{"nineties buddy comedy film cast podcaster", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// A follow-up hop keeps the rules of a planned hop: it excludes the sources of its own chain's
// hops, not those its judge was given from the claims it depends on. A real model's judge asked
// for "Jason Mewes nationality" after its own hops found nothing; the film's page (a
// dependency's finding) had put Wikipedia out of the follow-up's reach, so the actor's page never
// reached it, in a corpus of one publisher. The documents the claim already holds stay excluded:
// finding them again adds nothing.
func TestFollowUpExcludesItsChainsSourcesNotItsDependencies(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: srcMewes.Snippet, Reply: judgeReplyJSON(t, "refuted", "Medium", "", nil,
			judgeCitation{2, "Jason Edward Mewes is an American actor", ref})},
		{Contains: "<untrusted_claim>\nBen Affleck appeared in Mallrats", Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "starring Jason Mewes and Ben Affleck", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "Jason Mewes nationality actor podcaster", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, mallratsPlan())},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Mallrats cast", results: []pipeline.SearchResult{srcMallrats}},
		{contains: "Jason Mewes", results: []pipeline.SearchResult{srcMallrats, srcMewes}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: mallratsStatement})
	if err != nil {
		t.Fatal(err)
	}
	hop := findHop(res, 2, 2)
	if hop.Reason != HopReasonFollowUp || hop.Status != HopFound {
		t.Fatalf("follow-up hop: %+v", hop)
	}
	if len(hop.ExcludedDomains)+len(hop.ExcludedPublishers) > 0 || !slices.Contains(hop.ExcludedURLs, evidence.KeysOf(srcMallrats).URL) {
		t.Errorf("follow-up exclusions: domains %v, URLs %v; want the held document's URL and no domain or publisher of a dependency", hop.ExcludedDomains, hop.ExcludedURLs)
	}
	judged := model.Sent(pipeline.StepJudge)
	last := judged[len(judged)-1]
	if !strings.Contains(last, srcMewes.Snippet) || strings.Count(last, srcMallrats.Snippet) != 1 {
		t.Fatalf("the last judge prompt should hold the actor's page once and the film's once:\n%s", last)
	}
	if c := res.Claims[1]; c.Verdict != pipeline.VerdictRefuted || c.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim 2: %+v", c)
	}
}

// A bridged claim's own hops find the page of the entity its bridge names. Real plans list the
// placeholder among a claim's entities ("{c1} is Canadian": entities ["{c1}"]); the placeholder
// stayed in the hop's topic as the anchor "c1", which no page holds, so every hop of every
// bridged claim of a real model's run kept nothing ("10 results were not about the claim",
// Sidney Lumet's page for "Sidney Lumet is American").
func TestBridgedClaimsHopsFindTheNamedEntitysPage(t *testing.T) {
	t.Parallel()
	srcBeachBio := hit("https://www.britannica.com/biography/Adam-Beach", "Britannica", "Adam Beach, Canadian actor born in Ashern, Manitoba.", nil)
	plan := slipknotPlan()
	plan.Claims[1] = PlanClaim{ClaimID: "c2", ClaimText: "{c1} is Canadian", SourceSpan: "is Canadian",
		Entities: []string{"{c1}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
		SubQueries: []string{"{c1} nationality"}, SourceIndependenceScore: 0.5}
	plan.QueryChains[1] = QueryChain{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} nationality biography", "encyclopedia", "nationality"}}}
	sup := evidence.StanceSupports
	model := planModel(t, plan, map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
			&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
		"Adam Beach is Canadian": judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, Canadian actor", sup}),
	})
	searcher := slipknotSearcher()
	searcher.rules = append(searcher.rules, searchRule{contains: "Adam Beach nationality", results: []pipeline.SearchResult{srcBeachBio}})
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: "The actor who played Detective Chester Lake is Canadian."})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 2, 1); hop.Query != "Adam Beach nationality biography" || hop.Status != HopFound {
		t.Errorf("hop 1 of c2 kept nothing of the named entity's page: %+v", hop)
	}
	if c2 := res.Claims[1]; c2.Text != "Adam Beach is Canadian" || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
}

// A claim stated with a bridge's name is about the named entity, whatever entities its plan
// listed: a real plan gave "{c1} appears in Asia comic books" the entities ["Asia"], the false
// value, so its hops, searching with the name "Joker", kept nothing of the page that says the
// Joker appears in American comic books, and the false statement stayed unverified. The name is
// listed among the claim's entities, stored so, and anchors what its hops keep. A claim planned
// with no entity keeps none: with no anchor, its hops keep a result that shares two of its words
// (the named entity's page among them), and an anchor would narrow that (in a relay run, "{c2}
// stars an American actor" then lost the cast member's page that says "American actor").
func TestBridgeNameIsAnEntityOfTheClaimStatedWithIt(t *testing.T) {
	t.Parallel()
	const stated = "Adam Beach played Slipknot in a Danish film"
	for _, tc := range []struct{ planned, want []string }{
		{[]string{"Danish"}, []string{"Danish", "Adam Beach"}},
		{[]string{}, []string{}},
	} {
		plan := slipknotPlan()
		plan.Claims[1].ClaimText = "{c1} played Slipknot in a Danish film"
		plan.Claims[1].SourceSpan = "played Slipknot in a Danish film"
		plan.Claims[1].Entities = tc.planned
		plan.QueryChains[1] = QueryChain{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} Slipknot Danish film cast", "film database", "cast member"}}}
		sup, ref := evidence.StanceSupports, evidence.StanceRefutes
		model := planModel(t, plan, map[string]string{
			"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
				&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
				judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
			stated: judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "Suicide Squad (2016), written and directed by David Ayer", ref}),
		})
		res, err := Multihop{Model: model, Searcher: slipknotSearcher()}.Run(context.Background(),
			pipeline.Input{Text: "The actor who played Detective Chester Lake played Slipknot in a Danish film."})
		if err != nil {
			t.Fatal(err)
		}
		if hop := findHop(res, 2, 1); hop.Query != "Adam Beach Slipknot Danish film cast" || hop.Status != HopFound {
			t.Errorf("planned entities %q: hop 1 of c2 kept nothing of the page naming the entity: %+v", tc.planned, hop)
		}
		c2 := res.Claims[1]
		if c2.Text != stated || !slices.Equal(c2.Entities, tc.want) || c2.Verdict != pipeline.VerdictRefuted {
			t.Errorf("planned entities %q: claim 2: %+v", tc.planned, c2)
		}
		if !slices.Equal(plan.Claims[1].Entities, tc.planned) {
			t.Errorf("the plan's entities changed: %q", plan.Claims[1].Entities)
		}
	}
}

// The statement's words for an unestablished bridge are not used when the dependent claim
// restates them: a real plan's "{c1}'s solo recording released on August 26, 1997 was released
// on Birdman Records", with c1's span "their guitarist, who released his solo recording on
// August 26, 1997", was stored and judged as "their guitarist, who released his solo recording
// on August 26, 1997's solo recording released on August 26, 1997 was released on Birdman
// Records". The claim is left unresolved instead, as when the statement has no such words.
func TestStatementWordsTheClaimRestatesAreNotUsed(t *testing.T) {
	t.Parallel()
	const statement = "The Red Hot Chili Peppers were co-founded by their guitarist, who released his solo recording on August 26, 1997 on Birdman Records."
	plan := Plan{
		PlanID: "rhcp",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "A guitarist of the Red Hot Chili Peppers released a solo recording on August 26, 1997",
				SourceSpan: "their guitarist, who released his solo recording on August 26, 1997", Entities: []string{"Red Hot Chili Peppers", "August 26, 1997"},
				Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Red Hot Chili Peppers guitarist solo album"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "{c1}'s solo recording released on August 26, 1997 was released on Birdman Records",
				SourceSpan: "on Birdman Records", Entities: []string{"{c1}", "Birdman Records"}, Verifiable: true, Interpretations: []Interpretation{},
				DependsOn: []string{"c1"}, SubQueries: []string{"Birdman Records solo album"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Red Hot Chili Peppers guitarist solo album 1997", "encyclopedia", "release date"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Birdman Records {c1} solo album", "label catalogue", "label"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same recording"}},
		CrossValidationQueries: []CrossValidationQuery{{"Chili Peppers member record label debut solo release", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
	model := planModel(t, plan, map[string]string{
		"A guitarist of the Red Hot Chili Peppers released": judgeReplyJSON(t, "unverified", "Low", "", nil),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "guitarist solo album 1997", results: []pipeline.SearchResult{
			hit("https://en.wikipedia.org/wiki/John_Frusciante", "Wikipedia", "John Frusciante is a guitarist of the Red Hot Chili Peppers.", nil)}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if strings.Contains(c2.Text, "their guitarist") || c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "no words of its own") {
		t.Errorf("claim 2: %+v", c2)
	}
	if h := findHop(res, 2, 1); strings.Contains(h.Query, "{c1}") || strings.Contains(h.Query, "their guitarist") {
		t.Errorf("hop 1 of c2: %+v", h)
	}
}

// The statement's words for an unestablished bridge are used only when they name the entity. A
// real plan's c1 "\"Umbrella\" was originally written by an American singer, songwriter, and
// dancer" spanned "that was originally written by ...", and its dependent claim was judged as
// the fragment "that was originally written by an American singer, songwriter, and dancer was
// referred to as the \"Princess of Pop\"" (two judges of a relay run said the claim "has no
// subject"); another, "{c3} created an American war comedy-drama television series" spanning "a
// creator and producer of an American war ...", gave "a creator and producer of an American war
// comedy-drama television series aired on CBS", a claim about the creator where the series was
// meant. Such a claim cannot be stated, as when the statement has no words for the entity.
func TestStatementWordsThatNameAnotherThingAreNotUsed(t *testing.T) {
	t.Parallel()
	const statement = `"Low Tide" is a song that was originally written by an American singer, songwriter, and dancer who was referred to as the "Queen of Folk".`
	plan := Plan{
		PlanID: "low-tide",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: `"Low Tide" was originally written by an American singer, songwriter, and dancer`,
				SourceSpan: "that was originally written by an American singer, songwriter, and dancer", Entities: []string{"Low Tide"},
				Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Low Tide song original songwriter"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: `{c1} was referred to as the "Queen of Folk"`,
				SourceSpan: `who was referred to as the "Queen of Folk"`, Entities: []string{"{c1}", "Queen of Folk"}, Verifiable: true, Interpretations: []Interpretation{},
				DependsOn: []string{"c1"}, SubQueries: []string{"Queen of Folk nickname singer"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Low Tide song written originally for singer", "encyclopedia", "songwriting history"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} Queen of Folk", "encyclopedia", "nickname"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same singer"}},
		CrossValidationQueries: []CrossValidationQuery{{"folk queen songwriter ballad hit", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
	model := planModel(t, plan, map[string]string{
		`"Low Tide" was originally written by`: judgeReplyJSON(t, "unverified", "Low", "", nil),
		"Queen of Folk": judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, `called the "Queen of Folk"`, evidence.StanceSupports}),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Queen of Folk", results: []pipeline.SearchResult{
			hit("https://en.wikipedia.org/wiki/Ada_Vale", "Wikipedia", `Ada Vale is an American singer, songwriter, and dancer, called the "Queen of Folk".`, nil)}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	if c2 := res.Claims[1]; strings.Contains(c2.Text, "that was") || c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "no words of its own") {
		t.Errorf("claim 2: %+v", c2)
	}
	// c1 found nothing, so c2's one hop is the search for the entity by description, never the
	// planned hop stated with the span's words.
	if h := findHop(res, 2, 1); h.Reason != HopReasonDescription || strings.Contains(h.Query, "that was") {
		t.Errorf("hop 1 of c2: %+v", h)
	}
	for _, prompt := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(prompt, "referred to as") {
			t.Errorf("claim 2 was judged:\n%s", prompt)
		}
	}
}

// entityWords decides whether a span names the entity its claim describes. Every case has the
// shape of one from the plans of a relay run (1,016 calls, 2026-12-03), its names made up: of 79
// distinct spans a bridge could take its words from, 24 opened with a determiner and were used;
// 17 of those are refused now, each a relative clause, a phrase headed by another thing, or one
// without the fact that pins the entity.
func TestEntityWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		described, span string
		used            bool
	}{
		{"An actor played Detective Chester Lake", "The actor who played Detective Chester Lake", true},
		{"A British-born American actor played Captain Lark in Low Tide", "a British-born American actor best known for playing Captain Lark in Low Tide", true},
		{"Tom Reyes directed a 1987 psychological thriller film", "a 1987 psychological thriller film directed by Tom Reyes", true},
		{"A fictional character was bound to the Silver symbiote and turned into Agent Silver",
			"a fictional character bound to the Silver symbiote and turned into Agent Silver", true},
		// A relative clause, or a verb phrase.
		{`"Low Tide" was originally written by an American singer, songwriter, and dancer`, "that was originally written by an American singer, songwriter, and dancer", false},
		{"An artist released an album on June 29, 2015", "released an album on June 29, 2015, by Harbour Records", false},
		// Headed by another thing than the entity.
		{"{c3} created an American medical drama television series", "a creator and producer of an American medical drama television series", false},
		{"The Lantern Theatre is located in a neighborhood", "the Lantern Theatre in a neighborhood", false},
		{"Port Ellis was a city-state in a civilization", "a city-state in a northern coastal civilization", false},
		{"A singer released the studio album Low Tide in 2002", "her hit studio album Low Tide in 2002", false},
		{"Northgate Avenue was co-founded by their guitarist", "Northgate Avenue was co-founded by their guitarist", false},
		// Without the fact that pins the entity down.
		{"Quiet Orchards stars an Irish actor", "an Irish actor", false},
		{"Ada Vale had a native language", "her native language", false},
	} {
		words, used := entityWords(tc.described, tc.span, "en")
		if used != tc.used || (used && words != tc.span) {
			t.Errorf("entityWords(%q, %q) = %q, %v; want used %v", tc.described, tc.span, words, used, tc.used)
		}
	}
}

// Of what an emptied hop's search finds without its exclusions, only the first relevant source
// reaches the judge (marked, one voice with the hop it repeats): in a relay run the others were
// cited 5 times in 170 and cost about 100 tokens a claim. The hop's note still counts them all.
func TestOneRepeatOfAnEmptiedHopReachesTheJudge(t *testing.T) {
	t.Parallel()
	more := []pipeline.SearchResult{srcNewcombe,
		hit("https://en.wikipedia.org/wiki/1968_Wimbledon", "Wikipedia", "John Newcombe, born in 1944, lost the 1968 Wimbledon tennis final.", nil),
		hit("https://en.wikipedia.org/wiki/Davis_Cup_1973", "Wikipedia", "The Davis Cup of 1973: John Newcombe, born 1944, led the Australian tennis team.", nil)}
	model := planModel(t, peschkePlan(), map[string]string{peschkePlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil)})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Peschke", results: []pipeline.SearchResult{srcPeschke}},
		{contains: "Newcombe", results: more},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: peschkeStatement})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 1, 2); !strings.Contains(hop.Note, "found 3 relevant sources") || !strings.Contains(hop.Note, "1 of them reach the judge") {
		t.Errorf("hop 2: %+v", hop)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) != 1 || !strings.Contains(judged[0], srcNewcombe.Snippet) || strings.Contains(judged[0], "Wimbledon") || strings.Contains(judged[0], "Davis Cup") {
		t.Errorf("judge prompt:\n%s", judged)
	}
}

// A follow-up query is read against the names it asks for that a source holds, besides its
// claim: a judge that writes the claim's words, then the names its sources list ("Judy Greer
// 2013 film role; Adaptation Jawbreaker The Descendants release years", in a relay run on
// EX-FEVER 3121-3200) had the names' part cut as a sentence sharing no term with the claim, and
// the search never asked for the films' years.
func TestFollowUpKeepsTheNamesItAsksForThatASourceHolds(t *testing.T) {
	t.Parallel()
	const claim = "An automotive company produces the Westmoor Coupe"
	coupe := hit("https://en.wikipedia.org/wiki/Westmoor_Coupe", "Wikipedia", "The Westmoor Coupe is a car built by Harlow Works since 1961.", nil)
	harlow := hit("https://www.example.org/harlow-works", "Example", "Harlow Works is an automotive company founded in Ostmoor in 1920.", nil)
	plan := makerPlan()
	plan.Claims[0].ClaimText, plan.Claims[0].Entities = claim, []string{"Westmoor Coupe"}
	plan.Claims[0].SourceSpan = "The Westmoor Coupe is produced by an automotive company"
	plan.QueryChains[0].Hops = []PlanHop{{1, "Westmoor Coupe maker", "encyclopedia", "maker"}}
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: harlow.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "built by Harlow Works", sup}, judgeCitation{2, "Harlow Works is an automotive company", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "Westmoor Coupe maker; Harlow Works founders", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Harlow Works founders", results: []pipeline.SearchResult{harlow}},
		{contains: "Westmoor Coupe maker", results: []pipeline.SearchResult{coupe}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: "The Westmoor Coupe is produced by an automotive company."})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 1, 2); hop.Reason != HopReasonFollowUp || !strings.Contains(hop.Query, "Harlow Works founders") {
		t.Errorf("follow-up hop: %+v", hop)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim: %s (%s): %s", c.Verdict, c.Confidence, c.Reason)
	}
}

// A comparison's fact is written as the plan prompt asks ("born on a known date"); a claim that
// states a value, or uses "known" otherwise, is no such input.
func TestComparisonInput(t *testing.T) {
	t.Parallel()
	for claim, want := range map[string]bool{
		"Květa Peschke was born on a known date":        true,
		"Lake Baikal has a known area":                  true,
		"A known number of species live in Lake Baikal": true,
		"Květa Peschke was born on 9 July 1975":         false,
		"Ada Brook is a well-known painter":             false,
		"Ada Brook is known as a painter":               false,
	} {
		if got := ComparisonInput(claim); got != want {
			t.Errorf("ComparisonInput(%q) = %v, want %v", claim, got, want)
		}
	}
}

const songStatement = "Harbour Light is a song co-written by a Swedish singer-songwriter."

var (
	srcSongPage  = withTitle(hit("https://en.wikipedia.org/wiki/Harbour_Light", "Wikipedia", "Harbour Light is a song written by Tom Reyes, Sam Ortiz and Ada Vale.", nil), "Harbour Light")
	srcReyesPage = withTitle(hit("https://en.wikipedia.org/wiki/Tom_Reyes", "Wikipedia", "Tom Reyes is an American composer of pop songs.", nil), "Tom Reyes")
	srcOrtizPage = withTitle(hit("https://en.wikipedia.org/wiki/Sam_Ortiz", "Wikipedia", "Sam Ortiz is an American lyricist and producer.", nil), "Sam Ortiz")
	srcValePage  = withTitle(hit("https://en.wikipedia.org/wiki/Ada_Vale", "Wikipedia", "Ada Vale is a Swedish singer-songwriter and musician.", nil), "Ada Vale")
	srcRadioPage = withTitle(hit("https://en.wikipedia.org/wiki/Harbour_Radio", "Wikipedia", "Harbour Radio played songs by Tom Reyes, Sam Ortiz and Ada Vale.", nil), "Harbour Radio")
)

// songPlan is one claim that describes one of a song's three writers; what it says of the writer
// is on that writer's own page.
func songPlan() Plan {
	return Plan{
		PlanID: "song",
		Claims: []PlanClaim{{ClaimID: "c1", ClaimText: "A Swedish singer-songwriter co-wrote the song Harbour Light",
			SourceSpan: "Harbour Light is a song co-written by a Swedish singer-songwriter", Entities: []string{"Harbour Light"}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Harbour Light writers"}, SourceIndependenceScore: 1}},
		QueryChains:          []QueryChain{{ClaimID: "c1", Hops: []PlanHop{{1, "Harbour Light song writers", "encyclopedia", "writers"}}}},
		CrossValidationPairs: []CrossValidationPair{}, CrossValidationQueries: []CrossValidationQuery{}, ExecutionOrder: []string{"c1"},
	}
}

// A judge that asks for what several entities its source names are ("Tom Reyes Sam Ortiz Ada
// Vale nationality") gets the own page of each, when its follow-up's exclusions emptied the hop,
// not the first of them alone. In a relay run (exfever-3845) "A European singer-songwriter,
// musician, and occasional actor co-wrote Heartlight" asked for its three writers; the search
// without the exclusions found the three pages, the first, Burt Bacharach's, reached the judge,
// and Neil Diamond's, which says what the claim says of him, never did. A page titled with no
// name asked for is still bounded to one (maxRepeatsPerHop).
func TestFollowUpGivesThePageOfEachEntityTheJudgeAskedFor(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: srcValePage.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "written by Tom Reyes, Sam Ortiz and Ada Vale", sup}, judgeCitation{4, "Ada Vale is a Swedish singer-songwriter", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "partly_supported", "Medium", "Tom Reyes Sam Ortiz Ada Vale nationality", nil,
			judgeCitation{1, "written by Tom Reyes, Sam Ortiz and Ada Vale", sup})},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, songPlan())},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "song writers", results: []pipeline.SearchResult{srcSongPage}},
		{contains: "nationality", results: []pipeline.SearchResult{srcRadioPage, srcReyesPage, srcOrtizPage, srcValePage}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: songStatement})
	if err != nil {
		t.Fatal(err)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) < 2 || !strings.Contains(judged[1], srcValePage.Snippet) {
		t.Fatalf("judge calls %d; the second did not get the page of the third writer the judge asked for", len(judged))
	}
	if strings.Contains(judged[1], srcRadioPage.Snippet) {
		t.Errorf("the second judge got a page titled with no name asked for, beside the three")
	}
	hop := findHop(res, 1, 2)
	if hop.Reason != HopReasonFollowUp || hop.Status != HopNoIndependentSource || !strings.Contains(hop.Note, "3 of them reach the judge") {
		t.Errorf("follow-up hop: %+v", hop)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported || c.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim: %+v", c)
	}
}

// A source that an emptied hop's search found without its exclusions is read as a page, as a
// kept one is: its passages that best match the claim reach the judge, not only its snippet.
// Every EX-FEVER and FEVEROUS-S page is on one domain, so every hop after a claim's first is
// emptied so, and its sources reached the judge as snippets, which the corpus cuts to two
// fragments around the query's words: in a relay run (session 46, exfever-6092) "Frank Sinatra
// performed in Vegas as part of The Beach Boys" had Frank Sinatra's page as such a source, and
// its judge never saw the page's last sentence, that he performed there as part of the Rat Pack.
func TestARepeatOfAnEmptiedHopIsReadAsAPage(t *testing.T) {
	t.Parallel()
	const deciding = "John Newcombe played his last Davis Cup tie in 1976, aged 31."
	model := planModel(t, peschkePlan(), map[string]string{peschkePlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil)})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Peschke", results: []pipeline.SearchResult{srcPeschke}},
		{contains: "Newcombe", results: []pipeline.SearchResult{srcNewcombe}},
	}}
	pages := &pipelinetest.StubPages{Texts: map[string]string{
		srcNewcombe.URL: srcNewcombe.Snippet + "\n\nHe won seven Grand Slam singles titles.\n\n" + deciding,
	}}
	res, err := Multihop{Model: model, Searcher: searcher, Pages: evidence.PageReading{Reader: pages}}.Run(context.Background(), pipeline.Input{Text: peschkeStatement})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 1, 2); hop.Status != HopNoIndependentSource || !strings.Contains(hop.Note, "1 of them reach the judge") {
		t.Fatalf("hop 2: %+v", hop)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) == 0 || !strings.Contains(judged[0], deciding) {
		t.Errorf("the judge did not get the repeated page's passage:\n%s", judged)
	}
	for _, e := range res.Evidence {
		if e.URL == srcNewcombe.URL && (e.Page == nil || len(e.Passages) == 0) {
			t.Errorf("the repeat's evidence row has no page read or no passages: %+v", e)
		}
	}
}

// The Romance statement (EX-FEVER exfever-4027): the bridge's page names the grouping the claim
// building on it is about, and the judge read that name as the bridge's answer.
const (
	romanceStatement = "Western Romance languages are subdivisions of a proposed subdivision of the Romance languages based on the La Spezia–Rimini Line."
	romanceBridge    = "A proposed subdivision of the Romance languages is based on the La Spezia–Rimini Line"
	romancePassage   = "Western Romance languages are one of the two subdivisions of a proposed subdivision of the Romance languages based on the La Spezia–Rimini Line"
)

var srcWesternRomance = hit("https://en.wikipedia.org/wiki/Western_Romance_languages", "Wikipedia", romancePassage+".", nil)

func romancePlan() Plan {
	return Plan{
		PlanID: "romance",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: romanceBridge, SourceSpan: "a proposed subdivision of the Romance languages based on the La Spezia–Rimini Line",
				Entities: []string{"Romance languages", "La Spezia–Rimini Line"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"La Spezia–Rimini Line Romance languages"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "Western Romance languages are a subdivision of {c1}", SourceSpan: "Western Romance languages are subdivisions of",
				Entities: []string{"Western Romance languages"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"Western Romance languages classification"}, SourceIndependenceScore: 0.6},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "La Spezia–Rimini Line Romance languages", "encyclopedia", "classification"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Western Romance languages classification {c1}", "encyclopedia", "classification"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the grouping"}},
		CrossValidationQueries: []CrossValidationQuery{{"Romance languages subdivision La Spezia–Rimini", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// romanceSearcher finds the Western Romance page for both claims' hops.
func romanceSearcher() *StubSearcher {
	return &StubSearcher{honour: true, rules: []searchRule{
		{contains: "La Spezia–Rimini Line Romance", results: []pipeline.SearchResult{srcWesternRomance}},
		{contains: "Western Romance languages classification", results: []pipeline.SearchResult{srcWesternRomance}},
	}}
}

// A bridge's answer that the claim building on it names already would make that claim say the
// entity is related to itself: exfever-4027's judge named "Western Romance languages" for "A
// proposed subdivision of the Romance languages is based on the La Spezia–Rimini Line" (its
// page says the former is a subdivision of the latter), and "Western Romance languages are a
// subdivision of {c1}" was stated "Western Romance languages are a subdivision of Western
// Romance languages", left unverified as circular in two relay cohorts (sessions 46 and 47), a
// true statement with it. Such a claim is stated with the statement's own words for the entity,
// as when the bridge was not established, and its hop searches without the placeholder.
func TestBridgeTheClaimNamesAlreadyIsStatedWithTheStatementsWords(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	stated := "Western Romance languages are a subdivision of a proposed subdivision of the Romance languages based on the La Spezia–Rimini Line"
	model := planModel(t, romancePlan(), map[string]string{
		romanceBridge: judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Western Romance languages", Source: 1, Passage: romancePassage},
			judgeCitation{1, romancePassage, sup}),
		stated: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, romancePassage, sup}),
	})
	res, err := Multihop{Model: model, Searcher: romanceSearcher()}.Run(context.Background(), pipeline.Input{Text: romanceStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Text != stated || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %q %s (%s), want %q supported", c2.Text, c2.Verdict, c2.Reason, stated)
	}
	if h := findHop(res, 2, 1); strings.Contains(h.Query, "Western Romance languages classification Western Romance") || strings.Contains(h.Query, "{c1}") {
		t.Errorf("claim 2's hop: %q", h.Query)
	}
	if len(judgePromptsOf(model, "Western Romance languages are a subdivision of Western Romance languages")) != 0 {
		t.Error("claim 2 was judged stated with its own subject as the bridge")
	}
}

// When the statement has no words of its own for the entity (here the claim's span holds the
// bridge's), a claim that names its bridge's answer already cannot be stated: it is unverified,
// its hops not run, and never judged. In session 47's second cohort exfever-4027's claim was so
// planned, stated "Western Romance languages are subdivisions of Western Romance languages",
// and refuted by its judge as circular: a true statement refuted.
func TestClaimThatNamesItsBridgesAnswerWithoutWordsForItIsNotStated(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	plan := romancePlan()
	plan.Claims[1].SourceSpan = romanceStatement // overlaps c1's span: no words of the statement's own for c1
	circular := "Western Romance languages are a subdivision of Western Romance languages"
	model := planModel(t, plan, map[string]string{
		romanceBridge: judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Western Romance languages", Source: 1, Passage: romancePassage},
			judgeCitation{1, romancePassage, sup}),
		circular: judgeCites("refuted", "Medium", "scripted", "Western Romance languages are a subdivision of a proposed subdivision of the Romance languages",
			judgeCitation{1, romancePassage, evidence.StanceRefutes}),
	})
	res, err := Multihop{Model: model, Searcher: romanceSearcher()}.Run(context.Background(), pipeline.Input{Text: romanceStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c2 := res.Claims[1]; c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "names already") {
		t.Errorf("claim 2: %q %s (%s), want unverified, not stated", c2.Text, c2.Verdict, c2.Reason)
	}
	if len(judgePromptsOf(model, circular)) != 0 {
		t.Error("claim 2 was judged stated with its own subject as the bridge")
	}
}

// namesAlready reads the answer as a whole name only: not as the opening or closing words of a
// longer one ("FX" in "FX Networks, LLC": in session 47's second cohort exfever-6011's claim
// "{c3} is owned by FX Networks, LLC" went unstated for it).
func TestNamesAlready(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		claim, id, value string
		want             bool
	}{
		{"Western Romance languages are a subdivision of {c1}", "c1", "Western Romance languages", true},
		{"{c1} was adapted from the novel Jaws", "c1", "Jaws", true},
		{"The Walt Disney Company owns {c1}", "c1", "Walt Disney Company", true},
		{"{c3} is owned by FX Networks, LLC", "c3", "FX", false},
		{"{c1} is the sister of Venus Williams", "c1", "Williams", false},
		{"{c1} played Slipknot in Suicide Squad", "c1", "Adam Beach", false},
		{"{c1} played Slipknot in Suicide Squad", "c1", "", false},
	} {
		if got := namesAlready(tt.claim, tt.id, tt.value); got != tt.want {
			t.Errorf("namesAlready(%q, %q) = %v, want %v", tt.claim, tt.value, got, tt.want)
		}
	}
}
