package multihop

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// hopTopic is what a hop's results must be about for the hop to rely on them: the content words
// of the claims it verifies and of its planned query, and among them the anchors, the numbers
// and names that say which fact it is about.
//
// A result is relevant when its title and text (folded as text.FoldForMatch does, plural
// "s" removed) hold an anchor and at least one more content word of the claim or the query,
// outside that anchor. An anchor is a number of the claim or the query ("1889"), a name of the
// plan's entities ("Eiffel Tower": every proper noun of it, see nameWords), or an identifier written with
// digits or capitals ("APOE4", "NIH"). A claim with no anchor at all needs two shared content
// words. So "An official history of the Paris metro" shares "official" and "history" with the
// query "Eiffel Tower completed 1889 official history" but neither 1889 nor the Eiffel Tower,
// and "Lake Baikal holds 23 percent of the planet's fresh water" names Lake Baikal but shares
// nothing else with "Lake Baikal reaches a depth of 1642 m": neither is relied on, kept, or
// excluded from the chain's later hops. The page titled with one of the names is relevant
// whatever its text says (titled): it is that entity's own page; so is a text that opens with a
// name of two words or more as its subject (opensWith), whatever its title. Two texts name no
// anchor and are relevant all the same: a definition of a kind that states what the claims say
// of their entities (definesPredicate), and, for a claim about who made a thing, a text that
// attributes the thing to its maker (attributes).
type hopTopic struct {
	language string
	words    map[string]bool
	numbers  map[string]bool
	// names are the anchors that are words: each is the content words of one name, all of
	// which a relevant text holds.
	names [][]string
	// smallNames are the names made of small words only ("Her", "It", "Us", film titles),
	// each as its folded words: with no content word to anchor on, they make relevant only the
	// page titled with them (titled).
	smallNames [][]string
	// shortNames are persons' full names without their middle names (shortName): like small
	// names, they make relevant only the page titled with them, since a text holding the first
	// and last words of "Los Angeles International Airport" may be about another airport.
	shortNames [][]string
	// leads are the names of two words or more as whole folded words ("southampton football
	// club"): a text that opens with one as its subject is that entity's own entry (opensWith).
	leads [][]string
	// spaceless are the names as their folded letters and digits alone ("spacex" for "Space X"):
	// a title that reads the same is the name written with or without its spaces (titled).
	spaceless map[string]bool
	// linkTexts are the words of the entities, each as topicWords reads it: a relevant text that
	// links one of them to a page names that page as the entity's (linking).
	linkTexts [][]string
	// linked are the titles, as spaceless reads them, of the pages that relevant results link
	// the entities to (linking): each is an entity's own page (titled).
	linked map[string]bool
	// authorship says whether a claim of the topic is about who made something ("A playwright
	// wrote The Little Foxes"): a text that attributes one of its names ("The Little Foxes by
	// Lillian Hellman") is about it (attributes).
	authorship bool
	// predicate are the content words of the claims that are no word of a name: what the claims
	// say of their entities ("committed research central part mission" for "Baylor University
	// is committed to research as a central part of its mission"). A definition of a kind that
	// states most of them is about the claim (definesPredicate).
	predicate map[string]bool
	// kindHeads are the last words of the entities written in lower case, kinds of things
	// rather than names ("industry" of "movie industry"): a text that opens with one and with
	// most of what the claims say is about them, whatever word it modifies it with
	// (statesOfKind).
	kindHeads map[string]bool
	// kindsOnly says every entity of the claims is a kind, none a name: a text may state what
	// they say of it under another name (statesOfKind).
	kindsOnly bool
	// described says the hop searches for an entity a bridge claim describes without naming
	// it, by what the claims say of it (a description hop): a text that opens by stating most of
	// that is about the entity, named or not (describes).
	described bool
	// asked are, in a follow-up hop, the words the judge's query asks for that a source it was
	// given writes and the claim does not, each as topicWords reads it (askedPhrases): the page
	// titled with one is the page of what the judge asked for (titled).
	asked [][]string
}

// minSharedWords is the number of distinct content words a relevant result shares with a topic
// that has no anchor.
const minSharedWords = 2

