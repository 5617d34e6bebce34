package evaluate

import (
	"encoding/json"
	"fmt"
)

// ratio is a count over a total: "3/7 = 0.429".
type ratio struct {
	N, Of int
}

// Rate is N/Of, 0 when Of is 0.
func (r ratio) Rate() float64 {
	if r.Of == 0 {
		return 0
	}
	return float64(r.N) / float64(r.Of)
}

func (r ratio) String() string {
	if r.Of == 0 {
		return "0/0 (nothing measured)"
	}
	return fmt.Sprintf("%d/%d = %.3f", r.N, r.Of, r.Rate())
}

func (r *ratio) add(n, of int) { r.N += n; r.Of += of }

func (r ratio) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N    int     `json:"n"`
		Of   int     `json:"of"`
		Rate float64 `json:"rate"`
	}{r.N, r.Of, r.Rate()})
}

// jaccard is |A ∩ B| / |A ∪ B| of two result sets (URLs). Two empty sets give 0: queries that
// both found nothing are not duplicates of each other, and are counted as queries without
// results instead.
func jaccard(a, b []string) float64 {
	sa := map[string]bool{}
	for _, u := range a {
		sa[u] = true
	}
	sb := map[string]bool{}
	for _, u := range b {
		sb[u] = true
	}
	inter := 0
	for u := range sa {
		if sb[u] {
			inter++
		}
	}
	union := len(sa) + len(sb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
