package multihop

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

const stormStatement = "In Ostmoor y la Baja Frisia Region, two riders, Anna Berg and Karl Olsen, were injured by a falling sign."

const (
	stormRegionClaim = "Two riders were injured by a falling sign in Ostmoor y la Baja Frisia Region"
	stormRiderClaim  = "Anna Berg was one of the two riders injured by the falling sign"
)

// The page of the night's storm names the region by its short name only ("Ostmoor"), so the
// region claim's own search keeps nothing; the rider's search, by her name, finds it.
var (
	srcStorm     = hit("https://en.wikipedia.org/wiki/2019_Ostmoor_storm", "Wikipedia", "Anna Berg (19) and Karl Olsen (23), two riders, were injured by a falling sign when the storm reached Ostmoor.", nil)
	srcRiderBorn = hit("https://en.wikipedia.org/wiki/Anna_Berg", "Wikipedia", "Anna Berg (born 2000) is a Norwegian show jumper and one of the riders of the Ostmoor stable.", nil)
	srcSignMaker = hit("https://www.example.org/signs", "Example", "Falling signs are a hazard of every storm season.", nil)
)

// stormPlan is the statement's plan: the region claim, and the rider's claim built on it, each
// with one hop.
func stormPlan(riderClaim string) Plan {
	return Plan{
		PlanID: "storm",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: stormRegionClaim, SourceSpan: "In Ostmoor y la Baja Frisia Region, two riders, Anna Berg and Karl Olsen, were injured by a falling sign",
				Entities: []string{"Ostmoor y la Baja Frisia Region"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"riders injured falling sign"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: riderClaim, SourceSpan: "two riders, Anna Berg and Karl Olsen, were injured by a falling sign",
				Entities: []string{"Anna Berg"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"Anna Berg injured"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "riders hurt falling sign Baja Frisia", "news report", "the accident"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Anna Berg rider", "encyclopedia", "the rider"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the accident"}},
		CrossValidationQueries: []CrossValidationQuery{{"storm accident riders", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// A claim whose own hops found nothing is judged once more after the statement's other claims,
// with the sources their verdicts cited that share its words (issue 23). In a real model's run a
// claim that named a region by its long official name kept nothing, every page giving the
// region's short name, and was judged first, since the claims about the people it was about
// built on it, as "no retrievable evidence", while their searches by the people's names found
// and cited the page that says so: a true statement left unverified.
func TestClaimThatFoundNothingIsJudgedOnWhatTheOthersCited(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	model := planModel(t, stormPlan(stormRiderClaim), map[string]string{
		stormRiderClaim:  judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Anna Berg (19) and Karl Olsen (23), two riders, were injured", sup}),
		stormRegionClaim: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "were injured by a falling sign when the storm reached Ostmoor", sup}),
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Baja Frisia", results: []pipeline.SearchResult{srcSignMaker}},
		{contains: "Anna Berg rider", results: []pipeline.SearchResult{srcStorm}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: stormStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported || c.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim 1 = %s (%s): %s, want supported at Medium on the page claim 2 cited", c.Verdict, c.Confidence, c.Reason)
	}
	judgedC1 := judgePromptsOf(model, stormRegionClaim)
	if len(judgedC1) != 1 {
		t.Fatalf("claim 1 was judged %d times, want once, after claim 2", len(judgedC1))
	}
	for _, want := range []string{srcStorm.Snippet, relationShared} {
		if !strings.Contains(judgedC1[0], want) {
			t.Errorf("claim 1's judge prompt lacks %q:\n%s", want, judgedC1[0])
		}
	}
	// Spec 001's isolation: the judge never sees the statement or another claim's text.
	checkJudgeSawNone(t, 1, judgedC1[0], stormRiderClaim, stormStatement)
	if !slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool {
		return e.ClaimPosition == 1 && e.FromClaimPosition == 2 && e.URL == srcStorm.URL && e.Quote != ""
	}) {
		t.Errorf("claim 2's cited page is not stored as claim 1's evidence from claim 2: %+v", res.Evidence)
	}
}

// What the other claims cited reaches the claim only when it shares the claim's words, and a
// dishonest judge gains nothing from it: a quote the page does not hold and a source it was not
// given leave the claim unverified, flagged, as the grounding rules have it.
func TestClaimThatFoundNothingOnlyWithWhatIsAboutIt(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, tt := range []struct {
		name, riderClaim string
		riderPage        pipeline.SearchResult
		regionReply      string
		wantJudged       bool
		wantReason, flag string
	}{
		{"a page about another fact", "Anna Berg was a rider", srcRiderBorn,
			judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "one of the riders of the Ostmoor stable", sup}),
			false, "no retrievable evidence", ""},
		{"a quote the page does not hold", stormRiderClaim, srcStorm,
			judgeReplyJSON(t, "supported", "High", "", nil, judgeCitation{1, "killed by a falling sign in Ostmoor y la Baja Frisia Region", sup}),
			true, "cited no source", pipeline.FlagQuoteNotInSource},
		{"a source it was not given", stormRiderClaim, srcStorm,
			judgeReplyJSON(t, "supported", "High", "", nil, judgeCitation{4, "were injured by a falling sign", sup}),
			true, "cited no source", pipeline.FlagCitationRemoved},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, stormPlan(tt.riderClaim), map[string]string{
				tt.riderClaim:    judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, tt.riderPage.Snippet[:30], sup}),
				stormRegionClaim: tt.regionReply,
			})
			searcher := &StubSearcher{honour: true, rules: []searchRule{{contains: "Anna Berg rider", results: []pipeline.SearchResult{tt.riderPage}}}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: stormStatement})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Claims[1]; c.Verdict != pipeline.VerdictSupported {
				t.Fatalf("claim 2 = %s: %s; the test needs its page cited", c.Verdict, c.Reason)
			}
			judged := slices.ContainsFunc(model.Sent(pipeline.StepJudge), func(p string) bool {
				return strings.Contains(p, "<untrusted_claim>\n"+stormRegionClaim)
			})
			if judged != tt.wantJudged {
				t.Errorf("claim 1 judged = %v, want %v", judged, tt.wantJudged)
			}
			c := res.Claims[0]
			if c.Verdict != pipeline.VerdictUnverified || !strings.Contains(c.Reason, tt.wantReason) {
				t.Errorf("claim 1 = %s: %q, want unverified with %q", c.Verdict, c.Reason, tt.wantReason)
			}
			if tt.flag != "" && !flaggedOnClaim(res, tt.flag, 1) {
				t.Errorf("no %s flag on claim 1: %+v", tt.flag, res.ReviewFlags)
			}
		})
	}
}