// newHopTopic is the topic of a hop of claims (a cross-validation query joins several) searched
// with the planned query.
func newHopTopic(language, planned string, claims ...PlanClaim) hopTopic {
	t := hopTopic{language: language, words: map[string]bool{}, numbers: map[string]bool{}, spaceless: map[string]bool{}, kindHeads: map[string]bool{}}
	names := 0 // the entities that are names, not kinds
	// A placeholder left unresolved ("{c1}") names nothing a page could hold: read as the
	// identifier "c1", it would be an anchor no result has.
	texts := []string{evidence.WithoutBridges(planned)}
	for _, c := range claims {
		texts = append(texts, evidence.WithoutBridges(c.ClaimText))
		for _, e := range c.Entities {
			e = evidence.WithoutBridges(e)
			words := topicWords(e, language)
			if len(words) == 0 {
				if small := text.Words(text.FoldForMatch(e)); len(small) > 0 {
					t.smallNames = append(t.smallNames, small)
				}
				continue
			}
			for _, w := range words {
				t.words[w] = true
			}
			if len(words) == 1 && text.IsNumber(words[0]) {
				t.numbers[words[0]] = true
				continue
			}
			if !slices.ContainsFunc(strings.Fields(e), text.IsCapitalised) {
				t.kindHeads[words[len(words)-1]] = true
			} else {
				names++
			}
			t.names = append(t.names, nameWords(e, language, words))
			t.linkTexts = append(t.linkTexts, words)
			t.addLead(e)
			t.spaceless[spaceless(e)] = true
			if short := shortName(e, language); short != nil {
				t.shortNames = append(t.shortNames, short)
			}
		}
	}
	for _, s := range texts {
		for _, w := range topicWords(s, language) {
			t.words[w] = true
			if text.IsNumber(w) {
				t.numbers[w] = true
			}
		}
		for _, id := range identifiers(s) {
			t.names = append(t.names, []string{id})
			names++
		}
	}
	t.kindsOnly = len(t.kindHeads) > 0 && names == 0
	t.predicate = map[string]bool{}
	for _, s := range texts[1:] {
		for _, w := range topicWords(s, language) {
			if !text.IsNumber(w) && !slices.ContainsFunc(t.names, func(name []string) bool { return slices.Contains(name, w) }) {
				t.predicate[w] = true
			}
			t.authorship = t.authorship || authorshipVerbs[w]
		}
	}
	return t
}

// describing makes t the topic of a description hop for the entity bridge describes: what
// bridge says of it, outside its names and numbers, joins the predicate words (describes). Its
// names are no anchors here: a page of the entities it names is no page of the entity sought.
func (t *hopTopic) describing(bridge PlanClaim) {
	var named []string
	for _, e := range bridge.Entities {
		named = append(named, topicWords(evidence.WithoutBridges(e), t.language)...)
	}
	for _, w := range topicWords(evidence.WithoutBridges(bridge.ClaimText), t.language) {
		if !text.IsNumber(w) && !slices.Contains(named, w) && !slices.ContainsFunc(t.names, func(name []string) bool { return slices.Contains(name, w) }) {
			t.predicate[w] = true
		}
	}
	t.described = true
}

// authorshipVerbs are the verbs of a claim about who made a thing, as topicWords reads them
// ("writes" is "write").
var authorshipVerbs = text.WordSet("write wrote written author authored direct directed create created compose composed " +
	"produce produced design designed paint painted founded develop developed publish published record recorded")

// maxAttributionGap bounds the small words a name's words may have between them in an
// attribution ("The Lord of the Rings by ...").
const maxAttributionGap = 3

