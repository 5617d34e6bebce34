package multihop

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// The two rules of issue 12 (rule 10) that keep a claim honest to the statement, on top of spec
// 004's: a claim is one fact (RuleClaimNotAtomic), and it says nothing its source span does not
// (RuleClaimAddsToSpan). Both read the claim with small word lists, not a parser; their limits
// are in docs/multihop-rules.md.

// claimWord matches a number as written ("10,100", "2.5") or a run of letters and digits.
var claimWord = regexp.MustCompile(`\d+(?:[.,]\d+)*|[\p{L}\p{N}]+`)

// token is one word of a claim, span or statement.
type token struct {
	// text is the word as written; key how two words are compared: lower case, a number
	// without its thousands separators.
	text, key string
	capital   bool
	number    bool
	// at is the word's byte offset in its text, i its position among the text's words.
	at, i int
}

func tokensOf(s string) []token {
	var out []token
	for i, loc := range claimWord.FindAllStringIndex(s, -1) {
		w := s[loc[0]:loc[1]]
		t := token{text: w, key: strings.ToLower(w), at: loc[0], i: i}
		r, _ := utf8.DecodeRuneInString(w)
		t.number = unicode.IsDigit(r)
		t.capital = unicode.IsUpper(r)
		if t.number && thousandsNumber.MatchString(w) {
			t.key = strings.ReplaceAll(w, ",", "")
		}
		out = append(out, t)
	}
	return out
}

// conjunctionsOf are the words that join two clauses, by language; ";" joins them in every
// language. "between 1990 and 2000" and "Procter and Gamble" are told apart from a join below.
var conjunctionsOf = map[string][]string{
	"en": {"and", "while", "whereas"}, "fr": {"et", "tandis"}, "de": {"und", "während"}, "es": {"y", "mientras"},
	"it": {"e", "mentre"}, "pt": {"e", "enquanto"}, "nl": {"en", "terwijl"},
}

// rangeWords open a range whose two ends are joined by "and": "between 1990 and 2000".
var rangeWords = text.WordSet("between entre zwischen tra fra tussen")

// finiteVerbs are English finite verb forms that make a clause a predicate of its own, with the
// past tense in -ed (see isPredicate). Nouns that are also verbs ("reports", "costs", "shows")
// are left out: a false split costs a repair round, a missed one only what the rule catches today.
var finiteVerbs = text.WordSet(`is are was were am has have had does do did will would can could shall should may
	might must won lost became begun began grew fell rose made said took held led built sold found gave went came saw got
	ran paid met left kept told brought bought spent stood wrote broke chose drove flew spoke stole threw wore sank
	appears seems remains contains includes reduces becomes lies weighs employs owns produces reaches exceeds sells lives
	wins loses opens rises grows gives takes gets goes comes holds says makes knows means needs wants`)

// notVerbsInEd end in -ed but are no verbs, or are participles that follow a noun as an
// adjective does ("topics related to sustainability", "a paper titled ...").
var notVerbsInEd = text.WordSet(`hundred indeed speed seed bed red shed need breed greed creed naked sacred wicked kindred
	related based titled entitled`)

// subordinators open a clause that belongs to a word before it ("viscous when it is disturbed",
// "the way that the DNA is packaged"): its verb is not the verb of the conjunct it stands in.
var subordinators = text.WordSet("when whenever where wherever which who whom whose that because although though if unless until")

// subjectPronouns after a noun open a relative clause without "that" ("the energy it has").
var subjectPronouns = text.WordSet("i you he she it we they")

// notNouns are lower-case words that a subject pronoun can follow without a relative clause.
var notNouns = text.WordSet("then so thus now later also yet still therefore hence and or but when where because")

// attributiveLeaders are the words after which an "-ed" word is an adjective before its noun
// ("from unstructured text", "the accuracy of migrated data"), never a verb: a past tense
// follows its subject or an auxiliary.
var attributiveLeaders = text.WordSet("a an the of from with in on at by for to into onto over under about as this these those its their his her our your my")