// A claim whose own hops found nothing is given a page another claim cited that holds the name
// it is about, though not its other words: a page that gives the person another origin holds
// the person's name and not the claim's place (a real-model run left "Jay-Z is Canadian"
// unverified, "no retrievable evidence", beside a claim that cited "Umbrella is a song that
// features American rapper Jay-Z").
func TestClaimThatFoundNothingIsJudgedOnAPageAboutItsSubject(t *testing.T) {
	t.Parallel()
	const statement = "Night Tide is a song that features Ostmoor rapper Mara Quinn."
	const songClaim, originClaim = "Night Tide features Mara Quinn", "Mara Quinn is from Ostmoor"
	song := hit("https://en.wikipedia.org/wiki/Night_Tide_(song)", "Wikipedia", "Night Tide is a song that features Westmoor rapper Mara Quinn.", nil)
	plan := Plan{
		PlanID: "night-tide",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: songClaim, SourceSpan: "Night Tide is a song that features Ostmoor rapper Mara Quinn",
				Entities: []string{"Night Tide", "Mara Quinn"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Night Tide song credits"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: originClaim, SourceSpan: "Ostmoor rapper Mara Quinn",
				Entities: []string{"Mara Quinn", "Ostmoor"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Mara Quinn hometown"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Night Tide song featured artist", "encyclopedia", "credits"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Mara Quinn rapper birthplace", "encyclopedia", "biography"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same rapper"}},
		CrossValidationQueries: []CrossValidationQuery{{"Ostmoor hip hop scene", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
	model := planModel(t, plan, map[string]string{
		songClaim: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Night Tide is a song that features Westmoor rapper Mara Quinn", evidence.StanceSupports}),
		originClaim: `{"verdict": "refuted", "citations": [{"source": 1, "passage": "features Westmoor rapper Mara Quinn", "stance": "refutes"}],
			"reason": "The page calls Mara Quinn a Westmoor rapper.", "supported_part": "", "correction": "Mara Quinn is from Westmoor.", "confidence": "Medium", "missing": ""}`,
	})
	searcher := &StubSearcher{honour: true, rules: []searchRule{{contains: "Night Tide", results: []pipeline.SearchResult{song}}}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Claims[1]; c.Verdict != pipeline.VerdictRefuted || !slices.Contains(c.Citations, 1) {
		t.Errorf("claim 2 = %s %v: %s, want refuted on the page claim 1 cited", c.Verdict, c.Citations, c.Reason)
	}
	judged := judgePromptsOf(model, originClaim)
	if len(judged) != 1 || !strings.Contains(judged[0], song.Snippet) || !strings.Contains(judged[0], relationShared) ||
		strings.Contains(judged[0], songClaim) || strings.Contains(judged[0], statement) {
		t.Errorf("claim 2 was judged %d times; its prompt:\n%s", len(judged), strings.Join(judged, "\n---\n"))
	}
}

// The subject of a claim is the name it opens with, as the plan's entities write it, a name
// written in lower case among them ("iOstmoor"); a word that only shares its letters with an
// entity's capitalised word is no name ("awards" beside "Harbour Awards").
func TestSubjectWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		claim    string
		entities []string
		want     []string
	}{
		{"Jay-Z is Canadian", []string{"Jay-Z"}, []string{"jay"}},
		{"The Calling is a rock band", nil, []string{"calling"}},
		{"iOstmoor is an American company", []string{"iOstmoor"}, []string{"iostmoor"}},
		{"awards are given in Westhaven", []string{"Harbour Awards"}, nil},
		{"Two riders were injured", nil, nil},
	} {
		got := slices.Sorted(maps.Keys(subjectWords(PlanClaim{ClaimText: tc.claim, Entities: tc.entities}, "en")))
		if !slices.Equal(got, tc.want) {
			t.Errorf("subjectWords(%q, %q) = %q, want %q", tc.claim, tc.entities, got, tc.want)
		}
	}
}

// The statement of the two bridge tests below: a book by the author of another, the author the
// bridge (c1), the book's claim stated with the author's name or, when none is established, the
// statement's description of the author.
const (
	nightTideStatement = "Night Tide is by the author who wrote Harbour Lights."
	authorClaim        = "An author wrote Harbour Lights"
	bookClaim          = "Night Tide is by {c1}"
	bookDescribed      = "Night Tide is by the author that wrote Harbour Lights"
)

// nightTidePlan is the statement's plan, one hop a claim.
func nightTidePlan() Plan {
	return Plan{
		PlanID: "night-tide-author",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: authorClaim, SourceSpan: "the author who wrote Harbour Lights",
				Entities: []string{"Harbour Lights"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"who wrote Harbour Lights novel"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: bookClaim, SourceSpan: "Night Tide is by the author",
				Entities: []string{"Night Tide", "{c1}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"{c1} Night Tide"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "who wrote Harbour Lights novel", "encyclopedia", "the author"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} Night Tide", "encyclopedia", "the book"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same author"}},
		CrossValidationQueries: []CrossValidationQuery{{"Ostmoor novels 1972", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// The book's page, and the author's, which shares two of the author claim's content words
// ("written" is no "wrote") and all of the book it names.
var (
	nightTideNovel  = hit("https://en.wikipedia.org/wiki/Night_Tide_(novel)", "Wikipedia", "Night Tide is a 1972 novel by Mara Quinn.", nil)
	nightTideAuthor = hit("https://en.wikipedia.org/wiki/Mara_Quinn", "Wikipedia", "Since then she has written over fifty novels, including Harbour Lights and Night Tide.", nil)
)

// nightTideBookRules are the book claim's judgements, stated with the author's description:
// unverified on the book's page, naming what it lacks, then, after its follow-up hop found
// the author's page, supported on both; and the plan.
func nightTideBookRules(t *testing.T) []pipelinetest.StubRule {
	sup := evidence.StanceSupports
	return []pipelinetest.StubRule{
		{Contains: nightTideAuthor.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "Night Tide is a 1972 novel by Mara Quinn", sup},
			judgeCitation{2, "written over fifty novels, including Harbour Lights", sup})},
		judgeRuleFor(bookDescribed, judgeReplyJSON(t, "unverified", "Low", "Mara Quinn Harbour Lights", nil,
			judgeCitation{1, "Night Tide is a 1972 novel by Mara Quinn", sup})),
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, nightTidePlan())},
	}
}

// runNightTide runs the statement with model: the bridge claim's own search finds bridgeFinds
// (nothing when none is given), the book claim's the book's page, and its follow-up, by the
// author's name, the author's page. The book claim must end stated with the description and
// supported, as both tests need.
func runNightTide(t *testing.T, model *pipelinetest.StubModel, bridgeFinds ...pipeline.SearchResult) *pipeline.Result {
	t.Helper()
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Mara Quinn Harbour Lights", results: []pipeline.SearchResult{nightTideAuthor}},
		{contains: "who wrote Harbour Lights", results: bridgeFinds},
		{contains: "Night Tide", results: []pipeline.SearchResult{nightTideNovel}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: nightTideStatement})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Claims[1]; c.Text != bookDescribed || c.Verdict != pipeline.VerdictSupported {
		t.Fatalf("claim 2 = %q %s: %s; the test needs it stated with the description and supported", c.Text, c.Verdict, c.Reason)
	}
	return res
}

// A bridge claim whose own hops found nothing, and whose entity no search by description named,
// is judged once more after the claims building on it, with what their verdicts cited (issue 23).
// In a relay run (FEVEROUS-S) "An author wrote A Flight of Pigeons" kept nothing; the claim
// stated with its description, "The Angry River is by the author that wrote A Flight of
// Pigeons", was supported by its follow-up hop's page of the author, which lists that book; the
// bridge claim had been judged before that hop ran, and left the true statement unverified.
func TestBridgeThatFoundNothingIsJudgedOnWhatItsDependentsCited(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	// One reply for the author claim, whatever it is given: it quotes the author's page, so it
	// stands only when that page is among its sources.
	authorReply := judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "written over fifty novels, including Harbour Lights", sup})
	model := &pipelinetest.StubModel{Rules: append([]pipelinetest.StubRule{
		judgeRuleFor(authorClaim, authorReply),
	}, nightTideBookRules(t)...)}
	res := runNightTide(t, model)
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported || c.Confidence != pipeline.ConfidenceMedium {
		t.Errorf("claim 1 = %s (%s): %s, want supported at Medium on the page claim 2 cited", c.Verdict, c.Confidence, c.Reason)
	}
	var last string
	if prompts := judgePromptsOf(model, authorClaim); len(prompts) > 0 {
		last = prompts[len(prompts)-1]
	}
	if !strings.Contains(last, nightTideAuthor.Snippet) || !strings.Contains(last, relationShared) {
		t.Errorf("claim 1's last judge prompt lacks the author's page, marked as another claim's finding:\n%s", last)
	}
	checkJudgeSawNone(t, 1, last, bookDescribed, nightTideStatement)
}

// A bridge claim its judge left unverified on the sources it had is judged once more after the
// claims building on it, with the sources their verdicts cited that are about it: those claims,
// stated with its description, searched after it was judged and may find the entity's page. In
// a relay run "Victor Hugo wrote a drama in rhyming alexandrines" was judged on the author's page
// alone and left unverified, while the claim stated with its description found and cited the
// play's page, which says it is "a drama in rhyming alexandrines": a true statement left
// unverified. A dishonest second judgement gains nothing: a passage the page does not hold is
// dropped and flagged, and the claim stays unverified.
func TestBridgeLeftUnverifiedIsJudgedOnWhatItsDependentsCited(t *testing.T) {
	t.Parallel()
	// The bridge claim's own search finds the book's page, which names no author.
	harbour := hit("https://en.wikipedia.org/wiki/Harbour_Lights", "Wikipedia", "Harbour Lights is a 1968 novel set in the port of Ostmoor.", nil)
	sup := evidence.StanceSupports
	// Only the bridge claim's second judgement is given the author's page as another claim's
	// finding: the book claim finds it on its own follow-up hop.
	authorShared := `title="` + nightTideAuthor.Title + `" relation="` + relationShared + `"`
	for _, tt := range []struct {
		name        string
		secondReply string
		want        string
		wantFlag    string
	}{
		{"honest", judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{2, "written over fifty novels, including Harbour Lights", sup}), pipeline.VerdictSupported, ""},
		{"quotes what the page does not say", judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{2, "Mara Quinn wrote Harbour Lights in 1968", sup}), pipeline.VerdictUnverified, pipeline.FlagQuoteNotInSource},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &pipelinetest.StubModel{Rules: append([]pipelinetest.StubRule{
				{Contains: authorShared, Reply: tt.secondReply},
				// The first judgement reads the book's page, which names no author.
				judgeRuleFor(authorClaim, judgeReplyJSON(t, "unverified", "Low", "", nil)),
			}, nightTideBookRules(t)...)}
			res := runNightTide(t, model, harbour)
			if c := res.Claims[0]; c.Verdict != tt.want {
				t.Errorf("claim 1 = %s (%s): %s, want %s", c.Verdict, c.Confidence, c.Reason, tt.want)
			}
			prompts := judgePromptsOf(model, authorClaim)
			last := prompts[len(prompts)-1]
			if !strings.Contains(last, authorShared) || !strings.Contains(last, harbour.Snippet) {
				t.Errorf("claim 1's last judge prompt lacks its own page and the author's page, marked as another claim's finding:\n%s", last)
			}
			checkJudgeSawNone(t, 1, last, bookDescribed, nightTideStatement)
			if tt.wantFlag != "" && !flaggedOnClaim(res, tt.wantFlag, 1) {
				t.Errorf("no %s flag on claim 1: %+v", tt.wantFlag, res.ReviewFlags)
			}
		})
	}
}

