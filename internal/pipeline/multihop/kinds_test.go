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

func page(title, snippet string) evidence.Retrieved {
	return evidence.Retrieved{SearchResult: pipeline.SearchResult{URL: "https://example.org/" + strings.ReplaceAll(title, " ", "_"), Title: title, Snippet: snippet}}
}

// A source that defines a kind of thing ("A tide agency is ...") is paired with a source that
// says something is one ("... is a national tide agency"): the judge is told which sources read
// together, by their numbers only.
func TestDefinedKinds(t *testing.T) {
	t.Parallel()
	institute := page("Ostmoor Institute", "The Ostmoor Institute is a national tide agency founded in 1871.")
	agency := page("Tide agency", "A tide agency is a government agency responsible for the collection of tide records.")
	agencies := page("Harbour history", "Ostmoor and Westmoor are tide agencies of the coast.")
	mention := page("Harbour history", "Tide agencies were set up in every port.")
	disc := page("Glass disc", "An etched glass disc is a flat circular plate that stores images.")
	plate := page("Ostmoor plate", "The Ostmoor plate is an etched glass disc made in 1903.")
	named := page("Ostmoor Lighthouse", "The Ostmoor Lighthouse is a tower on the dunes.")
	long := page("Wordy", "A very long and winding name of a thing is not read as a kind.")
	const records = "The Ostmoor Institute is responsible for the collection of tide records"
	for _, tc := range []struct {
		name, claim string
		given       []evidence.Retrieved
		want        []kindDefinition
	}{
		{"a definition and a member", records, []evidence.Retrieved{institute, agency}, []kindDefinition{{definition: 2, member: 1}}},
		{"the member after the definition", records, []evidence.Retrieved{agency, institute}, []kindDefinition{{definition: 1, member: 2}}},
		{"a plural names the kind too", "Ostmoor is responsible for the collection of tide records", []evidence.Retrieved{agency, agencies}, []kindDefinition{{definition: 1, member: 2}}},
		{"two pairs", "The Ostmoor plate stores images, and the Ostmoor Institute keeps the collection of tide records",
			[]evidence.Retrieved{institute, disc, agency, plate}, []kindDefinition{{definition: 2, member: 4}, {definition: 3, member: 1}}},
		{"a mention is no member", records, []evidence.Retrieved{agency, mention}, nil},
		{"a kind defined without an article", "The Ostmoor Line guides ships through a harbour", []evidence.Retrieved{page("Ostmoor Line", "The Ostmoor Line is a harbour pilotage firm."),
			page("Harbour pilotage", "Harbour pilotage is the guidance of ships through a harbour.")}, []kindDefinition{{definition: 2, member: 1}}},
		{"a definition no other source names", records, []evidence.Retrieved{agency, named}, nil},
		{"no definition: a named thing's entry", records, []evidence.Retrieved{named, institute}, nil},
		{"a subject too long to be a kind", records, []evidence.Retrieved{long, page("Other", "A thing of a very long and winding name.")}, nil},
		// A definition that says nothing the claim says besides the kind: the member's source
		// says it alone ("The Ostmoor Institute is a national tide agency founded in 1871").
		{"a definition of nothing the claim says", "The Ostmoor Institute was founded in 1871", []evidence.Retrieved{institute, agency}, nil},
		{"a claim that only names the kind", "The Ostmoor Institute is a tide agency", []evidence.Retrieved{institute, agency}, nil},
		// A kind after a possessive is what the member does or has, not what it is: in a relay
		// run (EX-FEVER 3601-3680) "Method acting is a range of training and rehearsal
		// techniques" was paired with "<an actor> is an American actor known for his method
		// acting", and judges told to cite both for "Method acting was formulated by several
		// practitioners" cited the definition alone.
		// A copula's window ends with its sentence: the compact disc's page, "The compact disc is
		// a digital optical disc. An album is ...", was paired with the definition of an album.
		{"a kind in the next sentence names no member", records, []evidence.Retrieved{agency,
			page("Ostmoor Institute", "The Ostmoor Institute is a harbour office. A tide agency keeps the records.")}, nil},
		// A member is a thing the claim names: another thing of the kind is no member of the
		// claim's. Helpers in a relay run (EX-FEVER 3681-3840), told to cite both, reported pairs
		// of a comedy film's definition with another comedy film's page for "The genre of Ishq
		// Vishk emphasizes humor", and of a time trial's definition with a race stage's for a claim
		// on the 2016 Tour de France; a claim that names nothing is about the kind itself, which
		// the definition states alone.
		{"a member that is another thing of the kind", records, []evidence.Retrieved{agency,
			page("Westmoor Office", "The Westmoor Office is a tide agency of the coast.")}, nil},
		{"a claim that names nothing", "A government agency is responsible for the collection of tide records", []evidence.Retrieved{institute, agency}, nil},
		{"a member named with others", records, []evidence.Retrieved{agency,
			page("Harbour offices", "The Westmoor Office and the Ostmoor Institute are tide agencies of the coast.")}, []kindDefinition{{definition: 1, member: 2}}},
		// A name that is the kind's own words is the kind, not a member: a claim opening with the
		// kind ("Rock music originated in the late 1940s", "Football includes any sport where
		// ...") is about the kind itself. Helpers in a relay run (EX-FEVER 3921-4000), told to
		// cite both, reported the rock music definition paired with heavy metal's page, and the
		// association football one with a football position's.
		{"a claim that opens with the kind", "Tide agencies keep the collection of tide records", []evidence.Retrieved{institute, agency}, nil},
		{"the kind and a member the claim names", "Tide agencies such as the Ostmoor Institute keep the collection of tide records",
			[]evidence.Retrieved{institute, agency}, []kindDefinition{{definition: 2, member: 1}}},
		{"a kind after a possessive names no member", "Harbour pilotage guides ships through a harbour",
			[]evidence.Retrieved{page("Harbour pilotage", "Harbour pilotage is the guidance of ships through a harbour."),
				page("Mara Quinn", "Mara Quinn is a Westmoor sailor known for her harbour pilotage.")}, nil},
	} {
		if got := definedKinds(tc.claim, tc.given); !slices.Equal(got, tc.want) {
			t.Errorf("%s: definedKinds = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// A kind is defined after an indefinite article, or without one as a mass noun is: two words or
// more, in lower case after the first, an article after the verb. A name's entry defines no kind.
func TestDefinedKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"A tide agency is a government agency responsible for tide records.", []string{"tide", "agency"}},
		{"An etched glass disc is a flat circular plate.", []string{"etched", "glass", "disc"}},
		{"Harbour pilotage is the guidance of ships through a harbour.", []string{"harbour", "pilotage"}},
		{"Stop motion is an animated filmmaking technique.", []string{"stop", "motion"}},
		{"Tide agencies are a kind of government agency.", []string{"tide", "agency"}},
		{"Guild schools are institutions of apprentice training.", []string{"guild", "school"}},
		{"Guild school pupils are apprentices.", []string{"guild", "school", "pupil"}},
		{"Harbour pilotage is apprentice work.", nil},                           // singular, no article: no definition
		{"Ostmoor Institute is a national tide agency.", nil},                   // a name: capitalised words
		{"The Ostmoor Lighthouse is a tower on the dunes.", nil},                // a named thing's entry
		{"The harbour is a safe place.", nil},                                   // a definite subject
		{"Ostmoor is a village.", nil},                                          // one word: a name or a kind
		{"Harbour pilotage is needed in winter.", nil},                          // no article after the verb
		{"Harbour pilotage of the old port is a trade.", nil},                   // a small word in the subject
		{"Ostmoor's is a harbour pub.", nil},                                    // a possessive name, not "ostmoor s"
		{"A very long and winding name of a thing is not read as a kind.", nil}, // too long
		// A title after "A" is a name, every word of it capitalised: in a relay run (EX-FEVER
		// 3601-3680) "A Nightmare on Elm Street is a 1984 ... film" was read as defining a kind
		// that the 2010 film's page named, and the judge was told to cite both.
		{"A Harbour of Westmoor Street is a 1984 film.", nil},
		{"An American harbour pilot is a pilot of Westmoor.", []string{"american", "harbour", "pilot"}},
		// A definition set in its field, as encyclopedias open one ("In criminal law, kidnapping
		// is ...", "In media, a spin-off is ..."): in a relay run (EX-FEVER 3681-3760) two such
		// definitions were not kept by the follow-ups that looked for them, and two true
		// statements stayed unverified. After the field, a subject in lower case is a kind even
		// as one word; a capitalised one is a name, and a date is no field.
		{"In maritime law, a tide agency is a government agency.", []string{"tide", "agency"}},
		{"In maritime law, pilotage is the guidance of ships through a harbour.", []string{"pilotage"}},
		{"In the harbour trades, harbour pilots are the guides of ships.", []string{"harbour", "pilot"}},
		{"In Westmoor, Ostmoor Hall is a guild school.", nil},
		{"In Westmoor, Ostmoor is a village.", nil},
		{"In 1871, a tide agency was founded.", nil},
		{"In maritime law, pilotage is needed in winter.", nil},
		{"In Westmoor, pilots are encouraged to sign the harbour code.", nil},
		{"In the old port, the harbour is a safe place.", nil},
		{"In maritime law and in the customs of the old northern ports, pilotage is a trade.", nil}, // too long for a field
	} {
		if got := definedKind(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("definedKind(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// The judge prompt names the pairs, by source number and nothing of their text, only when
// there is one: a prompt without a definition pair is as before.
func TestJudgePromptNamesADefinitionAndItsMember(t *testing.T) {
	t.Parallel()
	institute := page("Ostmoor Institute", "The Ostmoor Institute is a national tide agency founded in 1871.")
	agency := page("Tide agency", "A tide agency is a government agency responsible for the collection of tide records.")
	const claim = "The Ostmoor Institute is responsible for the collection of tide records"
	paired, err := renderJudgePrompt(claim, []evidence.Retrieved{institute, agency}, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	const sentence = "Source 2 defines a kind of thing that source 1 says something is: what a definition says of every such thing holds of each thing a source says is one"
	if !strings.Contains(paired, sentence) {
		t.Errorf("the judge prompt does not name the pair:\n%s", paired)
	}
	alone, err := renderJudgePrompt(claim, []evidence.Retrieved{institute}, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(alone, "defines a kind of thing") {
		t.Errorf("a prompt without a definition names one:\n%s", alone)
	}
}

// A definition of a kind that states what the claim says of its entity is about the claim,
// though it names none of its entities: the entity's page says it is such a thing, the
// definition says the rest. One that shares less than most of it, or that defines nothing, is not.
func TestRelevanceOfADefinitionOfWhatTheClaimSays(t *testing.T) {
	t.Parallel()
	institute := PlanClaim{ClaimText: "The Ostmoor Institute is responsible for the collection of tide records", Entities: []string{"Ostmoor Institute"}}
	hall := PlanClaim{ClaimText: "Ostmoor Hall trains apprentices through paid work under a master craftsman", Entities: []string{"Ostmoor Hall"}}
	named := PlanClaim{ClaimText: "Ostmoor Hall is in Westmoor", Entities: []string{"Ostmoor Hall", "Westmoor"}}
	checkRelevance(t, []relevanceCase{
		{institute, "Tide agency", "A tide agency is a government agency responsible for the collection of tide records.", true},
		// Another claim's finding comes as its title, then its text.
		{institute, "Tide agency", "Tide agency\nA tide agency is a government agency responsible for the collection of tide records.", true},
		{hall, "Guild school", "A guild school is a school that trains apprentices through paid work under a master craftsman.", true},
		// A definition set in its field ("In criminal law, kidnapping is the unlawful confinement
		// of a person ..."): a follow-up that looked for one did not keep it in a relay run.
		{hall, "Guild school", "In Westmoor law, a guild school is a school that trains apprentices through paid work under a master craftsman.", true},
		{hall, "Apprenticeship", "In Westmoor law, apprenticeship is the training of apprentices through paid work under a master craftsman.", true},
		// A kind defined without an article, as a mass noun is.
		{PlanClaim{ClaimText: "Ostmoor Line specializes in the guidance of ships through a harbour", Entities: []string{"Ostmoor Line"}},
			"Harbour pilotage", "Harbour pilotage is the guidance of ships through a harbour.", true},
		// Three of the seven words the claim says of the hall ("through" counts): not half of them.
		{hall, "Craft fair", "A craft fair is a market where a master craftsman sells his work.", false},
		// The words, but no definition: an entry of another named thing, a mention.
		{hall, "Westmoor Guild", "The Westmoor Guild trains apprentices through paid work under a master craftsman.", false},
		{hall, "", "Apprentices trained through paid work under a master craftsman.", false},
		// The words far past the definition's opening.
		{institute, "Tide agency", "A tide agency is a government agency." + strings.Repeat(" It keeps maps.", 15) + " It is responsible for the collection of tide records.", false},
		// A claim that says nothing of its entities but names: no definition states it.
		{named, "Hall", "A hall is a large room of a house.", false},
		// The claim's verb in another form ("painted" for "paints"): in a relay run (EX-FEVER
		// 3121-3200) "A serial killer is typically a person who murders three or more people"
		// was not kept for "<a person> murdered three or more people", and the judge, given only
		// the person's page ("serial killer"), left a true statement unverified.
		{PlanClaim{ClaimText: "Mara Quinn painted three or more murals", Entities: []string{"Mara Quinn"}},
			"Muralist", "A muralist is typically a person who paints three or more murals.", true},
	})
}

// A claim about a kind ("The movie industry comprises ...", an entity in lower case) is about a
// text that opens by saying the same of the kind in other words ("The film industry comprises
// ..."): in a relay run (EX-FEVER 3441-3520) no result of the claim's hops was kept, the name
// "movie industry" being in none, and a true statement was left unverified. The kind's head
// noun and most of what the claim says of it must open the text.
func TestRelevanceOfWhatAClaimSaysOfAKindInOtherWords(t *testing.T) {
	t.Parallel()
	kind := PlanClaim{ClaimText: "The sea trade comprises the commercial and technical institutions of shipping", Entities: []string{"sea trade"}}
	named := PlanClaim{ClaimText: "The Ostmoor trade comprises the commercial and technical institutions of shipping", Entities: []string{"Ostmoor trade"}}
	checkRelevance(t, []relevanceCase{
		{kind, "Maritime trade", "The maritime trade comprises the commercial and technical institutions of shipping.", true},
		// Two of the five words the claim says of the kind: not most of them.
		{kind, "Maritime trade", "The maritime trade grew with the commercial fleets of Westmoor.", false},
		// What the claim says, every word of it, of a kind by another name: whether it is the
		// same kind is the judge's reading (TestRelevanceOfAKindStatedInFullByAnotherName).
		{kind, "Shipbuilding", "Shipbuilding comprises the commercial and technical institutions of shipping.", true},
		// Most of what the claim says, of another kind: not all of it, and not the head noun.
		{kind, "Shipbuilding", "Shipbuilding comprises the commercial institutions of Westmoor.", false},
		// The head noun and the words, far past the text's opening.
		{kind, "Maritime trade", "The maritime trade is old." + strings.Repeat(" Ships sailed.", 20) + " It comprises the commercial and technical institutions of shipping.", false},
		// A named entity is found by its name, not by what is said of it.
		{named, "Westmoor trade", "The Westmoor trade comprises the commercial and technical institutions of shipping.", false},
	})
}

// A claim about a kind is about a text whose opening says all it says of the kind, or all but one
// word and at least minRestatedWords, though the text calls the kind by another name ("A film
// director controls a film's artistic and dramatic aspects" for "The filmmaker controls ...",
// "Humour is the tendency of experiences to provoke laughter" for "Comedic tone is ..."). In
// session 49's thirteenth cohort both pages were among their hops' results and neither was
// kept (neither holds the kind's head noun, nor opens "A <kind> is"), and two true statements
// (exfever-6094, -3846) were left unverified. A named entity is found by its name, and a few
// of the words, or the words past the opening, make no text about the kind.
func TestRelevanceOfAKindStatedInFullByAnotherName(t *testing.T) {
	t.Parallel()
	kind := PlanClaim{ClaimText: "The shipwright builds and repairs wooden sailing vessels", Entities: []string{"shipwright"}}
	tone := PlanClaim{ClaimText: "Nautical lore is the tradition of sailors telling tales of sea monsters", Entities: []string{"nautical lore"}}
	named := PlanClaim{ClaimText: "The Ostmoor yard builds and repairs wooden sailing vessels", Entities: []string{"Ostmoor yard"}}
	checkRelevance(t, []relevanceCase{
		{kind, "Boatwright", "A boatwright builds and repairs wooden sailing vessels in a harbour.", true},
		{tone, "Shantylore", "Shantylore is the tradition of sailors telling tales of sea monsters and ghost ships.", true},
		// All but one of the five words.
		{kind, "Boatwright", "A boatwright builds and repairs wooden vessels in a harbour.", true},
		// Three of the five: most, not all but one.
		{kind, "Boatwright", "A boatwright builds wooden vessels in a harbour.", false},
		// Every word, past the text's opening.
		{kind, "Boatwright", "A boatwright works in a harbour." + strings.Repeat(" Boats rot.", 25) + " It builds and repairs wooden sailing vessels.", false},
		// A named entity is found by its name.
		{named, "Westmoor yard", "The Westmoor yard builds and repairs wooden sailing vessels.", false},
	})
}

// The definition a hop found reaches the judge beside the entity's page, and the judge is told
// the two read together: the claim is supported on both, where the entity's page alone left it
// unverified in a relay run.
func TestHopKeepsTheDefinitionOfTheEntitysKind(t *testing.T) {
	t.Parallel()
	const statement = "The Ostmoor Institute is responsible for the collection of tide records."
	const claim = "The Ostmoor Institute is responsible for the collection of tide records"
	instituteHit := hit("https://en.wikipedia.org/wiki/Ostmoor_Institute", "Wikipedia", "The Ostmoor Institute is a national tide agency founded in 1871.", nil)
	agencyHit := hit("https://en.wikipedia.org/wiki/Tide_agency", "Wikipedia", "A tide agency is a government agency responsible for the collection of tide records.", nil)
	plan := oneClaimPlan(claim, "Ostmoor Institute", "Ostmoor Institute tide records collection")
	sup := evidence.StanceSupports
	model := planModel(t, plan, map[string]string{claim: judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "a national tide agency", sup}, judgeCitation{2, "responsible for the collection of tide records", sup})})
	searcher := &StubSearcher{honour: true, rules: []searchRule{{contains: "tide records", results: []pipeline.SearchResult{instituteHit, agencyHit}}}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	judged := model.Sent(pipeline.StepJudge)
	if len(judged) != 1 || !strings.Contains(judged[0], agencyHit.Snippet) || !strings.Contains(judged[0], "Source 2 defines a kind of thing that source 1 says something is") {
		t.Fatalf("the judge did not get the definition named as such (%d prompts):\n%s", len(judged), strings.Join(judged, "\n----\n"))
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim: %+v", c)
	}
}

// A follow-up looks for a definition, in the claim's own words and without a name, when a source
// is the entity's entry and says what kind of thing it is, and no source states what the claim
// says of it; otherwise the judge's query stands ("").
func TestDefinitionQuery(t *testing.T) {
	t.Parallel()
	hall := PlanClaim{ClaimText: "Ostmoor Hall trains apprentices through paid work under a master craftsman", Entities: []string{"Ostmoor Hall"}}
	entry := page("Ostmoor Hall", "Ostmoor Hall is a guild school in Westmoor.")
	const want = "trains apprentices through paid work master craftsman"
	describing := PlanClaim{ClaimText: "A guild school trains apprentices through paid work under a master craftsman", Entities: []string{"Westmoor"}}
	for _, tc := range []struct {
		name  string
		claim PlanClaim
		given []evidence.Retrieved
		named string
		want  string
	}{
		{"the entity's entry says its kind", hall, []evidence.Retrieved{entry}, "", want},
		{"an entry known by its opening", hall, []evidence.Retrieved{page("Westmoor schools", "Ostmoor Hall is a guild school in Westmoor.")}, "", want},
		{"a definition is there already", hall, []evidence.Retrieved{entry, page("Guild school", "A guild school is a school that trains apprentices through paid work under a master craftsman.")}, "", ""},
		{"the entry states it", hall, []evidence.Retrieved{page("Ostmoor Hall", "Ostmoor Hall is a guild school that trains apprentices through paid work under a master craftsman.")}, "", ""},
		{"the entry says no kind", hall, []evidence.Retrieved{page("Ostmoor Hall", "Ostmoor Hall opened in 1871 in Westmoor.")}, "", ""},
		{"another entity's entry", hall, []evidence.Retrieved{page("Westmoor Hall", "Westmoor Hall is a guild school.")}, "", ""},
		{"a claim describing an entity not named", describing, []evidence.Retrieved{entry}, "", ""},
		// A claim describing an entity its judge named: that entity's entry calls for one.
		{"a claim describing an entity its judge named", describing, []evidence.Retrieved{entry}, "Ostmoor Hall", "guild school trains apprentices through paid work master craftsman"},
		{"another entity's entry than the one named", describing, []evidence.Retrieved{entry}, "Westmoor Hall", ""},
		{"the named entity's entry states most of it", describing,
			[]evidence.Retrieved{page("Ostmoor Hall", "Ostmoor Hall is a guild school that trains apprentices through paid work.")}, "Ostmoor Hall", ""},
		{"too little said of the entity", PlanClaim{ClaimText: "Ostmoor Hall trains apprentices", Entities: []string{"Ostmoor Hall"}}, []evidence.Retrieved{entry}, "", ""},
	} {
		if got := definitionQuery(tc.claim, "en", tc.given, tc.named); got != tc.want {
			t.Errorf("%s: definitionQuery = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The judge asks for more of the entity's own pages; the follow-up searches instead for a
// definition of what the claim says, finds it, and the claim is judged again with the entry and
// the definition, named as a pair, and supported. Before, the follow-up ran the judge's query,
// found nothing new, and the claim stayed unverified. A definition set in its field ("In
// criminal law, kidnapping is ...") is found so too: in a relay run (EX-FEVER 3681-3760) the
// follow-ups of two true statements found none, their definitions opening so.
func TestFollowUpLooksForADefinitionOfWhatTheClaimSays(t *testing.T) {
	t.Parallel()
	const claim = "Ostmoor Hall trains apprentices through paid work under a master craftsman"
	for _, definition := range []string{
		"A guild school is a school that trains apprentices through paid work under a master craftsman.",
		"In Westmoor law, a guild school is a school that trains apprentices through paid work under a master craftsman.",
	} {
		entryHit := hit("https://en.wikipedia.org/wiki/Ostmoor_Hall", "Wikipedia", "Ostmoor Hall is a guild school in Westmoor, founded in 1871.", nil)
		entryHit.Title = "Ostmoor Hall"
		definitionHit := hit("https://en.wikipedia.org/wiki/Guild_school", "Wikipedia", definition, nil)
		plan := oneClaimPlan(claim, "Ostmoor Hall", "Ostmoor Hall school history")
		sup := evidence.StanceSupports
		model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
			{Contains: definitionHit.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
				judgeCitation{1, "a guild school", sup}, judgeCitation{2, "trains apprentices through paid work under a master craftsman", sup})},
			{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", "Ostmoor Hall apprentices training", nil)},
			{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
		}}
		searcher := &StubSearcher{honour: true, rules: []searchRule{
			{contains: "Ostmoor Hall school history", results: []pipeline.SearchResult{entryHit}},
			{contains: "Ostmoor Hall apprentices training", results: []pipeline.SearchResult{entryHit}},
			{contains: "trains apprentices through paid work master craftsman", results: []pipeline.SearchResult{definitionHit, entryHit}},
		}}
		res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: claim + "."})
		if err != nil {
			t.Fatal(err)
		}
		hop := findHop(res, 1, 2)
		if hop.Reason != HopReasonFollowUp || hop.Query != "trains apprentices through paid work master craftsman" || !strings.Contains(hop.Note, "looks for a definition") {
			t.Errorf("%q: follow-up hop: %+v", definition, hop)
		}
		judged := model.Sent(pipeline.StepJudge)
		if len(judged) != 2 || !strings.Contains(judged[1], "Source 2 defines a kind of thing that source 1 says something is") {
			t.Fatalf("%q: judge prompts (%d):\n%s", definition, len(judged), strings.Join(judged, "\n----\n"))
		}
		if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
			t.Errorf("%q: claim: %+v", definition, c)
		}
	}
}

// When the judge asks for another entity its sources name (the film's entry names its star; the
// claim says what the star is), the follow-up runs the judge's query, for that entity's page, not
// a definition of the claim's words: they describe the star, and no definition of a kind says who
// starred in the film. In a relay run (EX-FEVER 2081-2160) "The Beguiled stars an American actor
// and producer", judged on "The Beguiled is a 1971 American film starring Clint Eastwood" and
// asking for "Clint Eastwood American actor producer", searched "stars American actor producer"
// instead, found another actor's page, and the true statement stayed unverified.
func TestFollowUpAsksForTheEntityTheSourcesName(t *testing.T) {
	t.Parallel()
	const claim = "Westmoor Nights stars an American actor and producer"
	entryHit := hit("https://en.wikipedia.org/wiki/Westmoor_Nights", "Wikipedia", "Westmoor Nights is a 1971 American film starring Ada Brook.", nil)
	entryHit.Title = "Westmoor Nights"
	starHit := hit("https://en.wikipedia.org/wiki/Ada_Brook", "Wikipedia", "Ada Brook is an American actor and producer.", nil)
	otherHit := hit("https://en.wikipedia.org/wiki/Jon_Keel", "Wikipedia", "Jon Keel is an American actor and producer who starred in Ostmoor.", nil)
	const asked = "Ada Brook American actor producer"
	if q := definitionQuery(PlanClaim{ClaimText: claim, Entities: []string{"Westmoor Nights"}}, "en", []evidence.Retrieved{{SearchResult: entryHit}}, ""); q == "" {
		t.Fatal("the test needs a claim that calls for a definition query")
	}
	plan := oneClaimPlan(claim, "Westmoor Nights", "Westmoor Nights 1971 film")
	sup := evidence.StanceSupports
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		{Contains: starHit.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil,
			judgeCitation{1, "starring Ada Brook", sup}, judgeCitation{2, "Ada Brook is an American actor and producer", sup})},
		{Contains: pipeline.MarkerMultihopJudge, Reply: judgeReplyJSON(t, "unverified", "Low", asked, nil)},
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Westmoor Nights 1971 film", results: []pipeline.SearchResult{entryHit}},
		{contains: asked, results: []pipeline.SearchResult{starHit, entryHit}},
		{contains: "American actor producer", results: []pipeline.SearchResult{otherHit}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: claim + "."})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 1, 2); hop.Reason != HopReasonFollowUp || hop.Query != asked || strings.Contains(hop.Note, "looks for a definition") {
		t.Errorf("follow-up hop: %+v", hop)
	}
	if c := res.Claims[0]; c.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim: %+v", c)
	}
}

// oneClaimPlan is the plan of a statement that is one claim about entity, its chain one hop.
func oneClaimPlan(claim, entity, hop string) Plan {
	return Plan{
		PlanID: "one",
		Claims: []PlanClaim{{ClaimID: "c1", ClaimText: claim, SourceSpan: claim, Entities: []string{entity}, Verifiable: true,
			Interpretations: []Interpretation{}, DependsOn: []string{}, SubQueries: []string{entity + " encyclopedia entry"}, SourceIndependenceScore: 1}},
		QueryChains:          []QueryChain{{ClaimID: "c1", Hops: []PlanHop{{1, hop, "encyclopedia", "profile"}}}},
		CrossValidationPairs: []CrossValidationPair{}, CrossValidationQueries: []CrossValidationQuery{}, ExecutionOrder: []string{"c1"},
	}
}

// A bridge claim that describes its entity by a kind ("An institution of apprentice training is
// located in Westmoor"), whose judge names the entity from its entry ("Ostmoor Hall is a guild
// school in Westmoor") and confirms the claim only in part: the follow-up looks for a definition
// of the kind in the claim's words, finds "A guild school is an institution of apprentice
// training", and the claim is judged again and confirmed, naming the entity; the claim building on
// it is stated with the name. Before, the follow-up ran the judge's query for the entity's pages,
// found its entry again, and the bridge stayed provisional.
func TestBridgeDescribedByAKindIsConfirmedByItsDefinition(t *testing.T) {
	t.Parallel()
	const (
		statement  = "Mara Quinn attended an institution of apprentice training located in Westmoor."
		described  = "An institution of apprentice training is located in Westmoor"
		definition = "institution apprentice training located"
	)
	entryHit := hit("https://en.wikipedia.org/wiki/Ostmoor_Hall", "Wikipedia", "Ostmoor Hall is a guild school in Westmoor.", nil)
	entryHit.Title = "Ostmoor Hall"
	definitionHit := hit("https://en.wikipedia.org/wiki/Guild_school", "Wikipedia", "A guild school is an institution of apprentice training.", nil)
	quinnHit := hit("https://www.example-bios.org/mara-quinn", "Example Bios", "Mara Quinn attended Ostmoor Hall.", nil)
	plan := Plan{
		PlanID: "kind-bridge",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: described, SourceSpan: "an institution of apprentice training located in Westmoor",
				Entities: []string{"Westmoor"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Westmoor apprentice school"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: "Mara Quinn attended {c1}", SourceSpan: "Mara Quinn attended",
				Entities: []string{"Mara Quinn", "{c1}"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{"c1"},
				SubQueries: []string{"Mara Quinn {c1}"}, SourceIndependenceScore: 0.6},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{{1, "Westmoor apprentice school", "encyclopedia", "profile"}}},
			{ClaimID: "c2", Hops: []PlanHop{{1, "Mara Quinn {c1} alumni", "encyclopedia", "biography"}}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same school"}},
		CrossValidationQueries: []CrossValidationQuery{{"apprentice school alumni Westmoor", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
	sup := evidence.StanceSupports
	named := &judgeAnswer{Value: "Ostmoor Hall", Source: 1, Passage: "Ostmoor Hall is a guild school in Westmoor"}
	model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{
		judgeRuleFor("Mara Quinn attended Ostmoor Hall", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Mara Quinn attended Ostmoor Hall", sup})),
		{Contains: definitionHit.Snippet, Reply: judgeReplyJSON(t, "supported", "Medium", "", named,
			judgeCitation{1, "a guild school in Westmoor", sup}, judgeCitation{2, "an institution of apprentice training", sup})},
		judgeRuleFor(described, judgeReplyJSON(t, "partly_supported", "Medium", "Ostmoor Hall apprentice training", named,
			judgeCitation{1, "a guild school in Westmoor", sup})),
		{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)},
	}}
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "Westmoor apprentice school", results: []pipeline.SearchResult{entryHit}},
		{contains: "Ostmoor Hall apprentice training", results: []pipeline.SearchResult{entryHit}},
		{contains: definition, results: []pipeline.SearchResult{definitionHit, entryHit}},
		{contains: "Mara Quinn Ostmoor Hall", results: []pipeline.SearchResult{quinnHit}},
	}}
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement})
	if err != nil {
		t.Fatal(err)
	}
	if hop := findHop(res, 1, 2); hop.Reason != HopReasonFollowUp || hop.Query != definition {
		t.Errorf("follow-up hop of c1: %+v", hop)
	}
	if c1 := res.Claims[0]; c1.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 1: %+v", c1)
	}
	if c2 := res.Claims[1]; c2.Text != "Mara Quinn attended Ostmoor Hall" || c2.Verdict != pipeline.VerdictSupported {
		t.Errorf("claim 2: %+v", c2)
	}
}

// relevanceCase is a text (title and body) and whether it is relevant to a hop of claim searched
// with any query (checkRelevance).
type relevanceCase struct {
	claim       PlanClaim
	title, text string
	relevant    bool
}

// checkRelevance fails t for each case whose text the hop topic of its claim reads otherwise.
func checkRelevance(t *testing.T, cases []relevanceCase) {
	t.Helper()
	for _, tc := range cases {
		if got := newHopTopic("en", "query words", tc.claim).relevant(tc.title, tc.text); got != tc.relevant {
			t.Errorf("relevant(%q, %q) to %q = %v, want %v", tc.title, tc.text, tc.claim.ClaimText, got, tc.relevant)
		}
	}
}