// isPredicate reports whether the words hold a finite verb (English): a clause that can be
// verified on its own.
func isPredicate(words []token) bool {
	for i, w := range words {
		if w.number {
			continue
		}
		if finiteVerbs[w.key] {
			return true
		}
		// A capitalised word in "-ed" is a name's ("the United States"), not a past tense. One
		// after a noun and before "by" is a participle with its agent ("television series
		// distributed by Warner Bros. Pictures"), not the noun's verb; opening the words, it is
		// a passive without its auxiliary ("and produced by Ada Brook").
		if len(w.key) >= 4 && strings.HasSuffix(w.key, "ed") && !w.capital && !notVerbsInEd[w.key] && (i == 0 || !attributiveLeaders[words[i-1].key]) &&
			(i == 0 || i+1 == len(words) || words[i+1].key != "by") {
			return true
		}
	}
	return false
}

// clauseOpeners join two clauses from the front of a claim: "While X, Y".
var clauseOpeners = text.WordSet("while whereas tandis während mientras mentre enquanto terwijl")

// openedClauses splits a claim that opens with a clause conjunction at the comma that ends the
// clause ("While love is broad, affection is mild"): the two clauses, or "" and "".
func openedClauses(claim string) (left, right string) {
	words := tokensOf(claim)
	if len(words) == 0 || !clauseOpeners[words[0].key] {
		return "", ""
	}
	comma := strings.Index(claim, ",")
	if comma < 0 {
		return "", ""
	}
	return strings.TrimSpace(claim[words[0].at+len(words[0].text) : comma]), strings.TrimSpace(claim[comma+1:])
}

// checkClaimAtomic: a claim may not join two independently verifiable facts with "and",
// "while" or ";": two predicates ("is 330 metres tall and weighs 10,100 tonnes"), two numbers or
// dates ("repainted in 1990 and 2005"; "between 1990 and 2000" is one range), or two named
// subjects the statement states separately ("Paris and London have a metro" from "Paris has a
// metro. London has one too."; "Procter and Gamble" as the statement writes it is one name, and
// "between Anna Berg and Karl Olsen" one relation).
// A claim that opens with "while" or "whereas" joins the clause it opens to the one after its
// comma. The plan must split such a claim into one claim per fact.
//
// What only looks like a join is left alone (issue 22): an "and" inside a title (a work's name
// in quotes or italics in the claim or the statement, or an entity of the claim that reads as
// a title: "the musical *A Soldier and a Maker*"), a period ("between the years 1914 and
// 1944", "the 1980s and 1990s"), two words sharing one complement ("is packaged and
// regulated", "a disillusioned and bored priest"), a verb that belongs to a clause inside the
// right-hand side ("viscous when it is disturbed", "mass and energy it has").
func checkClaimAtomic(pv *planValidation) []string {
	lang := cmpLang(pv.ctx.Language)
	conj := conjunctionsOf[lang]
	statement := text.FoldForMatch(pv.ctx.Statement)
	statementTitles := titleTexts(pv.ctx.Statement)
	var out []string
	for _, c := range pv.plan.Claims {
		words := tokensOf(c.ClaimText)
		titles := titleRanges(c.ClaimText, append(slices.Clone(statementTitles), c.Entities...))
		for i, w := range words {
			if !slices.Contains(conj, w.key) {
				continue
			}
			if slices.ContainsFunc(titles, func(r [2]int) bool { return r[0] <= w.at && w.at < r[1] }) {
				continue
			}
			if kind := joinKind(c.ClaimText, words[:i], words[i+1:], lang, statement, conj); kind != "" {
				out = append(out, fmt.Sprintf("claim %s joins two facts (%s): %q and %q; split it into one claim per fact, each with its own source_span",
					c.ClaimID, kind, joinText(words[:i]), joinText(words[i+1:])))
				break
			}
		}
		reported := func() bool {
			return slices.ContainsFunc(out, func(m string) bool { return strings.HasPrefix(m, "claim "+c.ClaimID+" ") })
		}
		if left, right := openedClauses(c.ClaimText); left != "" && right != "" && !reported() &&
			(lang != "en" || isPredicate(tokensOf(left)) && isPredicate(mainClause(tokensOf(right)))) {
			out = append(out, fmt.Sprintf("claim %s joins two facts (two predicates): %q and %q; split it into one claim per fact, each with its own source_span",
				c.ClaimID, left, right))
		}
		if semi := strings.Index(c.ClaimText, ";"); semi > 0 && !reported() {
			left, right := tokensOf(c.ClaimText[:semi]), tokensOf(c.ClaimText[semi+1:])
			if len(left) > 0 && len(right) > 0 && (lang != "en" || isPredicate(left) && isPredicate(right)) {
				out = append(out, fmt.Sprintf("claim %s joins two facts (two clauses with \";\"): %q and %q; split it into one claim per fact, each with its own source_span",
					c.ClaimID, strings.TrimSpace(c.ClaimText[:semi]), strings.TrimSpace(c.ClaimText[semi+1:])))
			}
		}
	}
	return out
}

