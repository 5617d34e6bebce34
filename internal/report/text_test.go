package report

import (
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/store"
)

func TestFlattenMakesOneCellPerField(t *testing.T) {
	t.Parallel()
	n := 3
	keys, cells, err := flatten(store.EvidenceRow{SourceNumber: &n, URL: "https://a.example", Cited: true, Title: "+1 on this"}, true)
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]string{}
	for i, k := range keys {
		row[k] = cells[i]
	}
	if len(keys) != 21 || row["source_number"] != "3" || row["claim_position"] != "" || row["cited"] != "true" || row["title"] != "'+1 on this" || row["url"] != "https://a.example" {
		t.Fatalf("%v", row)
	}
	_, cells, _ = flatten(store.ClaimRow{Citations: []int{1, 3}, CitationURLs: []string{"https://a", "https://b"}}, true)
	if !slices.Contains(cells, "1 3") || !slices.Contains(cells, "https://a https://b") {
		t.Fatalf("lists are joined by spaces: %q", cells)
	}
}

// Stored text printed on a terminal loses its control characters: a reply could carry escape
// sequences that clear the screen or retitle the window.
func TestOneLineDropsControlCharacters(t *testing.T) {
	t.Parallel()
	if got := oneLine("refuted\x1b]0;owned\x07 by\n\tthe \x1b[2Jarchive\u0085"); got != "refuted ]0;owned by the [2Jarchive" {
		t.Fatalf("oneLine: %q", got)
	}
}
