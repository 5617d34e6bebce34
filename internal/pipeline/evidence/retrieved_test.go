package evidence

import (
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Ground is the one rule both open-book methods cite through: only given sources count, by
// number or by URL, each once; anything else is removed and named.
func TestGround(t *testing.T) {
	t.Parallel()
	given := []Retrieved{
		{SearchResult: pipeline.SearchResult{URL: "https://a.example/page"}},
		{SearchResult: pipeline.SearchResult{URL: "https://www.b.example/doc/"}},
	}
	cases := []struct {
		name        string
		refs        []SourceRef
		wantCited   []int
		wantRemoved []string
	}{
		{"numbers in range", []SourceRef{{Number: 2}, {Number: 1}}, []int{1, 0}, nil},
		{"numbers out of range", []SourceRef{{Number: 0}, {Number: 3}, {Number: -1}}, nil, []string{"[0]", "[3]", "[-1]"}},
		{"url of a given source, normalized", []SourceRef{{URL: "https://b.example/doc"}}, []int{1}, nil},
		{"url no search returned", []SourceRef{{URL: "https://evil.example/"}}, nil, []string{"https://evil.example/"}},
		{"each source once", []SourceRef{{Number: 1}, {URL: "https://a.example/page"}, {Number: 1}}, []int{0}, nil},
	}
	for _, c := range cases {
		g := Ground(c.refs, given)
		var removed []string
		for _, r := range g.Removed {
			removed = append(removed, r.String())
		}
		if !slices.Equal(g.Cited, c.wantCited) || !slices.Equal(removed, c.wantRemoved) {
			t.Errorf("%s: Ground = cited %v removed %v, want %v %v", c.name, g.Cited, removed, c.wantCited, c.wantRemoved)
		}
	}
}