// joinKind says why left and right, joined by a conjunction in claim, are two facts, or "" when
// they are one.
func joinKind(claim string, left, right []token, lang, foldedStatement string, conj []string) string {
	if len(left) == 0 || len(right) == 0 {
		return ""
	}
	if lang == "en" && isPredicate(relativeClause(left)) && isPredicate(mainClause(right)) && !sharedComplement(left[len(left)-1], afterPrefix(claim, right)) &&
		!nounPhraseJoin(left, right) && !objectsJoined(left, right, foldedStatement, conj) && !relativeClauseObjects(claim, left, right) &&
		!(nameAfterRangeWord(left) && right[0].capital) && !rangeOfNumbers(left, right) {
		return "two predicates"
	}
	at := -1
	for i, t := range left {
		if t.number {
			at = i
		}
	}
	if at >= 0 && slices.ContainsFunc(right, func(t token) bool { return t.number }) && !ranged(left, at) && !consecutiveDecades(left, at, right) {
		return "two numbers or dates"
	}
	a, b := left[len(left)-1], right[0]
	if lang != "de" && a.capital && b.capital && !a.number && !b.number && (lang != "en" || !isPredicate(left)) && !nameAfterRangeWord(left) && !reciprocal(right) &&
		!strings.Contains(foldedStatement, text.FoldForMatch(a.text+" and "+b.text)) &&
		!containsJoined(foldedStatement, a.text, b.text, conj) && !objectsJoined(left, right, foldedStatement, conj) {
		return "two named subjects"
	}
	return ""
}

// objectsJoined reports whether a conjunction joins two names that are one object, named
// together by the statement, an apposition after the first or not: the names follow a
// preposition ("The truck driver in the killings of Claudia Castillo Campos and Melisa Silva
// Ruiz was trying to run through barricades") or a relative clause's verb ("The truck driver
// who killed Claudia Castillo Campos and Melisa Silva Ruiz was ..."), from "Claudia Castillo
// Campos, 19, and Melisa Silva Ruiz, 23, were killed by a truck driver who ...". The verb after
// the second name is the main clause's. Two subjects ("Karl Olsen, a founder of the Ostmoor
// band, and Jens Berg had worked in Westhaven") and two clauses ("Mara Quinn left Ostmoor and
// Ada Brook moved to Westmoor") are two facts still.
func objectsJoined(left, right []token, foldedStatement string, conj []string) bool {
	a, b := left[len(left)-1], right[0]
	if !a.capital || !b.capital || a.number || b.number {
		return false
	}
	i := len(left) - 1
	for i >= 0 && left[i].capital && !left[i].number {
		i--
	}
	object := i >= 0 && prepositionsBeforeRelative[left[i].key] || len(relativeClause(left)) < len(left)
	return object && joinedAfter(foldedStatement, a.text, apposition, b.text, conj)
}

// ranged reports whether the number left[at] opens a range: a range word stands before it,
// with at most three words and no number between ("between 1990", "between the years 1914",
// "between the ages of 5").
func ranged(left []token, at int) bool {
	for j := at - 1; j >= 0 && j >= at-4; j-- {
		if left[j].number {
			return false
		}
		if rangeWords[left[j].key] {
			return true
		}
	}
	return false
}

// rangeOfNumbers reports whether the conjunction joins the two ends of a range of numbers: left
// ends in a number a range word opens, and right begins with one ("found that between 2010 and
// 2015 the coal sector had lost half its value": one clause with a period, not two facts; a
// relay run's plan was refused for it).
func rangeOfNumbers(left, right []token) bool {
	last := len(left) - 1
	return left[last].number && right[0].number && ranged(left, last)
}

// afterPrefix is right without its first word when that word is a prefix hyphenated to the
// next ("co-produced", "re-released"): the word a conjunction joins is the one after the
// hyphen ("directed and co-produced by Mel Gibson", one description; a relay run's plan was
// refused for it).
func afterPrefix(claim string, right []token) []token {
	if len(right) < 2 {
		return right
	}
	end := right[0].at + len(right[0].text)
	if end < len(claim) && claim[end] == '-' && right[1].at == end+1 && !right[0].capital && !right[0].number && len(right[0].key) <= 4 {
		return right[1:]
	}
	return right
}

