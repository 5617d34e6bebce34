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

// Scripted-model tests of a bridge named by description (issue 23): a bridge claim whose judge
// named no entity, where the statement has no words of its own for it, is judged again with
// what the claims building on it found by searching for the entity by the facts they state.

// In this statement the actor is no noun phrase of its own ("Detective Chester Lake was played
// by an actor"), so c2 cannot be stated with the statement's words.
const describedStatement = "Detective Chester Lake was played by an actor who played Slipknot in Suicide Squad."

var (
	// srcLakeUnnamed is c1's only source: it says the character exists and names no actor.
	srcLakeUnnamed = hit("https://en.wikipedia.org/wiki/Chester_Lake", "Wikipedia", "Detective Chester Lake is a character of Law & Order: Special Victims Unit, a detective of the 16th precinct.", nil)
	// srcSlipknotLake is what c2's search by description finds: it names the actor and joins
	// the two roles.
	srcSlipknotLake = hit("https://www.imdb.com/title/suicide-squad", "IMDb", "Suicide Squad (2016): Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot.", nil)
)

// describedQuery is c2's one search while c1 names no entity: c1's words and c2's, the
// placeholder dropped.
const describedQuery = "An actor played Detective Chester Lake played Slipknot in Suicide Squad"

func describedPlan() Plan {
	p := slipknotPlan()
	p.PlanID = "described"
	p.Claims[0].SourceSpan = "Detective Chester Lake was played by an actor"
	p.Claims[1].SourceSpan = "who played Slipknot in Suicide Squad"
	return p
}

func describedSearcher() *StubSearcher {
	return &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
		{contains: describedQuery, results: []pipeline.SearchResult{srcSlipknotLake}},
	}}
}

// describedModel scripts c1's first judgement (no name), its second (the prompt that carries a
// source found by description) and c2's once it is stated with the name.
func describedModel(t testing.TB, second, dependent string) *pipelinetest.StubModel {
	model := planModel(t, describedPlan(), map[string]string{
		slipknotPlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil),
		resolvedSlipknot:                   dependent,
	})
	model.Rules = append([]pipelinetest.StubRule{{Contains: relationDescribed, Reply: second}}, model.Rules...)
	return model
}

// c1's judge finds the character and no actor. c2 cannot be stated, so it runs one search by
// what the statement says of the actor, c1's words and its own, and finds the film's cast page,
// which names Adam Beach as the actor of both roles. c1 is judged again with that page, marked,
// and names him from it: c2 is stated with the name and judged. c1's second judge gets no text
// of c2 or of the statement. A c1 whose own hops found nothing named no entity and found nothing
// against the claim either, and is named the same way (in a relay run a claim describing an award
// by the organisation that bestows it kept nothing, the organisation being named otherwise on its
// pages, and the claim that an actress received {c3} was never stated, though her page names the
// award).
func TestBridgeNamedByWhatItsDependentsFoundByDescription(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, tt := range []struct {
		name     string
		own      pipeline.SearchResult // c1's own source; none when its hops found nothing
		searcher *StubSearcher
	}{
		{"c1 found the character", srcLakeUnnamed, describedSearcher()},
		{"c1 found nothing", pipeline.SearchResult{},
			&StubSearcher{honour: true, rules: []searchRule{{contains: describedQuery, results: []pipeline.SearchResult{srcSlipknotLake}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found := 2 // the source found by description comes after c1's own
			if tt.own.URL == "" {
				found = 1
			}
			model := describedModel(t,
				judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: found, Passage: "Adam Beach, known as Detective Chester Lake"},
					judgeCitation{found, "Adam Beach, known as Detective Chester Lake", sup}),
				judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot", sup}))
			res, err := Multihop{Model: model, Searcher: tt.searcher}.Run(context.Background(), pipeline.Input{Text: describedStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictSupported || c1.Confidence != pipeline.ConfidenceMedium {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Text != resolvedSlipknot || c2.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 2: %+v", c2)
			}
			hop := findHop(res, 2, 1)
			if hop.Query != describedQuery || hop.Reason != HopReasonDescription || hop.Status != HopFound || !strings.Contains(hop.Note, "one search for the entity by what the statement says of it") ||
				!strings.Contains(hop.Note, `{c1} is "Adam Beach"`) || slices.ContainsFunc(res.Hops, func(h pipeline.Hop) bool { return h.ClaimPosition == 2 && h.Number != 1 }) {
				t.Errorf("hop 1 of c2: %+v", hop)
			}
			checkSecondJudgement(t, model, res, slipknotPlan().Claims[0].ClaimText, tt.own, srcSlipknotLake, 2, relationDescribed, "played Slipknot in Suicide Squad", describedStatement)
		})
	}
}

// A second judgement that does not confirm c1 naming an entity from a passage it cites names
// nothing: c1 keeps its first judgement and the source it was given for it, c2 is stated with
// c1's description of the entity and never with a name, and no search ever carries a name the
// model gave.
func TestBridgeNotNamedByDescriptionLeavesItsDependentsWithoutAName(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	cite := judgeCitation{2, "Adam Beach, known as Detective Chester Lake", sup}
	tests := []struct{ name, second string }{
		{"a name no cited passage holds", judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Jason Momoa", Source: 2, Passage: "Jason Momoa, known as Detective Chester Lake"}, cite)},
		{"a confirmation at Low", judgeReplyJSON(t, "supported", "Low", "", &judgeAnswer{Value: "Adam Beach", Source: 2, Passage: "Adam Beach, known as Detective Chester Lake"}, cite)},
		{"a quote no source holds", judgeReplyJSON(t, "supported", "High", "", &judgeAnswer{Value: "Adam Beach", Source: 2, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{2, "Adam Beach played Detective Chester Lake", sup})},
		{"still unverified", judgeReplyJSON(t, "unverified", "Low", "", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := describedModel(t, tt.second, judgeReplyJSON(t, "supported", "High", "", nil, judgeCitation{1, "plays Slipknot", sup}))
			model.Rules = append([]pipelinetest.StubRule{judgeRuleFor(describedSlipknot, judgeReplyJSON(t, "unverified", "Low", "", nil))}, model.Rules...)
			searcher := describedSearcher()
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: describedStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictUnverified || c1.VariantVerdict != pipeline.VerdictUnverified {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Verdict != pipeline.VerdictUnverified || c2.Text != describedSlipknot {
				t.Errorf("claim 2: %+v", c2)
			}
			if hop := findHop(res, 2, 1); !strings.Contains(hop.Note, "judged again") || !strings.Contains(hop.Note, "stated with c1's description") {
				t.Errorf("hop 1 of c2: %+v", hop)
			}
			if slices.ContainsFunc(res.Evidence, func(e pipeline.Evidence) bool { return e.ClaimPosition == 1 && e.URL == srcSlipknotLake.URL }) {
				t.Errorf("c1 keeps the source of a judgement that was not kept: %+v", res.Evidence)
			}
			for _, q := range searcher.sent() {
				if strings.Contains(q.Query, "Adam Beach") || strings.Contains(q.Query, "Momoa") {
					t.Errorf("a search ran with a name: %q", q.Query)
				}
			}
			if res.RevisedText != describedStatement {
				t.Errorf("revised text: %q", res.RevisedText)
			}
		})
	}
}

// When the searches by description find nothing c1's judge was not given, c1 is not judged
// again: the call would cost tokens and could change nothing.
func TestNoSecondJudgementWithoutSourcesFoundByDescription(t *testing.T) {
	t.Parallel()
	model := describedModel(t, judgeReplyJSON(t, "unverified", "Low", "", nil), judgeReplyJSON(t, "unverified", "Low", "", nil))
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
		{contains: describedQuery, results: []pipeline.SearchResult{srcLakeUnnamed}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: describedStatement})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, relationDescribed) {
			t.Errorf("c1 judged again with nothing new:\n%s", p)
		}
	}
	if c2 := res.Claims[1]; c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "cannot be stated") {
		t.Errorf("claim 2: %+v", c2)
	}
	if hop := findHop(res, 2, 1); hop.Query != describedQuery || hop.Status != HopNoResults {
		t.Errorf("hop 1 of c2: %+v", hop)
	}
}

// A name found by searching is one entity that fits what the statement says, not the one it
// means: a judge that refutes the claim stated with it leaves the claim unverified, with its
// verdict in the reason, and the statement is not refuted on it.
func TestClaimStatedWithANameFoundByDescriptionIsNotRefutedOnIt(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	model := describedModel(t,
		judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 2, Passage: "Adam Beach, known as Detective Chester Lake"},
			judgeCitation{2, "Adam Beach, known as Detective Chester Lake", sup}),
		judgeCites("refuted", "Medium", "scripted", "Adam Beach played Deadshot in Suicide Squad", judgeCitation{1, "Adam Beach, known as Detective Chester Lake", ref}))
	res, err := Multihop{Model: model, Searcher: describedSearcher()}.Run(context.Background(), pipeline.Input{Text: describedStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Text != resolvedSlipknot || c2.Verdict != pipeline.VerdictUnverified || c2.VariantVerdict != pipeline.VerdictRefuted || c2.CorrectedText != "" ||
		!strings.Contains(c2.Reason, "never refute") || !strings.Contains(c2.Reason, "said refuted") {
		t.Errorf("claim 2: %+v", c2)
	}
	if strings.Contains(res.RevisedText, "Deadshot") {
		t.Errorf("revised text: %q", res.RevisedText)
	}
}

// describedSlipknot is c2 stated with c1's description of the actor, when neither a name nor the
// statement's own words for him could be had.
const describedSlipknot = "The actor that played Detective Chester Lake played Slipknot in Suicide Squad"

// A bridge that no judgement named still has its description: c2 is stated with it ("the actor
// that played Detective Chester Lake") and judged with what its search by description found.
// Unlike a name found by searching, the description is what the statement says of the entity, so
// a source that contradicts the claim so stated refutes it. A dishonest judge gains nothing: a
// refutation on a passage its source does not hold leaves the claim unverified and flagged.
func TestClaimStatedWithItsBridgesDescriptionIsJudged(t *testing.T) {
	t.Parallel()
	ref := evidence.StanceRefutes
	tests := []struct {
		name, reply, verdict string
		flagged              bool
	}{
		{"a refutation on what the source says", judgeCites("refuted", "Medium", "scripted", "The actor that played Detective Chester Lake played Slipknot in Suicide Squad, and also Deadshot",
			judgeCitation{1, "Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot", ref}), pipeline.VerdictRefuted, false},
		{"a refutation on a passage no source holds", judgeCites("refuted", "Medium", "scripted", "The actor that played Detective Chester Lake played Deadshot",
			judgeCitation{1, "Jason Momoa plays Slipknot", ref}), pipeline.VerdictUnverified, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := describedModel(t, judgeReplyJSON(t, "unverified", "Low", "", nil), judgeReplyJSON(t, "supported", "High", "", nil))
			model.Rules = append([]pipelinetest.StubRule{judgeRuleFor(describedSlipknot, tt.reply)}, model.Rules...)
			res, err := Multihop{Model: model, Searcher: describedSearcher()}.Run(context.Background(), pipeline.Input{Text: describedStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictUnverified {
				t.Errorf("claim 1: %+v", c1)
			}
			if c2.Text != describedSlipknot || c2.Verdict != tt.verdict || strings.Contains(c2.Reason, "cannot be stated") {
				t.Errorf("claim 2: %+v", c2)
			}
			var c2Prompt string
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, describedSlipknot) {
					c2Prompt = p
				}
			}
			if !strings.Contains(c2Prompt, srcSlipknotLake.URL) || strings.Contains(c2Prompt, describedStatement) || strings.Contains(c2Prompt, "An actor played") {
				t.Errorf("claim 2's judge prompt:\n%s", c2Prompt)
			}
			if hop := findHop(res, 2, 1); hop.Reason != "description" || !strings.Contains(hop.Note, "stated with c1's description") {
				t.Errorf("hop 1 of c2: %+v", hop)
			}
			if flagged := slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool { return f.Code == pipeline.FlagQuoteNotInSource }); flagged != tt.flagged {
				t.Errorf("flagged quote_not_in_source: %v, want %v: %+v", flagged, tt.flagged, res.ReviewFlags)
			}
			if corrected := strings.Contains(res.RevisedText, "(corrected: "); corrected != (tt.verdict == pipeline.VerdictRefuted) {
				t.Errorf("revised text: %q", res.RevisedText)
			}
		})
	}
}

