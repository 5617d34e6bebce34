package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline/text"
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
	if got := text.OneLine("refuted\x1b]0;owned\x07 by\n\tthe \x1b[2Jarchive\u0085"); got != "refuted ]0;owned by the [2Jarchive" {
		t.Fatalf("oneLine: %q", got)
	}
}

func TestWriteSummaryAndChanges(t *testing.T) {
	t.Parallel()
	cost := 0.5
	var b strings.Builder
	WriteSummary(&b, store.ReportFilter{Method: "multihop"}, store.Summary{
		Statements: 3, ByStatus: []store.Count{{Key: "done", N: 2}, {Key: "failed", N: 1}},
		ByVerdict: []store.Count{{Key: "supported", N: 3}, {Key: "refuted", N: 1}},
		Usage:     []store.ModelUsage{{Model: "m1\x1b[2J", Runs: 3, Cost: &cost, Currency: "USD"}, {Model: "m2", Runs: 1}},
	})
	for _, want := range []string{`Batch: statements with method "multihop"`, "Statements: 3 (done 2, failed 1)", "(4 claims)", " 75.0%",
		"(all of them: only the time window applies to messages): none", "estimated cost: 0.5000 USD", "no price for m2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// The table puts model names on one line; the "no price for" line prints them as stored.
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("a control character reached the terminal:\n%q", b.String())
	}
	b.Reset()
	WriteChanges(&b, time.Time{}, []store.VerdictChange{{StatementID: 7, ExternalID: "a-7", ClaimText: "It opened in 1889.", OldVerdict: "supported", NewVerdict: "refuted",
		Reverify: true, OldRunID: 1, NewRunID: 2, NewCheckA: "It opened in 1887.", NewCitationURLs: []string{"https://a", "https://b"}}})
	for _, want := range []string{"1 verdict change(s) ever", "supported -> refuted  (re-verification, run 1 -> 2)", "statement 7 (a-7)", "why now:  It opened in 1887.", "sources:  https://a https://b"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("changes lack %q:\n%s", want, b.String())
		}
	}
}
