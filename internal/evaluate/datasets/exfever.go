package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/search"
)

// ExFeverFile is EX-FEVER's test set inside $CORROBORATE_DATASETS.
const ExFeverFile = "ex-fever/test.csv"

// exFeverMapping is EX-FEVER's labels in the pipeline's vocabulary. Its NOT ENOUGH INFO claims
// are left out: their explanations hold no evidence ("No information shows ..."), so they
// measure nothing of bridging, and the corpus would hold nothing for them.
var exFeverMapping = []LabelMapping{
	{"SUPPORT", pipeline.VerdictSupported, ""},
	{"REFUTE", pipeline.VerdictRefuted, "the explanation's \", not X\" parts are dropped from the evidence, which would give the label away"},
}

// exFeverNEIMapping is the label of ex-fever-nei's claims: EX-FEVER's NOT ENOUGH INFO, whose
// explanations hold no evidence, scored against ex-fever's corpus, where "unverified" is right.
var exFeverNEIMapping = []LabelMapping{
	{"NOT ENOUGH INFO", pipeline.VerdictUnverified, "the claims EX-FEVER marks NOT ENOUGH INFO, over the corpus of its SUPPORT and REFUTE explanations (theirs state no evidence): a supported or refuted verdict commits to what the corpus cannot decide, unless the corpus happens to decide it"},
}

// exFeverHeader is the first line the reader expects: it says which columns hold what.
var exFeverHeader = []string{"claim", "explanation", "label", "golden entity"}

// readExFeverLabelled reads EX-FEVER (dependentsign/EX-FEVER, data/test.csv): multi-hop claims
// that hide their bridge entity, each with an explanation that states the bridge facts and the
// titles of its gold Wikipedia pages. The explanations are the evidence corpus: each sentence
// becomes text of the page of the gold entity (of its own claim) it is about (sentencePages),
// one document per
// page, shared by every claim that names it; a claim's gold evidence is its pages, and its hop
// count their number. With nei (ex-fever-nei) the claims are the NOT ENOUGH INFO ones instead,
// each gold unverified, over the same corpus, their gold pages those of their entities that it
// holds.
func readExFeverLabelled(path string, nei bool) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the data set: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: reading the header: %w", path, err)
	}
	if len(header) < len(exFeverHeader) || !slices.Equal(header[:len(exFeverHeader)], exFeverHeader) {
		return nil, fmt.Errorf("%s: the header is %q; EX-FEVER's test.csv starts with %q", path, header, exFeverHeader)
	}
	set := &Set{Name: "EX-FEVER test", Path: path, Mapping: exFeverMapping,
		Classes: []string{pipeline.VerdictSupported, pipeline.VerdictRefuted}}
	if nei {
		set.Name, set.Mapping, set.Classes = "EX-FEVER test, NOT ENOUGH INFO claims", exFeverNEIMapping, []string{pipeline.VerdictUnverified}
	}
	pages := map[string]*search.Document{}
	var order []string
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		claim, explanation, raw := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]), strings.TrimSpace(rec[2])
		label := ""
		for _, m := range exFeverMapping {
			if strings.EqualFold(raw, m.Raw) {
				label = m.Label
			}
		}
		entities := PythonStrings(rec[3])
		if label == "" {
			if nei && strings.EqualFold(raw, exFeverNEIMapping[0].Raw) {
				if claim == "" || len(entities) == 0 {
					return nil, fmt.Errorf("%s:%d: a %s claim needs its text and its gold entities", path, line, raw)
				}
				set.Items = append(set.Items, exFeverItem(line, claim, raw, pipeline.VerdictUnverified, entities))
			}
			continue // NOT ENOUGH INFO: no evidence (see exFeverMapping)
		}
		if claim == "" || explanation == "" || len(entities) == 0 {
			return nil, fmt.Errorf("%s:%d: a %s claim needs its text, its explanation and its gold entities", path, line, raw)
		}
		swapped := ""
		if label == pipeline.VerdictRefuted {
			swapped = swappedSubject(claim, explanation)
			explanation = withoutCorrections(explanation)
		}
		it := exFeverItem(line, claim, raw, label, entities)
		it.Gold.SwappedSubject = swapped
		for _, e := range entities {
			if u := wikipediaURL(e); pages[u] == nil {
				pages[u] = &search.Document{URL: u, Title: pageTitle(e), Publisher: "Wikipedia", Language: "en"}
				order = append(order, u)
			}
		}
		ss := sentences(entities, explanation)
		for i, page := range sentencePages(ss, entities) {
			s := ss[i]
			doc := pages[wikipediaURL(page)]
			if !strings.Contains(doc.Body, s) {
				doc.Body = strings.TrimSpace(doc.Body + " " + s)
			}
		}
		if !nei {
			set.Items = append(set.Items, it)
		}
	}
	for _, u := range order {
		if pages[u].Body != "" {
			set.Docs = append(set.Docs, *pages[u])
		}
	}
	if nei {
		for i := range set.Items {
			set.Items[i].Gold.Evidence = slices.DeleteFunc(set.Items[i].Gold.Evidence, func(u string) bool { return pages[u] == nil || pages[u].Body == "" })
		}
	}
	return set, nil
}