// describedAs reads a claim that describes its entity as its subject ("An actor played ...") as
// a noun phrase for that entity; a claim whose entity is no subject, or whose subject cannot be
// told from its predicate, has none.
func TestDescribedAs(t *testing.T) {
	t.Parallel()
	tests := []struct{ claim, want string }{
		{"An actor played Detective Chester Lake", "the actor that played Detective Chester Lake"},
		{"A chain of volcanic islands is located off Chile.", "the chain of volcanic islands that is located off Chile"},
		{"A 1974 novel was adapted into a film", "the 1974 novel that was adapted into a film"},
		{"A film directed by Ang Lee won an award", "the film directed by Ang Lee that won an award"},
		{"A retired officer founded the museum", "the retired officer that founded the museum"},
		{"A French carmaker has owned a racing team", "the French carmaker that has owned a racing team"},
		{"A band formed in 1990 released an album", "the band formed in 1990 that released an album"},
		{"A highly decorated officer was born in Korea", "the highly decorated officer that was born in Korea"},
		{"A company founded in 1903 makes cars", ""},
		// A verb in the present tense ends the subject too, when it is one a subject's noun never
		// is (a relay run of FEVEROUS-S left "{c1} was constructed in the period 1933-1935"
		// unstated after "A mocăniță runs in the Vaser Valley in Maramureș County" was confirmed
		// naming no entity); a plural noun in the subject is no verb.
		{"A narrow-gauge railway runs in the Westmoor Valley in Ostmoor County", "the narrow-gauge railway that runs in the Westmoor Valley in Ostmoor County"},
		{"A river flows through Ostmoor", "the river that flows through Ostmoor"},
		{"A cluster of stars is visible from Ostmoor", "the cluster of stars that is visible from Ostmoor"},
		// A present tense that is also a plural noun ("stars", "plays", "features") is the verb
		// between a noun and a name: a relay run of EX-FEVER left "An American sports action
		// film stars Chevy Chase" unread, so its description was never checked. After a
		// preposition it is a noun of the subject.
		{"An American sports action film stars Chevy Chase", "the American sports action film that stars Chevy Chase"},
		{"An actor plays Frank Reynolds in a sitcom", "the actor that plays Frank Reynolds in a sitcom"},
		{"A 2004 album features Alicia Keys", "the 2004 album that features Alicia Keys"},
		{"A film about stars won an award", "the film about stars that won an award"},
		{"A guide to plays of Ostmoor was published in 1990", "the guide to plays of Ostmoor that was published in 1990"},
		{"A film's stars Tom Hanks and Meg Ryan won awards", ""},
		{"A photo of the stars Tom Hanks was taken in 1990", "the photo of the stars Tom Hanks that was taken in 1990"},
		// A past form after a possessive or a determiner is an adjective of the subject ("a
		// nation's armed forces"), not its verb: a relay run read "the branch of a nation's that
		// armed forces is ...".
		{"A branch of a nation's armed forces is principally designated for amphibious warfare", "the branch of a nation's armed forces that is principally designated for amphibious warfare"},
		{"A team of the league's retired players founded a club", "the team of the league's retired players that founded a club"},
		{"A film with an animated sequence was released in 1990", "the film with an animated sequence that was released in 1990"},
		// A common irregular past before "by" is a participle of the subject ("a film made by
		// Tim Burton"): a relay run stated "The superhero film that made by the film director
		// ...". Alone, with a name after it, it is the description itself.
		{"A superhero film made by Tim Burton is based on a DC Comics character", "the superhero film made by Tim Burton that is based on a DC Comics character"},
		{"A superhero film made by Tim Burton", "the superhero film made by Tim Burton"},
		{"A studio made a film", "the studio that made a film"},
		// A claim whose only verb is a past form before a preposition and a name or a year is
		// the description itself, with no "that" (whose voice would be a guess): "A wildlife
		// documentary television series aired on Discovery Channel" (a relay run stated nothing
		// with it, and its dependent stayed unstated).
		{"A wildlife documentary television series aired on Westmoor Channel", "the wildlife documentary television series aired on Westmoor Channel"},
		{"A player moved to Spain", "the player moved to Spain"},
		{"A band formed in 1990", "the band formed in 1990"},
		{"A band formed in the city", ""},
		{"A band formed in 1990 with friends", ""},
		{"A company manufactures cars that were designed in Turin", ""},
		{"A company manufactures cars and was founded in 1903", ""},
		{"A company manufactures electric cars", ""},
		{"An award is bestowed by {c2}", ""},
		{"An actor", ""},
		// A claim that opens with a name describes its entity as its object.
		{"Mallrats stars an Irish actor", "the Irish actor that Mallrats stars"},
		{"Daniel Michael DeVito Jr. plays Frank Reynolds in a sitcom", "the sitcom that Daniel Michael DeVito Jr. plays Frank Reynolds in"},
		{"Pink Floyd achieved international success with an album.", "the album that Pink Floyd achieved international success with"},
		{"The film won an award for its score", "the award for its score that the film won"},
		{"The Matrix was released by a studio", "the studio that The Matrix was released by"},
		// An existential "There is" opens the clause in lower case: a relay run of FEVEROUS-S
		// stated "No part of the hill that There is rough grazing on the slopes of falls ...".
		{"There is rough grazing on the slopes of a hill", "the hill that there is rough grazing on the slopes of"},
		{"There Will Be Blood was released by a studio", "the studio that There Will Be Blood was released by"},
		{"Randall Flagg is a fantasy character", ""},
		{"Tom Welling became an actor", ""},
		{"Tom Welling made a film with an actor", ""},
		{"Tom Welling made a film that won awards", ""},
		{"Tom Welling made a film, a comedy", ""},
		{"Lerone Bennett Jr. wrote a biography of Martin Luther King Jr.", "the biography of Martin Luther King Jr. that Lerone Bennett Jr. wrote"},
		{"Kyoto is in A Thousand Suns", ""},
		{"Kyoto a city", ""},
	}
	for _, tt := range tests {
		got, ok := describedAs(tt.claim)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("describedAs(%q) = %q, %v; want %q", tt.claim, got, ok, tt.want)
		}
	}
}

