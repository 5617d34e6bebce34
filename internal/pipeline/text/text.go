// Package text is the one home of the word-level text rules every other package shares: how a
// text splits into words, which words carry content (per language), how number words read as
// digits, which words negate, how two texts are folded to be compared (fold.go), and how text is
// cut, quoted and put on one line. A rule defined twice drifts (issue 25 found four lists of
// number words with different coverage, so a gold "15" against "fifteen" scored as a miss in one
// place and matched in another); here each is defined once and table-tested.
//
// It is pure and imports nothing of the project.
package text

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MonthNames are the English months, lower-cased, as WordSet reads them.
const MonthNames = "january february march april may june july august september october november december"

// WordSet returns the set of the space-separated words.
func WordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Words splits s into its runs of letters and digits, lower-cased: "Alzheimer's 2nd-stage" is
// "alzheimer", "s", "2nd", "stage". Every other character separates words.
func Words(s string) []string { return Tokens(strings.ToLower(s), "") }

// Tokens splits s into its words as written (case kept): runs of letters, digits and the
// characters of joiners, which hold a word together where a rule needs it to ("'" keeps
// "can't" one word, "-" keeps "twenty-one"). Every other character separates words. Words is
// Tokens of the lower-cased text with no joiners.
func Tokens(s, joiners string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !wordRune(r, joiners) })
}

// WordSpans are the byte offsets [start, end) of s's runs of letters and digits (the words of
// Tokens with no joiners), for a rule that maps words back to the text.
func WordSpans(s string) [][2]int {
	var spans [][2]int
	start := -1
	for i, r := range s {
		switch {
		case wordRune(r, "") && start < 0:
			start = i
		case !wordRune(r, "") && start >= 0:
			spans = append(spans, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(s)})
	}
	return spans
}

// TrimToWord removes what is not a letter or a digit from both ends of s: "(Hubble)," is
// "Hubble".
func TrimToWord(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return !wordRune(r, "") })
}

// IsCapitalised reports whether w opens with an upper-case letter, as a name or a title word
// does ("Tesla", "Inc").
func IsCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// IsTitleMinorWord reports whether w (in lower case) is one of the words title case leaves in
// lower case inside a title or a name ("A Soldier and a Maker", "Gone with the Wind", "Smile
// from the Streets You Hold"), in the languages of the stop-word lists.
func IsTitleMinorWord(w string) bool { return titleMinorWords[w] }

var titleMinorWords = WordSet(`a an the and or nor but for of in on at to by from with as into onto over up via vs per
le la les un une de du des et ou en au aux der die das ein eine und oder von zu im am el los las y o del al il lo gli e di da
con het een en van op`)

// wordRune reports whether r belongs to a word: a letter, a digit, or one of joiners.
func wordRune(r rune, joiners string) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(joiners, r)
}

// numberWords are the English number words, read as the digits a text may use instead.
var numberWords = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
	"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
	"hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000", "trillion": "1000000000000",
	"dozen": "12",
}

// NumberWord returns the digits an English cardinal number word names, ok false for any other
// word: a word of numberWords ("fifteen" is "15") or a compound of tens and units written with
// a hyphen, a dash or a space ("twenty-one", "twenty one" are "21"). The word is matched in lower
// case. An ordinal is no cardinal ("first" is not "1"): see OrdinalWord.
func NumberWord(word string) (digits string, ok bool) {
	w := strings.ToLower(word)
	if digits, ok = numberWords[w]; ok {
		return digits, true
	}
	tens, unit, ok := cutCompound(w)
	if !ok {
		return "", false
	}
	u, ok := numberWords[unit]
	if !ok || len(u) != 1 || u == "0" {
		return "", false
	}
	return tens[:1] + u, true
}

// ordinalWords are the English ordinals that are not a cardinal with "th" ("fourth" is, "fifth"
// is not), read as the number they put in order.
var ordinalWords = map[string]string{
	"first": "1", "second": "2", "third": "3", "fifth": "5", "eighth": "8", "ninth": "9", "twelfth": "12",
	"twentieth": "20", "thirtieth": "30", "fortieth": "40", "fiftieth": "50", "sixtieth": "60",
	"seventieth": "70", "eightieth": "80", "ninetieth": "90",
}

// OrdinalWord returns the number an English ordinal puts in order, ok false for any other word:
// "first" and "1st" are "1", "third" "3", "twelfth" "12", "twenty-first", "twenty first" and
// "21st" "21". The word is matched in lower case. The suffix of a number in digits is not
// checked against the number ("21th" is "21"): a text that misspells it still means 21.
func OrdinalWord(word string) (digits string, ok bool) {
	w := strings.ToLower(word)
	switch end := strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }); {
	case end < 0 && w != "":
		return "", false // a cardinal in digits
	case end > 0:
		switch w[end:] {
		case "st", "nd", "rd", "th":
			return w[:end], true
		}
		return "", false
	}
	if digits, ok = ordinalWords[w]; ok {
		return digits, true
	}
	if base, found := strings.CutSuffix(w, "th"); found && len(base) > 2 && !strings.HasSuffix(base, "y") {
		// "fourth", "sixteenth", "hundredth": a cardinal with "th".
		if d, ok := numberWords[base]; ok {
			return d, true
		}
	}
	tens, unit, ok := cutCompound(w)
	if !ok {
		return "", false
	}
	u, ok := OrdinalWord(unit)
	if !ok || len(u) != 1 || u == "0" || strings.ContainsAny(unit, "0123456789") {
		return "", false
	}
	return tens[:1] + u, true
}

