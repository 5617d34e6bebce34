package evidence

import (
	"slices"
	"testing"
)

func TestFilterCitations(t *testing.T) {
	t.Parallel()
	allowed := func(n int) bool { return n == 1 || n == 2 }
	cases := []struct {
		in, want string
		removed  []int
	}{
		{"Paris [1].", "Paris [1].", nil},
		{"Paris [9].", "Paris.", []int{9}},
		{"Paris [1, 9] and Rome [2][7].", "Paris [1] and Rome [2].", []int{9, 7}},
		{"Paris [7] [1].", "Paris [1].", []int{7}},
		{"Range [1-3].", "Range [1, 2].", []int{3}},
		{"Code a[0] and arr[9] stay; so does [sic].", "Code a[0] and arr[9] stay; so does [sic].", nil},
		{"[9] at the start", " at the start", []int{9}},
		{"Twice [9] and [9].", "Twice and.", []int{9}},
	}
	for _, c := range cases {
		got, removed := FilterCitations(c.in, allowed)
		if got != c.want || !slices.Equal(removed, c.removed) {
			t.Errorf("FilterCitations(%q) = %q, %v; want %q, %v", c.in, got, removed, c.want, c.removed)
		}
	}
	if got := CitedNumbers("A [2], B [1, 2][3] and a[4]."); !slices.Equal(got, []int{2, 1, 3}) {
		t.Errorf("CitedNumbers: %v", got)
	}
}

func TestStripUnknownURLs(t *testing.T) {
	t.Parallel()
	got, removed := StripUnknownURLs("See https://a.example/x/, [the page](https://evil.example/p) and www.evil.example/q.", []string{"https://a.example/x"})
	if got != "See https://a.example/x/, the page and ." || !slices.Equal(removed, []string{"https://evil.example/p", "www.evil.example/q"}) {
		t.Errorf("got %q, removed %v", got, removed)
	}
}

func TestSourceBook(t *testing.T) {
	t.Parallel()
	var b SourceBook
	if b.Number("https://a.example/x") != 1 || b.Number("https://b.example/") != 2 || b.Number("http://www.a.example/x/") != 1 {
		t.Fatal("one number per document, in first-citation order")
	}
	if !b.Has(2) || b.Has(3) || b.Has(0) || !b.Knows("https://b.example") || b.Knows("https://c.example") {
		t.Error("Has and Knows")
	}
	if got := b.Sources(); len(got) != 2 || got[0] != (ReportSource{1, "https://a.example/x"}) {
		t.Errorf("Sources: %+v", got)
	}
}

func FuzzFilterCitations(f *testing.F) {
	for _, s := range []string{"Paris [1].", "[1, 9][2-40]", "a[0] [", "[[1]]", "[1-2-3]", "x [001] y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		allowed := func(n int) bool { return n%2 == 1 }
		out, _ := FilterCitations(text, allowed)
		for _, n := range CitedNumbers(out) {
			if !allowed(n) {
				t.Fatalf("FilterCitations(%q) = %q still cites [%d]", text, out, n)
			}
		}
	})
}