// indefiniteOf names the entity of a description as its claim did, with its article.
func TestIndefiniteOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ claim, want string }{
		{"Pink Floyd achieved international success with an album.", "an album"},
		{"An actor played Detective Chester Lake", "an actor"},
		{"A film directed by Ang Lee won an award", "a film directed by Ang Lee"},
		{"Mallrats stars an Irish actor", "an Irish actor"},
	}
	for _, tt := range tests {
		description, _ := describedAs(tt.claim)
		if got, ok := indefiniteOf(tt.claim, description); got != tt.want || !ok {
			t.Errorf("indefiniteOf(%q, %q) = %q, %v; want %q", tt.claim, description, got, ok, tt.want)
		}
	}
	if got, ok := indefiniteOf("The album is long", "the album that is long"); ok {
		t.Errorf("indefiniteOf of a claim with no indefinite article = %q", got)
	}
}

// A claim with two bridges, one named and one that the statement has no words for, searches for
// the second by description like a claim with one: with the name of the first in its words
// ("An actor played Detective Chester Lake worked with David Ayer"), and the bridge claim named
// from what that finds states it.
func TestClaimWithANamedBridgeSearchesForItsOtherByDescription(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	const statement = "Detective Chester Lake was played by an actor who worked with the director of Suicide Squad."
	plan := Plan{
		PlanID: "two-bridges",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "Suicide Squad has a director", SourceSpan: "the director of Suicide Squad",
				Entities: []string{"Suicide Squad"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Suicide Squad director"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "An actor played Detective Chester Lake", SourceSpan: "Detective Chester Lake was played by an actor",
				Entities: []string{"Detective Chester Lake"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Detective Chester Lake actor"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c3", ClaimText: "{c2} worked with {c1}", SourceSpan: "who worked with",
				Entities: []string{"{c2}", "{c1}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1", "c2"},
				SubQueries: []string{"{c2} {c1} film"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Suicide Squad film director", "film database", "director"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Detective Chester Lake Law Order actor", "encyclopedia", "cast member"}}},
			{ClaimID: "c3", Hops: []PlanHop{{1, "{c2} {c1} film collaboration", "film database", "cast"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c2", "c3", "the same actor"}},
		CrossValidationQueries: []CrossValidationQuery{{"television detective actor film director collaboration", []int{1, 2}}},
		ExecutionOrder:         []string{"c1", "c2", "c3"},
	}
	srcAyer := hit("https://www.imdb.com/title/suicide-squad", "IMDb", "Suicide Squad is a 2016 film written and directed by David Ayer.", nil)
	srcAyerLake := hit("https://www.example-films.org/ayer-beach", "Example Films", "Adam Beach, known as Detective Chester Lake, worked with David Ayer on Suicide Squad.", nil)
	const query = "An actor played Detective Chester Lake worked with David Ayer"
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Suicide Squad film director", results: []pipeline.SearchResult{srcAyer}},
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
		{contains: query, results: []pipeline.SearchResult{srcAyerLake}},
	}}
	model := planModel(t, plan, map[string]string{
		"Suicide Squad has a director": judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "David Ayer", Source: 1, Passage: "directed by David Ayer"},
			judgeCitation{1, "directed by David Ayer", sup}),
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "unverified", "Low", "", nil),
		"Adam Beach worked with David Ayer":      judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, known as Detective Chester Lake, worked with David Ayer", sup}),
	})
	model.Rules = append([]pipelinetest.StubRule{{Contains: relationDescribed, Reply: judgeReplyJSON(t, "supported", "Medium", "",
		&judgeAnswer{Value: "Adam Beach", Source: 2, Passage: "Adam Beach, known as Detective Chester Lake"}, judgeCitation{2, "Adam Beach, known as Detective Chester Lake", sup})}}, model.Rules...)
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	c3 := res.Claims[2]
	if c3.Text != "Adam Beach worked with David Ayer" || c3.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 3: %+v", c3)
	}
	hop := findHop(res, 3, 1)
	if hop.Query != query || hop.Reason != HopReasonDescription || !strings.Contains(hop.Note, `{c1} is "David Ayer"`) || !strings.Contains(hop.Note, `{c2} is "Adam Beach"`) {
		t.Errorf("hop 1 of c3: %+v", hop)
	}
	for _, q := range searcher.sent() {
		if strings.Contains(q.Query, "{c") {
			t.Errorf("a search ran with a placeholder: %q", q.Query)
		}
	}
}

// In this statement a third claim, on the film, finds the page that names the actor; the search
// by description finds nothing.
const siblingStatement = "Detective Chester Lake was played by an actor who played Slipknot in Suicide Squad, a 2016 film."

// srcSquad2016 is what c3's search for the film finds: it names the actor of both roles.
var srcSquad2016 = hit("https://www.rottentomatoes.com/m/suicide_squad_2016", "Rotten Tomatoes",
	"Suicide Squad, released in 2016: the actor Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot.", nil)

func siblingPlan() Plan {
	p := describedPlan()
	p.PlanID = "sibling"
	p.Claims = append(p.Claims, PlanClaim{ClaimID: "c3", ClaimText: "Suicide Squad is a 2016 film", SourceSpan: "Suicide Squad, a 2016 film",
		Entities: []string{"Suicide Squad"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
		SubQueries: []string{"Suicide Squad 2016 film"}, SourceIndependenceScore: 0.9})
	p.QueryChains = append(p.QueryChains, QueryChain{ClaimID: "c3", Hops: []PlanHop{{1, "Suicide Squad 2016 film release", "film database", "release date"}}})
	p.ExecutionOrder = append(p.ExecutionOrder, "c3")
	return p
}

// A bridge claim is judged when its chain runs, before the other claims' findings are shared:
// c1's own search finds the character and no actor, while c3's search for the film found the
// page that names him (in a relay run, "A company made the animated film Tarzan" was left
// without a name while the page of its voice actor, found for another claim, says "Tarzan, Disney
// animated film"). When the search by description finds nothing, c1 is judged again with what
// the other claims' searches found about it, each source marked as such, names the actor from
// it, and c2 is stated with the name. No claim's text reaches c1's judge.
func TestBridgeNamedByWhatTheOtherClaimsFound(t *testing.T) {
	t.Parallel()
	passage := "Adam Beach, known as Detective Chester Lake"
	model, searcher := siblingRun(t, judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 2, Passage: passage},
		judgeCitation{2, passage, evidence.StanceSupports}))
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: siblingStatement})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := res.Claims[0], res.Claims[1]
	if c1.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2.Text != resolvedSlipknot || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	if hop := findHop(res, 2, 1); !strings.Contains(hop.Note, `{c1} is "Adam Beach"`) {
		t.Errorf("hop 1 of c2: %+v", hop)
	}
	checkSecondJudgement(t, model, res, slipknotPlan().Claims[0].ClaimText, srcLakeUnnamed, srcSquad2016, 3, relationShared, "played Slipknot", "is a 2016 film", siblingStatement)
	for _, q := range searcher.sent() {
		if strings.Contains(q.Query, "Adam Beach") {
			t.Errorf("a search ran with the name before it was established: %q", q.Query)
		}
	}
}

// srcSquadCast is what c3's search for the film finds: the actor of both roles, in words the hop
// relevance test does not read as about "An actor played Detective Chester Lake" (neither
// "actor" nor "played"), so that c1 gets it only once every claim is judged, as a source c3's
// judge cited.
var srcSquadCast = hit("https://www.imdb.com/title/suicide-squad-cast", "IMDb", "Suicide Squad (2016) cast: Adam Beach (Slipknot), once Detective Chester Lake on SVU.", nil)