// nameAfterRangeWord reports whether left ends in a name that a range word opens, an article
// between them or not ("the friendship between Anna Berg", "runs between Paris", "the agreement
// between the Croatian"): with the name after the conjunction, one relation of the two
// ("between Anna Berg and Karl Olsen"), not two facts about each.
func nameAfterRangeWord(left []token) bool {
	i := len(left) - 1
	for i >= 0 && left[i].capital && !left[i].number {
		i--
	}
	if i == len(left)-1 {
		return false
	}
	if i >= 0 && articles[left[i].key] {
		i--
	}
	return i >= 0 && rangeWords[left[i].key]
}

// articles may stand between a range word and the name it opens ("between the Croatian").
var articles = text.WordSet("the a an")

// reciprocalWords state a relation of the two subjects to each other ("Malcolm Young and Angus
// Young are brothers", "were married", "met each other") or an action they took together ("had
// worked together", "came together as a duo": a FEVEROUS-S plan was refused for it; "teamed up",
// "collaborated", "partnered": another was refused for "Maestu and Marcelina Lech teamed up to
// compete for Spain", from "Maestu teamed up with Poland's Marcelina Lech"): one fact of the
// pair, which neither subject has alone.
var reciprocalWords = text.WordSet("brothers sisters siblings twins cousins friends married partners rivals spouses teammates bandmates together jointly duo teamed collaborated partnered")

// reciprocal reports whether the right side of a join of two subjects states their relation to
// each other: a word of reciprocalWords, or "each other" or "one another".
func reciprocal(right []token) bool {
	for i, w := range right {
		if reciprocalWords[w.key] {
			return true
		}
		if i+1 < len(right) && (w.key == "each" && right[i+1].key == "other" || w.key == "one" && right[i+1].key == "another") {
			return true
		}
	}
	return false
}

// consecutiveDecades reports whether left[at] and right's first number are two decades in a
// row, one period: "the 1980s and 1990s" (not "the 1960s and 1990s").
func consecutiveDecades(left []token, at int, right []token) bool {
	decade := func(ts []token, i int) (int, bool) {
		if i < 0 || i+1 >= len(ts) || ts[i+1].key != "s" || ts[i+1].at != ts[i].at+len(ts[i].text) {
			return 0, false
		}
		n, err := strconv.Atoi(ts[i].key)
		return n, err == nil && n%10 == 0
	}
	first, ok := decade(left, at)
	if !ok {
		return false
	}
	j := slices.IndexFunc(right, func(t token) bool { return t.number })
	second, ok := decade(right, j)
	return ok && second-first == 10
}

// mainClause is the words of a conjunct before any clause inside it: up to a subordinator
// ("viscous when it is disturbed"), or up to a subject pronoun after a noun, a relative clause
// without "that" ("energy it has": the energy that it has; "gospel, and sea shanties in the
// music she recorded", where a real-model plan was refused for "recorded" read as the
// conjunct's verb).
func mainClause(words []token) []token {
	if i := slices.IndexFunc(words, func(t token) bool { return subordinators[t.key] }); i >= 0 {
		words = words[:i]
	}
	for i := 1; i < len(words); i++ {
		n := words[i-1]
		if subjectPronouns[words[i].key] && !n.capital && !n.number && !subjectPronouns[n.key] && !finiteVerbs[n.key] && !notNouns[n.key] {
			return words[:i]
		}
	}
	return words
}

// relativePronouns open a relative clause; "that", "when" and "where" are left out, since they
// are as often a determiner or an adverb ("left that city and moved to Rome").
var relativePronouns = text.WordSet("who whom whose which")

// relativeClause is the words of a left conjunct from its last relative pronoun on, or all of
// them when it has none: a conjunction after "whose" joins within that clause ("parents whose
// habits and outlook differed": two nouns of it), so the verb before the pronoun, the main
// clause's, is not the predicate of the conjunct ("was raised by parents whose habits").
func relativeClause(left []token) []token {
	for i := len(left) - 1; i >= 0; i-- {
		if relativePronouns[left[i].key] {
			return left[i+1:]
		}
	}
	return left
}