// attributes reports whether raw names one of the topic's names followed by "by" and a
// capitalised word ("debut in The Little Foxes by Lillian Hellman"), or a verb of making, "by"
// and one of the topic's names ("was written by Geoffrey Wright"): it says who made the thing,
// what a claim about its making asks for, though it shares no other word with that claim. In a
// relay run "A playwright wrote The Little Foxes" kept nothing, the only page that names the
// play's author being an actress's ("made her Broadway acting debut in The Little Foxes by
// Lillian Hellman"), and the claims building on the playwright were never stated.
func (t hopTopic) attributes(raw string) bool {
	if !t.authorship {
		return false
	}
	tokens := text.Tokens(raw, "")
	folded := make([]string, len(tokens))
	for i, tok := range tokens {
		folded[i] = text.Singular(text.FoldForMatch(tok))
	}
	for _, name := range t.names {
		for i := 0; i+2 < len(tokens); i++ {
			if folded[i+1] != "by" {
				continue
			}
			// "The Little Foxes by Lillian Hellman": the thing named, then its maker.
			if folded[i] == name[len(name)-1] && text.IsCapitalised(tokens[i+2]) && endsWith(folded[:i+1], name) {
				return true
			}
			// "Romper Stomper was written by Geoffrey Wright": the maker named after a verb of
			// making, for a claim on what the maker made ("Geoffrey Wright wrote a comedy"),
			// whose own verb ("wrote") the text gives in another form.
			if authorshipVerbs[folded[i]] && slices.Equal(folded[i+2:min(len(folded), i+2+len(name))], name) {
				return true
			}
		}
	}
	return false
}

// endsWith reports whether words end with name's words in order, at most maxAttributionGap small
// words between two of them.
func endsWith(words, name []string) bool {
	j, gap := len(words)-1, 0
	for k := len(name) - 1; k >= 0; {
		switch {
		case j < 0:
			return false
		case words[j] == name[k]:
			k, gap = k-1, 0
		case text.IsAnyStopWord(words[j]) && gap < maxAttributionGap:
			gap++
		default:
			return false
		}
		j--
	}
	return true
}

// addNames adds names to the topic's anchors, each as nameWords reads it.
func (t *hopTopic) addNames(names []string, language string) {
	for _, n := range names {
		words := topicWords(n, language)
		if len(words) == 0 {
			continue
		}
		for _, w := range words {
			t.words[w] = true
		}
		t.names = append(t.names, nameWords(n, language, words))
		t.addLead(n)
	}
}

// addLead adds name to the topic's leads when it is two words or more, without an opening
// "the" (a text may or may not write it). A one-word name ("Apple", "Joker") is too often a
// text's first word without being its subject: its entry is the page titled with it.
func (t *hopTopic) addLead(name string) {
	words := text.Words(text.FoldForMatch(name))
	if len(words) > 0 && words[0] == "the" {
		words = words[1:]
	}
	if len(words) >= 2 {
		t.leads = append(t.leads, words)
	}
}

// opensWith reports whether s opens with one of the topic's leads as the subject of its first
// sentence, an opening "the" aside: the name followed by a copula ("is", "was", "are", "were"), a
// comma or a parenthesis ("Ostmoor Harbour Rowing Club (OHRC) was formed ..."). Such a text is the
// entity's own entry, whatever its title ("Southampton F.C." for "Southampton Football Club"):
// in a relay run, "Southampton Football Club is an American football club" kept nothing of the
// page that says it is English, which shares only the name with the claim. A longer name that
// opens with the lead ("... Rowing Club Juniors won") or the lead as a modifier ("... Rowing
// Club members rowed") is not the entity's subject.
func (t hopTopic) opensWith(s string) bool {
	if len(t.leads) == 0 {
		return false
	}
	folded := text.FoldForMatch(s)
	spans := text.WordSpans(folded)
	word := func(i int) string { return folded[spans[i][0]:spans[i][1]] }
	start := 0
	if len(spans) > 0 && word(0) == "the" {
		start = 1
	}
	for _, lead := range t.leads {
		end := start + len(lead)
		if end > len(spans) {
			continue
		}
		same := true
		for i, w := range lead {
			same = same && word(start+i) == w
		}
		if !same {
			continue
		}
		// An initial's full stop ("Southampton F.C. is") is part of the name.
		rest := strings.TrimLeft(folded[spans[end-1][1]:], " .")
		if strings.HasPrefix(rest, ",") || strings.HasPrefix(rest, "(") ||
			end < len(spans) && strings.HasPrefix(rest, word(end)) && copulas[word(end)] {
			return true
		}
	}
	return false
}

// A definition of a kind is about a claim when its opening shares at least minDefinitionWords
// of the claim's predicate words, and at least half of them; definitionWindow words of it are
// read, about a definition's first sentence.
const (
	minDefinitionWords = 3
	definitionWindow   = 40
)