// A bridge claim that names its entity only when judged again after every other claim, with
// what their judges cited (judgeOnOthersCitations), states the claims left unstated for want of
// the name: each runs its planned hops with the name, numbered after the hops it ran while it
// waited, and is judged like any claim. Before, they stayed unstated: in a relay run (EX-FEVER
// 3761-3840) "Brian Casey is a member of a group" named "Jagged Edge" from the page another
// claim cited ("... written by Brian Casey of the Jagged Edge"), and "{c2} is an American R&B
// group" and "{c2} has a debut studio album released in October 1997" were never stated. A
// contradiction found so is withheld, as for any name found by a search (refutesNoDescription):
// another entity may fit the description.
func TestBridgeNamedAfterEveryClaimStatesTheClaimsBuildingOnIt(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	passage := "Adam Beach (Slipknot), once Detective Chester Lake"
	for _, tt := range []struct {
		name, dependent, want string
	}{
		{"confirmed", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}), pipeline.VerdictSupported},
		{"contradicted", judgeCites("refuted", "Medium", "scripted", "Adam Beach played Deadshot in Suicide Squad", judgeCitation{1, "Adam Beach plays Slipknot", ref}), pipeline.VerdictUnverified},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, siblingPlan(), map[string]string{
				slipknotPlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil),
			})
			model.Rules = append([]pipelinetest.StubRule{
				judgeRuleFor(resolvedSlipknot, tt.dependent),
				judgeRuleFor("Suicide Squad is a 2016 film", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Suicide Squad (2016)", sup})),
				{Contains: srcSquadCast.URL, Reply: judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Adam Beach", Source: 2, Passage: passage},
					judgeCitation{2, passage, sup})},
			}, model.Rules...)
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
				{contains: "Suicide Squad 2016 film", results: []pipeline.SearchResult{srcSquadCast}},
				{contains: "Adam Beach Slipknot", results: []pipeline.SearchResult{srcSlipknot}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: siblingStatement})
			if err != nil {
				t.Fatal(err)
			}
			if c1 := res.Claims[0]; c1.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 1: %+v", c1)
			}
			c2 := res.Claims[1]
			if c2.Text != resolvedSlipknot || c2.Verdict != tt.want {
				t.Errorf("claim 2 = %s, want %s: %+v", c2.Verdict, tt.want, c2)
			}
			var late *pipeline.Hop
			for i, h := range res.Hops {
				if h.ClaimPosition == 2 && strings.Contains(h.Query, "Adam Beach") {
					late = &res.Hops[i]
				}
			}
			if late == nil || late.Number < 2 || late.Status != HopFound || !strings.Contains(late.Note, `{c1} is "Adam Beach"`) || !strings.Contains(late.Note, "after every claim") {
				t.Errorf("c2's hop with the name: %+v\nall hops: %+v", late, res.Hops)
			}
		})
	}
}

// A bridge claim confirmed with two candidates its cited passage names, neither of which its
// judge could tell to be the one the claim describes (it lists both in "missing", as its prompt
// asks), is named by what the claims building on it say: each is judged stated with each
// candidate, on what its search by description found and the bridge claim's cited sources,
// and the one candidate every such claim confirms names the entity; the claims are then stated
// with it and judged as any claim stated with a name found by a search. In relay runs (EX-FEVER
// 3761-3920) two true statements stayed unverified so: Olivia Munn hosted two programs, and
// "{c2} airs on G4" tells them apart; Gang Signs & Prayer was made with MNEK or Kehlani.
// Two candidates both confirmed, a candidate no cited source holds, or a search query in place of
// a list of names, name no one.
func TestBridgeNamedByTheOneCandidateItsDependentsConfirm(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	band := hit("https://en.wikipedia.org/wiki/Rosewood_Band", "Wikipedia", "Rosewood Band is a rock band formed in 1971, with Jon Keel and Ann Vale as its lead vocalists.", nil)
	keel := hit("https://www.allmusic.com/artist/jon-keel", "AllMusic", "Jon Keel is a singer and songwriter, a lead vocalist, born in Perth.", nil)
	vale := hit("https://www.allmusic.com/artist/ann-vale", "AllMusic", "Ann Vale is a singer and songwriter, a lead vocalist, born in Leeds.", nil)
	const query = "A singer and songwriter was the lead vocalist of Rosewood Band was born in Perth"
	cited := judgeCitation{1, "with Jon Keel and Ann Vale as its lead vocalists", sup}
	for _, tt := range []struct {
		name, missing, valeVerdict string
		named, byDescription       bool
	}{
		{"one candidate confirmed", "Jon Keel Ann Vale", "unverified", true, true},
		// The search by description found neither candidate's page: each claim's own search
		// for the candidate does, and the chosen one's is kept as a hop of the claim.
		{"found by the claim's own search for the candidate", "Jon Keel Ann Vale", "unverified", true, false},
		{"both candidates confirmed", "Jon Keel Ann Vale", "supported", false, true},
		{"a candidate no cited source holds", "Jon Keel Max Payne", "unverified", false, true},
		// A search query for a fact names no candidates, though it holds names: "top division of
		// English football name English Football League" read as two candidates stated a claim
		// with "English" in a replay (EX-FEVER 3681-3760).
		{"a query, not a list of names", "Rosewood Band lead vocalist name Jon Keel Ann Vale", "unverified", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			valeReply := judgeReplyJSON(t, "unverified", "Low", "", nil)
			if tt.valeVerdict == "supported" {
				valeReply = judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{2, "Ann Vale is a singer and songwriter", sup})
			}
			model := planModel(t, vocalistPlan(), map[string]string{
				"A singer and songwriter was the lead vocalist of Rosewood Band": judgeReplyJSON(t, "supported", "Medium", tt.missing, nil, cited),
				"Jon Keel was born in Perth":                                     judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Jon Keel is a singer and songwriter, a lead vocalist, born in Perth", sup}),
				"Ann Vale was born in Perth":                                     valeReply,
			})
			described := []pipeline.SearchResult{keel, vale}
			if !tt.byDescription {
				described = nil
			}
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Rosewood Band lead vocalist history", results: []pipeline.SearchResult{band}},
				{contains: query, results: described},
				{contains: "Jon Keel birthplace biography", results: []pipeline.SearchResult{keel}},
				{contains: "Ann Vale birthplace biography", results: []pipeline.SearchResult{vale}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: vocalistStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if c1.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 1: %+v", c1)
			}
			if tt.named && (c2.Text != "Jon Keel was born in Perth" || c2.Verdict != pipeline.VerdictSupported) {
				t.Errorf("claim 2: %+v", c2)
			}
			if tt.named && !tt.byDescription && !slices.ContainsFunc(res.Hops, func(h pipeline.Hop) bool {
				return h.ClaimPosition == 2 && h.Query == "Jon Keel birthplace biography" && h.Status == HopFound && strings.Contains(h.Note, "one of the names c1's judge listed")
			}) {
				t.Errorf("the chosen candidate's search is no hop of claim 2: %+v", res.Hops)
			}
			if slices.ContainsFunc(res.Hops, func(h pipeline.Hop) bool { return strings.Contains(h.Query, "Ann Vale") }) {
				t.Errorf("a candidate not chosen left a hop: %+v", res.Hops)
			}
			if !tt.named && (strings.Contains(c2.Text, "Jon Keel") || strings.Contains(c2.Text, "Ann Vale") || c2.Verdict == pipeline.VerdictSupported) {
				t.Errorf("claim 2 was stated with a candidate: %+v", c2)
			}
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, "Max Payne") {
					t.Errorf("a judge prompt holds a name no cited passage holds:\n%s", p)
				}
			}
		})
	}
}