// relativeClauseObjects reports whether a conjunction in claim joins two objects of the verb of
// a relative clause in the subject, the verb after the second object being the main clause's:
// "Those who believed in God and divine law wanted a union ..." (a real-model plan of FEVEROUS-S
// was refused for it). The left conjunct is then no clause of its own: its words before the
// relative pronoun hold no verb, and no comma closes the relative clause before the
// conjunction ("Mara Quinn, who founded the bakery, and Ada Brook moved": two subjects). A right
// conjunct that opens with a verb goes on with a second predicate ("The baker who sold the farm
// and moved to Ostmoor").
func relativeClauseObjects(claim string, left, right []token) bool {
	pronoun := len(left) - len(relativeClause(left)) - 1 // -1 when left has none
	if pronoun < 1 || isPredicate(left[:pronoun]) {
		return false
	}
	if strings.Contains(claim[left[pronoun].at:right[0].at], ",") {
		return false
	}
	return !isPredicate(right[:1]) && !subjectPronouns[right[0].key]
}

// sharedComplement reports whether the words either side of a conjunction are two modifiers
// of one complement, participles or adjectives side by side ("packaged and regulated",
// "disillusioned and bored", "liquefied and viscous", "extracting and classifying"): one
// description, not two clauses. A finite verb of the list after the conjunction ("renamed and
// sold") is a second clause still.
//
// An adverb in "-ly" before the second modifies it: "landlocked and heavily forested".
func sharedComplement(a token, right []token) bool {
	b := right[0]
	// Two adverbs of one modifier: "critically and commercially successful".
	if adverbInLy(a) && adverbInLy(b) && len(right) > 1 && !right[1].capital && !finiteVerbs[right[1].key] && modifierForm(right[1].key) {
		return true
	}
	if len(right) > 1 && adverbInLy(b) {
		b = right[1]
	}
	return !a.capital && !b.capital && !a.number && !b.number && !finiteVerbs[b.key] && !finiteVerbs[a.key] &&
		modifierForm(a.key) && modifierForm(b.key)
}

// adverbInLy reports whether t reads as an English adverb in "-ly" ("critically"), not a name.
func adverbInLy(t token) bool {
	return len(t.key) > 4 && strings.HasSuffix(t.key, "ly") && !t.capital && !t.number
}

// nounPhraseJoin reports whether a conjunction joins two words of one noun phrase that an
// article opens: "over a separate and defined territory", "holds the attention and interest of
// a crowd". The word after an article is no verb, so the conjunction joins no predicate to it;
// the word after the conjunction is taken for a verb, and the join for two facts, when it is a
// finite verb of the list ("sold the farm and bought a house") or reads as one by what follows
// it: an "-ed" word before a preposition or an article ("left the city and moved to Ostmoor"),
// any word before an object pronoun ("founded the bakery and runs it").
func nounPhraseJoin(left, right []token) bool {
	if len(left) < 2 || !articles[left[len(left)-2].key] {
		return false
	}
	a, b := left[len(left)-1], right[0]
	if a.capital || b.capital || a.number || b.number || finiteVerbs[a.key] || finiteVerbs[b.key] || articles[b.key] || subjectPronouns[b.key] {
		return false
	}
	if len(right) > 1 {
		next := right[1].key
		if objectPronouns[next] || strings.HasSuffix(b.key, "ed") && !notVerbsInEd[b.key] && attributiveLeaders[next] {
			return false
		}
	}
	return true
}

// objectPronouns after a word make it a verb with its object ("runs it").
var objectPronouns = text.WordSet("it them him her me us you")

// modifierSuffixes end English participles and adjectives.
var modifierSuffixes = []string{"ed", "ing", "er", "est", "al", "ous", "ive", "ic", "ful", "less", "ble", "ant", "ent", "ary"}

func modifierForm(w string) bool {
	return irregularParticiples[w] || len(w) > 3 && slices.ContainsFunc(modifierSuffixes, func(s string) bool { return strings.HasSuffix(w, s) })
}

// irregularParticiples are English past participles that are never a finite verb alone, so
// that "written and directed by Ana Berg" is one description ("sold", "made", "built" are past
// forms too: "wrote the song and sold the farm").
var irregularParticiples = text.WordSet("written given taken driven chosen spoken stolen broken frozen forgotten hidden ridden risen beaten eaten fallen shaken woven drawn known shown grown thrown blown flown sown sewn sworn torn worn sung begun done gone seen rung sunk drunk")