// definesPredicate reports whether body opens by defining a kind of thing (definedKind: "A
// research university is a university that is committed to research as a central part of its
// mission") in the words of what the claim says of its entity ("Baylor University is committed
// to research as a central part of its mission"): the entity's page says it is such a thing
// ("a private research university"), and the definition states the rest. A definition names
// none of the claim's entities, so no anchor made it relevant: in a relay run the definition
// was among the results of the claim's first hop, and its judge, given only the university's
// page, found nothing on its mission (definedKinds names the pair to a judge given both).
func (t hopTopic) definesPredicate(body string) bool {
	return definedKind(body) != nil && t.opensWithPredicate(body)
}

// describes reports whether, in a description hop, body opens by stating most of what the
// claims say of the entity they describe: "Bon Scott is a Scottish-born Australian singer and
// songwriter, best known for being the lead vocalist and lyricist" for "A singer and songwriter
// was the lead vocalist of AC/DC" and "{c3} was the lyricist of AC/DC". The entity's own page
// names it and says what it is, and need not name the claims' other entities: in a relay run
// it was not kept, since it does not name the band, and the claims on the singer were never
// stated. A page of another entity that fits may be kept too (another lead vocalist's): a name
// is taken only from a source that confirms the bridge claim (resolveBridge), and a claim
// stated with a name found so is never refuted on it (refutesNoDescription).
func (t hopTopic) describes(body string) bool {
	return t.described && t.opensWithPredicate(body)
}

// statesOfKind reports whether body opens with the head noun of a kind the claims are about and
// with most of what they say of it (opensWithPredicate): "The film industry comprises the
// technological and commercial institutions of filmmaking" for "The movie industry comprises
// ...". A kind has no name to anchor on, and a text may call it by another word: in a relay run
// (EX-FEVER 3441-3520) that text was kept for no hop of the claim, which stayed unverified.
//
// When the claims are about kinds alone (kindsOnly), a text whose opening says all they say of
// them, one word aside and at least minRestatedWords (restatesPredicate), is about them
// without the head noun: the text may name the kind otherwise in full ("A film director
// controls a film's artistic and dramatic aspects" for "The filmmaker controls ...", "Humour is
// the tendency of experiences to provoke laughter" for "Comedic tone is ..."), and neither opens
// as definedKind reads a definition. In session 49's thirteenth cohort both were among their
// hops' results, neither was kept, and two true statements were left unverified. Whether that
// other name is the claim's kind or another kind ("Shipbuilding comprises ..." for "The sea
// trade comprises ...") is for the judge to read, from the text it must quote: a hop that kept
// nothing gave it nothing to read.
func (t hopTopic) statesOfKind(body string) bool {
	if len(t.kindHeads) == 0 {
		return false
	}
	opening := strings.Join(openingWords(body), " ")
	if t.kindsOnly && t.restatesPredicate(opening) {
		return true
	}
	return slices.ContainsFunc(topicWords(opening, t.language), func(w string) bool { return t.kindHeads[w] }) &&
		t.predicateOpens(opening)
}

// minRestatedWords is the fewest predicate words a text's opening must hold to say what a claim
// says of a kind under another name (restatesPredicate).
const minRestatedWords = 4

// restatesPredicate reports whether opening, a text's opening words, holds at least
// minRestatedWords of the topic's predicate words and every one of them but one at most.
func (t hopTopic) restatesPredicate(opening string) bool {
	shared := t.predicateShared(opening)
	return shared >= minRestatedWords && shared >= len(t.predicate)-1
}

// opensWithPredicate reports whether the first definitionWindow words of body hold at least
// minDefinitionWords of the topic's predicate words, and at least half of them.
func (t hopTopic) opensWithPredicate(body string) bool {
	return t.predicateOpens(strings.Join(openingWords(body), " "))
}

// predicateOpens is opensWithPredicate of a text's opening words (openingWords), read once by a
// caller that needs them for more than the predicate.
func (t hopTopic) predicateOpens(opening string) bool {
	if len(t.predicate) == 0 {
		return false
	}
	shared := t.predicateShared(opening)
	return shared >= minDefinitionWords && 2*shared >= len(t.predicate)
}

// openingWords are the first definitionWindow words of body outside its brackets, folded and
// made singular.
func openingWords(body string) []string {
	words := text.SingularWords(withoutBrackets(body))
	return words[:min(len(words), definitionWindow)]
}