// cutCompound cuts a compound number word into its tens ("twenty") and its unit ("one",
// "first"), joined by a hyphen, a dash or a space; tens is returned as its digits ("20").
func cutCompound(w string) (tens, unit string, ok bool) {
	i := strings.IndexAny(w, "-‐‑–— ")
	if i < 0 {
		return "", "", false
	}
	_, size := utf8.DecodeRuneInString(w[i:])
	t, ok := numberWords[w[:i]]
	if !ok || len(t) != 2 || t[1] != '0' || t == "10" {
		return "", "", false
	}
	return t, w[i+size:], true
}

// NumberAt reads the number word that starts at words[i] (lower-cased words, as Words gives
// them): a cardinal or an ordinal, a compound written as two words ("twenty", "one") taken as
// one. n is the number of words it took, 0 when words[i] is no number word (or i is out of
// range); ordinal tells "first" (1) from "one" (1), which a rule may not want to count.
func NumberAt(words []string, i int) (digits string, ordinal bool, n int) {
	if i < 0 || i >= len(words) {
		return "", false, 0
	}
	if i+1 < len(words) {
		pair := words[i] + " " + words[i+1]
		if d, ok := NumberWord(pair); ok {
			return d, false, 2
		}
		if d, ok := OrdinalWord(pair); ok {
			return d, true, 2
		}
	}
	if d, ok := NumberWord(words[i]); ok {
		return d, false, 1
	}
	if d, ok := OrdinalWord(words[i]); ok {
		return d, true, 1
	}
	return "", false, 0
}

// NumberWordPattern is a regular-expression alternation of the number words, longest first,
// for rules that look for numbers in running text, without the words given in except (a rule
// may leave out "one", which in "one of the largest" picks out rather than counts).
func NumberWordPattern(except ...string) string {
	words := make([]string, 0, len(numberWords))
	for w := range numberWords {
		if !slices.Contains(except, w) {
			words = append(words, w)
		}
	}
	// Longest first, so that "seventeen" is not read as "seven".
	for i := range words {
		for j := i + 1; j < len(words); j++ {
			if len(words[j]) > len(words[i]) || (len(words[j]) == len(words[i]) && words[j] < words[i]) {
				words[i], words[j] = words[j], words[i]
			}
		}
	}
	return strings.Join(words, "|")
}

// negations are the words that turn a statement into its opposite, in the languages of the
// language table that have one short word for it, and English contractions with and without
// their apostrophe (Words splits "isn't" into "isn" and "t").
var negations = WordSet(`not no never none nobody nothing neither nor without cannot
	isnt wasnt arent werent dont doesnt didnt hasnt havent hadnt wont cant couldnt shouldnt wouldnt
	isn wasn aren weren doesn didn hasn haven hadn couldn shouldn wouldn
	isn't wasn't aren't weren't don't doesn't didn't hasn't haven't hadn't won't can't couldn't shouldn't wouldn't
	pas ne nicht kein keine nie nunca jamais nada nadie mai non`)

// IsNegation reports whether a word negates: "not", "never", "isn't", "nicht", ... and any
// English word ending in "n't". The word is matched in lower case.
func IsNegation(word string) bool {
	w := strings.ToLower(strings.ReplaceAll(word, "’", "'"))
	return negations[w] || strings.HasSuffix(w, "n't")
}

// Sentences splits s into its sentences, each trimmed and with the mark that ends it, at
// SentenceEnds ("Who starred? Ada starred!\nBo too." is three).
func Sentences(s string) []string {
	var out []string
	start := 0
	for _, end := range append(SentenceEnds(s), len(s)) {
		if sentence := strings.TrimSpace(s[start:end]); sentence != "" {
			out = append(out, sentence)
		}
		start = end
	}
	return out
}

// SentenceEnds are the byte offsets in s at which its sentences end, in order: just after ".",
// "?" or "!" before a space or a tab, and at each line break (a line is a sentence whether or not
// it ends with a mark: a list's items, a table's rows). A full stop after an abbreviation
// ("Warner Bros. Pictures") ends one too: a rule reading a sentence as a window sees a shorter
// one, never a longer one. The end of s is no offset here.
func SentenceEnds(s string) []int {
	var ends []int
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n' || s[i] == '\r':
			ends = append(ends, i)
		case (s[i] == '.' || s[i] == '?' || s[i] == '!') && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t'):
			ends = append(ends, i+1)
		}
	}
	return ends
}