// containsJoined reports whether the folded statement writes a and b joined: a, a conjunction
// of the language right after it, then b within the same sentence a few words on ("Eisinga and
// his wife, Rinske Jans"), or a and b with any one word between (the statement's own "and").
// A comma may stand before the conjunction ("Vietnam, Laos, and Cambodia"). Then the
// statement names them together.
func containsJoined(foldedStatement, a, b string, conj []string) bool {
	return joinedAfter(foldedStatement, a, "", b, conj)
}

// apposition is a short phrase set off by commas after a name ("Claudia Castillo Campos, 19,
// and Melisa Silva Ruiz"), as a pattern of joinedAfter.
const apposition = `(?:,[^,.;!?]{1,30})?`

// joinedAfter is containsJoined with what may stand between a and the conjunction (a pattern:
// apposition, or "").
func joinedAfter(foldedStatement, a, between, b string, conj []string) bool {
	fa, fb := regexp.QuoteMeta(text.FoldForMatch(a)), regexp.QuoteMeta(text.FoldForMatch(b))
	words := make([]string, len(conj))
	for i, c := range conj {
		words[i] = regexp.QuoteMeta(c)
	}
	re, err := regexp.Compile(`\b` + fa + `\s+\S+\s+` + fb + `\b|\b` + fa + between + `,?\s+(?:` + strings.Join(words, "|") + `)\s+[^.;!?]{0,40}?\b` + fb + `\b`)
	return err == nil && re.MatchString(foldedStatement)
}

// titleTexts are the titles a text sets apart with quotes or italics, without their marks.
func titleTexts(s string) []string {
	var out []string
	for _, r := range evidence.TitleSpans(s) {
		out = append(out, text.TrimToWord(s[r[0]:r[1]]))
	}
	return out
}

// titleRanges are the byte ranges of claim that are titles: those it sets apart itself, and
// where it writes (in any case, marked or not) one of titles that reads as a title and has
// more than one word.
func titleRanges(claim string, titles []string) [][2]int {
	out := evidence.TitleSpans(claim)
	for _, t := range titles {
		if !strings.Contains(strings.TrimSpace(t), " ") || !evidence.IsTitleText(t) {
			continue
		}
		re, err := regexp.Compile(`(?i)\b` + strings.Join(strings.Fields(regexp.QuoteMeta(t)), `\s+`) + `\b`)
		if err != nil {
			continue
		}
		for _, loc := range re.FindAllStringIndex(claim, -1) {
			out = append(out, [2]int{loc[0], loc[1]})
		}
	}
	return out
}

// joinText writes words as a text, one space between.
func joinText(words []token) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

func cmpLang(lang string) string {
	if lang == "" {
		return "en"
	}
	return lang
}

