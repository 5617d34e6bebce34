package datasets

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/testenv"
)

func TestReadFactcheckBench(t *testing.T) {
	t.Parallel()
	path := testenv.WriteFile(t, "bench.jsonl", `{"sentences": {"sentence2": {"text": "He was born in Honolulu.", "decontext": "Barack Obama was born in Honolulu.", "claims": ["Barack Obama was born in Honolulu."], "claim_checkworthiness": ["factual"]}, "sentence10": {"text": "Is there more?", "decontext": "Is there more?", "claims": [], "claim_checkworthiness": []}, "sentence1": {"text": "Python is a language and the best one.", "decontext": "", "claims": ["Python is a language.", "Python is the best language."], "claim_checkworthiness": ["factual", "opinion"]}}}

{"sentences": {"sentence1": {"text": "Jazz is great.", "decontext": "Jazz is great.", "claims": ["Jazz is great."], "claim_checkworthiness": ["opinion"]}}}
{"sentences": {"sentence1": {"text": "Paris is in France.", "decontext": "Paris is in France.", "claims": ["Paris is in France."], "claim_checkworthiness": ["factual"]}}}
`)
	got, err := ReadFactcheckBench(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []GoldStatement{
		{"1/sentence1", "Python is a language and the best one.", []string{"Python is a language."}},
		{"1/sentence2", "Barack Obama was born in Honolulu.", []string{"Barack Obama was born in Honolulu."}},
		{"4/sentence1", "Paris is in France.", []string{"Paris is in France."}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Text != want[i].Text || !slices.Equal(got[i].Gold, want[i].Gold) {
			t.Errorf("statement %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if two, _ := ReadFactcheckBench(path, 2); len(two) != 2 {
		t.Errorf("n=2 gave %d statements", len(two))
	}
	bad := testenv.WriteFile(t, "bad.jsonl", "{\"sentences\": {}}\nnot json\n")
	if _, err := ReadFactcheckBench(bad, 0); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Errorf("a bad line: %v", err)
	}
}

// TestReadFactcheckBenchDataset holds the reader to the data set's figures (skipped where it is absent).
func TestReadFactcheckBenchDataset(t *testing.T) {
	t.Parallel()
	all, err := ReadFactcheckBench(testenv.Dataset(t, FactcheckBenchFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	gold := 0
	for _, s := range all {
		gold += len(s.Gold)
	}
	// 311 sentences, 678 claims; without the sentences that have no factual claim and the
	// opinion claims: 277 statements, 661 gold claims.
	if len(all) != 277 || gold != 661 {
		t.Fatalf("%d statements with %d gold claims, want 277 with 661", len(all), gold)
	}
	if all[1].ID != "1/sentence2" || !strings.HasPrefix(all[1].Text, "Justice William O. Douglas was born") {
		t.Errorf("second statement %+v: not the decontextualised sentence", all[1])
	}
}

// EX-FEVER's rows become labelled claims with their explanations as the corpus: NOT ENOUGH INFO
// left out, each sentence on the page of the entity it names first, a REFUTE explanation's
// ", not X" (the claim's wrong value) dropped, the gold pages as the claim's evidence.
func TestReadExFever(t *testing.T) {
	t.Parallel()
	set, err := Read("testdata/exfever.csv", "testdata/exfever.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Items) != 2 {
		t.Fatalf("%d items, want the SUPPORT and the REFUTE claim", len(set.Items))
	}
	refute, support := set.Items[0], set.Items[1]
	if refute.Gold.Label != pipeline.VerdictRefuted || refute.Gold.Hops != 3 || support.Gold.Label != pipeline.VerdictSupported || support.Gold.Hops != 2 {
		t.Errorf("gold %+v and %+v", refute.Gold, support.Gold)
	}
	if got := refute.Gold.Evidence; len(got) != 3 || got[0] != "https://en.wikipedia.org/wiki/Harbour_Lights_%28song%29" {
		t.Errorf("the refuted claim's gold pages: %q", got)
	}
	bodies := map[string]string{}
	for _, d := range set.Docs {
		bodies[d.Title] = d.Body
	}
	want := map[string]string{
		"Harbour Lights (song)": "Harbour Lights is a song by the band Northgate Avenue.",
		"Northgate Avenue":      "Northgate Avenue is a band formed in 1983 in Newcastle upon Tyne.",
		"Newcastle upon Tyne":   "Newcastle upon Tyne is a city on the river Tyne.",
		"Quiet Orchards":        "Quiet Orchards is a novel by Ingrid Vale.",
		"Ingrid Vale":           "Ingrid Vale was born in Oslo, the capital of Norway.",
	}
	if !reflect.DeepEqual(bodies, want) {
		t.Errorf("the corpus:\n got %q\nwant %q", bodies, want)
	}
}

// ex-fever-nei is EX-FEVER's NOT ENOUGH INFO claims, each gold unverified, over the same corpus
// as ex-fever (the SUPPORT and REFUTE explanations; an NOT ENOUGH INFO explanation states no
// evidence), its gold pages those of its entities that the corpus holds: a measure of what a
// method commits to when the corpus cannot decide.
func TestReadExFeverNotEnoughInfo(t *testing.T) {
	t.Parallel()
	labelled, err := Read(ExFever, "testdata/exfever.csv")
	if err != nil {
		t.Fatal(err)
	}
	set, err := Read(ExFeverNEI, "testdata/exfever.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Items) != 2 || !slices.Equal(set.Classes, []string{pipeline.VerdictUnverified}) {
		t.Fatalf("%d items over %q, want the two NOT ENOUGH INFO claims over unverified", len(set.Items), set.Classes)
	}
	skerry, vale := set.Items[0], set.Items[1]
	if skerry.Probe.Text != "The lighthouse keeper of Skerry Point wrote three operas." || skerry.Gold.Label != pipeline.VerdictUnverified ||
		skerry.Gold.Raw != "NOT ENOUGH INFO" || skerry.Gold.Hops != 2 || len(skerry.Gold.Evidence) != 0 {
		t.Errorf("the first claim: %+v", skerry)
	}
	if !slices.Equal(vale.Gold.Evidence, []string{"https://en.wikipedia.org/wiki/Ingrid_Vale"}) {
		t.Errorf("the second claim's gold pages: %q, want the one page the corpus holds", vale.Gold.Evidence)
	}
	if !reflect.DeepEqual(set.Docs, labelled.Docs) {
		t.Errorf("the corpus differs from ex-fever's:\n%+v\n%+v", set.Docs, labelled.Docs)
	}
	if path, err := Path(ExFeverNEI); err == nil && !strings.HasSuffix(path, ExFeverFile) {
		t.Errorf("--dataset %s reads %s, want EX-FEVER's file", ExFeverNEI, path)
	}
}

// An explanation sentence is text of the page of the entity it is about. EX-FEVER's sentences
// often name a person by the full name the page opens with ("Edward Thomas Hardy is an English
// actor nominated for two Critics' Choice Movie Awards" for Tom_Hardy): read by the first title
// it names, such a sentence went to another page (Critics'_Choice_Movie_Awards), and a relay
// judge of "Tom Hardy is American" found Tom Hardy's page silent on his nationality. 1,020 of
// the 10,340 SUPPORT and REFUTE explanation sentences are of that kind.
func TestPageOfReadsTheSentencesSubject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sentence string
		entities []string
		want     string
	}{
		{"Margaret Ellen Vale is an English actor nominated for two Harbour Film Awards.",
			[]string{"Quiet_Orchards_(film)", "Meg_Vale", "Harbour_Film_Awards"}, "Meg_Vale"},
		{"Tomás Andrés Ruiz Ortega is an American actor and director.",
			[]string{"The_Northgate_Affair", "Tomás_Ruiz"}, "Tomás_Ruiz"},
		{"Norn is the old language of Shetland and Orkney.", []string{"Skerry_Point", "Norn_language"}, "Norn_language"},
		// The subject names an entity in full, or none: the first title named, else the first.
		{"Quiet Orchards is a 2008 British film starring Meg Vale.",
			[]string{"Quiet_Orchards_(film)", "Meg_Vale"}, "Quiet_Orchards_(film)"},
		{"The film stars Meg Vale as Ada Orchard.", []string{"Quiet_Orchards_(film)", "Meg_Vale"}, "Meg_Vale"},
		{"It was released in 2008.", []string{"Quiet_Orchards_(film)", "Meg_Vale"}, "Quiet_Orchards_(film)"},
		// A subject sharing a word with two titles says nothing of which.
		{"Marian Jones Vale was a singer.", []string{"Ada_Jones", "Ada_Vale"}, "Ada_Jones"},
		// A title is named as a whole word: "Ostmoor" is no name of "Ostmoorcast Media, LLC"
		// (in EX-FEVER, NBCUniversal's one sentence went to NBC's page, and a relay judge of
		// "NBCUniversal is an American ... conglomerate" found no page that says so).
		{"Ostmoorcast Media, LLC is an American media conglomerate.", []string{"Ostmoor", "Ostmoorcast"}, "Ostmoorcast"},
		{"The Ostmoorcast network is owned by Ostmoor Group.", []string{"Ostmoor_Group", "Ostmoorcast"}, "Ostmoorcast"},
	} {
		if got := pageOf(tc.sentence, tc.entities); got != tc.want {
			t.Errorf("pageOf(%q) = %s, want %s", tc.sentence, got, tc.want)
		}
	}
}

// A REFUTE claim whose explanation says its subject is another entity's ("The Lonesome Dove, not
// The Mighty Dove, is an American television miniseries ...") is false only under a closed-world
// reading: the corpus holds the other entity's facts and nothing of the subject the claim names,
// so no source can contradict it. The scoring counts such claims apart (issue 23's target is
// unverified where the corpus holds the evidence); a swapped attribute ("an American, not
// Irish, actor") is no such claim, for the corpus states the right one.
func TestSwappedSubject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ claim, explanation, want string }{
		{"The Silver Heron is an American television miniseries based upon a screenplay by an award-winning director.",
			"The Grey Heron, not The Silver Heron, is an American television miniseries based upon a screenplay by Ada Vale.", "The Silver Heron"},
		{"Tom Reyes's notable filmography includes a 1986 American thriller film.",
			"Sam Ortiz's notable filmography includes The Quiet Harbour, not Tom Reyes. The Quiet Harbour is a 1986 American thriller film.", "Tom Reyes"},
		{"Ada Vale is an American film director who began her career working alongside an American television writer.",
			`Margaret "Meg" Jones, not Ada Vale is an American film director who began her career working alongside Sam Ortiz.`, "Ada Vale"},
		{"The 12th Harbour Film Awards took place at the Lantern Theatre in a neighborhood.",
			"The 11th Harbour Film Awards, not the 12th Harbour Film Awards, took place at the Lantern Theatre in Port Ellis.", "the 12th Harbour Film Awards"},
		// A swapped attribute, or no swap named.
		{"Ada Vale has appeared in a comedy film starring an Irish actor.",
			"Quiet Orchards is a comedy film starring Sam Ortiz. Sam Ortiz is an American actor, not Irish, comedian.", ""},
		{"Northgate follows a 2009 American thriller film directed by Tom Reyes.",
			"The Harbour follows Quiet Orchards directed by Sam Ortiz, not Tom Reyes.", ""},
		{"Harbour Lights is a song by a band formed in 1973.", "Harbour Lights is a song by Northgate Avenue. Northgate Avenue is a band formed in 1983.", ""},
	} {
		if got := swappedSubject(tc.claim, tc.explanation); got != tc.want {
			t.Errorf("swappedSubject(%q) = %q, want %q", tc.claim, got, tc.want)
		}
	}
}

// A REFUTE explanation's ", not X" part is dropped (it names the claim's wrong value and would
// give the label away), X and no more: read up to the next comma or full stop, X took the facts
// after it with it ("played piano, not guitar on two tracks on BS&T's 1972 album New Blood" lost
// the album; 238 of the 2,016 not-parts of REFUTE explanations run six words or more). A long
// one ends before its verb, past participle, relative pronoun or preposition (216 are cut so).
func TestWithoutCorrections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ explanation, want string }{
		{"Sam Ortiz is an American who played piano, not guitar on two tracks on Northgate Avenue's 1972 album Low Tide.",
			"Sam Ortiz is an American who played piano on two tracks on Northgate Avenue's 1972 album Low Tide."},
		{`Margaret "Meg" Jones, not Ada Vale is an American film director who began her career working alongside Sam Ortiz.`,
			`Margaret "Meg" Jones is an American film director who began her career working alongside Sam Ortiz.`},
		{"Ada Vale, not Canadian singer who began recording with producer Sam Ortiz at Harbour Records.",
			"Ada Vale who began recording with producer Sam Ortiz at Harbour Records."},
		{"Northgate Avenue is a band formed in 1983, not 1973. It is from Newcastle.", "Northgate Avenue is a band formed in 1983. It is from Newcastle."},
		{"The Grey Heron, not The Silver Heron, is an American television miniseries.", "The Grey Heron is an American television miniseries."},
		{"Sam Ortiz is an American actor, not Irish, comedian.", "Sam Ortiz is an American actor comedian."},
		{"The president is the head of state, not the chief of the government.", "The president is the head of state."},
		{"Low Tide is a 1995 crime film, not 2016 American action thriller film produced and directed by Tom Reyes.",
			"Low Tide is a 1995 crime film produced and directed by Tom Reyes."},
		{"Low Tide is a 1995 crime film, not 2016  American action thriller  film produced and directed by Tom Reyes.",
			"Low Tide is a 1995 crime film produced and directed by Tom Reyes."},
		// A wrong modifier: the sentence goes on after it, and was cut off with it.
		{"Port Ellis lies on the northeastern, not southeastern coast of the Westmoor Peninsula. It is small.",
			"Port Ellis lies on the northeastern coast of the Westmoor Peninsula. It is small."},
		{"Low Tide is a 2005 American superhero, not a comedy film starring Sam Ortiz.", "Low Tide is a 2005 American superhero film starring Sam Ortiz."},
		{"Ada Vale was born on 2 May 1960, not 1961 in Port Ellis.", "Ada Vale was born on 2 May 1960 in Port Ellis."},
		// A whole phrase of its own: all of it goes.
		{"The Harbour Kings are a professional ice hockey team, not a horse racing team.", "The Harbour Kings are a professional ice hockey team."},
		{"Low Tide is a series written by Ada Vale, not based on reality.", "Low Tide is a series written by Ada Vale."},
		{"At 14, Ada Vale won the junior title, not at the age of 10.", "At 14, Ada Vale won the junior title."},
		{"Sam Ortiz was married to Ada Vale, not Jane Doe Lee.", "Sam Ortiz was married to Ada Vale."},
		// A wrong adjective written with a capital ("an American, not Canadian singer-songwriter"):
		// the noun after it is the explanation's own, and went with it ("Low Tide is an
		// American." lost its genre and its star; EX-FEVER's I'm Not There page lost Bob Dylan).
		{"Low Tide is an American, not Filipino crime drama film starring Sam Ortiz.", "Low Tide is an American crime drama film starring Sam Ortiz."},
		{"Low Tide is inspired by the life and music of American, not Canadian singer-songwriter Sam Ortiz and dramatizes his life.",
			"Low Tide is inspired by the life and music of American singer-songwriter Sam Ortiz and dramatizes his life."},
		{"Sam Ortiz is an American, not Canadian singer who began recording at Harbour Records.", "Sam Ortiz is an American singer who began recording at Harbour Records."},
		{"Ada Vale is an English, not Swedish television and radio presenter, and a writer.", "Ada Vale is an English television and radio presenter, and a writer."},
		{"Historians use the name to refer to Westmoor, not Eastmoor when the nation was an empire.", "Historians use the name to refer to Westmoor when the nation was an empire."},
		// With its article ("a Canadian, not an Indian actor known as ..."): EX-FEVER's Ryan
		// Gosling page read "Ryan Thomas Gosling is a Canadian in The Believer.".
		{"Sam Ortiz is a Canadian, not an Indian actor known as a sailor in Low Tide.", "Sam Ortiz is a Canadian actor known as a sailor in Low Tide."},
		{"Low Tide is a British, not an American crime film.", "Low Tide is a British crime film."},
		// Not after a name, nor before a title's minor word: X is read as before.
		{"Low Tide, not King of Harbours is a novel.", "Low Tide is a novel."},
		// A wrong number after the right one: the words after it are the explanation's own
		// (EX-FEVER's Hotel for Dogs page read "based on 1971 directed by ...", its Japanese
		// page "spoken natively by about 128 in Japan"; relay judges called both cut off).
		{"Low Tide is a film based on 1971, not 1983 novel of the same name directed by Tom Reyes.",
			"Low Tide is a film based on 1971 novel of the same name directed by Tom Reyes."},
		{"Westmoorish is spoken natively by about 128, not 150 million people primarily in Westmoor.",
			"Westmoorish is spoken natively by about 128 million people primarily in Westmoor."},
		// A wrong date cut at the comma inside it: its year went to the page with the right one
		// (EX-FEVER's The One and Only page read "On December 20, 2021 2022, JTBC broadcast ...").
		{"On December 20, 2021, not on December 20, 2022, Harbour TV broadcast Low Tide.",
			"On December 20, 2021, Harbour TV broadcast Low Tide."},
		{"Low Tide aired on 20 December 2021, not 2022, on Harbour TV.", "Low Tide aired on 20 December 2021 on Harbour TV."},
		// A wrong date after a right year, and a long X that only ends in a date, read as before.
		{"The academy was established on 10 October 1845, not 16 September 2000 during the tenure of Ada Vale.",
			"The academy was established on 10 October 1845 during the tenure of Ada Vale."},
		{"Marriage is the union of two, not five people of one town that was first acknowledged on April 1, 2001, in Westmoor.",
			"Marriage is the union of two that was first acknowledged on April 1, 2001, in Westmoor."},
	} {
		if got := withoutCorrections(tc.explanation); got != tc.want {
			t.Errorf("withoutCorrections(%q)\n = %q\nwant %q", tc.explanation, got, tc.want)
		}
	}
}

