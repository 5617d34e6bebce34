package multihop

import (
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// NearDuplicateOverlap is spec 004's threshold: two queries that share more than 80% of their
// tokens are near-duplicates that would retrieve the same documents.
const NearDuplicateOverlap = 0.8

// TokenOverlap is the token overlap of two queries as the plan rules measure it: the Jaccard
// index |A ∩ B| / |A ∪ B| of their content-token sets (see text.ContentWords). It is symmetric, 1 for
// queries with the same content words in any order, 0 when either has none. Jaccard rather than
// the share of the shorter query: a short query inside a long one still retrieves differently.
func TokenOverlap(a, b, language string) float64 {
	ta, tb := tokenSet(text.ContentWords(a, language)), tokenSet(text.ContentWords(b, language))
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

func tokenSet(tokens []string) map[string]bool {
	m := make(map[string]bool, len(tokens))
	for _, t := range tokens {
		m[t] = true
	}
	return m
}

// normalizedQuery is a query or claim as the exact-match rules compare them: lower case, runs
// of spaces as one, without the punctuation that ends a sentence or wraps it in quotes.
func normalizedQuery(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.Trim(s, " .?!;:,\"'“”‘’`")
}
