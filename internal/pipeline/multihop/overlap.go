package multihop

import (
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// NearDuplicateOverlap is spec 004's threshold: two queries that share more than 80% of their
// tokens are near-duplicates that would retrieve the same documents.
const NearDuplicateOverlap = 0.8

// TokenOverlap is the token overlap of two queries as the plan rules measure it: the Jaccard
// index |A ∩ B| / |A ∪ B| of their content-token sets (see ContentTokens). It is symmetric, 1 for
// queries with the same content words in any order, 0 when either has none. Jaccard rather than
// the share of the shorter query: a short query inside a long one still retrieves differently.
func TokenOverlap(a, b, language string) float64 {
	ta, tb := tokenSet(ContentTokens(a, language)), tokenSet(ContentTokens(b, language))
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	inter := 0
	for t := range ta {
		if tb[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(ta)+len(tb)-inter)
}

// ContentTokens returns a query's content words in order: lower-cased runs of letters and
// digits, without single letters and, for English, without stop words ("the", "of", "and",
// "what", ...). "Alzheimer's" gives "alzheimer".
func ContentTokens(s, language string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if len([]rune(w)) == 1 && !unicode.IsDigit([]rune(w)[0]) {
			continue
		}
		if (language == "" || language == "en") && englishStopWords[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

func tokenSet(tokens []string) map[string]bool {
	m := make(map[string]bool, len(tokens))
	for _, t := range tokens {
		m[t] = true
	}
	return m
}

// englishStopWords are function words that carry no retrieval need of their own.
var englishStopWords = text.WordSet(`a an the and or nor but of in on at to for from by with without about as into onto
	over under than then that this these those there here is are was were be been being am do does did done has have
	had having it its it's they them their he him his she her we us our you your i me my what which who whom whose
	when where why how whether if so such not no yes also any some all each both either neither very can could will
	would shall should may might must just only more most other same own`)

// normalizedQuery is a query or claim as the exact-match rules compare them: lower case, runs
// of spaces as one, without the punctuation that ends a sentence or wraps it in quotes.
func normalizedQuery(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.Trim(s, " .?!;:,\"'“”‘’`")
}
