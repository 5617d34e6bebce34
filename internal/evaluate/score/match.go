// Package score matches the claims a plan extracted with the gold claims of a data set, as spec
// 004's claim recall asks: a gold claim is recalled by an extracted claim that keeps its exact
// parts (numbers, dates, negation, named entities) and shares enough of its content words, each
// extracted claim recalling at most one gold claim. Number words and negations are the
// pipeline's (internal/pipeline/text), so that the scorer reads a claim as the methods do.
package score

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// DefaultMatchThreshold is the token overlap (multihop.TokenOverlap: the Jaccard index of the
// content-word sets) at which an extracted claim matches a gold claim. Half the content words
// in common accepts a paraphrase that keeps the entities, the predicate and the figures
// ("Barack Obama's mother was from Kansas" against "Obama's mother came from Kansas": 0.60)
// and refuses a claim about something else of the same subject. It is lower than the 0.8 of a
// near-duplicate because gold claims are rewritten by annotators, not copied from the statement.
const DefaultMatchThreshold = 0.5

// MatchClaims pairs gold claims with extracted claims one to one: a gold claim is recalled when
// an extracted claim keeps its numbers, dates, negations and named entities exactly (sameFacts),
// has a token overlap of at least threshold with it, and is not taken by another gold claim. The pairing is a maximum matching (augmenting paths), so the count is the
// largest possible, and one extracted claim that merges two gold claims recalls only one of
// them, as spec 004's "no claim is merged into another" asks. It returns, for each gold claim,
// the index of its extracted claim, or -1.
func MatchClaims(gold, extracted []string, threshold float64, language string) []int {
	type edge struct {
		to      int
		overlap float64
	}
	adj := make([][]edge, len(gold))
	for i, g := range gold {
		for j, e := range extracted {
			if o := multihop.TokenOverlap(g, e, language); o >= threshold && sameFacts(g, e, language) {
				adj[i] = append(adj[i], edge{j, o})
			}
		}
		// Best overlap first: among matchings of the same size, pairs read naturally.
		slices.SortStableFunc(adj[i], func(a, b edge) int {
			switch {
			case a.overlap > b.overlap:
				return -1
			case a.overlap < b.overlap:
				return 1
			}
			return 0
		})
	}
	owner := make([]int, len(extracted))
	for j := range owner {
		owner[j] = -1
	}
	var augment func(i int, seen []bool) bool
	augment = func(i int, seen []bool) bool {
		for _, e := range adj[i] {
			if seen[e.to] {
				continue
			}
			seen[e.to] = true
			if owner[e.to] < 0 || augment(owner[e.to], seen) {
				owner[e.to] = i
				return true
			}
		}
		return false
	}
	for i := range gold {
		augment(i, make([]bool, len(extracted)))
	}
	match := make([]int, len(gold))
	for i := range match {
		match[i] = -1
	}
	for j, i := range owner {
		if i >= 0 {
			match[i] = j
		}
	}
	return match
}

// claimFacts are the parts of a claim that change its meaning when one word changes, which
// token overlap cannot see: its numbers (figures, years, days of dates; English number words
// read as digits), its negations, and its named entities (runs of capitalised words).
//
// Negations are counted, not paired off: "The bridge is not closed and never was" negates
// twice and means the bridge is open, so it must not be recalled by "The bridge is closed", as
// it was when two negations cancelled each other out.
type claimFacts struct {
	numbers   map[string]bool
	negations int
	entities  [][]string
	words     map[string]bool
}

var factWord = regexp.MustCompile(`\d+(?:[.,]\d+)*|[\p{L}\p{N}]+(?:'[\p{L}]+)?`)

func factsOf(s, language string) claimFacts {
	f := claimFacts{numbers: map[string]bool{}, words: map[string]bool{}}
	var run []string
	flush := func() {
		if len(run) > 0 {
			f.entities = append(f.entities, run)
			run = nil
		}
	}
	written := factWord.FindAllString(s, -1)
	lowered := make([]string, len(written))
	for i, w := range written {
		lowered[i] = strings.ToLower(w)
	}
	for i := 0; i < len(written); i++ {
		w, lower := written[i], lowered[i]
		base, _, _ := strings.Cut(lower, "'") // "Obama's" is Obama
		f.words[base] = true
		r, _ := utf8.DecodeRuneInString(w)
		// A number word, a compound ("twenty-one", "twenty one") or an ordinal ("first", "21st")
		// is the number it names: "1st" and "first" are one number, as "16th" and "16" are.
		digits, _, n := text.NumberAt(lowered, i)
		switch {
		case n > 0:
			f.numbers[digits] = true
			for _, w := range lowered[i+1 : i+n] {
				f.words[w] = true
			}
			i += n - 1
			flush()
		case unicode.IsDigit(r):
			f.numbers[strings.ReplaceAll(w, ",", "")] = true
			flush()
		case text.IsNegation(lower):
			f.negations++
			flush()
		case unicode.IsUpper(r) && len(text.ContentWords(base, language)) > 0:
			run = append(run, base)
		default:
			flush()
		}
	}
	flush()
	return f
}

// keptBy reports whether an extracted claim keeps every exact part of the gold claim f: each of
// its numbers, as many negations, and each of its named entities, an entity being kept when at
// least half of its words appear among the other's words in any case ("Barack Obama" is kept by
// "Obama's", a sentence-initial "Original" by "original"; "Kenya" is not kept by "Kansas", nor
// "Golden Gate Bridge" by "Brooklyn Bridge"). What the extracted claim adds (a merged claim's
// second figure) is left to token overlap, so that a merged claim still recalls one of the two.
func (f claimFacts) keptBy(e claimFacts) bool {
	if f.negations != e.negations {
		return false
	}
	for n := range f.numbers {
		if !e.numbers[n] {
			return false
		}
	}
	for _, ent := range f.entities {
		kept := 0
		for _, w := range ent {
			if e.words[w] {
				kept++
			}
		}
		if 2*kept < len(ent) {
			return false
		}
	}
	return true
}

// sameFacts reports whether extracted keeps gold's exact parts (see keptBy).
func sameFacts(gold, extracted, language string) bool {
	return factsOf(gold, language).keptBy(factsOf(extracted, language))
}

// BestOverlap returns the extracted claim with the highest token overlap with gold, for the
// report of a missed claim; -1 when there is none.
func BestOverlap(gold string, extracted []string, language string) (int, float64) {
	best, at := 0.0, -1
	for j, e := range extracted {
		if o := multihop.TokenOverlap(gold, e, language); o > best || at < 0 {
			best, at = o, j
		}
	}
	return at, best
}