// exFeverItem is the claim of line labelled label, its gold evidence the pages of its entities,
// each once, and its hop count their number.
func exFeverItem(line int, claim, raw, label string, entities []string) Item {
	it := Item{Probe: Probe{ID: fmt.Sprintf("exfever-%d", line), Text: claim}, Gold: Gold{Label: label, Raw: raw, Hops: len(entities)}}
	for _, e := range entities {
		if u := wikipediaURL(e); !slices.Contains(it.Gold.Evidence, u) {
			it.Gold.Evidence = append(it.Gold.Evidence, u)
		}
	}
	return it
}

// withoutCorrections is a REFUTE explanation without its ", not X" parts, the claim's wrong
// values (", not Canadian,", ", not 1973"): left in, the evidence would say the claim is wrong in
// so many words. X is wrongValue's: the facts after it stay.
func withoutCorrections(explanation string) string {
	var b strings.Builder
	last := 0
	for _, m := range notPart.FindAllStringSubmatchIndex(explanation, -1) {
		if m[0] < last {
			continue // inside a date the part before took whole
		}
		b.WriteString(explanation[last:m[0]])
		last = m[1]
		x := explanation[m[2]:m[3]]
		value, capitalised := capitalisedModifier(explanation[:m[0]], x)
		number, numbered := numberAfterNumber(explanation[:m[0]], x)
		switch {
		case monthAndDay(x) && explanation[m[1]-1] == ',' && yearNext.MatchString(explanation[m[1]:]):
			// ", not on December 20, 2022," was cut at the date's own comma: its year goes too,
			// and the comma after it stays the explanation's.
			last = m[1] + len(yearNext.FindString(explanation[m[1]:]))
		case numbered:
			last = m[2] + len(number) // the unit and the facts after the number stay
		case capitalised:
			last = m[2] + len(value) // the noun after the adjective stays
		case wrongValue(x) != x:
			last = m[2] + len(wrongValue(x)) // the facts after X stay, with the space before them
		case explanation[m[1]-1] != ',':
			last = m[2] + len(modifierValue(explanation[:m[0]], x))
		}
	}
	b.WriteString(explanation[last:])
	return b.String()
}

// pythonString is one quoted item of a Python list literal, as EX-FEVER writes its entities.
var pythonString = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"`)

// PythonStrings reads a Python list of strings ("['A', \"B's\"]").
func PythonStrings(s string) []string {
	var out []string
	for _, m := range pythonString.FindAllStringSubmatch(s, -1) {
		v := m[1] + m[2]
		v = strings.NewReplacer(`\'`, `'`, `\"`, `"`, `\\`, `\`).Replace(v)
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// wikipediaURL is the English Wikipedia page of an entity title ("Miguel_(singer)"), in the
// canonical form the corpus keeps.
func wikipediaURL(entity string) string {
	raw := (&url.URL{Scheme: "https", Host: "en.wikipedia.org", Path: "/wiki/" + strings.ReplaceAll(entity, " ", "_")}).String()
	if u, err := search.NormalizeURL(raw); err == nil {
		return u
	}
	return raw
}

// pageTitle is an entity's title as a page shows it: "Miguel (singer)".
func pageTitle(entity string) string { return strings.ReplaceAll(entity, "_", " ") }

// pageOf is the entity a sentence is about: the one its subject names by another form of its
// name (subjectEntity), else the one whose name (its title without the disambiguation in
// parentheses) the sentence names first, else the claim's first.
func pageOf(sentence string, entities []string) string {
	if e, ok := subjectEntity(sentence, entities); ok {
		return e
	}
	best, at, length := entities[0], -1, 0
	lower := strings.ToLower(sentence)
	for _, e := range entities {
		name := strings.ToLower(entityName(e))
		// Of two titles named at one place the longer is the one named: "NBCUniversal Media,
		// LLC is ..." names NBCUniversal, not NBC, whose page its sentence had gone to. A title
		// may end inside a word: "Fantasy films" names Fantasy_film.
		if i := strings.Index(lower, name); i >= 0 && (at < 0 || i < at || i == at && len(name) > length) {
			best, at, length = e, i, len(name)
		}
	}
	return best
}

// subjectEntity is the entity a sentence's subject (its words before the first "is", "was",
// "are", "were", "has" or "had") names by a form of its name other than its title: EX-FEVER
// writes the full name a person's page opens with ("Edward Thomas Hardy is an English actor
// nominated for two Critics' Choice Movie Awards" is about Tom_Hardy, not the awards). ok only
// when the subject names no entity's title in full and shares a capitalised word of three
// letters or more with exactly one.
func subjectEntity(sentence string, entities []string) (string, bool) {
	verb := subjectVerb.FindStringIndex(sentence)
	if verb == nil {
		return "", false
	}
	subject := sentence[:verb[0]]
	words := map[string]bool{}
	for _, w := range strings.Fields(subject) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			words[strings.ToLower(strings.Trim(w, `,'"`))] = true
		}
	}
	var named []string
	for _, e := range entities {
		name := entityName(e)
		if strings.Contains(strings.ToLower(subject), strings.ToLower(name)) {
			return "", false
		}
		if slices.ContainsFunc(strings.Fields(name), func(w string) bool { return utf8.RuneCountInString(w) > 2 && words[strings.ToLower(w)] }) {
			named = append(named, e)
		}
	}
	if len(named) != 1 {
		return "", false
	}
	return named[0], true
}