// LinkNote is what a reader of a link writes after the link's text to say where it leads,
// " (link: Virtus Pallacanestro Bologna)" after "Bologna", or "" when the target names nothing
// the text does not say: a page often says who or what it means only by a link's target (a
// club called "Bologna", a birthplace written by its district's name), and a judge given the
// text alone cannot tell. The target is a page title or a link's title attribute: underscores
// read as spaces, a section after "#" is dropped, and a title in a namespace ("File:...",
// "Help:IPA/English": a word and a colon with no space after it) names a page about the site,
// not a thing, and is no note; a title's own colon is followed by a space ("Star Wars: The
// Force Awakens").
func LinkNote(linkText, target string) string {
	target, _, _ = strings.Cut(target, "#")
	target = strings.Join(strings.Fields(strings.ReplaceAll(target, "_", " ")), " ")
	if prefix, rest, found := strings.Cut(target, ":"); target == "" || found && !strings.Contains(prefix, " ") && !strings.HasPrefix(rest, " ") {
		return ""
	}
	said := map[string]bool{}
	for _, w := range Words(FoldForMatch(linkText)) {
		said[w] = true
	}
	for _, w := range Words(FoldForMatch(target)) {
		if !said[w] {
			return linkNoteOpening + target + ")"
		}
	}
	return ""
}

// linkNoteOpening opens a note LinkNote writes.
const linkNoteOpening = " (link: "

// Link is a link a text reads with where it leads (LinkNote): Before is the text up to the
// note, which ends with the link's text, and Target the title the note names.
type Link struct {
	Before, Target string
}

// Links are the notes LinkNote wrote in s, in order. A target's own brackets ("Cell
// (biology)") are part of it; a note left unclosed (a snippet cut inside it) is none, and the
// notes after it are read.
func Links(s string) []Link {
	var out []Link
	for at := 0; ; {
		i := strings.Index(s[at:], linkNoteOpening)
		if i < 0 {
			return out
		}
		i += at
		start := i + len(linkNoteOpening)
		end := noteEnd(s, start)
		if end < 0 {
			at = start
			continue
		}
		out = append(out, Link{Before: s[:i], Target: s[start:end]})
		at = end + 1
	}
}

// WithoutLinkNotes is s without the notes LinkNote wrote in it: the text as its page shows it. A
// note left unclosed (a snippet cut inside it) is kept, as Links reads none there.
func WithoutLinkNotes(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, linkNoteOpening)
		if i < 0 {
			break
		}
		start := i + len(linkNoteOpening)
		end := noteEnd(s, start)
		if end < 0 {
			b.WriteString(s[:start])
			s = s[start:]
			continue
		}
		b.WriteString(s[:i])
		s = s[end+1:]
	}
	b.WriteString(s)
	return b.String()
}

// noteEnd is the index of the bracket that closes the note whose target starts at start, the
// target's own brackets counted ("Cell (biology)"), or -1 when none does. A target is one
// title: a line break or another note before the bracket means the note was left unclosed (a
// snippet cut inside it, the page's own lines after it), and reading on would take the next
// note's bracket for its own and the text between for a target.
func noteEnd(s string, start int) int {
	depth := 1
	for k := start; k < len(s); k++ {
		switch s[k] {
		case '(':
			if strings.HasPrefix(s[k:], strings.TrimPrefix(linkNoteOpening, " ")) {
				return -1
			}
			depth++
		case ')':
			if depth--; depth == 0 {
				return k
			}
		case '\n', '\r':
			return -1
		}
	}
	return -1
}

// Truncate cuts s to at most n bytes without splitting a character.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote quotes a text (a query, a rule's subject) for a message, cut to a readable length.
func Quote(s string) string { return fmt.Sprintf("%q", Truncate(s, 200)) }

// OneLine puts text on one line for a log, a message or a terminal: control characters become
// spaces (a model's reply could carry escape sequences a terminal would obey) and every run of
// white space one space.
func OneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// OneLineCut is OneLine cut to at most n characters, the last of a cut line "…".
func OneLineCut(s string, n int) string {
	s = OneLine(s)
	if r := []rune(s); n > 0 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// ContainsRun reports whether words holds run as consecutive words ("adam beach" in "adam beach
// played ..."; an empty run is in nothing).
func ContainsRun(words, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// Singular is w, a folded word, made singular as the matching rules read it: "agencies" is
// "agency", "films" is "film"; a word in "ss" or "us", a decade ("1990s") and a word of three
// letters or fewer stay as they are.
func Singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !IsNumber(w[:len(w)-1]):
		return w[:len(w)-1]
	}
	return w
}

// SingularWords are the words of s, folded (FoldForMatch) and each made singular.
func SingularWords(s string) []string {
	words := Words(FoldForMatch(s))
	for i, w := range words {
		words[i] = Singular(w)
	}
	return words
}

// IsNumber reports whether w is digits only, and not empty ("1889", not "1990s").
func IsNumber(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}
