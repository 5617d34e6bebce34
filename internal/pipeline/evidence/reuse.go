package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// A claim checked once (issue 16, item 4): the rules that decide when a claim of a new job is
// the same as one verified before, so that its evidence and verdict can be reused.

// SameClaimThreshold is the resemblance of two claims' word fingerprints (ClaimFingerprintOf:
// their words and pairs of adjacent words) from which they are one claim, when their numbers,
// negations, names and content words are also the same (SameClaim).
//
// Chosen on the written test set in TestSameClaimOnTheTestSet (go test -v -run
// TestSameClaimOnTheTestSet ./internal/pipeline/evidence). Rewordings that keep the claim's words
// (reordered clauses, the passive voice, an article or an auxiliary more or less, "per cent", a
// number in words, "Spain's" for "in Spain") score 0.56-1.00. Different claims about the same
// subject score up to 0.80 (another year), 0.76 (a negation), 0.69 (another person of the same
// name), 0.57 (another verb): no threshold separates those from rewordings, so the rules in code
// do. Numbers and years, negations, names and content words must all be the same; the threshold
// then only keeps apart claims with the same words in another order ("Paris is in France").
// A rewording by a synonym ("finished" for "completed") is not matched, on purpose: a missed
// rewording costs one verification, a false match publishes another claim's verdict.
const SameClaimThreshold = 0.5

// ReuseKeyOf is a claim's normalised text, its exact key for reuse: FoldForMatch (Unicode NFKC,
// case, quote marks, look-alike letters), then words of letters and digits separated by one space
// (punctuation and spacing do not make another claim). "" for a claim with no word.
func ReuseKeyOf(text string) string {
	return strings.Join(claimWords(text), " ")
}

// claimWords are a claim's folded words, English cardinal number words as digits ("two" is
// "2", "twenty-one" and "twenty one" are "21": one number, however it is written). Ordinals keep
// their words: "first" is no "1", and a missed reuse costs one verification where a false one
// would publish another claim's verdict.
func claimWords(claim string) []string {
	words := text.Words(text.FoldForMatch(possessive.ReplaceAllString(claim, "$1")))
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := words[i]
		if d, ordinal, n := text.NumberAt(words, i); n > 0 && !ordinal {
			w = d
			i += n - 1
		}
		if w == "cent" && i > 0 && words[i-1] == "per" { // "per cent" is "percent"
			out[len(out)-1] = "percent"
			continue
		}
		out = append(out, w)
	}
	return out
}