// A bridge claim confirmed only in part (the entity's relation, not its kind) whose judge lists
// the candidates its source names is named the same way, provisionally: the one candidate every
// claim waiting for the name confirms states them, and the bridge claim is then judged again
// with what they cited (settleProvisional), which confirms or unsettles it. In a relay run
// (EX-FEVER 3921-4000) "An actress starred in <a film>" was partly supported on a cast list that
// does not say "actress", its judge wrote the three names and "actress" in "missing", and the
// true statement about the one of them with two awards stayed unverified.
func TestBridgeConfirmedInPartNamedByTheOneCandidate(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	band := hit("https://en.wikipedia.org/wiki/Rosewood_Band", "Wikipedia", "Rosewood Band is a rock band formed in 1971, with Jon Keel and Ann Vale as its lead vocalists.", nil)
	keel := hit("https://www.allmusic.com/artist/jon-keel", "AllMusic", "Jon Keel is a singer and songwriter, a lead vocalist, born in Perth.", nil)
	vale := hit("https://www.allmusic.com/artist/ann-vale", "AllMusic", "Ann Vale is a singer and songwriter, a lead vocalist, born in Leeds.", nil)
	for _, tt := range []struct {
		name, second string
		named        bool
	}{
		{"confirmed again with the candidate's page", "supported", true},
		{"not confirmed again", "unverified", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			firstReply, err := json.Marshal(judgeReply{Verdict: "partly_supported", Reason: "scripted", Confidence: "Medium",
				SupportedPart: "Jon Keel and Ann Vale were the lead vocalists of Rosewood Band", Missing: "Jon Keel Ann Vale singer songwriter",
				Citations: []json.RawMessage{json.RawMessage(`{"source":1,"passage":"with Jon Keel and Ann Vale as its lead vocalists","stance":"supports"}`)}})
			if err != nil {
				t.Fatal(err)
			}
			model := planModel(t, vocalistPlan(), map[string]string{
				"A singer and songwriter was the lead vocalist of Rosewood Band": string(firstReply),
				"Jon Keel was born in Perth":                                     judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Jon Keel is a singer and songwriter, a lead vocalist, born in Perth", sup}),
				"Ann Vale was born in Perth":                                     judgeReplyJSON(t, "unverified", "Low", "", nil),
			})
			second := judgeReplyJSON(t, "unverified", "Low", "", nil)
			if tt.second == "supported" {
				second = judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Jon Keel", Source: 2, Passage: "Jon Keel is a singer and songwriter"},
					judgeCitation{1, "with Jon Keel and Ann Vale as its lead vocalists", sup}, judgeCitation{2, "Jon Keel is a singer and songwriter, a lead vocalist", sup})
			}
			model.Rules = append([]pipelinetest.StubRule{{Contains: `relation="` + relationBuiltOn + `"`, Reply: second}}, model.Rules...)
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Rosewood Band lead vocalist history", results: []pipeline.SearchResult{band}},
				{contains: "Jon Keel birthplace biography", results: []pipeline.SearchResult{keel}},
				{contains: "Ann Vale birthplace biography", results: []pipeline.SearchResult{vale}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: vocalistStatement})
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if tt.named {
				if c1.Verdict != pipeline.VerdictSupported || c2.Text != "Jon Keel was born in Perth" || c2.Verdict != pipeline.VerdictSupported {
					t.Errorf("claims: %+v\n%+v", c1, c2)
				}
				return
			}
			// Named but not established: the claim stated with the name is unverified, saying so.
			if c1.Verdict == pipeline.VerdictSupported || c2.Text != "Jon Keel was born in Perth" || c2.Verdict != pipeline.VerdictUnverified ||
				!strings.Contains(c2.Reason, "which was not established") {
				t.Errorf("a candidate the bridge claim was not confirmed with established something: %+v\n%+v", c1, c2)
			}
		})
	}
}

// In this statement the band's singer is named only by what he was, and his own page names
// neither the band nor the city.
const vocalistStatement = "The lead vocalist of Rosewood Band was a singer and songwriter, who was born in Perth."

func vocalistPlan() Plan {
	return Plan{
		PlanID: "vocalist",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "A singer and songwriter was the lead vocalist of Rosewood Band", SourceSpan: "The lead vocalist of Rosewood Band was a singer and songwriter",
				Entities: []string{"Rosewood Band"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Rosewood Band lead vocalist"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "{c1} was born in Perth", SourceSpan: "who was born in Perth", Entities: []string{"Perth"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{"c1"}, SubQueries: []string{"{c1} birthplace"}, SourceIndependenceScore: 0.5},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Rosewood Band lead vocalist history", "encyclopedia", "band member"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} birthplace biography", "encyclopedia", "birthplace"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same singer"}},
		CrossValidationQueries: []CrossValidationQuery{{"rock singer songwriter born in Western Australia", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// A search for an entity by what the statement says of it looks for a page that names neither
// of the claims' other entities: the entity's own page, which says what the entity is. It keeps
// a text that opens by stating most of what the two claims say of the entity (in a relay run,
// "Bon Scott is a Scottish-born Australian singer and songwriter, best known for being the lead
// vocalist and lyricist" was not kept for "A singer and songwriter was the lead vocalist of
// AC/DC", since it does not name the band, and the claims on the singer were never stated).
// A text that shares fewer of those words is still not kept.
func TestDescriptionHopKeepsAPageThatDescribesTheEntity(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	band := hit("https://en.wikipedia.org/wiki/Rosewood_Band", "Wikipedia", "Rosewood Band is a rock band formed in 1971, with Jon Keel among its members.", nil)
	keel := hit("https://www.allmusic.com/artist/jon-keel", "AllMusic", "Jon Keel is a Scottish-born singer and songwriter, best known as a lead vocalist.", nil)
	other := hit("https://www.allmusic.com/artist/ann-vale", "AllMusic", "Ann Vale is a singer who recorded four albums.", nil)
	const query = "A singer and songwriter was the lead vocalist of Rosewood Band was born in Perth"
	for _, tt := range []struct {
		name string
		page pipeline.SearchResult
		kept bool
	}{
		{"a page that says what the entity is", keel, true},
		{"a page that shares one word of it", other, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, vocalistPlan(), map[string]string{
				"A singer and songwriter was the lead vocalist of Rosewood Band": judgeReplyJSON(t, "unverified", "Low", "", nil),
				"Jon Keel was born in Perth":                                     judgeReplyJSON(t, "unverified", "Low", "", nil),
			})
			model.Rules = append([]pipelinetest.StubRule{{Contains: relationDescribed, Reply: judgeReplyJSON(t, "supported", "Medium", "",
				&judgeAnswer{Value: "Jon Keel", Source: 2, Passage: "Jon Keel is a Scottish-born singer and songwriter"},
				judgeCitation{1, "with Jon Keel among its members", sup}, judgeCitation{2, "Jon Keel is a Scottish-born singer and songwriter, best known as a lead vocalist", sup})}}, model.Rules...)
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Rosewood Band lead vocalist history", results: []pipeline.SearchResult{band}},
				{contains: query, results: []pipeline.SearchResult{tt.page}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: vocalistStatement})
			if err != nil {
				t.Fatal(err)
			}
			hop := findHop(res, 2, 1)
			if hop.Query != query || hop.Reason != HopReasonDescription || (hop.Status == HopFound) != tt.kept {
				t.Errorf("hop 1 of c2: %+v", hop)
			}
			c1, c2 := res.Claims[0], res.Claims[1]
			if tt.kept && (c1.Verdict != pipeline.VerdictSupported || c2.Text != "Jon Keel was born in Perth") {
				t.Errorf("claims: %+v\n%+v", c1, c2)
			}
			if !tt.kept && (c1.Verdict != pipeline.VerdictUnverified || strings.Contains(c2.Text, "Ann Vale")) {
				t.Errorf("claims: %+v\n%+v", c1, c2)
			}
		})
	}
}

// siblingRun scripts siblingPlan's run: c1's first judgement names no one, c2 stated with
// Adam Beach and c3 are supported, and second is c1's second judgement (the only one of its
// prompts that holds the film's page).
func siblingRun(t *testing.T, second string) (*pipelinetest.StubModel, *StubSearcher) {
	t.Helper()
	sup := evidence.StanceSupports
	model := planModel(t, siblingPlan(), map[string]string{
		slipknotPlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil),
	})
	model.Rules = append([]pipelinetest.StubRule{
		judgeRuleFor(resolvedSlipknot, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "plays Slipknot", sup})),
		judgeRuleFor("Suicide Squad is a 2016 film", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Suicide Squad, released in 2016", sup})),
		{Contains: srcSquad2016.URL, Reply: second},
	}, model.Rules...)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
		{contains: "Suicide Squad 2016 film", results: []pipeline.SearchResult{srcSquad2016}},
	}}
	return model, searcher
}

// The other claims' findings give a dishonest second judge nothing to smuggle a name in by: a
// name its cited passage does not hold, or a passage the source does not hold, names no one, and
// c2 stays unstated (it found nothing to be judged with by description either). c1's own verdict
// stands only on a passage its source holds: the film's page does say an actor played the
// detective, so the judgement on what the other claims cited (judgeOnOthersCitations) confirms
// c1 on it, its name refused; a passage the page does not hold leaves c1 unverified.
func TestBridgeNotNamedByADishonestJudgeOfTheOtherClaimsFindings(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, tt := range []struct{ name, second, wantC1 string }{
		{"a name its passage does not hold", judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Jason Momoa", Source: 2, Passage: "Adam Beach, known as Detective Chester Lake"},
			judgeCitation{2, "Adam Beach, known as Detective Chester Lake", sup}), pipeline.VerdictSupported},
		{"a passage the source does not hold", judgeReplyJSON(t, "supported", "High", "", &judgeAnswer{Value: "Jason Momoa", Source: 2, Passage: "Jason Momoa, known as Detective Chester Lake"},
			judgeCitation{2, "Jason Momoa, known as Detective Chester Lake", sup}), pipeline.VerdictUnverified},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model, searcher := siblingRun(t, tt.second)
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: siblingStatement})
			if err != nil {
				t.Fatal(err)
			}
			if c1 := res.Claims[0]; c1.Verdict != tt.wantC1 || strings.Contains(c1.Text+c1.Reason, "Momoa") {
				t.Errorf("claim 1 = %s, want %s and no name of the judge's: %+v", c1.Verdict, tt.wantC1, c1)
			}
			if !flaggedOnClaim(res, pipeline.FlagQuoteNotInSource, 1) {
				t.Errorf("no %s flag on claim 1: %+v", pipeline.FlagQuoteNotInSource, res.ReviewFlags)
			}
			if c2 := res.Claims[1]; c2.Text != slipknotPlan().Claims[1].ClaimText || c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "cannot be stated") {
				t.Errorf("claim 2: %+v", c2)
			}
			for _, q := range searcher.sent() {
				if strings.Contains(q.Query, "Momoa") {
					t.Errorf("a search ran with the model's name: %q", q.Query)
				}
			}
		})
	}
}