// checkClaimAddsToSpan: a claim may not carry a name (an entity, a place, a month) or a number
// (a date, a quantity) that its source span does not hold. A decontextualised claim may take
// what it needs from the rest of the statement, as spec 004 asks of a self-contained claim
// (the plan prompt: "names in place of pronouns"): the subject a pronoun or an omitted subject
// refers to ("its main span" is "the Golden Gate Bridge's main span"), a date the sentence
// opens with ("In 2020, exports rose and imports fell" gives "Imports fell in 2020"). It may not
// take it in place of one its span holds, written where the span wrote that one: between the
// same words ("Jones lost the race in 2021" is no span of "Jones lost the race in 2019", nor of
// "Smith lost the race in 2021"). A name the span holds but the claim leaves out elsewhere is
// another conjunct of the span ("holds a degree from Stanford and a doctorate from Berkeley"
// gives "Gary Smith holds a doctorate from Berkeley"), and the words of an acronym written out
// ("BPE" as "Byte Pair Encoding") replace nothing. It may not take what the statement does not
// hold at all. A number the statement does not hold is RuleNoAddedQuantification's.
//
// Names are capitalised words after the claim's first word (a capital that opens the claim is
// a name when the plan's entities list it), and identifiers with digits or in capitals; German
// capitalises every noun, so there only identifiers and entities are names. A name matches the
// same name as a plural ("FA Cups") or as the adjective of a country or people ("Indian" names
// India: sameName).
func checkClaimAddsToSpan(pv *planValidation) []string {
	lang := cmpLang(pv.ctx.Language)
	statement := tokensOf(pv.ctx.Statement)
	var out []string
	for k, c := range pv.plan.Claims {
		start, end, ok := evidence.LocateSpan(pv.ctx.Statement, c.SourceSpan)
		if !ok {
			continue // RuleClaimHasSpan says so
		}
		span := tokensOf(pv.ctx.Statement[start:end])
		claim := tokensOf(c.ClaimText)
		// A placeholder stands for the entity its claim describes, in that claim's words:
		// "{c3}" of "won the Cannes Film Fest Award" keeps "Cannes Film Fest Award" when c3 says
		// "A Cannes Film Fest Award is given to ...", and no name of the claim replaces them.
		var namedByPlaceholder []token
		if k < len(pv.written.Claims) {
			for _, id := range evidence.BridgesIn(pv.written.Claims[k].ClaimText) {
				if i := pv.claimIndex(id); i >= 0 {
					namedByPlaceholder = append(namedByPlaceholder, tokensOf(pv.plan.Claims[i].ClaimText)...)
				}
			}
		}
		// An entity's capitalised words make the same words of the claim names, its article
		// aside: "The Proms" makes no "The" a name (a real model's plan was refused for "adds
		// the", writing "at the Proms" for the statement's "at Proms").
		entityWords := map[string]bool{}
		stop := text.StopWords(lang)
		for _, e := range c.Entities {
			for _, t := range tokensOf(e) {
				if t.capital && !stop[t.key] {
					entityWords[t.text] = true
				}
			}
		}
		var added []string
		var names, numbers []token
		for i, t := range claim {
			switch {
			case t.number:
				numbers = append(numbers, t)
			case isName(t, i, lang, entityWords):
				names = append(names, t)
			}
		}
		spanInitialisms, statementInitialisms := initialisms(pv.ctx.Statement[start:end]), initialisms(pv.ctx.Statement)
		// A name the claim writes with or without a space the statement writes otherwise
		// ("Grupo Desportivo" of "GrupoDesportivo", "JSL Cups" of "J SL Cups"): its run of
		// names, spaces removed, against the span's and the statement's words so joined.
		runKey := map[int]string{}
		for _, r := range runs(names) {
			for _, t := range r {
				runKey[t.i] = joinedKey(r)
			}
		}
		spanJoined, statementJoined := joinedKeys(span), joinedKeys(statement)
		spanNames := filterTokens(span, func(i int, t token) bool { return !t.number && isName(t, 1, lang, nil) })
		spanNumbers := filterTokens(span, func(_ int, t token) bool { return t.number })
		for _, kind := range []struct {
			claim, spanOwn []token
			names          bool
		}{{names, spanNames, true}, {numbers, spanNumbers, false}} {
			// holds reports whether ts holds the word t; joined, when not nil, are ts's words
			// joined without spaces, against which a claim's name is read with its run.
			holds := func(ts []token, joined map[string]bool, t token) bool {
				if kind.names && joined != nil && joined[runKey[t.i]] {
					return true
				}
				return slices.ContainsFunc(ts, func(u token) bool { return u.key == t.key || kind.names && !u.number && sameName(u.key, t.key) })
			}
			var missing []string
			var fromStatement, dropped []token
			for _, t := range kind.claim {
				switch {
				case holds(span, spanJoined, t) || kind.names && spanInitialisms[t.key]:
				case !holds(statement, statementJoined, t) && !(kind.names && statementInitialisms[t.key]):
					if kind.names && !slices.Contains(missing, t.text) {
						missing = append(missing, t.text)
					}
				default:
					fromStatement = append(fromStatement, t)
				}
			}
			for _, t := range kind.spanOwn {
				// A placeholder stands for an entity, so only for names: a number its claim
				// holds ("the 2019 award") is still the claim's to keep.
				if !holds(claim, nil, t) && !(kind.names && holds(namedByPlaceholder, nil, t)) {
					dropped = append(dropped, t)
				}
			}
			if len(missing) > 0 {
				added = append(added, fmt.Sprintf("adds %s, which neither its source_span nor the statement holds", strings.Join(missing, ", ")))
			}
			var replaced, replacedSpan []string
			for _, a := range runs(fromStatement) {
				for _, d := range runs(dropped) {
					if sameSurroundings(claim, a, span, d) && !abbreviates(a, d) && !abbreviates(d, a) {
						replaced = appendNew(replaced, joinText(a))
						replacedSpan = appendNew(replacedSpan, joinText(d))
					}
				}
			}
			if len(replaced) > 0 {
				added = append(added, fmt.Sprintf("adds %s in place of %s of its source_span", strings.Join(replaced, ", "), strings.Join(replacedSpan, ", ")))
			}
		}
		for _, a := range added {
			out = append(out, fmt.Sprintf("claim %s %s; a claim says only what its source_span says (it may name what the span refers to)", c.ClaimID, a))
		}
	}
	return out
}

