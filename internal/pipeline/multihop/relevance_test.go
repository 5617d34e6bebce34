package multihop

import (
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// The relevance rule of rule 7: an anchor (a number, a whole entity, an identifier) and one more
// word of the claim or the query.
func TestHopTopicRelevance(t *testing.T) {
	t.Parallel()
	eiffel := examplePlan().Claims[0] // "The Eiffel Tower was completed in 1889", entities Eiffel Tower, 1889
	baikal := PlanClaim{ClaimText: "Lake Baikal reaches a depth of 1642 m", Entities: []string{"Lake Baikal", "1642"}}
	apoe := validPlan().Claims[1]
	tests := []struct {
		claim    PlanClaim
		query    string
		text     string
		relevant bool
	}{
		{eiffel, "Eiffel Tower completed 1889 official history", "The Eiffel Tower was completed on 31 March 1889.", true},
		{eiffel, "Eiffel Tower completed 1889 official history", "Work on the tower ended in 1889, two years after it began.", true},
		{eiffel, "Eiffel Tower completed 1889 official history", "Gustave Eiffel's tower opened for the 1889 fair.", true},
		{eiffel, "Eiffel Tower completed 1889 official history", "An official history of the Paris metro and its first lines.", false},
		{eiffel, "Eiffel Tower completed 1889 official history", "A history of television towers in Europe.", false},
		{eiffel, "Eiffel Tower completed 1889 official history", "The Eiffel Tower.", false},
		{eiffel, "Eiffel Tower completed 1889 official history", "Prices in 1889.", false},
		{baikal, "Baikal bathymetry sonar survey", "Lake Baikal holds 23 percent of the planet's fresh surface water.", false},
		{baikal, "deepest lake Siberia 1642", "The deepest lake in Siberia drops 1642 m below its surface.", true},
		{baikal, "Baikal bathymetry sonar survey", "Sonar survey kits for lake depth mapping.", false},
		{apoe, "APOE4 carriers overall cancer incidence cohort", "APOE4 carriers had a lower incidence of several cancers.", true},
		{apoe, "APOE4 carriers overall cancer incidence cohort", "Incidence rates in a cohort of smokers.", false},
		// A possessive of a name that ends in "s" is the name: folding drops the apostrophe, and
		// "Atkins's" had read as the word "atkinss" (in a relay run a claim on Susan
		// Denise Atkins's followers kept no page that said "Susan Denise Atkins's followers").
		{PlanClaim{ClaimText: "Mara Quinn Atkins had followers", Entities: []string{"Mara Quinn Atkins"}}, "Mara Quinn Atkins followers group",
			"Mara Quinn Atkins's followers committed the Westmoor robberies.", true},
		{PlanClaim{ClaimText: "Mara Quinn Atkins had followers", Entities: []string{"Mara Quinn Atkins"}}, "Mara Quinn Atkins followers group",
			"Mara Quinn Atkins’ followers committed the Westmoor robberies.", true},
		{PlanClaim{ClaimText: "Mara Quinn Atkins had followers", Entities: []string{"Mara Quinn Atkins"}}, "Mara Quinn Atkins followers group",
			"Mara Quinn Atkinson's followers committed the Westmoor robberies.", false},
		// A name written without its accents is the name: FEVEROUS-S writes "Sebastian" for the
		// page's "Sebastián" (17 of its 459 multi-hop claims drop an accent of their evidence),
		// and the page, composed or decomposed, had shared no anchor with the claim.
		{PlanClaim{ClaimText: "Jose Westmoor was born in Ostmoor", Entities: []string{"Jose Westmoor"}}, "Jose Westmoor born",
			"José Westmoor (born 1984) is a footballer.", true},
		{PlanClaim{ClaimText: "Jose Westmoor was born in Ostmoor", Entities: []string{"Jose Westmoor"}}, "Jose Westmoor born",
			"Jose\u0301 Westmoor (born 1984) is a footballer.", true},
		{PlanClaim{ClaimText: "José Westmoor was born in Ostmoor", Entities: []string{"José Westmoor"}}, "José Westmoor born",
			"Jose Westmoor (born 1984) is a footballer.", true},
		{PlanClaim{ClaimText: "Jose Westmoor was born in Ostmoor", Entities: []string{"Jose Westmoor"}}, "Jose Westmoor born",
			"Josef Westmoor (born 1984) is a footballer.", false},
		// A definition's opening is read without its brackets: an encyclopedia writes a kind's
		// etymology and plurals between its name and its copula ("An acropolis (Ancient Greek:
		// ...; plural in English: ...) was an ancient Greek settlement"), and in a relay run
		// (FEVEROUS-S 6102) that page was dropped as not about "The Acropolis of Athens is an
		// ancient Greek settlement". A bracket holding the claim's words opens nothing.
		{PlanClaim{ClaimText: "The Citadel of Ostmoor is an ancient Vesnian fortified settlement", Entities: []string{"Citadel of Ostmoor"}}, "Citadel of Ostmoor ancient settlement",
			"A citadel (Old Vesnian: kastra, from kas, \"high\", and tra, \"place\"; plural in English: citadels or kastrae) is an ancient Vesnian fortified settlement built on high ground.", true},
		{PlanClaim{ClaimText: "The Citadel of Ostmoor is an ancient Vesnian fortified settlement", Entities: []string{"Citadel of Ostmoor"}}, "Citadel of Ostmoor ancient settlement",
			"A citadel (in the older sense an ancient Vesnian fortified settlement) is a shopping centre with a car park.", false},
		// No anchor at all: two shared words are enough.
		{PlanClaim{ClaimText: "coffee lowers blood pressure"}, "coffee blood pressure trial", "A trial found coffee raised blood pressure.", true},
		{PlanClaim{ClaimText: "coffee lowers blood pressure"}, "coffee blood pressure trial", "Coffee shops near you.", false},
	}
	for _, tt := range tests {
		if got := newHopTopic("en", tt.query, tt.claim).relevant("", tt.text); got != tt.relevant {
			t.Errorf("relevant(%q) to %q / %q = %v, want %v", tt.text, tt.claim.ClaimText, tt.query, got, tt.relevant)
		}
	}
	// The entity's own page, titled with its name in accents, is about it whatever its text says.
	jose := PlanClaim{ClaimText: "Jose Westmoor was born in Ostmoor", Entities: []string{"Jose Westmoor"}}
	if !newHopTopic("en", "Jose Westmoor born", jose).relevant("José Westmoor", "He played for Harlow from 2004.") {
		t.Error("the page titled José Westmoor is not about Jose Westmoor")
	}
}

// A report that names the entity by its proper noun is about it, whatever common noun it uses
// for the rest ("the Ostmoor lantern" for "the Ostmoor lighthouse").
func TestRelevanceNamesAnEntityByItsProperNoun(t *testing.T) {
	t.Parallel()
	topic := newHopTopic("en", "Ostmoor lamp back volunteers",
		PlanClaim{ClaimText: "The Ostmoor lighthouse was relit after its restoration.", Entities: []string{"Ostmoor lighthouse"}})
	if !topic.relevant("Restored Ostmoor lantern back in service", "Volunteers cheered as the 1871 tower's lamp came back on, ending repairs.") {
		t.Error("a report naming Ostmoor and its restoration is not relevant")
	}
	if topic.relevant("A lighthouse restored", "Volunteers relit the lamp of a lighthouse after its restoration.") {
		t.Error("a report of another lighthouse is relevant")
	}
}

func TestGroundedNames(t *testing.T) {
	given := []evidence.Retrieved{
		{SearchResult: pipeline.SearchResult{Title: "Homer Hickam", Snippet: "Jake Gyllenhaal's breakthrough role was as Homer Hickam in October Sky. The Tesla Model S is produced by Tesla, Inc."}},
		{SearchResult: pipeline.SearchResult{Title: "Smile from the Streets You Hold", Snippet: "An album by John Frusciante, released on Birdman Records."}},
		{SearchResult: pipeline.SearchResult{Title: "Harbour Light", Snippet: "A song written by Ada Vale, Tom Lee Reyes and her then-husband, Sam Ortiz, in Paris, Texas."}},
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"Homer Hickam American author", []string{"Homer Hickam"}},
		{"Tesla, Inc. automotive and clean energy company", []string{"Tesla Inc"}},
		{"John Frusciante solo recording Smile from the Streets You Hold", []string{"John Frusciante", "Smile from the Streets You Hold"}},
		{"Elon Musk founder of the company", nil},                             // no source names him
		{"October Sky Homer Hickam", []string{"October Sky", "Homer Hickam"}}, // the source writes them apart
		{"birth date of the singer", nil},
		// A list of names is read as names (listedNames), a comma before one word as inside one.
		{"Ada Vale Tom Lee Reyes Sam Ortiz nationality", []string{"Ada Vale", "Tom Lee Reyes", "Sam Ortiz"}},
		{"Paris, Texas songs", []string{"Paris Texas"}},
	} {
		if got := groundedNames(tc.query, given); !slices.Equal(got, tc.want) {
			t.Errorf("groundedNames(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// The page whose title is one of the claim's entities, and nothing else, is about the claim,
// whatever fact its text shows: a real model's run kept nothing of "Tesla Model S" for "A company
// produces the Tesla Model S" (the page says "produced", the claim "produces") or of "Battle of
// Mactan" for "The Battle of Mactan was a British victory" (the page says who won, in other
// words), and those claims ended unverified with the page in the corpus.
func TestRelevanceOfTheEntitysOwnPage(t *testing.T) {
	t.Parallel()
	tesla := PlanClaim{ClaimText: "A company produces the Tesla Model S", Entities: []string{"Tesla Model S"}}
	mactan := PlanClaim{ClaimText: "The Battle of Mactan was a British victory", Entities: []string{"Battle of Mactan"}}
	halsey := PlanClaim{ClaimText: "Halsey is American", Entities: []string{"Halsey"}}
	// A title of small words only ("It", "Us", "Her") has no content word to anchor on: its own
	// page is known by its title alone, and a text that merely uses the word is not about it.
	us := PlanClaim{ClaimText: `"Us" is a Danish film`, Entities: []string{"Us", "Danish"}}
	// A person's full name with a middle name: the page is titled with the name people use.
	fullName := PlanClaim{ClaimText: "Raphael Matthew Bob-Waksberg is Australian", Entities: []string{"Raphael Matthew Bob-Waksberg", "Australian"}}
	suffixed := PlanClaim{ClaimText: "Jon Meade Huntsman Jr. served as ambassador", Entities: []string{"Jon Meade Huntsman Jr."}}
	// A claim that gives the entity a false value shares nothing but the name with its page, and
	// the page may be titled with another form of the name ("Ostmoor H.R.C."): a text that opens
	// with the whole name as its subject is the entity's own entry.
	club := PlanClaim{ClaimText: "Ostmoor Harbour Rowing Club is a Danish club", Entities: []string{"Ostmoor Harbour Rowing Club"}}
	apple := PlanClaim{ClaimText: "Apple Records is a Danish label", Entities: []string{"Apple Records"}}
	mononym := PlanClaim{ClaimText: "Zorblax is a Danish painter", Entities: []string{"Zorblax"}}
	for _, tc := range []struct {
		claim        PlanClaim
		query, title string
		text         string
		relevant     bool
	}{
		{tesla, "Tesla Model S manufacturer company encyclopedia", "Tesla Model S", "The Tesla Model S is a battery-powered liftback car produced by Tesla, Inc.", true},
		{mactan, "Battle of Mactan result combatants", "Battle of Mactan", "Warriors of Lapulapu, a native chieftain of Mactan, overpowered and defeated a Spanish force.", true},
		{halsey, "Halsey birthplace biography", "Halsey (singer)", "Her debut album Badlands was released in 2015.", true},
		{PlanClaim{ClaimText: "Lake Baikal reaches a depth of 1642 m", Entities: []string{"Lake Baikal", "1642"}}, "Baikal bathymetry sonar survey",
			"Lake Baikal", "Lake Baikal holds 23 percent of the planet's fresh surface water.", true},
		// A web result's title carries its site after a separator.
		{halsey, "Halsey birthplace biography", "Halsey (singer) - Wikipedia", "Her debut album Badlands was released in 2015.", true},
		{mactan, "Battle of Mactan result combatants", "Battle of Mactan | Britannica", "Lapulapu's warriors defeated a Spanish force.", true},
		// Another entity's page that shares a word of the name is not the entity's.
		{tesla, "Tesla Model S manufacturer company encyclopedia", "Nikola Tesla - Wikipedia", "Nikola Tesla was a Serbian-American inventor.", false},
		{tesla, "Tesla Model S manufacturer company encyclopedia", "Nikola Tesla", "Nikola Tesla was a Serbian-American inventor.", false},
		{halsey, "Halsey birthplace biography", "Halsey Street station", "A station of the New York City Subway.", false},
		{mactan, "Battle of Mactan result combatants", "", "Warriors of Lapulapu, a native chieftain of Mactan, overpowered and defeated a Spanish force.", false},
		{us, "Us film country of origin", "Us (2019 film)", "A horror film written and directed by Jordan Peele.", true},
		{us, "Us film country of origin", "Us - Wikipedia", "A horror film written and directed by Jordan Peele.", true},
		{us, "Us film country of origin", "Show us the way", "A song that is not about origins, shown to us on a tour.", false},
		{us, "Us film country of origin", "Among Us", "A game of deception played online.", false},
		{fullName, "Raphael Matthew Bob-Waksberg nationality", "Raphael Bob-Waksberg - Wikipedia", "An American comedian and writer.", true},
		{fullName, "Raphael Matthew Bob-Waksberg nationality", "Matthew Perry", "Matthew Perry was an American-Canadian actor.", false},
		// Only the titled page: a text with the first and last words is not the person's.
		{fullName, "Raphael Matthew Bob-Waksberg nationality", "", "Raphael and Bob-Waksberg are two streets.", false},
		{suffixed, "Jon Meade Huntsman Jr. ambassador", "Jon Huntsman Jr.", "An American politician and diplomat.", true},
		{suffixed, "Jon Meade Huntsman Jr. ambassador", "Jon Huntsman Sr.", "An American businessman.", false},
		{club, "Ostmoor Harbour Rowing Club home city country", "Ostmoor H.R.C.", "Ostmoor Harbour Rowing Club is a German amateur rowing club on the Elbe.", true},
		{club, "Ostmoor Harbour Rowing Club home city country", "", "The Ostmoor Harbour Rowing Club, on the Elbe since 1871, trains juniors.", true},
		// Another claim's finding is read as its title, then its text (evidence.SourceText).
		{club, "Ostmoor Harbour Rowing Club home city country", "Ostmoor H.R.C.", "Ostmoor H.R.C.\nOstmoor Harbour Rowing Club is a German amateur rowing club.", true},
		{club, "Ostmoor Harbour Rowing Club home city country", "", "Ostmoor Harbour Rowing Club (OHRC) was formed by dockworkers.", true},
		{apple, "Apple Records label country", "Apple Corps", "Apple Records was founded by the Beatles in London.", true},
		// The name inside a longer one, or not as the text's subject, is not the entity's entry.
		{club, "Ostmoor Harbour Rowing Club home city country", "", "Ostmoor Harbour Rowing Club Juniors won the regatta on the Elbe.", false},
		{club, "Ostmoor Harbour Rowing Club home city country", "", "Rivals of Ostmoor Harbour Rowing Club rowed on the Elbe.", false},
		{club, "Ostmoor Harbour Rowing Club home city country", "", "Ostmoor Harbour Rowing Club members rowed on the Elbe.", false},
		// A one-word name is too common a word to be known by a text's first word: its entry is
		// the page titled with it.
		{mononym, "Zorblax nationality", "", "Zorblax is a German sculptor.", false},
		// A name written with or without its spaces is one name ("Space X", "SpaceX").
		{PlanClaim{ClaimText: "Ostmoor Labs is British", Entities: []string{"Ostmoor Labs"}}, "Ostmoor Labs nationality", "OstmoorLabs", "An aerospace maker.", true},
		{PlanClaim{ClaimText: "OstmoorLabs is British", Entities: []string{"OstmoorLabs"}}, "OstmoorLabs nationality", "Ostmoor Labs - Wikipedia", "An aerospace maker.", true},
		{PlanClaim{ClaimText: "Ostmoor Labs is British", Entities: []string{"Ostmoor Labs"}}, "Ostmoor Labs nationality", "Ostmoor", "A village.", false},
		{PlanClaim{ClaimText: "The Bureau of the Census of the United States counts people", Entities: []string{"Bureau of the Census of the United States"}},
			"Bureau Census United States", "Bureau of the United States", "An office.", false},
	} {
		if got := newHopTopic("en", tc.query, tc.claim).relevant(tc.title, tc.text); got != tc.relevant {
			t.Errorf("relevant(%q, %q) to %q = %v, want %v", tc.title, tc.text, tc.claim.ClaimText, got, tc.relevant)
		}
	}
}

// A text that attributes a work to someone ("The Ostmoor Tide by Anna Berg") is about a claim on
// who made it, though it shares no other word with it; not about a claim on anything else, and
// not when "by" is followed by no name or the name is elsewhere.
func TestRelevanceOfAnAttribution(t *testing.T) {
	t.Parallel()
	wrote := PlanClaim{ClaimText: "A playwright wrote The Ostmoor Tide", Entities: []string{"The Ostmoor Tide"}}
	lord := PlanClaim{ClaimText: "A novelist wrote The Lord of the Tides", Entities: []string{"The Lord of the Tides"}}
	staged := PlanClaim{ClaimText: "The Ostmoor Tide premiered in Westmoor", Entities: []string{"The Ostmoor Tide", "Westmoor"}}
	maker := PlanClaim{ClaimText: "Anna Berg wrote a comedy", Entities: []string{"Anna Berg"}}
	born := PlanClaim{ClaimText: "Anna Berg was born in Westmoor", Entities: []string{"Anna Berg", "Westmoor"}}
	for _, tc := range []struct {
		claim    PlanClaim
		text     string
		relevant bool
	}{
		{wrote, "She made her stage debut in The Ostmoor Tide by Anna Berg.", true},
		{lord, "He read The Lord of the Tides by Karl Olsen twice.", true},
		{staged, "She made her stage debut in The Ostmoor Tide by Anna Berg.", false},
		{wrote, "She made her stage debut in The Ostmoor Tide by the sea.", false},
		{wrote, "A play by Anna Berg opened; The Ostmoor Tide closed.", false},
		// The maker named after a verb of making: the work a claim on what she made asks for,
		// in another form of the claim's verb ("written" for "wrote").
		{maker, "The Ostmoor Tide was written by Anna Berg.", true},
		{maker, "The Ostmoor Tide was staged by Anna Berg.", false},
		{born, "The Ostmoor Tide was written by Anna Berg.", false},
	} {
		if got := newHopTopic("en", "playwright query", tc.claim).relevant("", tc.text); got != tc.relevant {
			t.Errorf("relevant(%q) to %q = %v, want %v", tc.text, tc.claim.ClaimText, got, tc.relevant)
		}
	}
}
