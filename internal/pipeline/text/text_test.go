package text

import (
	"regexp"
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"Alzheimer's 2nd-stage", []string{"alzheimer", "s", "2nd", "stage"}},
		{"  Květa Peschke, born 1975!", []string{"květa", "peschke", "born", "1975"}},
		{"", nil},
	} {
		if got := Words(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokensWordSpansTrimToWord(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, joiners string
		want        []string
	}{
		{"Can't re-use it", "'", []string{"Can't", "re", "use", "it"}},
		{"twenty-one U.S. states", "-.", []string{"twenty-one", "U.S.", "states"}},
		{"Květa's 2nd", "", []string{"Květa", "s", "2nd"}},
	} {
		if got := Tokens(tt.in, tt.joiners); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q, %q) = %q, want %q", tt.in, tt.joiners, got, tt.want)
		}
	}
	s := "«Květa», born 1975."
	var words []string
	for _, sp := range WordSpans(s) {
		words = append(words, s[sp[0]:sp[1]])
	}
	if want := Tokens(s, ""); !slices.Equal(words, want) {
		t.Errorf("WordSpans(%q) gave %q, Tokens %q", s, words, want)
	}
	if got := TrimToWord("«(Hubble),»"); got != "Hubble" {
		t.Errorf("TrimToWord = %q", got)
	}
}

func TestContentWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, language string
		want         []string
	}{
		{"Who wrote the play in 1953?", "en", []string{"wrote", "play", "1953"}},
		{"the 3 tenors of a city", "", []string{"3", "tenors", "city"}},
		// Every language of the query rules has its stop words (German had none, so its articles
		// counted as content in token overlap).
		{"die Stadt der Liebe", "de", []string{"stadt", "liebe"}},
		{"Où est la tour qui a été construite ?", "fr", []string{"tour", "construite"}},
		{"the tour of a city after the war", "en", []string{"tour", "city", "war"}},
		{"Wer baute die Brücke über den Fluss", "de", []string{"baute", "brücke", "fluss"}},
		{"Stadt", "xx", []string{"stadt"}},
	} {
		if got := ContentWords(tt.in, tt.language); !slices.Equal(got, tt.want) {
			t.Errorf("ContentWords(%q, %q) = %q, want %q", tt.in, tt.language, got, tt.want)
		}
	}
}

