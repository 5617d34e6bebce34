package multihop

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
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
}

func tokensOf(s string) []token {
	var out []token
	for _, w := range claimWord.FindAllString(s, -1) {
		t := token{text: w, key: strings.ToLower(w)}
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
var rangeWords = pipeline.WordSet("between entre zwischen tra fra tussen")

// finiteVerbs are English finite verb forms that make a clause a predicate of its own, with the
// past tense in -ed (see isPredicate). Nouns that are also verbs ("reports", "costs", "shows")
// are left out: a false split costs a repair round, a missed one only what the rule catches today.
var finiteVerbs = pipeline.WordSet(`is are was were am has have had does do did will would can could shall should may
	might must won lost became begun began grew fell rose made said took held led built sold found gave went came saw got
	ran paid met left kept told brought bought spent stood wrote broke chose drove flew spoke stole threw wore sank
	appears seems remains contains includes reduces becomes lies weighs employs owns produces reaches exceeds sells lives
	wins loses opens rises grows gives takes gets goes comes holds says makes knows means needs wants`)

// notVerbsInEd end in -ed but are no verbs.
var notVerbsInEd = pipeline.WordSet("hundred indeed speed seed bed red shed need breed greed creed naked sacred wicked kindred")

// isPredicate reports whether the words hold a finite verb (English): a clause that can be
// verified on its own.
func isPredicate(words []token) bool {
	for _, w := range words {
		if w.number {
			continue
		}
		if finiteVerbs[w.key] || len(w.key) >= 4 && strings.HasSuffix(w.key, "ed") && !notVerbsInEd[w.key] {
			return true
		}
	}
	return false
}

// checkClaimAtomic: a claim may not join two independently verifiable facts with "and",
// "while" or ";": two predicates ("is 330 metres tall and weighs 10,100 tonnes"), two numbers or
// dates ("repainted in 1990 and 2005"; "between 1990 and 2000" is one range), or two named
// subjects the statement states separately ("Paris and London have a metro" from "Paris has a
// metro. London has one too."; "Procter and Gamble" as the statement writes it is one name).
// The plan must split such a claim into one claim per fact.
func checkClaimAtomic(pv *planValidation) []string {
	lang := cmpLang(pv.ctx.Language)
	conj := conjunctionsOf[lang]
	statement := pipeline.FoldForMatch(pv.ctx.Statement)
	var out []string
	for _, c := range pv.plan.Claims {
		words := tokensOf(c.ClaimText)
		for i, w := range words {
			if !slices.Contains(conj, w.key) {
				continue
			}
			if kind := joinKind(words[:i], words[i+1:], lang, statement); kind != "" {
				out = append(out, fmt.Sprintf("claim %s joins two facts (%s): %q and %q; split it into one claim per fact, each with its own source_span",
					c.ClaimID, kind, joinText(words[:i]), joinText(words[i+1:])))
				break
			}
		}
		if semi := strings.Index(c.ClaimText, ";"); semi > 0 && !slices.ContainsFunc(out, func(m string) bool { return strings.HasPrefix(m, "claim "+c.ClaimID+" ") }) {
			left, right := tokensOf(c.ClaimText[:semi]), tokensOf(c.ClaimText[semi+1:])
			if len(left) > 0 && len(right) > 0 && (lang != "en" || isPredicate(left) && isPredicate(right)) {
				out = append(out, fmt.Sprintf("claim %s joins two facts (two clauses with \";\"): %q and %q; split it into one claim per fact, each with its own source_span",
					c.ClaimID, strings.TrimSpace(c.ClaimText[:semi]), strings.TrimSpace(c.ClaimText[semi+1:])))
			}
		}
	}
	return out
}

// joinKind says why left and right, joined by a conjunction, are two facts, or "" when they
// are one.
func joinKind(left, right []token, lang, foldedStatement string) string {
	if len(left) == 0 || len(right) == 0 {
		return ""
	}
	if lang == "en" && isPredicate(left) && isPredicate(right) {
		return "two predicates"
	}
	at := -1
	for i, t := range left {
		if t.number {
			at = i
		}
	}
	if at >= 0 {
		ranged := at > 0 && rangeWords[left[at-1].key]
		if !ranged && slices.ContainsFunc(right, func(t token) bool { return t.number }) {
			return "two numbers or dates"
		}
	}
	a, b := left[len(left)-1], right[0]
	if lang != "de" && a.capital && b.capital && !a.number && !b.number && (lang != "en" || !isPredicate(left)) &&
		!strings.Contains(foldedStatement, pipeline.FoldForMatch(a.text+" and "+b.text)) &&
		!containsJoined(foldedStatement, a.text, b.text) {
		return "two named subjects"
	}
	return ""
}

// containsJoined reports whether the folded statement writes a and b joined by any word (the
// statement's own "and" in its language): then the statement names them together.
func containsJoined(foldedStatement, a, b string) bool {
	re, err := regexp.Compile(`\b` + regexp.QuoteMeta(pipeline.FoldForMatch(a)) + `\s+\S+\s+` + regexp.QuoteMeta(pipeline.FoldForMatch(b)) + `\b`)
	return err == nil && re.MatchString(foldedStatement)
}

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
// what it needs from the rest of the statement, as spec 004 asks of a self-contained claim:
// the subject a pronoun or an omitted subject refers to ("its main span" is "the Golden Gate
// Bridge's main span"), a date the sentence opens with ("In 2020, exports rose and imports
// fell" gives "Imports fell in 2020"). It may not take it in place of one its span holds ("Jones
// lost the race in 2021" is no span of "Jones lost the race in 2019", nor of "Smith lost the
// race in 2021"), and may not take what the statement does not hold at all. A number the
// statement does not hold is RuleNoAddedQuantification's.
//
// Names are capitalised words after the claim's first word (a capital that opens the claim is
// a name when the plan's entities list it), and identifiers with digits or in capitals; German
// capitalises every noun, so there only identifiers and entities are names.
func checkClaimAddsToSpan(pv *planValidation) []string {
	lang := cmpLang(pv.ctx.Language)
	statement := tokensOf(pv.ctx.Statement)
	var out []string
	for _, c := range pv.plan.Claims {
		start, end, ok := evidence.LocateSpan(pv.ctx.Statement, c.SourceSpan)
		if !ok {
			continue // RuleClaimHasSpan says so
		}
		span := tokensOf(pv.ctx.Statement[start:end])
		claim := tokensOf(c.ClaimText)
		entityWords := map[string]bool{}
		for _, e := range c.Entities {
			for _, t := range tokensOf(e) {
				if t.capital {
					entityWords[t.key] = true
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
		spanNames := filterTokens(span, func(i int, t token) bool { return !t.number && isName(t, 1, lang, nil) })
		spanNumbers := filterTokens(span, func(_ int, t token) bool { return t.number })
		for _, kind := range []struct {
			claim, spanOwn []token
			checkStatement bool
		}{{names, spanNames, true}, {numbers, spanNumbers, false}} {
			var missing, replaced []string
			for _, t := range kind.claim {
				if hasKey(span, t.key) || slices.Contains(missing, t.text) || slices.Contains(replaced, t.text) {
					continue
				}
				if !hasKey(statement, t.key) {
					if kind.checkStatement {
						missing = append(missing, t.text)
					}
					continue
				}
				replaced = append(replaced, t.text)
			}
			if len(missing) > 0 {
				added = append(added, fmt.Sprintf("adds %s, which neither its source_span nor the statement holds", strings.Join(missing, ", ")))
			}
			if len(replaced) > 0 {
				var dropped []string
				for _, t := range kind.spanOwn {
					if !hasKey(claim, t.key) && !slices.Contains(dropped, t.text) {
						dropped = append(dropped, t.text)
					}
				}
				if len(dropped) > 0 {
					added = append(added, fmt.Sprintf("adds %s in place of %s of its source_span", strings.Join(replaced, ", "), strings.Join(dropped, ", ")))
				}
			}
		}
		for _, a := range added {
			out = append(out, fmt.Sprintf("claim %s %s; a claim says only what its source_span says (it may name what the span refers to)", c.ClaimID, a))
		}
	}
	return out
}

// isName reports whether the i-th word of a text is a name (see checkClaimAddsToSpan).
func isName(t token, i int, lang string, entityWords map[string]bool) bool {
	if t.number || utf8.RuneCountInString(t.key) < 2 {
		return false
	}
	if entityWords[t.key] {
		return true
	}
	letters, digits, upper := 0, 0, 0
	for _, r := range t.text {
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
	if digits > 0 || upper == letters {
		return true
	}
	return t.capital && i > 0 && lang != "de" && !(lang == "en" && englishStopWords[t.key])
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