var subjectVerb = regexp.MustCompile(`\s(is|was|are|were|has|had)\s`)

// entityName is an entity's title without the disambiguation in parentheses.
func entityName(entity string) string {
	name, _, _ := strings.Cut(pageTitle(entity), " (")
	return strings.TrimSpace(name)
}

// sentences splits an explanation at a full stop followed by a space and a capital letter or a
// digit, but not after an initial ("John F. Kennedy", "J. J. Cale") or an abbreviation ("Jr.",
// "U.S."), nor inside the title of one of entities, the claim's gold pages, where the
// explanation writes it ("Warner Bros. Pictures"): good enough for EX-FEVER's plain sentences.
func sentences(entities []string, text string) []string {
	inTitle := map[int]bool{}
	for _, e := range entities {
		title := pageTitle(e)
		if !strings.Contains(title, ". ") {
			continue
		}
		for at := 0; ; {
			i := strings.Index(text[at:], title)
			if i < 0 {
				break
			}
			for j := at + i; j < at+i+len(title); j++ {
				inTitle[j] = true
			}
			at += i + len(title)
		}
	}
	var out []string
	start := 0
	for i := 0; i+2 < len(text); i++ {
		if next := rune(text[i+2]); text[i] == '.' && text[i+1] == ' ' && (unicode.IsUpper(next) || unicode.IsDigit(next)) && !abbreviated(text[start:i]) && !inTitle[i] {
			out = append(out, strings.TrimSpace(text[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// abbreviated reports whether the last word of text, before a full stop, is an initial or an
// abbreviation: one letter, a word with full stops of its own ("U.S", not an ellipsis), or one
// of abbreviations (titles that stand before a name; "Inc." often ends a sentence, and is not
// among them).
func abbreviated(text string) bool {
	last := text[strings.LastIndexAny(text, " (")+1:]
	return utf8.RuneCountInString(last) == 1 || (strings.Contains(last, ".") && !strings.HasSuffix(last, ".")) || abbreviations[strings.ToLower(last)]
}

var abbreviations = map[string]bool{"jr": true, "sr": true, "dr": true, "mr": true, "mrs": true, "ms": true, "st": true, "mt": true,
	"vs": true, "no": true, "ft": true, "gen": true, "col": true, "lt": true, "sgt": true, "rev": true, "prof": true}

// swappedSubject is the subject a REFUTE explanation says the claim names wrongly ("The Lonesome
// Dove, not The Mighty Dove, is ..." for "The Mighty Dove is ..."), "" when it says no such
// thing: a ", not X" part whose X, up to its verb, opens the claim.
func swappedSubject(claim, explanation string) string {
	opening := strings.ToLower(strings.TrimPrefix(claim, "The "))
	for _, m := range notPart.FindAllStringSubmatch(explanation, -1) {
		x := strings.TrimSpace(m[1])
		if loc := subjectVerb.FindStringIndex(x); loc != nil {
			x = x[:loc[0]]
		}
		x = strings.TrimSpace(x)
		name := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(x, "the "), "The "))
		if name == "" || !strings.HasPrefix(opening, name) {
			continue
		}
		if rest := opening[len(name):]; rest == "" || !unicode.IsLetter([]rune(rest)[0]) {
			return x
		}
	}
	return ""
}

// notPart is a ", not X" part of an explanation, X up to the next comma, full stop or semicolon,
// with the comma that closes it.
var notPart = regexp.MustCompile(`,\s+not\s+([^,.;]+),?`)

// wrongValue is the wrong value a ", not X" part names, from X read up to the next comma or full
// stop: a long one (four words or more) ends before its first verb, past participle, relative
// pronoun or preposition ("guitar on two tracks on BS&T's 1972 album New Blood" is "guitar", "Martin
// Scorsese is an American film director ..." is "Martin Scorsese"), for the facts after it are
// the explanation's own.
func wrongValue(x string) string {
	words := wordSpan.FindAllStringIndex(x, -1)
	if len(words) < 4 {
		return x
	}
	for _, w := range words[1:] {
		if word := x[w[0]:w[1]]; valueEnds[strings.ToLower(word)] || isParticiple(word) {
			return strings.TrimRight(x[:w[0]], " ")
		}
	}
	return x
}

// modifierValue is the wrong value of a ", not X" part that runs to the end of its sentence when
// X is a modifier of the words after it: the words before the comma are right, and the sentence
// goes on after X's first word (or its article and first word) with a phrase of its own. "on the
// northeastern, not southeastern coast of the Arabian Peninsula" is "on the northeastern coast
// of the Arabian Peninsula", and "a 2005 American superhero, not a comedy film starring Keanu
// Reeves" keeps "film starring Keanu Reeves" (dropped with X, the film's one sentence had lost
// its actor and read as cut off). All of X is the value when the phrase would open with a word
// its sentence has said already ("the head of state, not the chief of the government") or end
// with one of the three words before the comma ("a professional ice hockey team, not a horse
// racing team"), when it has fewer than two words, or when the value is a name, a verb form or
// the phrase opens with a name ("based on reality", "Jane Doe Lee").
func modifierValue(before, x string) string {
	words := wordSpan.FindAllStringIndex(x, -1)
	n := 1
	if len(words) > 1 && articles[strings.ToLower(x[words[0][0]:words[0][1]])] {
		n = 2
	}
	if len(words)-n < 2 {
		return x
	}
	value, next := x[words[n-1][0]:words[n-1][1]], x[words[n][0]:words[n][1]]
	if !startsLower(value) || !startsLower(next) || isParticiple(value) {
		return x
	}
	sentence := wordsOf(before[strings.LastIndex(before, ". ")+1:])
	lastWord := wordsOf(x[words[len(words)-1][0]:])
	if slices.Contains(sentence, wordsOf(next)[0]) || slices.Contains(sentence[max(0, len(sentence)-3):], lastWord[0]) {
		return x
	}
	return strings.TrimRight(x[:words[n][0]], " ")
}

// capitalisedModifier is the wrong value of a ", not X" part when X opens with a wrong adjective
// written with a capital, the right one being the word before the comma: "an American, not
// Canadian singer-songwriter Bob Dylan", "a 1984 British, not French historical drama film", "to
// refer to Cambodia, not India when the nation was ...", "a Canadian, not an Indian actor known
// as ...". The value is then X's first word, or its article and first word, and the words after
// it are the explanation's own: read as a name or to the end of its phrase (wrongValue,
// modifierValue), X took them with it, and EX-FEVER's I'm Not There page lost Bob Dylan (96 of
// the 2,066 REFUTE explanations lost words so: 36 after an adjective alone, 60 after an article
// and an adjective). The right word must be one capitalised word
// after a word in lower case or a number ("an", "1984", "to"), not the end of a name ("Ada Vale,
// not Canadian singer" names a person, and the singer is the wrong value), and the word after
// the value must be in lower case and no title's minor word ("King of Wall", "Romy and
// Michele's" are titles). ok is false when X is not so.
func capitalisedModifier(before, x string) (value string, ok bool) {
	words := wordSpan.FindAllStringIndex(x, -1)
	prior := strings.Fields(before[strings.LastIndex(before, ". ")+1:])
	n := 1
	if len(words) > 1 && articles[x[words[0][0]:words[0][1]]] {
		n = 2 // "an Indian actor": the article goes with its adjective
	}
	if len(words) < n+1 || len(prior) < 2 {
		return "", false
	}
	adjective, next := x[words[n-1][0]:words[n-1][1]], x[words[n][0]:words[n][1]]
	right, beforeRight := prior[len(prior)-1], prior[len(prior)-2]
	if !startsUpperWord(adjective) || !startsUpperWord(right) || text.IsTitleMinorWord(strings.ToLower(adjective)) ||
		!startsLower(beforeRight) || !startsLower(next) || text.IsTitleMinorWord(next) {
		return "", false
	}
	return x[:words[n-1][1]], true
}

// numberAfterNumber is the wrong value of a ", not X" part when it is a number written after the
// right one and X goes on: "based on 1971, not 1983 novel of the same name", "by about 128, not
// 150 million people": the value is the number alone, and the words after it (a unit, a noun,
// the facts of the sentence) are the explanation's own. Read as a whole phrase or up to a
// preposition (wrongValue), X took them with it, and EX-FEVER's Hotel for Dogs page read "based
// on 1971 directed by Thor Freudenthal".
func numberAfterNumber(before, x string) (value string, ok bool) {
	prior := strings.Fields(before)
	words := strings.Fields(x)
	if len(prior) == 0 || len(words) < 2 || !isNumber(prior[len(prior)-1]) || !isNumber(words[0]) || isNumber(words[1]) || isMonth(words[1]) {
		return "", false // "1845, not 16 September 2000 during ...": a date, read as before
	}
	return words[0], true
}

// isNumber reports whether w is a number written in digits, with its separators: "1971", "128",
// "2.5", "1,200".
func isNumber(w string) bool {
	return text.IsNumber(strings.NewReplacer(",", "", ".", "").Replace(w))
}

// monthAndDay reports whether a ", not X" part's X is a month and a day ("on December 20"), whose
// year the part's pattern left after the comma (yearNext). An X that only ends in one ("five
// people ... first legally acknowledged on April 1") is read as before.
func monthAndDay(x string) bool {
	m := monthDay.FindStringSubmatch(x)
	return m != nil && isMonth(m[1])
}

// isMonth reports whether w is a month's name, written with its capital ("May", not "may").
func isMonth(w string) bool { return startsUpperWord(w) && months[strings.ToLower(w)] }

var (
	monthDay = regexp.MustCompile(`^(?:on )?(\p{Lu}\p{Ll}+) \d{1,2}$`)
	yearNext = regexp.MustCompile(`^\s*\d{4}\b`)
	months   = text.WordSet(text.MonthNames)
)

// startsUpperWord reports whether w is one word of letters (and hyphens) opening with a capital:
// "Canadian", "Anglo-Saxon"; not "U.S." or "1984".
func startsUpperWord(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) < 0
}

// wordsOf is the words of s in lower case, without the punctuation around them.
func wordsOf(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if w = strings.Trim(w, ".,;:!?\"'()"); w != "" {
			out = append(out, w)
		}
	}
	return append(out, "") // never empty: a caller reads its first word
}

// articles are the words a value may open with before the word that is the value.
var articles = map[string]bool{"a": true, "an": true, "the": true}

// startsLower reports whether w opens with a lower-case letter or a digit.
func startsLower(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsLower(r) || unicode.IsDigit(r)
}

// wordSpan is a word as written, for its position.
var wordSpan = regexp.MustCompile(`\S+`)

// isParticiple reports whether w reads as a past participle that opens a fact ("produced and
// directed by Michael Mann", "based in Houston"): lower case (not "United"), ending in "ed".
func isParticiple(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed") && strings.ToLower(w) == w
}

// valueEnds are the words a wrong value ends before: verbs of being, relative pronouns and the
// prepositions that open a fact about it ("of" opens a part of a name: "the Kingdom of Ireland").
var valueEnds = map[string]bool{"is": true, "was": true, "are": true, "were": true, "has": true, "had": true,
	"who": true, "which": true, "that": true, "whose": true,
	"on": true, "in": true, "at": true, "from": true, "with": true, "by": true, "for": true, "to": true, "during": true, "since": true, "until": true}

// sentencePages is the entity each sentence of an explanation is about, in order: pageOf's,
// except that a sentence opening with a personal pronoun ("She is an archetype of literature and
// art.") is about what the sentence before it is about, not about the first title it names.
func sentencePages(sentences, entities []string) []string {
	out := make([]string, len(sentences))
	for i, s := range sentences {
		first, rest, _ := strings.Cut(s, " ")
		if i > 0 && personalPronouns[first] && startsLower(rest) { // not "It Takes a Thief is ..."
			out[i] = out[i-1]
			continue
		}
		out[i] = pageOf(s, entities)
	}
	return out
}

// personalPronouns open a sentence about what the sentence before it is about.
var personalPronouns = map[string]bool{"He": true, "She": true, "It": true, "They": true, "His": true, "Her": true, "Its": true, "Their": true}