// joinedKey is a run of words as spaceless reads it ("ostmoorrovers"), the reading by which a
// page's title is the name with or without its spaces (relevance.go).
func joinedKey(run []token) string { return spaceless(joinText(run)) }

// joinedKeys are the keys of every run of one to four neighbouring words of ts joined without
// spaces: "J SL Cups" holds "jsl" and "jslcups".
func joinedKeys(ts []token) map[string]bool {
	out := map[string]bool{}
	for i := range ts {
		for n := 1; n <= 4 && i+n <= len(ts); n++ {
			out[joinedKey(ts[i:i+n])] = true
		}
	}
	return out
}

// initialism is an initialism written with full stops between its capitals ("E.P", "U.S.").
var initialism = regexp.MustCompile(`\b(?:\p{Lu}\.)+\p{Lu}\b`)

// initialisms are the initialisms s writes with full stops, each as the key of the word it is
// without them ("E.P" is "ep"): a claim may write the name without its stops ("an EP").
func initialisms(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range initialism.FindAllString(s, -1) {
		out[strings.ToLower(strings.ReplaceAll(m, ".", ""))] = true
	}
	return out
}

// runs splits tokens, in text order, into runs of neighbours in their text ("Abong Mbang").
func runs(ts []token) [][]token {
	var out [][]token
	for i, t := range ts {
		if i > 0 && t.i == ts[i-1].i+1 {
			out[len(out)-1] = append(out[len(out)-1], t)
			continue
		}
		out = append(out, []token{t})
	}
	return out
}

func appendNew(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// sameSurroundings reports whether the run a of claim stands between the same two words as
// the run d of span ("" at either end of a text): the claim wrote a where the span wrote d.
func sameSurroundings(claim, a, span, d []token) bool {
	around := func(text, run []token) (string, string) {
		before, after := "", ""
		if first := run[0].i; first > 0 {
			before = text[first-1].key
		}
		if last := run[len(run)-1].i; last+1 < len(text) {
			after = text[last+1].key
		}
		return before, after
	}
	ab, aa := around(claim, a)
	db, da := around(span, d)
	return ab == db && aa == da
}

// abbreviates reports whether the run short is one word in capitals made of the initials of
// the run long ("BPE" of "Byte Pair Encoding").
func abbreviates(short, long []token) bool {
	if len(short) != 1 || len(long) < 2 || strings.ToUpper(short[0].text) != short[0].text {
		return false
	}
	var initials strings.Builder
	for _, t := range long {
		r, _ := utf8.DecodeRuneInString(t.text)
		initials.WriteRune(unicode.ToUpper(r))
	}
	return initials.String() == short[0].text
}

// isName reports whether the i-th word of a text is a name (see checkClaimAddsToSpan);
// entityWords are the plan's entity words as they are written.
func isName(t token, i int, lang string, entityWords map[string]bool) bool {
	if t.number || utf8.RuneCountInString(t.key) < 2 {
		return false
	}
	if entityWords[t.text] {
		// Written as the entity writes it: "awards" is no name because an entity is "Academy
		// Awards" (a real-model plan was refused for "adds awards"), and "iPhone" is one.
		return true
	}
	letters, digits, upper := letterCounts(t.text)
	if digits > 0 || upper == letters {
		return true
	}
	return t.capital && i > 0 && lang != "de" && !(lang == "en" && text.StopWords("en")[t.key])
}

func filterTokens(ts []token, keep func(int, token) bool) []token {
	var out []token
	for i, t := range ts {
		if keep(i, t) {
			out = append(out, t)
		}
	}
	return out
}

func hasKey(ts []token, key string) bool {
	return slices.ContainsFunc(ts, func(t token) bool { return t.key == key })
}