// A sentence that opens with a personal pronoun is about what the sentence before it is about:
// EX-FEVER's "A femme fatale is a stock character ... She is an archetype of literature and art."
// put its second sentence on the Archetype page, the first title it names, and a relay judge
// (exfever-3962) found no source saying the femme fatale is an archetype ("'She is an archetype'
// never names who 'she' is").
func TestSentencePagesKeepAPronounWithTheSentenceBefore(t *testing.T) {
	t.Parallel()
	entities := []string{"Meg_Vale", "Femme_fatale", "Archetype"}
	got := sentencePages([]string{"Meg Vale was known for playing femmes fatales.", "A femme fatale is a stock character of a seductive woman.",
		"She is an archetype of literature and art.", "An archetype appears in literary analysis."}, entities)
	want := []string{"Meg_Vale", "Femme_fatale", "Femme_fatale", "Archetype"}
	if !slices.Equal(got, want) {
		t.Errorf("sentencePages = %q, want %q", got, want)
	}
	// A title that opens with a pronoun is a name.
	if got := sentencePages([]string{"Meg Vale stars in It Takes a Thief.", "It Takes a Thief is a series."}, []string{"Meg_Vale", "It_Takes_a_Thief"}); got[1] != "It_Takes_a_Thief" {
		t.Errorf("sentencePages of a title opening with It = %q", got)
	}
	// A first sentence has none before it: it goes where pageOf reads it.
	if got := sentencePages([]string{"It was released in 2008."}, []string{"Quiet_Orchards_(film)", "Meg_Vale"}); !slices.Equal(got, []string{"Quiet_Orchards_(film)"}) {
		t.Errorf("sentencePages of a first sentence = %q", got)
	}
}