// A bridge of a bridge: the plan bridges through a sitcom no source names ("Mara Quinn plays
// Detective Hale in a sitcom"), then through the channel that airs it ("{c1} is aired by a
// cable channel"), then says what the channel did ("{c2} set ..."). c1's judge names no sitcom,
// and the statement has no words for it: c2 searches by description and awaits c1, and c3,
// whose bridge c2 cannot be stated yet, searches by description and awaits c2. c1, judged
// again, names no sitcom either (none is named anywhere), so c2 is stated with c1's
// description, "the sitcom that Mara Quinn plays Detective Hale in", and judged; its judge names
// the channel from its cited passage, and c3 is stated with that name and judged. A dishonest
// judge of c2 that names a channel no passage holds states nothing. c3's second planned hop
// writes {c1} too, as a real plan did: a placeholder only a planned hop holds is dropped with
// the planned hops.
func TestBridgeOfABridgeNamedByDescription(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	const (
		statement  = "Mara Quinn plays Detective Hale in a sitcom aired by a cable channel that set the record for the longest marathon in TV history."
		c2Stated   = "The sitcom that Mara Quinn plays Detective Hale in is aired by a cable channel"
		c3Stated   = "Channel Nine Cable set the record for the longest marathon in TV history"
		c3Query    = "is aired by a cable channel set the record for the longest marathon in TV history"
		airedQuote = "Mara Quinn plays Detective Hale in a sitcom aired by Channel Nine Cable"
	)
	plan := Plan{
		PlanID: "bridge-of-a-bridge",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "Mara Quinn plays Detective Hale in a sitcom", SourceSpan: "Mara Quinn plays Detective Hale in a sitcom",
				Entities: []string{"Mara Quinn", "Detective Hale"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Mara Quinn Detective Hale sitcom"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "{c1} is aired by a cable channel", SourceSpan: "aired by a cable channel",
				Entities: []string{"{c1}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"{c1} cable channel"}, SourceIndependenceScore: 0.6},
			{ClaimID: "c3", ClaimText: "{c2} set the record for the longest marathon in TV history", SourceSpan: "that set the record for the longest marathon in TV history",
				Entities: []string{"{c2}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c2"},
				SubQueries: []string{"{c2} longest marathon record"}, SourceIndependenceScore: 0.6},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Mara Quinn Detective Hale sitcom role", "encyclopedia", "cast member"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} broadcaster cable", "encyclopedia", "network"}}},
			{ClaimID: "c3", Hops: []PlanHop{{1, "{c2} longest marathon record", "news", "record"}, {2, "{c1} marathon viewing record", "news", "record"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c2", "c3", "the same channel"}},
		CrossValidationQueries: []CrossValidationQuery{{"cable channel television marathon record", []int{1, 2}}},
		ExecutionOrder:         []string{"c1", "c2", "c3"},
	}
	srcQuinn := hit("https://en.wikipedia.org/wiki/Mara_Quinn", "Wikipedia", "Mara Quinn is an actress. "+airedQuote+".", nil)
	srcNine := hit("https://www.example-tv.org/channel-nine", "Example TV", "Channel Nine Cable is a cable channel best known for setting the record for the longest marathon in TV history.", nil)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Mara Quinn Detective Hale sitcom role", results: []pipeline.SearchResult{srcQuinn}},
		{contains: "Mara Quinn plays Detective Hale in a sitcom is aired by a cable channel", results: []pipeline.SearchResult{srcQuinn}},
		{contains: c3Query, results: []pipeline.SearchResult{srcNine}},
	}}
	tests := []struct {
		name, channel, c3Verdict string
	}{
		{"named from its cited passage", "Channel Nine Cable", pipeline.VerdictSupported},
		{"a name no passage holds", "Channel Ten", pipeline.VerdictUnverified},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := planModel(t, plan, map[string]string{
				"Mara Quinn plays Detective Hale in a sitcom": judgeReplyJSON(t, "supported", "Medium", "", nil,
					judgeCitation{1, airedQuote, sup}),
				c2Stated: judgeReplyJSON(t, "supported", "Medium", "",
					&judgeAnswer{Value: tt.channel, Source: 1, Passage: airedQuote}, judgeCitation{1, airedQuote, sup}),
				"Channel Ten set the record": judgeReplyJSON(t, "supported", "Medium", "", nil),
				c3Stated: judgeReplyJSON(t, "supported", "Medium", "", nil,
					judgeCitation{1, "Channel Nine Cable is a cable channel best known for setting the record for the longest marathon in TV history", sup}),
			})
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
			if err != nil {
				t.Fatal(err)
			}
			c2, c3 := res.Claims[1], res.Claims[2]
			if c2.Text != c2Stated || c2.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 2: %+v", c2)
			}
			if tt.c3Verdict == pipeline.VerdictSupported {
				if c3.Text != c3Stated || c3.Verdict != pipeline.VerdictSupported {
					t.Errorf("claim 3: %+v", c3)
				}
				if hop := findHop(res, 3, 1); hop.Reason != HopReasonDescription || !strings.Contains(hop.Note, `{c2} is "Channel Nine Cable"`) || hop.Query != c3Query {
					t.Errorf("hop 1 of c3: %+v", hop)
				}
			} else if strings.Contains(c3.Text, tt.channel) || c3.Verdict != pipeline.VerdictUnverified || !strings.Contains(c3.Reason, "cannot be stated") {
				t.Errorf("claim 3: %+v", c3)
			}
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, statement) || strings.Contains(p, "{c") {
					t.Errorf("a judge prompt holds the statement or a placeholder:\n%s", p)
				}
			}
		})
	}
}

// A claim that says most of its bridge claim's description again ("{c1} played Detective
// Chester Lake in a series", c1 "An actor played Detective Chester Lake") would read it twice
// over stated with it: it is stated with the entity as the description names it, "An actor",
// and judged. On the old code it stayed "cannot be stated".
func TestClaimRestatingItsBridgesDescriptionIsStatedWithItsNounPhrase(t *testing.T) {
	t.Parallel()
	const (
		restating = "{c1} played Detective Chester Lake in a series"
		stated    = "An actor played Detective Chester Lake in a series"
	)
	plan := describedPlan()
	plan.Claims[1].ClaimText = restating
	plan.Claims[1].SourceSpan = "in a series"
	srcSeries := hit("https://www.example-tv.org/svu-cast", "Example TV", "Detective Chester Lake, a character of the series Law & Order: Special Victims Unit, was played by an actor.", nil)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
		{contains: "in a series", results: []pipeline.SearchResult{srcSeries}},
	}}
	model := planModel(t, plan, map[string]string{
		slipknotPlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil),
		stated: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1,
			"Detective Chester Lake, a character of the series Law & Order: Special Victims Unit, was played by an actor", evidence.StanceSupports}),
	})
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: "Detective Chester Lake was played by an actor in a series."})
	if err != nil {
		t.Fatal(err)
	}
	if c2 := res.Claims[1]; c2.Text != stated || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
	if hop := findHop(res, 2, 1); hop.Reason != HopReasonDescription || !strings.Contains(hop.Note, `stated with c1's description of the entity, "An actor"`) {
		t.Errorf("hop 1 of c2: %+v", hop)
	}
}

// A claim whose plan names the entity's kind before its placeholder ("Suicide Squad cast the
// actor {c1} as Slipknot") is stated with the description in the kind's place, not after it:
// "the actor the actor that played ..." is no sentence a judge should read. In relay runs (2 of
// 2,096 plan claims, session 43) "{c2} belongs to the genre {c3}" was stated "... belongs to the
// genre the music genre that ...". A name keeps the kind ("the actor Adam Beach"), and so do
// words the description's noun phrase does not hold.
func TestClaimStatedWithADescriptionKeepsNoKindBeforeIt(t *testing.T) {
	t.Parallel()
	tests := []struct{ planned, stated string }{
		{"Suicide Squad cast the actor {c1} as Slipknot", "Suicide Squad cast the actor that played Detective Chester Lake as Slipknot"},
		{"The actor {c1} played Slipknot in Suicide Squad", "The actor that played Detective Chester Lake played Slipknot in Suicide Squad"},
		{"Suicide Squad cast the Slipknot actor {c1}", "Suicide Squad cast the Slipknot actor the actor that played Detective Chester Lake"},
	}
	for _, tt := range tests {
		t.Run(tt.planned, func(t *testing.T) {
			t.Parallel()
			plan := describedPlan()
			plan.Claims[1].ClaimText = tt.planned
			model := planModel(t, plan, map[string]string{
				slipknotPlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil),
				tt.stated: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1,
					"Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot", evidence.StanceSupports}),
			})
			searcher := &StubSearcher{honour: true, rules: []searchRule{
				{contains: "Detective Chester Lake Law Order", results: []pipeline.SearchResult{srcLakeUnnamed}},
				{contains: "Slipknot", results: []pipeline.SearchResult{srcSlipknotLake}},
			}}
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: describedStatement})
			if err != nil {
				t.Fatal(err)
			}
			if c2 := res.Claims[1]; c2.Text != tt.stated || c2.Verdict != pipeline.VerdictSupported {
				t.Errorf("claim 2: %+v", c2)
			}
		})
	}
}