// withoutBrackets is s without what its round brackets hold, brackets nested in them included:
// an encyclopedia's opening puts a name's pronunciation, etymology, plurals and dates between
// the name and what it is ("An acropolis (Ancient Greek: ...; plural in English: ...) was an
// ancient Greek settlement"), and a rule reading the opening reads past them. An unclosed
// bracket keeps the rest.
func withoutBrackets(s string) string {
	if !strings.Contains(s, "(") {
		return s
	}
	var b strings.Builder
	depth, open := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			if depth == 0 {
				open = i
			}
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	if depth > 0 {
		b.WriteString(s[open:])
	}
	return b.String()
}

// predicateShared counts the topic's predicate words that s holds, in any form of a verb
// (verbStem): a definition says what its kind does in the present ("a person who murders three
// or more people") where a claim says what its entity did ("murdered").
func (t hopTopic) predicateShared(s string) int {
	stems := map[string]bool{}
	for _, w := range topicWords(s, t.language) {
		stems[verbStem(w)] = true
	}
	n := 0
	for w := range t.predicate {
		if stems[verbStem(w)] {
			n++
		}
	}
	return n
}

// verbStem is w, a topic word, without the ending of a verb form: "-ing" from a word of more
// than five letters, "-ed" from one of more than four, then a final "e" from one of more than
// four ("murdered" and "murder", "created" and "create" meet). A short noun in "-ed" or "-ing"
// ("bed", "king") keeps it.
func verbStem(w string) string {
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// groundedNames are the names a follow-up query asks for that the sources its judge was given
// hold: each run of capitalised words of the query ("Tesla, Inc.", "Smile from the Streets You
// Hold", with the small words a title keeps inside it), cut to its longest opening that some
// source writes word for word, and so on for the rest of the run ("Homer Hickam American" gives
// "Homer Hickam" and "American"). A judge that finds the claim's maker named in a source
// ("produced by Tesla, Inc.") asks for that maker's page, which names none of the claim's own
// entities: this is what makes that page about the claim. A name no source holds (from the
// model's memory, or planted in its reply) anchors nothing.
//
// A source's list of names is read as names, not as one: "written by Neil Diamond, Carole Bayer
// Sager and her then-husband, Burt Bacharach" holds "Neil Diamond" and "Carole Bayer Sager", not
// "Neil Diamond Carole Bayer Sager" (listedNames). In a relay run (exfever-3845) the query "Neil
// Diamond Carole Bayer Sager Burt Bacharach nationality" was read as that one name and Burt
// Bacharach: Neil Diamond's page was no page asked for, and never reached the judge.
func groundedNames(query string, given []evidence.Retrieved) []string {
	var sources [][]string
	for _, g := range given {
		for _, part := range splitListedNames(g.Title + " " + evidence.SourceText(g)) {
			sources = append(sources, text.Words(text.FoldForMatch(part)))
		}
	}
	var names []string
	for _, run := range capitalisedRuns(query) {
		for len(run) > 0 {
			n := len(run)
			for ; n > 0; n-- {
				if text.IsCapitalised(run[n-1]) && slices.ContainsFunc(sources, func(words []string) bool { return holdsRun(words, run[:n]) }) {
					break
				}
			}
			if n == 0 {
				run = run[1:]
				continue
			}
			names = append(names, strings.Join(run[:n], " "))
			run = run[n:]
		}
	}
	return names
}

// listedNames is the comma between two names of a list: one before a name of two capitalised
// words or more ("Neil Diamond, Carole Bayer Sager"). A comma before one word is inside a name
// ("Tesla, Inc.", "Paris, Texas").
var listedNames = regexp.MustCompile(`,\s+(?:and\s+)?(?:\p{Lu}[\p{L}'.-]*\s+)+\p{Lu}`)

// splitListedNames is s cut at each comma listedNames finds, the comma dropped.
func splitListedNames(s string) []string {
	var parts []string
	last := 0
	for _, m := range listedNames.FindAllStringIndex(s, -1) {
		parts = append(parts, s[last:m[0]])
		last = m[0] + 1
	}
	return append(parts, s[last:])
}

// maxAskedWords is the longest run of a follow-up query's words askedPhrases reads as one
// thing asked for ("comedy film", "automotive").
const maxAskedWords = 3

// askedPhrases are the runs of up to maxAskedWords words of a follow-up query, each opening and
// ending with a content word, that a source its judge was given writes word for word in lower
// case and that hold a content word the claim's own words (own: its text, its entities, the
// entity its judge named, as topicWords reads them) do not: a kind of thing or a field a source
// names ("focuses on automotive") and the judge asks about ("automotive industry size by revenue
// world ranking"). A page titled with one is that thing's own entry (titled), though it names
// nothing of the claim: in a relay run (EX-FEVER, exfever-5953) "BYD Company focuses on the
// world's smallest industries by revenue" stayed unverified though its follow-up's first result
// was the page titled "Automotive", which says what the claim says of the industry. Like
// groundedNames, a word no given source writes (the model's memory, or a hostile page's plant)
// makes nothing relevant, and only a title, not a text using the words, counts. A word the
// source writes with a capital is a name's or a part of one, which groundedNames reads whole:
// "Ervin Drake" in a query had kept the page "Drake (entertainer)" (exfever-6095, replayed).
func askedPhrases(query, language string, given []evidence.Retrieved, own map[string]bool) [][]string {
	var sources [][]string
	for _, g := range given {
		sources = append(sources, lowerCaseRuns(evidence.SourceText(g))...)
	}
	words := text.Words(text.FoldForMatch(query))
	content := func(w string) bool { return len(topicWords(w, language)) > 0 }
	var out [][]string
	for i := range words {
		for n := 1; n <= maxAskedWords && i+n <= len(words); n++ {
			run := words[i : i+n]
			if !content(run[0]) || !content(run[n-1]) {
				continue
			}
			phrase := topicWords(strings.Join(run, " "), language)
			if !slices.ContainsFunc(phrase, func(w string) bool { return !own[w] }) ||
				!slices.ContainsFunc(sources, func(source []string) bool { return text.ContainsRun(source, run) }) {
				continue
			}
			if !slices.ContainsFunc(out, func(p []string) bool { return slices.Equal(p, phrase) }) {
				out = append(out, phrase)
			}
		}
	}
	return out
}

// lowerCaseRuns are the runs of s's words between the words it writes with a capital, each
// folded as text.Words(text.FoldForMatch) reads it.
func lowerCaseRuns(s string) [][]string {
	var runs [][]string
	var run []string
	for _, token := range text.Tokens(s, "") {
		if text.IsCapitalised(token) {
			if len(run) > 0 {
				runs = append(runs, run)
			}
			run = nil
			continue
		}
		run = append(run, text.Words(text.FoldForMatch(token))...)
	}
	if len(run) > 0 {
		runs = append(runs, run)
	}
	return runs
}

// capitalisedRuns are the runs of words of s that open with a capital, each with the small words
// between two of them ("Smile from the Streets You Hold").
func capitalisedRuns(s string) [][]string {
	words := text.Tokens(s, "")
	var runs [][]string
	var run []string
	flush := func() {
		// A run ends on a capitalised word: the small words after its last one are not its.
		for len(run) > 0 && !text.IsCapitalised(run[len(run)-1]) {
			run = run[:len(run)-1]
		}
		if len(run) > 0 {
			runs = append(runs, run)
		}
		run = nil
	}
	for _, w := range words {
		switch {
		case text.IsCapitalised(w):
			run = append(run, w)
		case len(run) > 0 && text.IsTitleMinorWord(strings.ToLower(w)):
			run = append(run, w)
		default:
			flush()
		}
	}
	flush()
	return runs
}

// holdsRun reports whether words holds run, folded as words are, as consecutive words.
func holdsRun(words, run []string) bool {
	return text.ContainsRun(words, text.Words(text.FoldForMatch(strings.Join(run, " "))))
}

// relevant reports whether a result with this title and text is about the topic (see hopTopic):
// the page of one of its names (titled, opensWith), a definition in the claims' words
// (definesPredicate), an attribution (attributes), or a text with an anchor and one more word.
func (t hopTopic) relevant(title, text string) bool {
	// Another claim's finding comes as its title, then its text (evidence.SourceText).
	body := strings.TrimPrefix(text, title+"\n")
	if t.titled(title) || t.opensWith(body) || t.definesPredicate(body) || t.attributes(body) || t.describes(body) || t.statesOfKind(body) {
		return true
	}
	have := map[string]bool{}
	for _, w := range topicWords(title+" "+text, t.language) {
		have[w] = true
	}
	// sharedBesides counts the topic's words in the text that are not in anchor.
	sharedBesides := func(anchor []string) int {
		n := 0
		for w := range t.words {
			if have[w] && !slices.Contains(anchor, w) {
				n++
			}
		}
		return n
	}
	if len(t.numbers) == 0 && len(t.names) == 0 {
		return sharedBesides(nil) >= minSharedWords
	}
	for n := range t.numbers {
		if have[n] && sharedBesides([]string{n}) > 0 {
			return true
		}
	}
	for _, name := range t.names {
		all := true
		for _, w := range name {
			all = all && have[w]
		}
		if all && sharedBesides(name) > 0 {
			return true
		}
	}
	return false
}

// titled reports whether title is one of the topic's names (small and short names included,
// with or without its spaces: spaceless) and nothing else, the site a web result's title ends
// with and a trailing disambiguation aside ("Halsey (singer) - Wikipedia"): the page of that
// entity, about the claim whatever fact its text shows. Its text may say the
// claim's fact in other words ("produced" for "produces", who defeated whom for "a British
// victory"), which the shared-word rule misses; another entity's page sharing a word of the name
// ("Nikola Tesla" for the Tesla Model S) is not titled with it.
func (t hopTopic) titled(title string) bool {
	title = strings.TrimSpace(title)
	for _, sep := range []string{" - ", " | ", " – ", " — "} {
		if cut := strings.LastIndex(title, sep); cut > 0 {
			title = title[:cut]
			break
		}
	}
	if t.linked[spaceless(title)] {
		return true
	}
	if open := strings.LastIndex(title, " ("); open > 0 && strings.HasSuffix(title, ")") {
		title = title[:open]
	}
	if len(t.smallNames) > 0 {
		if folded := text.Words(text.FoldForMatch(title)); slices.ContainsFunc(t.smallNames, func(n []string) bool { return slices.Equal(n, folded) }) {
			return true
		}
	}
	if t.spaceless[spaceless(title)] {
		return true
	}
	words := tokenSet(topicWords(title, t.language))
	if len(words) == 0 {
		return false
	}
	for _, names := range [...][][]string{t.names, t.shortNames, t.asked} {
		for _, name := range names {
			if n := tokenSet(name); len(n) == len(words) && !slices.ContainsFunc(name, func(w string) bool { return !words[w] }) {
				return true
			}
		}
	}
	return false
}

// linking is t with the pages that results link one of its entities to as the entities' own
// pages (titled): a result relevant to t whose text reads a link from an entity's name with where
// it leads ("is a GTP-binding protein (link: G protein)", text.LinkNote) names the page that is
// the entity's, titled with another name for it. A statement often says what a thing is in the
// words of the page its source links to, and that page need not write the statement's name for
// the thing: in a relay run (FEVEROUS-S) "GTP-binding proteins are a family of proteins that act
// as molecular switches inside cells" kept nothing of the page titled "G protein" ("G proteins,
// also known as guanine nucleotide-binding proteins, are a family of proteins that act as
// molecular switches inside cells"), though the same search's page on a protein linked the name
// to it, and the claim stayed unverified. The link's text must end with all the entity's words
// ("a GTP-binding domain (link: G protein)" names no page of GTP-binding proteins); the target
// is read with its disambiguation ("Bologna (basketball)" is not the city's page).
func (t hopTopic) linking(results []pipeline.SearchResult) hopTopic {
	var targets []string
	for _, res := range results {
		var found []string
		for _, l := range text.Links(res.Snippet) {
			before := topicWords(l.Before, t.language)
			if slices.ContainsFunc(t.linkTexts, func(entity []string) bool {
				return len(before) >= len(entity) && slices.Equal(before[len(before)-len(entity):], entity)
			}) {
				found = append(found, spaceless(l.Target))
			}
		}
		// The relevance test, the dearer one, only for a result that links an entity.
		if len(found) > 0 && t.relevant(res.Title, res.Snippet) {
			targets = append(targets, found...)
		}
	}
	if len(targets) == 0 {
		return t
	}
	t.linked = maps.Clone(t.linked)
	if t.linked == nil {
		t.linked = map[string]bool{}
	}
	for _, target := range targets {
		t.linked[target] = true
	}
	return t
}

// spaceless is s as its folded words run together: "Space X" and "SpaceX" are both "spacex".
// A relay run's "Space X is British" kept nothing of the page titled "SpaceX", which says
// American: the claim shares only the name with it, and the name's words were not the title's.
func spaceless(s string) string {
	return strings.Join(text.Words(text.FoldForMatch(s)), "")
}

// shortName is a person's full name without its middle names, as pages are titled: "Michael
// Gambon" for "Michael John Gambon", "Jon Huntsman Jr." for "Jon Meade Huntsman Jr.". Plans and
// statements often give the full name: in a relay run "Michael John Gambon is a singer" kept
// another actor's page first and the actor's own only as a repeat of it, and its judge refuted
// the claim on that other page. It is nil unless the name is three capitalised words or more
// with no small word among them ("Bureau of the Census" is no person's name): its first, its last
// (with a suffix such as "Jr." that follows it) and at least one word between.
func shortName(entity, language string) []string {
	tokens := strings.Fields(entity)
	last := len(tokens) - 1
	if last >= 0 && nameSuffixes[strings.ToLower(strings.TrimSuffix(tokens[last], "."))] {
		last--
	}
	if last < 2 {
		return nil
	}
	for _, tok := range tokens {
		if !text.IsCapitalised(tok) || text.IsTitleMinorWord(strings.ToLower(tok)) {
			return nil
		}
	}
	var words []string
	for _, tok := range append([]string{tokens[0]}, tokens[last:]...) {
		words = append(words, topicWords(tok, language)...)
	}
	return words
}

// nameSuffixes follow a person's surname ("Jr.", "III").
var nameSuffixes = text.WordSet("jr sr ii iii iv")

// nameWords are the words of an entity that a text must hold to name it: its proper nouns, the
// words written with a capital ("Ostmoor" of "Ostmoor lighthouse": a report of the "1871
// tower" that names Ostmoor is about it), or all its words when none is (words).
func nameWords(entity, language string, words []string) []string {
	var proper []string
	for _, token := range strings.Fields(entity) {
		if text.IsCapitalised(token) {
			proper = append(proper, topicWords(token, language)...)
		}
	}
	if len(proper) == 0 {
		return words
	}
	return proper
}

// topicWords are the content words of s as relevance compares them: folded, without stop words
// (text.ContentWords), a possessive "'s" and a plural "s" removed ("Atkins's" is "atkin" as
// "Atkins" is, "towers" is "tower", "studies" is "study"). Folding drops the apostrophe, so a
// possessive left in read as another word ("atkinss") and a name that ends in "s" did not anchor
// a text that wrote it in the possessive. Accents are dropped (text.DropAccents): a claim that
// writes "Sebastian" names the page's "Sebastián", and a stop word is listed with and without
// its accents.
func topicWords(s, language string) []string {
	if strings.ContainsAny(s, "'’") { // every result's text comes here: no regexp without an apostrophe
		s = possessive.ReplaceAllString(s, "$1")
	}
	words := text.ContentWords(text.DropAccents(text.FoldForMatch(s)), language)
	for i, w := range words {
		words[i] = text.Singular(w)
	}
	return words
}

// letterCounts counts the letters, digits and upper-case letters of w: what tells an identifier
// ("APOE4", "NIH") from a word.
func letterCounts(w string) (letters, digits, upper int) {
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters, digits, upper
}

// identifiers are the words of s written with letters and digits ("APOE4", "e4") or in capitals
// of two letters or more ("NIH"), as topicWords gives them.
func identifiers(s string) []string {
	var out []string
	for _, raw := range text.Tokens(s, "") {
		letters, digits, upper := letterCounts(raw)
		if letters > 0 && digits > 0 || letters >= 2 && upper == letters {
			if w := topicWords(raw, ""); len(w) == 1 {
				out = append(out, w[0])
			}
		}
	}
	return out
}

// possessive is a word's possessive ending, "'s" or "’s" after a letter.
var possessive = regexp.MustCompile(`(\pL)['’]s\b`)