// An explanation is split into sentences at a full stop, but not after an initial or an
// abbreviation: "John F. Kennedy" was split after "F.", and "Kennedy, the president of the United
// States" went to another page as a sentence of its own (a relay judge read "Lee Harvey Oswald
// ... assassinated John F." as cut off).
func TestSentences(t *testing.T) {
	t.Parallel()
	got := sentences(nil, "Sam Ortiz was a U.S. Navy veteran who worked for Ada F. Vale. J. R. Reyes was born in Port Ellis. Tom Reyes Jr. Day is a holiday there. It is 5.4 km long. 1983 was a year. Low Tide is published by Harbour Inc. Harbour Inc. is a company. She starred in Well, You See... Well, You See... is a sitcom.")
	want := []string{"Sam Ortiz was a U.S. Navy veteran who worked for Ada F. Vale.", "J. R. Reyes was born in Port Ellis.",
		"Tom Reyes Jr. Day is a holiday there.", "It is 5.4 km long.", "1983 was a year.", "Low Tide is published by Harbour Inc.", "Harbour Inc. is a company.",
		"She starred in Well, You See...", "Well, You See... is a sitcom."}
	if !slices.Equal(got, want) {
		t.Errorf("sentences:\n got %q\nwant %q", got, want)
	}
	// A full stop inside the title of a gold page the explanation names ends no sentence: "Warner
	// Bros. Pictures" was split after "Bros.", the Warner Bros. Pictures page opened "Pictures is
	// an American film production ...", and a relay judge (EX-FEVER 3681-3760) found no source
	// saying Warner Bros. Pictures distributes what the claim said it did. Where the same words
	// end a sentence and the title does not follow, they still end it.
	got = sentences([]string{"Harbour_Bros._Pictures"}, "Harbour Bros. Pictures is a studio. Its films are distributed by Harbour Bros. Harbour Bros. Pictures made Low Tide.")
	want = []string{"Harbour Bros. Pictures is a studio.", "Its films are distributed by Harbour Bros.", "Harbour Bros. Pictures made Low Tide."}
	if !slices.Equal(got, want) {
		t.Errorf("sentences with a title:\n got %q\nwant %q", got, want)
	}
}