// Every English number word up to the billions reads as its digits, the teens and tens
// included (one of the four old lists lacked 13-19 and 30-90), and so do the compounds of tens
// and units ("twenty-one" was read as 20 and 1). Ordinals are not cardinals: "first" is no 1.
func TestNumberWord(t *testing.T) {
	t.Parallel()
	for word, want := range map[string]string{"zero": "0", "seven": "7", "Fifteen": "15", "nineteen": "19",
		"thirty": "30", "ninety": "90", "hundred": "100", "million": "1000000", "dozen": "12",
		"twenty-one": "21", "Twenty One": "21", "ninety-nine": "99", "forty–two": "42"} {
		if got, ok := NumberWord(word); !ok || got != want {
			t.Errorf("NumberWord(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
	for _, word := range []string{"seventh", "first", "twenty-first", "one-two", "ten-one", "twenty-twenty", "twenty-", "hundred-one", "", "3"} {
		if got, ok := NumberWord(word); ok {
			t.Errorf("NumberWord(%q) = %q", word, got)
		}
	}
	re := regexp.MustCompile(`\b(?:` + NumberWordPattern() + `)\b`)
	if got := re.FindAllString("seventeen of the seventy-seven", -1); !slices.Equal(got, []string{"seventeen", "seventy", "seven"}) {
		t.Errorf("NumberWordPattern found %q", got)
	}
	re = regexp.MustCompile(`\b(?:` + NumberWordPattern("zero", "one") + `)\b`)
	if got := re.FindAllString("one of the two", -1); !slices.Equal(got, []string{"two"}) {
		t.Errorf("NumberWordPattern without one found %q", got)
	}
}

func TestOrdinalWord(t *testing.T) {
	t.Parallel()
	for word, want := range map[string]string{"first": "1", "Third": "3", "twelfth": "12", "twentieth": "20",
		"ninetieth": "90", "twenty-first": "21", "twenty first": "21", "thirty-third": "33", "1st": "1",
		"2nd": "2", "3rd": "3", "21st": "21", "11th": "11", "100th": "100"} {
		if got, ok := OrdinalWord(word); !ok || got != want {
			t.Errorf("OrdinalWord(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
	for _, word := range []string{"one", "21", "st", "1990s", "twenty", "first-twenty", "th", "2x"} {
		if got, ok := OrdinalWord(word); ok {
			t.Errorf("OrdinalWord(%q) = %q", word, got)
		}
	}
}

// NumberAt reads a compound written as two words as one number, and says how many words it took.
func TestNumberAt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		words   []string
		i       int
		digits  string
		ordinal bool
		n       int
	}{
		{[]string{"released", "twenty", "one", "albums"}, 1, "21", false, 2},
		{[]string{"twenty", "albums"}, 0, "20", false, 1},
		{[]string{"the", "twenty", "first", "edition"}, 1, "21", true, 2},
		{[]string{"the", "third", "bridge"}, 1, "3", true, 1},
		{[]string{"the", "21st", "edition"}, 1, "21", true, 1},
		{[]string{"one", "twenty"}, 0, "1", false, 1},
		{[]string{"the", "bridge"}, 1, "", false, 0},
		{[]string{"twenty"}, 3, "", false, 0},
	} {
		digits, ordinal, n := NumberAt(tt.words, tt.i)
		if digits != tt.digits || ordinal != tt.ordinal || n != tt.n {
			t.Errorf("NumberAt(%q, %d) = %q, %v, %d; want %q, %v, %d", tt.words, tt.i, digits, ordinal, n, tt.digits, tt.ordinal, tt.n)
		}
	}
}

func TestIsNegation(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"not", "Never", "isn't", "doesn’t", "isnt", "nicht", "jamais", "mustn't"} {
		if !IsNegation(w) {
			t.Errorf("IsNegation(%q) = false", w)
		}
	}
	for _, w := range []string{"note", "nothingness", "known", "nation"} {
		if IsNegation(w) {
			t.Errorf("IsNegation(%q) = true", w)
		}
	}
}

func TestTruncateQuoteOneLine(t *testing.T) {
	t.Parallel()
	if got := Truncate("Květa", 3); got != "Kv" {
		t.Errorf("Truncate split a character: %q", got)
	}
	if got := Truncate("abc", 5); got != "abc" {
		t.Errorf("Truncate = %q", got)
	}
	if got := Quote(`say "hi"`); got != `"say \"hi\""` {
		t.Errorf("Quote = %s", got)
	}
	if got := OneLine("a\x1b[31m red\n\tline  "); got != "a [31m red line" {
		t.Errorf("OneLine = %q", got)
	}
	if got := OneLineCut("one two three", 7); got != "one tw…" {
		t.Errorf("OneLineCut = %q", got)
	}
	if got := OneLineCut("short", 7); got != "short" {
		t.Errorf("OneLineCut = %q", got)
	}
}

// The stop words of every language count in any language for text whose language is not known
// (a query a model wrote), in their written and their accent-free forms.
func TestIsAnyStopWord(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]bool{"the": true, "für": true, "fur": true, "était": true, "etait": true,
		"welche": true, "perché": true, "waarom": true, "tower": false, "paris": false, "": false} {
		if got := IsAnyStopWord(w); got != want {
			t.Errorf("IsAnyStopWord(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestIsCapitalisedAndTitleMinorWords(t *testing.T) {
	for w, want := range map[string]bool{"Tesla": true, "Éire": true, "tesla": false, "4th": false, "": false, "NIH": true} {
		if got := IsCapitalised(w); got != want {
			t.Errorf("IsCapitalised(%q) = %v", w, got)
		}
	}
	for w, want := range map[string]bool{"from": true, "the": true, "von": true, "with": true, "streets": false, "You": false} {
		if got := IsTitleMinorWord(w); got != want {
			t.Errorf("IsTitleMinorWord(%q) = %v", w, got)
		}
	}
}

func TestContainsRun(t *testing.T) {
	t.Parallel()
	words := Words("Adam Beach played Detective Chester Lake")
	for _, tt := range []struct {
		run  []string
		want bool
	}{
		{Words("Adam Beach"), true},
		{Words("Chester Lake"), true},
		{Words("Ada"), false},
		{Words("Beach Adam"), false},
		{nil, false},
	} {
		if got := ContainsRun(words, tt.run); got != tt.want {
			t.Errorf("ContainsRun(%v) = %v, want %v", tt.run, got, tt.want)
		}
	}
}

func TestSingular(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"films": "film", "agencies": "agency", "towers": "tower",
		"glass": "glass", "cyprus": "cyprus", "1990s": "1990s", "bus": "bus", "its": "its",
	} {
		if got := Singular(w); got != want {
			t.Errorf("Singular(%q) = %q, want %q", w, got, want)
		}
	}
	if got := SingularWords("Romance Films of the 1990s"); !slices.Equal(got, []string{"romance", "film", "of", "the", "1990s"}) {
		t.Errorf("SingularWords: %v", got)
	}
}

func TestSentences(t *testing.T) {
	for in, want := range map[string][]string{
		"Who starred? Ada starred!\nBo too. Cy directed it.": {"Who starred?", "Ada starred!", "Bo too.", "Cy directed it."},
		"One sentence without an end":                        {"One sentence without an end"},
		"Warner Bros. Pictures made it.":                     {"Warner Bros.", "Pictures made it."},
		"Version 2.5 shipped.\r\n\nNext.  ":                  {"Version 2.5 shipped.", "Next."},
		"":                                                   nil,
	} {
		if got := Sentences(in); !slices.Equal(got, want) {
			t.Errorf("Sentences(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLinkNote(t *testing.T) {
	for _, tc := range []struct{ text, target, want string }{
		{"Bologna", "Virtus Pallacanestro Bologna", " (link: Virtus Pallacanestro Bologna)"},
		{"Steinheidel-Erlabrunn", "Breitenbrunn,_Saxony", " (link: Breitenbrunn, Saxony)"},
		{"American", "United States", " (link: United States)"},
		{"Gallery", "Cahaba, Alabama#Gallery", " (link: Cahaba, Alabama)"},
		{"General Douglas MacArthur", "Douglas MacArthur", ""}, // the target says nothing the text does not
		{"Proofpoint", "proofpoint", ""},
		{"/ˈiːtən/", "Help:IPA/English", ""}, // a namespace's page, not a thing the text names
		{"listen", "File:Versailles.wav", ""},
		{"The Force Awakens", "Star_Wars:_The_Force_Awakens", " (link: Star Wars: The Force Awakens)"},
		{"Bologna", "", ""},
		{"the club", "Bologna (basketball)", " (link: Bologna (basketball))"},
	} {
		if got := LinkNote(tc.text, tc.target); got != tc.want {
			t.Errorf("LinkNote(%q, %q) = %q, want %q", tc.text, tc.target, got, tc.want)
		}
	}
}

func TestWithoutLinkNotes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"a club called Bologna (link: Virtus Pallacanestro Bologna) won", "a club called Bologna won"},
		{"a protein (link: Cell (biology)) of the cell (link: Cell membrane).", "a protein of the cell."},
		{"no notes here", "no notes here"},
		{"a snippet cut inside (link: Virtus Palla", "a snippet cut inside (link: Virtus Palla"},
		// A snippet cut inside a note, then the page's own lines: the unclosed note ends at its
		// line, not at the next note's bracket (it had swallowed the page's text up to there, and
		// a relay run's verifier quote of that text was dropped as not in its source).
		{"designed by Ostmoor (link: Ostmoor Engin\n\nFrom the page itself:\nThe car, designed by Ostmoor (link: Ostmoor Engineering) and introduced in 2008.",
			"designed by Ostmoor (link: Ostmoor Engin\n\nFrom the page itself:\nThe car, designed by Ostmoor and introduced in 2008."},
		{"a cut (link: Ostmoor and the club (link: Westmoor FC) won", "a cut (link: Ostmoor and the club won"},
		{"a cut (link: Ostmoor and the club (link: Westmoor FC) won (in 1990) there", "a cut (link: Ostmoor and the club won (in 1990) there"},
	} {
		if got := WithoutLinkNotes(c.in); got != c.want {
			t.Errorf("WithoutLinkNotes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLinks(t *testing.T) {
	s := "The club" + LinkNote("club", "Bologna (basketball)") + " signed Ada" + LinkNote("Ada", "Ada Vance") + ", and" + " (link: Cut"
	want := []Link{
		{Before: "The club", Target: "Bologna (basketball)"},
		{Before: "The club (link: Bologna (basketball)) signed Ada", Target: "Ada Vance"},
	}
	if got := Links(s); !slices.Equal(got, want) {
		t.Errorf("Links(%q) = %q, want %q", s, got, want)
	}
	// An unclosed note ends at its line or at the next note: the notes after it are still read.
	cut := "A snippet (link: Cut\nThe club" + LinkNote("club", "Bologna (basketball)") + " won."
	if got, want := Links(cut), []Link{{Before: "A snippet (link: Cut\nThe club", Target: "Bologna (basketball)"}}; !slices.Equal(got, want) {
		t.Errorf("Links(%q) = %q, want %q", cut, got, want)
	}
	if got := Links("Ada (born 1990) is a club (links)."); got != nil {
		t.Errorf("a text without notes has links %q", got)
	}
}
