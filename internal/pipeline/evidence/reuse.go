package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// A claim checked once (issue 16, item 4): the rules that decide when a claim of a new job is
// the same as one verified before, so that its evidence and verdict can be reused.

// SameClaimThreshold is the resemblance of two claims' word fingerprints (ClaimFingerprintOf:
// their words and pairs of adjacent words) from which they are one claim, when their numbers and
// negations are also the same (SameClaim).
//
// Chosen on the written test set in TestSameClaimOnTheTestSet (go test -v -run
// TestSameClaimOnTheTestSet ./internal/pipeline/evidence): rewordings (reordered clauses, a
// synonym, an article or an auxiliary more or less, "per cent", a number in words) score
// 0.50-1.00; different claims about the same subject score at most 0.38 when their numbers are
// the same (a claim with another year scores up to 0.80, another negation 0.76: the markers rule
// below keeps them apart). Different numbers,
// years or negations never match, whatever the score: that rule is in code, not in the threshold.
// The threshold sits nearer the rewordings than the different claims on purpose: a missed
// rewording costs one verification, a false match publishes another claim's verdict.
const SameClaimThreshold = 0.5

// ReuseKeyOf is a claim's normalised text, its exact key for reuse: FoldForMatch (Unicode NFKC,
// case, quote marks, look-alike letters), then words of letters and digits separated by one space
// (punctuation and spacing do not make another claim). "" for a claim with no word.
func ReuseKeyOf(text string) string {
	return strings.Join(claimWords(text), " ")
}

// claimWords are a claim's folded words, English number words as digits ("two" is "2": one
// number, however it is written).
func claimWords(text string) []string {
	words := strings.FieldsFunc(pipeline.FoldForMatch(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, w := range words {
		if d, ok := claimNumberWords[w]; ok {
			words[i] = d
		}
	}
	return words
}

var claimNumberWords = func() map[string]string {
	m := map[string]string{}
	for i, w := range strings.Fields(`zero one two three four five six seven eight nine ten eleven twelve
		thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty`) {
		m[w] = strconv.Itoa(i)
	}
	return m
}()

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

// negations are the words that turn a claim into its opposite: two claims that differ in them are
// never one claim, however alike their other words.
var negations = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`not no never none nobody nothing neither nor without cannot
		isnt wasnt arent werent dont doesnt didnt hasnt havent hadnt wont cant couldnt shouldnt wouldnt
		isn wasn aren weren doesn didn hasn haven hadn couldn shouldn wouldn
		pas ne nicht kein keine nie nunca jamais nada nadie mai non`) {
		m[w] = true
	}
	return m
}()

// markers are a claim's numbers (every word with a digit) and negation words, sorted: what must
// be the same in two claims for them to be one.
func markers(text string) []string {
	var out []string
	for _, w := range claimWords(text) {
		if negations[w] || strings.ContainsFunc(w, unicode.IsDigit) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// SameClaim reports whether two claims (in one language) are one claim: the same normalised text,
// or the same numbers, years and negations and word fingerprints that resemble each other at
// SameClaimThreshold or more.
func SameClaim(a, b string) bool {
	ka, kb := ReuseKeyOf(a), ReuseKeyOf(b)
	if ka == "" || kb == "" {
		return false
	}
	if ka == kb {
		return true
	}
	if !slices.Equal(markers(a), markers(b)) {
		return false
	}
	return Resemblance(ClaimFingerprintOf(a), ClaimFingerprintOf(b)) >= SameClaimThreshold
}

// TimeSensitive reports whether a claim's verdict may change with time, so that it is never
// reused: the plan said it needs a temporal scope, or the claim or one of its queries has a
// freshness word (latest, current, now, prices, ...: FreshnessWords).
func TimeSensitive(requiresTemporalScope bool, texts ...string) bool {
	if requiresTemporalScope {
		return true
	}
	return slices.ContainsFunc(texts, FreshnessWords.MatchString)
}

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