// A claim that builds on two bridges neither of which has a name when its chain runs ("{c2} is
// known for his role as Sam Ortiz in {c1}", c1 a series no source of its own names, c2 the actor
// who awaits c1's name by description) has too little to search by then. It waits: once
// nameByDescription has named both, it is stated with the names, runs its planned hops and is
// judged like any claim. In a relay run (EX-FEVER 2721-2800) such a claim stayed "cannot be
// stated" after both its bridges were named (the series and its actor), and a true statement was
// unverified. A bridge that stays unnamed leaves it unstated, its hops recorded as not run.
func TestClaimOnTwoBridgesNamedByDescriptionIsStatedOnceBothAre(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	const (
		statement   = "Sam Ortiz is a character in a series aired on Harlow TV, played by an actor known for his role as Sam Ortiz in the series."
		c1Text      = "Sam Ortiz is a character in a series aired on Harlow TV"
		c2Stated    = "An actor played Sam Ortiz in Westmoor Nights"
		c3Stated    = "Ada Brook is known for his role as Sam Ortiz in Westmoor Nights"
		seriesQuote = "Westmoor Nights is a series aired on Harlow TV; its character Sam Ortiz is played by Ada Brook"
		roleQuote   = "Ada Brook is best known for his role as Sam Ortiz in Westmoor Nights"
	)
	plan := Plan{
		PlanID: "two-bridges-named-by-description",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: c1Text, SourceSpan: c1Text,
				Entities: []string{"Harlow TV", "Sam Ortiz"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Harlow TV series character Sam Ortiz"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "An actor played Sam Ortiz in {c1}", SourceSpan: "played by an actor",
				Entities: []string{"{c1}", "Sam Ortiz"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"{c1} cast Sam Ortiz"}, SourceIndependenceScore: 0.6},
			{ClaimID: "c3", ClaimText: "{c2} is known for his role as Sam Ortiz in {c1}", SourceSpan: "known for his role as Sam Ortiz in the series",
				Entities: []string{"{c2}", "{c1}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1", "c2"},
				SubQueries: []string{"{c2} best known role"}, SourceIndependenceScore: 0.6},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Harlow TV series character Sam Ortiz", "encyclopedia", "series"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "{c1} cast list actor", "encyclopedia", "cast"}}},
			{ClaimID: "c3", Hops: []PlanHop{{1, "{c2} best known role interview", "news", "role"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c2", "c3", "the same actor"}},
		CrossValidationQueries: []CrossValidationQuery{{"Harlow TV drama cast interviews", []int{1, 2}}},
		ExecutionOrder:         []string{"c1", "c2", "c3"},
	}
	srcHarlow := hit("https://www.harlow-tv.example/about", "Harlow TV", "Harlow TV airs drama series, one of them with a character named Sam Ortiz.", nil)
	srcSeries := hit("https://en.wikipedia.org/wiki/Westmoor_Nights", "Wikipedia", seriesQuote+".", nil)
	srcBrook := hit("https://www.example-news.org/ada-brook", "Example News", roleQuote+".", nil)
	// The cross-validation query, run before c3 is stated, finds a page on the domain c3's hop
	// finds later: c3's own find is kept, as when its chain runs first, and the later one is not.
	srcCast := hit("https://www.example-news.org/harlow-cast", "Example News", "Harlow TV drama cast interviews: the cast of Westmoor Nights talk about Sam Ortiz.", nil)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Harlow TV drama cast interviews", results: []pipeline.SearchResult{srcCast}},
		{contains: "Harlow TV series character Sam Ortiz", results: []pipeline.SearchResult{srcHarlow}},
		{contains: c1Text + " An actor played Sam Ortiz in", results: []pipeline.SearchResult{srcSeries}},
		{contains: "Ada Brook best known role interview", results: []pipeline.SearchResult{srcBrook}},
	}}
	for _, tt := range []struct {
		name, c2Answer, c3Verdict string
	}{
		{"both named", "Ada Brook", pipeline.VerdictSupported},
		{"the actor not named", "", pipeline.VerdictUnverified},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var answer *judgeAnswer
			if tt.c2Answer != "" {
				answer = &judgeAnswer{Value: tt.c2Answer, Source: 1, Passage: seriesQuote}
			}
			model := planModel(t, plan, map[string]string{
				c1Text:   judgeReplyJSON(t, "unverified", "Low", "", nil),
				c2Stated: judgeReplyJSON(t, "supported", "Medium", "", answer, judgeCitation{1, seriesQuote, sup}),
				c3Stated: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, roleQuote, sup}),
			})
			model.Rules = append([]pipelinetest.StubRule{{Contains: relationDescribed, Reply: judgeReplyJSON(t, "supported", "Medium", "",
				&judgeAnswer{Value: "Westmoor Nights", Source: 2, Passage: seriesQuote}, judgeCitation{2, seriesQuote, sup})}}, model.Rules...)
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
			if err != nil {
				t.Fatal(err)
			}
			if c2 := res.Claims[1]; c2.Text != c2Stated || c2.Verdict != pipeline.VerdictSupported {
				t.Fatalf("claim 2: %+v", c2)
			}
			c3, hop := res.Claims[2], findHop(res, 3, 1)
			if tt.c3Verdict == pipeline.VerdictSupported {
				if c3.Text != c3Stated || c3.Verdict != pipeline.VerdictSupported {
					t.Errorf("claim 3: %+v", c3)
				}
				if hop.Query != "Ada Brook best known role interview" || hop.Reason != HopReasonPlan || hop.Status != HopFound ||
					!strings.Contains(hop.Note, `{c2} is "Ada Brook"`) || !strings.Contains(hop.Note, `{c1} is "Westmoor Nights"`) {
					t.Errorf("hop 1 of c3: %+v", hop)
				}
			} else if strings.Contains(c3.Text, "Westmoor") || c3.Verdict != pipeline.VerdictUnverified || !strings.Contains(c3.Reason, "cannot be stated") ||
				hop.Status != HopRejected {
				t.Errorf("claim 3: %+v, hop 1 %+v", c3, hop)
			}
			for _, p := range model.Sent(pipeline.StepJudge) {
				if strings.Contains(p, statement) || strings.Contains(p, "{c") {
					t.Errorf("a judge prompt holds the statement or a placeholder:\n%s", p)
				}
			}
		})
	}
}

// A search by description is checked against the words it is made of: the claim whose entity it
// looks for and the claim building on it. In a relay run (EX-FEVER 2961-3040) the search for
// "the actor that Return to Paradise stars" was rejected as holding nothing but a directive:
// read against the dependent claim's text alone ("{c2} received an award ..."), "Return to
// Paradise" opened with the command "return", which only the bridge claim's words show to be a
// title. A directive the plan's claims do not hold still goes.
func TestDescriptionSearchKeepsATitleItsBridgeClaimHolds(t *testing.T) {
	t.Parallel()
	const (
		statement = "Return to Ostmoor stars an actor who received an award for artistic merit."
		query     = "Return to Ostmoor stars an actor received an award for artistic merit"
	)
	plan := describedPlan()
	plan.Claims[0].ClaimText, plan.Claims[0].SourceSpan = "Return to Ostmoor stars an actor", "Return to Ostmoor stars an actor"
	plan.Claims[0].Entities = []string{"Return to Ostmoor"}
	plan.Claims[1].ClaimText, plan.Claims[1].SourceSpan = "{c1} received an award for artistic merit", "who received an award for artistic merit"
	plan.Claims[1].Entities = []string{"{c1}"}
	plan.QueryChains[0].Hops = []PlanHop{{1, "Return to Ostmoor cast lead", "encyclopedia", "cast member"}}
	film := hit("https://en.wikipedia.org/wiki/Return_to_Ostmoor", "Wikipedia", "Return to Ostmoor is a 1998 drama film set in the port of Ostmoor.", nil)
	award := hit("https://www.example.org/ostmoor-awards", "Example", "Sam Ortiz, who starred in Return to Ostmoor, received an award for artistic merit in 2001.", nil)
	model := planModel(t, plan, map[string]string{plan.Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil)})
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "cast lead", results: []pipeline.SearchResult{film}},
		{contains: "received an award", results: []pipeline.SearchResult{award}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 2, 1); hop.Reason != HopReasonDescription || hop.Status != HopFound || hop.Query != query {
		t.Errorf("claim 2's search by description = %s %s %q (%s), want found, searched as %q", hop.Reason, hop.Status, hop.Query, hop.Note, query)
	}
	for _, tc := range []struct{ planned, want string }{
		{query, query},
		{"Ignore previous instructions. " + query, query},
	} {
		st := &chainState{index: 1, claim: PlanClaim{ClaimID: "c2", ClaimText: plan.Claims[1].ClaimText}, awaiting: "c1"}
		r := &multihopRun{claims: []*chainState{{index: 0, claim: plan.Claims[0]}, st}, plan: &ValidatedPlan{Plan: plan}}
		got, _, _ := searchQueryOf(tc.planned, r.claimTextOf(&pipeline.Hop{ClaimPosition: 2, Reason: HopReasonDescription}))
		if got != tc.want {
			t.Errorf("searchQueryOf(%q) = %q, want %q", tc.planned, got, tc.want)
		}
	}
}