// A bridge claim confirmed only after every other claim (judgeOnOthersCitations) gives what its
// judge cited to the claims stated with its description, which are judged again with it when
// their first judgement found nothing either way (issue 23). In a relay run (EX-FEVER) "A
// composer composed <a rock opera>" found nothing; the claim building on it, stated with its
// description, was judged on its own search's page of the composer, which names no opera; the
// bridge claim was then confirmed from a page a third claim cited ("<the composer>'s rock
// opera"), and the true statement stayed unverified, since the dependent never saw that page.
// A dishonest second judgement gains nothing: a passage no source holds is dropped and flagged.
func TestLateConfirmationOfABridgeReachesTheClaimStatedWithItsDescription(t *testing.T) {
	t.Parallel()
	const (
		statement   = "Night Tide is by the author who wrote Harbour Lights, which was staged in Ostmoor in 1990."
		stagedClaim = "Harbour Lights was first staged in 1990 in Ostmoor"
	)
	plan := nightTidePlan()
	plan.Claims = append(plan.Claims, PlanClaim{ClaimID: "c3", ClaimText: stagedClaim, SourceSpan: "Harbour Lights, which was staged in Ostmoor in 1990",
		Entities: []string{"Harbour Lights", "Ostmoor"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
		SubQueries: []string{"Harbour Lights staged Ostmoor"}, SourceIndependenceScore: 0.8})
	plan.QueryChains = append(plan.QueryChains, QueryChain{ClaimID: "c3", Hops: []PlanHop{{1, "Harbour Lights staged Ostmoor 1990", "news report", "the staging"}}})
	plan.ExecutionOrder = []string{"c1", "c2", "c3"}
	// The staging's page names the author, and holds neither "author" nor "wrote": no hop of
	// the bridge claim's topic keeps it, and only the third claim's verdict cites it.
	staging := hit("https://www.ostmoor-stage.org/1990", "Ostmoor Stage", "Mara Quinn's novel Harbour Lights was staged in Ostmoor in 1990.", nil)
	sup := evidence.StanceSupports
	stagingAs := func(relation string) string { return `title="` + staging.Title + `" relation="` + relation + `"` }
	for _, tt := range []struct {
		name        string
		secondReply string
		want        string
		wantFlag    string
	}{
		{"honest", judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "Night Tide is a 1972 novel by Mara Quinn", sup},
			judgeCitation{2, "Mara Quinn's novel Harbour Lights", sup}), pipeline.VerdictSupported, ""},
		{"quotes what no source says", judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{2, "Mara Quinn wrote Night Tide and Harbour Lights", sup}), pipeline.VerdictUnverified, pipeline.FlagQuoteNotInSource},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
				// The book claim judged again, given the staging page as its bridge claim's finding.
				{Contains: stagingAs(relationEstablished), Reply: tt.secondReply},
				// The bridge claim judged after every other claim, given the staging page.
				{Contains: stagingAs(relationShared), Reply: judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Mara Quinn", Source: 1, Passage: "Mara Quinn's novel Harbour Lights"},
					judgeCitation{1, "Mara Quinn's novel Harbour Lights", sup})},
				// Before it, the bridge claim names no author on the book's page.
				judgeRuleFor(authorClaim, judgeReplyJSON(t, "unverified", "Low", "", nil)),
				// The book claim, stated with the description, on the book's page alone.
				judgeRuleFor(bookDescribed, judgeReplyJSON(t, "unverified", "Low", "", nil)),
				judgeRuleFor(stagedClaim, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Harbour Lights was staged in Ostmoor in 1990", sup})),
				{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
			}}
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Night Tide", results: []pipeline.SearchResult{nightTideNovel}},
				{contains: "staged", results: []pipeline.SearchResult{staging}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
				t.Fatalf("claim 1 = %s: %s; the test needs it confirmed after every other claim", c.Verdict, c.Reason)
			}
			c := res.Claims[1]
			if c.Text != bookDescribed || c.Verdict != tt.want {
				t.Errorf("claim 2 = %q %s (%s): %s, want %q %s", c.Text, c.Verdict, c.Confidence, c.Reason, bookDescribed, tt.want)
			}
			prompts := judgePromptsOf(model, bookDescribed)
			if len(prompts) != 2 {
				t.Fatalf("claim 2 was judged %d times, want twice", len(prompts))
			}
			if last := prompts[1]; !strings.Contains(last, staging.Snippet) || !strings.Contains(last, nightTideNovel.Snippet) {
				t.Errorf("claim 2's second judge prompt lacks its own page and the staging page:\n%s", last)
			}
			checkJudgeSawNone(t, 2, prompts[1], authorClaim, stagedClaim, statement)
			stored := slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool {
				return e.ClaimPosition == 2 && e.FromClaimPosition == 1 && e.URL == staging.URL && e.Quote != ""
			})
			if want := tt.want == pipeline.VerdictSupported; stored != want {
				t.Errorf("the staging page stored as claim 2's cited evidence from claim 1: %v, want %v: %+v", stored, want, res.Evidence)
			}
			if tt.wantFlag != "" && !flaggedOnClaim(res, tt.wantFlag, 2) {
				t.Errorf("no %s flag on claim 2: %+v", tt.wantFlag, res.ReviewFlags)
			}
		})
	}
}