// claimFunctionWords are the words that do not change what a claim says when added, dropped or moved:
// articles, auxiliaries, prepositions. Two claims are one only when their other words are the
// same (contentWords).
var claimFunctionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the a an in on at of to by for with from as into about according
		is are was were be been being has have had do does did will would shall should may might must
		it its this that these those there which who whom whose and or but so than then also
		s says said say le la les l de du des un une el los las del der die das den dem ein eine im`) {
		m[w] = true
	}
	return m
}()

// contentWords are a claim's words but for claimFunctionWords, as a set.
func contentWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range claimWords(text) {
		if !claimFunctionWords[w] {
			out[w] = true
		}
	}
	return out
}

// LeaseKeyOf is the key under which concurrent jobs wait for one verification of a claim: its
// content words (contentWords), sorted. Claims that SameClaim takes for one have the same content
// words, so a claim and its rewording in two jobs at once wait for each other too, not only two
// copies of one text.
func LeaseKeyOf(text string) string {
	return strings.Join(slices.Sorted(maps.Keys(contentWords(text))), " ")
}

// ClaimFingerprintOf returns the hashed words and pairs of adjacent words of a claim: claims are
// a sentence long, too short for the 5-word shingles of copied text (FingerprintOf).
func ClaimFingerprintOf(text string) Fingerprint {
	words := claimWords(text)
	fp := Fingerprint{}
	hash := func(ws ...string) {
		h := fnv.New64a()
		for _, w := range ws {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		fp[h.Sum64()] = struct{}{}
	}
	for i, w := range words {
		hash(w)
		if i > 0 {
			hash(words[i-1], w)
		}
	}
	return fp
}

// markers are a claim's numbers (every word with a digit) and negation words, sorted: what must
// be the same in two claims for them to be one.
func markers(claim string) []string {
	var out []string
	for _, w := range claimWords(claim) {
		if text.IsNegation(w) || strings.ContainsFunc(w, unicode.IsDigit) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// possessive is a name's "'s": "Spain's unemployment" is about Spain.
var possessive = regexp.MustCompile(`(\p{L})['’]s\b`)

// nameStopwords are capitalised words that name nothing: a sentence's first word, mostly.
var nameStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the a an in on at as by for of to with from according after before since during it its
		this that these those there their his her our what when where which who how while although if yes no not le la les
		el los las der die das ein eine il lo gli un une des du en et y und`) {
		m[w] = true
	}
	return m
}()

// names are the folded capitalised words of a claim but for nameStopwords: the people, places
// and things it is about.
func names(text string) map[string]bool {
	out := map[string]bool{}
	for _, n := range nameSequence(text) {
		out[n] = true
	}
	return out
}

// nameSequence is names in the order they first appear in the claim.
func nameSequence(claim string) []string {
	var out []string
	for _, w := range text.Tokens(possessive.ReplaceAllString(claim, "$1"), "") {
		if !text.IsCapitalised(w) {
			continue
		}
		if f := text.FoldForMatch(w); !nameStopwords[f] && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// sameNameOrder reports whether the names two claims share come in the same order: "Vienna is
// larger than Prague" and "Prague is larger than Vienna" share every word and name, not their
// meaning. A rewording that moves a name ("NASA launched Hubble", "Hubble was launched by NASA")
// is missed by it: a missed reuse costs one verification, a false one publishes another claim's
// verdict.
func sameNameOrder(a, b string) bool {
	sa, sb := nameSequence(a), nameSequence(b)
	shared := func(seq, other []string) []string {
		var out []string
		for _, n := range seq {
			if slices.Contains(other, n) {
				out = append(out, n)
			}
		}
		return out
	}
	return slices.Equal(shared(sa, sb), shared(sb, sa))
}

// sameNames reports whether the names of one claim are all among the other's: "the Amazon" and
// "the Amazon River" are one subject, "Marie Curie" and "Pierre Curie" are not.
func sameNames(a, b map[string]bool) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for n := range a {
		if !b[n] {
			return false
		}
	}
	return true
}

// SameClaim reports whether two claims (in one language) are one claim: the same normalised text,
// or the same numbers, years and negations, the names of one among the other's (sameNames) in the
// same order (sameNameOrder), the same content words (contentWords), and word fingerprints that resemble each other at
// SameClaimThreshold or more.
func SameClaim(a, b string) bool {
	ka, kb := ReuseKeyOf(a), ReuseKeyOf(b)
	if ka == "" || kb == "" {
		return false
	}
	if ka == kb {
		return true
	}
	if !slices.Equal(markers(a), markers(b)) || !sameNames(names(a), names(b)) || !sameNameOrder(a, b) ||
		!maps.Equal(contentWords(a), contentWords(b)) {
		return false
	}
	return Resemblance(ClaimFingerprintOf(a), ClaimFingerprintOf(b)) >= SameClaimThreshold
}

// TimeSensitive reports whether a claim's verdict may change with time, so that it is never
// reused: the plan said it needs a temporal scope, or the claim or one of its queries has a
// freshness word (latest, current, now, prices, ...: FreshnessWords) or a relative time ("15
// years ago": RelativeTime), which says another thing on another day.
func TimeSensitive(requiresTemporalScope bool, texts ...string) bool {
	if requiresTemporalScope {
		return true
	}
	return slices.ContainsFunc(texts, FreshnessWords.MatchString) || slices.ContainsFunc(texts, RelativeTime.MatchString)
}

// RelativeTime matches a time stated relative to when the text was written: "15 years ago",
// "a decade ago", "last year", "next month", "yesterday", "currently", "this year", "to date".
// A claim with one is judged from its statement's publication date (pipeline.Input.Published),
// when known.
var RelativeTime = regexp.MustCompile(`(?i)\b(?:(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a\s+few|several|many)\s+(?:years?|months?|weeks?|days?|decades?|centur(?:y|ies))\s+ago` +
	`|(?:last|next|this|past)\s+(?:year|month|week|decade|season|century)|yesterday|tomorrow|current(?:ly)?|nowadays|presently|at\s+present|to\s+date|so\s+far|recent(?:ly)?)\b`)

// ReuseContext is what else two jobs must share for a claim's verification to stand for both:
// the method, the language and the options that change what counts as evidence (temporal scope,
// independence rules, grounding instruction). A digest, so that it stays short in storage.
func ReuseContext(method string, in pipeline.Input) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(in.Language), in.Options.TemporalScope, in.Options.IndependenceRules, []byte(in.Options.Grounding)} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return method + "/" + in.Language + "/" + hex.EncodeToString(h.Sum(nil))[:16]
}