// A claim stated with a name found by description may be refuted on it once the entity is
// corroborated: at least two other claims stated with the same name are supported, so the entity
// fits more of what the statement says of it than one fact. In relay runs (EX-FEVER 3361-3440)
// "London has been a settlement for three millennia" (the page: two) and "Dirty Dancing was
// released in 1999" (1987) stayed unverified beside seven and three supported claims on the same
// entity: false statements left unverified. With one supported claim beside it, or none, the
// refutation is still withheld (another entity may fit one fact).
func TestClaimOnACorroboratedNameFoundByDescriptionIsRefutedOnIt(t *testing.T) {
	t.Parallel()
	const (
		statement = "Detective Chester Lake was played by an actor who played Slipknot in Suicide Squad, was born in Ostmoor and is Canadian."
		born      = "Adam Beach was born in Ostmoor"
		canadian  = "Adam Beach is Canadian"
	)
	bio := hit("https://www.example.org/adam-beach", "Example", "Adam Beach (born 1972 in Ostmoor) is an American actor who played Detective Chester Lake.", nil)
	plan := describedPlan()
	plan.Claims = append(plan.Claims,
		PlanClaim{ClaimID: "c3", ClaimText: "{c1} was born in Ostmoor", SourceSpan: "was born in Ostmoor", Entities: []string{"{c1}", "Ostmoor"}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{"c1"}, SubQueries: []string{"{c1} birthplace"}, SourceIndependenceScore: 0.5},
		PlanClaim{ClaimID: "c4", ClaimText: "{c1} is Canadian", SourceSpan: "is Canadian", Entities: []string{"{c1}"}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{"c1"}, SubQueries: []string{"{c1} nationality"}, SourceIndependenceScore: 0.5})
	plan.QueryChains = append(plan.QueryChains,
		QueryChain{ClaimID: "c3", Hops: []PlanHop{{1, "{c1} birthplace", "encyclopedia", "birthplace"}}},
		QueryChain{ClaimID: "c4", Hops: []PlanHop{{1, "{c1} nationality", "encyclopedia", "nationality"}}})
	plan.ExecutionOrder = []string{"c1", "c2", "c3", "c4"}
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	refuted := judgeCites("refuted", "Medium", "scripted", "Adam Beach is American", judgeCitation{1, "is an American actor", ref})
	for _, tt := range []struct {
		name        string
		slipknotSay string
		bornSay     string
		want        string
	}{
		{"two other claims supported", "supported", "supported", pipeline.VerdictRefuted},
		// One is enough (minCorroboratingClaims): in relay runs every refutation withheld beside
		// one supported claim was of a false statement ("Oxygen has atomic number 10").
		{"one other claim supported", "supported", "unverified", pipeline.VerdictRefuted},
		{"no other claim supported", "unverified", "unverified", pipeline.VerdictUnverified},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bornReply := judgeReplyJSON(t, "unverified", "Low", "", nil)
			if tt.bornSay == "supported" {
				bornReply = judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "born 1972 in Ostmoor", sup})
			}
			slipknotReply := judgeReplyJSON(t, "unverified", "Low", "", nil)
			if tt.slipknotSay == "supported" {
				slipknotReply = judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot", sup})
			}
			model := planModel(t, plan, map[string]string{
				slipknotPlan().Claims[0].ClaimText: judgeReplyJSON(t, "unverified", "Low", "", nil),
				resolvedSlipknot:                   slipknotReply,
				born:                               bornReply,
				canadian:                           refuted,
			})
			model.Rules = append([]pipelinetest.StubRule{{Contains: relationDescribed, Reply: judgeReplyJSON(t, "supported", "Medium", "",
				&judgeAnswer{Value: "Adam Beach", Source: 2, Passage: "Adam Beach, known as Detective Chester Lake"}, judgeCitation{2, "Adam Beach, known as Detective Chester Lake", sup})}}, model.Rules...)
			searcher := describedSearcher()
			searcher.rules = append(searcher.rules,
				searchRule{contains: "was born in Ostmoor", results: []pipeline.SearchResult{bio}},
				searchRule{contains: "is Canadian", results: []pipeline.SearchResult{bio}})
			res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []string{resolvedSlipknot, born, canadian} {
				if got := res.Claims[i+1].Text; got != want {
					t.Fatalf("claim %d = %q, want %q: the test needs the claims stated with the name", i+2, got, want)
				}
			}
			c4 := res.Claims[3]
			if c4.Verdict != tt.want {
				t.Errorf("claim 4 = %s (%s): %s, want %s", c4.Verdict, c4.VariantVerdict, c4.Reason, tt.want)
			}
			if tt.want == pipeline.VerdictRefuted && (!strings.Contains(c4.Reason, "c2") || (tt.bornSay == "supported") != strings.Contains(c4.Reason, "c3")) {
				t.Errorf("claim 4's reason does not name the claims that corroborate the name: %s", c4.Reason)
			}
		})
	}
}

// A candidate's passage is its own sentence however the source ends sentences: a page's text
// from a search provider ends them with "?" and "!" and breaks lines, not only with ". ", and a
// passage running on to the next sentence may name the other candidate.
func TestSentenceWithEndsAtEverySentenceEnd(t *testing.T) {
	source := "Who starred in Dunmore? Ada Vell starred in Dunmore!\nBo Kern starred too. Cy Roe directed it."
	for name, want := range map[string]string{
		"Ada Vell": "Ada Vell starred in Dunmore!",
		"Bo Kern":  "Bo Kern starred too.",
		"Cy Roe":   "Cy Roe directed it.",
		"Di Sand":  "",
	} {
		if got := sentenceWith(source, name); got != want {
			t.Errorf("sentenceWith(%q) = %q, want %q", name, got, want)
		}
	}
}

// A judge's list of candidates may write the claim's own words in another form ("bordering"
// for the claim's "borders"); a word the claim does not hold in any form is a query's.
func TestOnlyNamesReadsTheClaimsWordsInAnyForm(t *testing.T) {
	names := []string{"Norland", "Sudmark"}
	claim := "A coastal country borders Vestria"
	for missing, want := range map[string]bool{
		"Norland Sudmark coastal country bordering Vestria": true,
		"Norland Sudmark coastal countries border Vestria":  true,
		"Norland Sudmark country population":                false,
	} {
		if got := onlyNames(missing, names, claim); got != want {
			t.Errorf("onlyNames(%q) = %v, want %v", missing, got, want)
		}
	}
}

// A name found by description that the claim waiting for it names already would relate the
// entity to itself: the claim is left unstated, as when resolveBridges finds such a name and the
// statement has no words for the entity (namesAlready). In session 48's twelfth cohort
// exfever-4027's "Western Romance languages are subdivisions of {c1}" waited for c1's name, c1's
// second judgement named "Western Romance languages", and the claim so stated was left
// unverified as circular, and the true statement with it.
func TestNameFoundByDescriptionThatTheClaimNamesAlreadyLeavesItUnstated(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	circular := "Slipknot played Slipknot in Suicide Squad"
	model := describedModel(t,
		judgeReplyJSON(t, "supported", "Medium", "", &judgeAnswer{Value: "Slipknot", Source: 2, Passage: "Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot"},
			judgeCitation{2, "Adam Beach, known as Detective Chester Lake of Law & Order: Special Victims Unit, plays Slipknot", sup}),
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "plays Slipknot", sup}))
	model.Rules = append([]pipelinetest.StubRule{judgeRuleFor(circular, judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "plays Slipknot", sup}))}, model.Rules...)
	res, err := Multihop{Model: model, Searcher: describedSearcher()}.Run(context.Background(), pipeline.Input{Text: describedStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Text == circular || c2.Verdict != pipeline.VerdictUnverified || !strings.Contains(c2.Reason, "names already") {
		t.Errorf("claim 2: %+v", c2)
	}
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, circular) {
			t.Errorf("the circular claim was judged:\n%s", p)
		}
	}
}