// Another claim's finding reaches a judge with the passages of its page that match this claim,
// not those its own hop read for the other claim (issue 23). In a relay run (EX-FEVER
// 3281-3360) "<a band> were formed in a city" was given the band's page, found by the claim
// that the band is a rock band, with the passages chosen for that claim (its line-up): the
// judge found nothing on where it was formed, though the page says so, and the true statement
// stayed unverified.
func TestAnotherClaimsFindingIsReadForThisClaim(t *testing.T) {
	t.Parallel()
	const (
		statement = "The Where are a rock band formed in a city that is the capital of Ostmoor."
		bandClaim = "The Where are a rock band"
		cityClaim = "The Where were formed in a city"
		formed    = "The band was formed in Westhaven in 1964."
	)
	bandURL := "https://en.wikipedia.org/wiki/The_Where"
	band := hit(bandURL, "Wikipedia", "The Where are a rock band.", nil)
	band.Title = "The Where"
	page := strings.Join([]string{
		"The Where are a rock band whose classic line-up had four members.",
		"The Where rock band toured with other rock bands.",
		"The Where rock band sold many records as a rock band.",
		formed,
	}, "\n\n")
	other := hit("https://en.wikipedia.org/wiki/Harbour_Lights_(band)", "Wikipedia", "Harbour Lights are a rock band formed in a city by the sea.", nil)
	plan := Plan{
		PlanID: "the-where",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: bandClaim, SourceSpan: "The Where are a rock band", Entities: []string{"The Where"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"The Where rock band"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: cityClaim, SourceSpan: "formed in a city", Entities: []string{"The Where"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"The Where formed city"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c3", ClaimText: "{c2} is the capital of Ostmoor", SourceSpan: "a city that is the capital of Ostmoor", Entities: []string{"{c2}", "Ostmoor"},
				Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c2"}, SubQueries: []string{"{c2} capital Ostmoor"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "The Where rock band genre", "encyclopedia", "the band"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "The Where band formed city", "encyclopedia", "the city"}}},
			{ClaimID: "c3", Hops: []PlanHop{{1, "{c2} capital of Ostmoor", "encyclopedia", "the capital"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same band"}},
		CrossValidationQueries: []CrossValidationQuery{{"Ostmoor capital music scene", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2", "c3"},
	}
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		// A judge of the city claim that reads the page's sentence on where the band was formed.
		{Contains: formed, Reply: judgeReplyJSON(t, "supported", "Medium", "",
			&judgeAnswer{Value: "Westhaven", Source: 2, Passage: "formed in Westhaven"}, judgeCitation{2, "formed in Westhaven", sup})},
		judgeRuleFor(bandClaim, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "The Where are a rock band", sup})),
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "rock band genre", results: []pipeline.SearchResult{band}},
		{contains: "band formed city", results: []pipeline.SearchResult{other}},
	}}
	pages := &pipelinetest.StubPages{Texts: map[string]string{bandURL: page}}
	res, err := Multihop{Model: model, Searcher: searcher, Pages: evidence.PageReading{Reader: pages}}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	if prompts := judgePromptsOf(model, bandClaim); len(prompts) == 0 || strings.Contains(prompts[0], formed) {
		t.Fatalf("claim 1's judge was given the page's sentence on where the band was formed; the test needs passages chosen for claim 1")
	}
	if c := res.Claims[1]; c.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2 = %s (%s): %s, want supported on the band's page, read for it", c.Verdict, c.Confidence, c.Reason)
	}
	prompts := judgePromptsOf(model, cityClaim)
	if last := prompts[len(prompts)-1]; !strings.Contains(last, formed) || !strings.Contains(last, `title="The Where" relation="`+relationShared+`"`) {
		t.Errorf("claim 2's last judge prompt lacks the band's page, read for it and marked as another claim's finding:\n%s", last)
	}
}

// A follow-up that finds again a page the claim holds only as another claim's finding reads it
// for this claim: the finding came with what that claim's judge cited, chosen for that claim's
// fact. In a relay run (FEVEROUS-S 8153, a statement that misspells the series' name, so that
// no page is about its claims by their words) "<the series> released commercial products
// including dolls" was given the series' page, a dependency's finding, with the passage on its
// success; its judge asked for "<the series, spelled as the page spells it> merchandise dolls
// commercial products", the follow-up found the same page and dropped it as already held, and
// the page's "Many products were launched ..., including dolls, accessories and clothing" never
// reached the judge. Without a page to read, finding it again adds nothing, and it stays
// excluded (as in TestFollowUpExcludesItsChainsSourcesNotItsDependencies).
func TestFollowUpReadsForTheClaimAPageItHasFromAnotherClaim(t *testing.T) {
	t.Parallel()
	const (
		statement     = "Ostmor Radio, an Ostmoorian radio station, launched products including mugs."
		stationClaim  = "Ostmor Radio is an Ostmoorian radio station"
		productsClaim = "Ostmor Radio launched products including mugs"
		products      = "Many products were launched under its brand, including mugs, caps and scarves."
	)
	stationURL := "https://en.wikipedia.org/wiki/Ostmoor_Radio"
	station := hit(stationURL, "Wikipedia", "Ostmoor Radio is an Ostmoorian radio station.", nil)
	station.Title = "Ostmoor Radio"
	page := strings.Join([]string{
		"Ostmoor Radio is an Ostmoorian radio station.",
		"Its morning show was the most listened to in the country for a decade.",
		products,
	}, "\n\n")
	plan := Plan{
		PlanID: "ostmoor-radio",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: stationClaim, SourceSpan: "Ostmor Radio, an Ostmoorian radio station", Entities: []string{"Ostmor Radio", "Ostmoorian"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{"Ostmor Radio station"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: productsClaim, SourceSpan: "launched products including mugs", Entities: []string{"Ostmor Radio"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{"c1"}, SubQueries: []string{"Ostmor Radio mugs"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Ostmor Radio Ostmoorian station", "encyclopedia", "the station"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Ostmor Radio mug release", "encyclopedia", "the products"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same station"}},
		CrossValidationQueries: []CrossValidationQuery{{"Ostmoorian broadcasting history", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		// A judge of the products claim that reads the page's sentence on its products.
		{Contains: products, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "including mugs, caps and scarves", sup})},
		judgeRuleFor(stationClaim, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Ostmoor Radio is an Ostmoorian radio station", sup})),
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "Ostmoor Radio merchandise products", nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	for _, tt := range []struct {
		name  string
		pages pipeline.PageReader
		want  string
	}{
		{"the page is read", &pipelinetest.StubPages{Texts: map[string]string{stationURL: page}}, pipeline.VerdictSupported},
		{"no page to read", nil, pipeline.VerdictUnverified},
	} {
		t.Run(tt.name, func(t *testing.T) {
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Ostmoorian station", results: []pipeline.SearchResult{station}},
				{contains: "merchandise products", results: []pipeline.SearchResult{station}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher, Pages: evidence.PageReading{Reader: tt.pages}}.Run(context.Background(), pipeline.Input{Text: statement})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Claims[1]; c.Verdict != tt.want {
				t.Errorf("claim 2 = %s (%s): %s, want %s", c.Verdict, c.Confidence, c.Reason, tt.want)
			}
			prompts := judgePromptsOf(model, productsClaim)
			if last := prompts[len(prompts)-1]; strings.Count(last, `url="`+stationURL+`"`) != 1 {
				t.Errorf("claim 2's last judge prompt should hold the station's page once:\n%s", last)
			}
			i := slices.IndexFunc(res.Hops, func(h pipeline.Hop) bool { return h.ClaimPosition == 2 && h.Reason == HopReasonFollowUp })
			if i < 0 {
				t.Fatalf("claim 2 ran no follow-up: %+v\n%s", res.Hops, strings.Join(prompts, "\n----\n"))
			}
			if excluded := slices.Contains(res.Hops[i].ExcludedURLs, evidence.KeysOf(station).URL); excluded != (tt.pages == nil) {
				t.Errorf("the follow-up excluded the station's page: %v, want %v", excluded, tt.pages == nil)
			}
		})
	}
}

// The Kollywood statement (EX-FEVER exfever-3759): the film industry's page, which another claim
// cites, places its city in its state; the claim about the city, whose own search found a
// composer's page, names the wrong state, which no page near the city's name holds.
const (
	kollywoodStatement = "Kollywood is the film industry based in Chennai, which is in Telangana."
	kollywoodClaim     = "Kollywood is the film industry based in Chennai"
	chennaiClaim       = "Chennai is in Telangana"
)

var (
	srcKollywood = hit("https://en.wikipedia.org/wiki/Tamil_cinema", "Wikipedia", "Tamil cinema, also known as Kollywood, is an Indian film industry of Tamil-language motion pictures based in Chennai, Tamil Nadu.", nil)
	srcComposer  = hit("https://en.wikipedia.org/wiki/Harris_Jayaraj", "Wikipedia", "Harris Jayaraj is an Indian film composer from Chennai.", nil)
)

func kollywoodPlan() Plan {
	return Plan{
		PlanID: "kollywood",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: kollywoodClaim, SourceSpan: "Kollywood is the film industry based in Chennai",
				Entities: []string{"Kollywood", "Chennai"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Kollywood film industry Chennai"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: chennaiClaim, SourceSpan: "Chennai, which is in Telangana",
				Entities: []string{"Chennai", "Telangana"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Chennai state"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Kollywood film industry", "encyclopedia", "the industry"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Chennai composer", "encyclopedia", "the city"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the city"}},
		CrossValidationQueries: []CrossValidationQuery{{"Kollywood Chennai film industry city", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// A claim no other builds on, left unverified on its own sources, is judged once more after the
// others with the sources their verdicts cited that hold its subject (judgeOnOthersCitations):
// the sources the other claims' searches kept reach it before its judgement only when they pass
// the hop relevance test with the claim as topic, and a false claim's wrong value ("Telangana")
// is on no page about its subject. In two relay cohorts (sessions 46 and 47) exfever-3759's
// "Chennai is in Telangana" stayed unverified beside the cited "based in Chennai, Tamil Nadu".
// A dishonest second judgement gains nothing: a passage the page does not hold is dropped and
// flagged, and the claim stays unverified.
func TestClaimLeftUnverifiedIsJudgedOnWhatTheOthersCitedAboutItsSubject(t *testing.T) {
	t.Parallel()
	ref := evidence.StanceRefutes
	kollywoodShared := `title="` + srcKollywood.Title + `" relation="` + relationShared + `"`
	for _, tt := range []struct {
		name, second, want, flag string
	}{
		{"honest", judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{2, "based in Chennai, Tamil Nadu", ref}), pipeline.VerdictRefuted, ""},
		{"quotes what the page does not say", judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{2, "Chennai is the capital of Tamil Nadu, not of Telangana", ref}), pipeline.VerdictUnverified, pipeline.FlagQuoteNotInSource},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, kollywoodPlan(), map[string]string{
				kollywoodClaim: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Kollywood, is an Indian film industry of Tamil-language motion pictures based in Chennai", evidence.StanceSupports}),
				chennaiClaim:   judgeReplyJSON(t, "unverified", "Low", "", nil),
			})
			model.Rules = append([]pipelinetest.StubRule{{Contains: kollywoodShared, Reply: tt.second}}, model.Rules...)
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Kollywood film industry", results: []pipeline.SearchResult{srcKollywood}},
				{contains: "Chennai composer", results: []pipeline.SearchResult{srcComposer}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: kollywoodStatement})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Claims[1]; c.Verdict != tt.want {
				t.Errorf("claim 2 = %s (%s): %s, want %s", c.Verdict, c.Confidence, c.Reason, tt.want)
			}
			prompts := judgePromptsOf(model, chennaiClaim)
			if len(prompts) != 2 || !strings.Contains(prompts[1], kollywoodShared) || !strings.Contains(prompts[1], srcComposer.Snippet) {
				t.Fatalf("claim 2's judge prompts (%d), want a second with its own page and the industry's, marked as another claim's finding:\n%s", len(prompts), strings.Join(prompts, "\n----\n"))
			}
			checkJudgeSawNone(t, 2, prompts[1], kollywoodClaim, kollywoodStatement)
			if tt.flag != "" && !flaggedOnClaim(res, tt.flag, 2) {
				t.Errorf("no %s flag on claim 2: %+v", tt.flag, res.ReviewFlags)
			}
		})
	}
}

// The shipwright statement: two claims about one kind; the page that says both calls it by
// another name ("A boatwright ..."), and only the first claim's search finds it.
const (
	shipwrightStatement   = "The shipwright builds wooden sailing vessels and reads hulls."
	shipwrightBuildsClaim = "The shipwright builds wooden sailing vessels"
	shipwrightReadsClaim  = "The shipwright reads hulls"
)

var srcBoatwright = hit("https://en.wikipedia.org/wiki/Boatwright", "Wikipedia", "A boatwright builds wooden sailing vessels and reads hulls as a mason reads stone.", nil)

// shipwrightPlan is the statement's plan: two claims about the shipwright, one hop each.
func shipwrightPlan() Plan {
	claim := func(id, text, query string) PlanClaim {
		return PlanClaim{ClaimID: id, ClaimText: text, SourceSpan: strings.TrimPrefix(text, "The shipwright "), Entities: []string{"shipwright"}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{query}, SourceIndependenceScore: 0.8}
	}
	return Plan{
		PlanID: "shipwright",
		Claims: []PlanClaim{claim("c1", shipwrightBuildsClaim, "shipwright wooden sailing vessels"), claim("c2", shipwrightReadsClaim, "shipwright hulls")},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "shipwright wooden sailing vessels", "encyclopedia", "the trade"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "shipwright hulls", "encyclopedia", "the trade"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the trade"}},
		CrossValidationQueries: []CrossValidationQuery{{"shipwright trade", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// A claim whose hops found nothing is given the source another claim's judge confirmed a claim
// about the same subject with, when that source holds every other word of the claim: the judge
// that confirmed "The filmmaker controls a film's artistic and dramatic aspects" on "A film
// director controls ... and visualizes the screenplay" read it as about the filmmaker, and the
// source says what "The filmmaker visualizes the screenplay" says, which kept nothing of its own
// (session 49's thirteenth cohort, exfever-6094: a true statement left unverified). It holds
// neither the subject's word nor three of the claim's, so no other rule gave it. Not given: when
// the other claim was not confirmed, is about another subject, or the source lacks a word.
func TestClaimThatFoundNothingIsGivenWhatConfirmedAClaimOnItsSubject(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, tc := range []struct {
		name, firstVerdict, reads string
		srcText                   string
		given                     bool
	}{
		{"confirmed on the same subject", "supported", shipwrightReadsClaim, srcBoatwright.Snippet, true},
		{"the other claim unconfirmed", "unverified", shipwrightReadsClaim, srcBoatwright.Snippet, false},
		{"another subject", "supported", "The caulker reads hulls", srcBoatwright.Snippet, false},
		{"a word missing", "supported", shipwrightReadsClaim, "A boatwright builds wooden sailing vessels and reads the sky.", false},
	} {
		plan := shipwrightPlan()
		plan.Claims[1].ClaimText = tc.reads
		if tc.reads != shipwrightReadsClaim {
			plan.Claims[1].Entities = []string{"caulker"}
		}
		src := srcBoatwright
		src.Snippet = tc.srcText
		first := judgeReplyJSON(t, tc.firstVerdict, "Medium", "", nil, judgeCitation{1, "builds wooden sailing vessels", sup})
		if tc.firstVerdict == "unverified" {
			first = judgeReplyJSON(t, "unverified", "Low", "", nil)
		}
		model := planModel(t, plan, map[string]string{
			shipwrightBuildsClaim: first,
			tc.reads:              judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "builds wooden sailing vessels and reads hulls", sup}),
		})
		searcher := &StubSearcher{honour: true, rules: []searchRule{{contains: "wooden sailing", results: []pipeline.SearchResult{src}}}}
		res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: shipwrightStatement})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Claims) != 2 || res.Claims[0].Verdict != tc.firstVerdict {
			t.Fatalf("%s: the plan's claims were not checked as scripted: %+v", tc.name, res.Claims)
		}
		judged := judgePromptsOf(model, tc.reads)
		got := slices.ContainsFunc(judged, func(p string) bool { return strings.Contains(p, tc.srcText) })
		if got != tc.given {
			t.Errorf("%s: claim 2 given the boatwright page = %v, want %v (%d prompts)", tc.name, got, tc.given, len(judged))
		}
		if c := res.Claims[1]; tc.given && c.Verdict != pipeline.VerdictSupported {
			t.Errorf("%s: claim 2 = %s: %s", tc.name, c.Verdict, c.Reason)
		}
		for _, p := range judged {
			if strings.Contains(p, shipwrightStatement) || strings.Contains(p, shipwrightBuildsClaim) {
				t.Errorf("%s: claim 2's prompt holds the statement or claim 1's text:\n%s", tc.name, p)
			}
		}
	}
}
