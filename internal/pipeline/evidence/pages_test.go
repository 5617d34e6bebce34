package evidence

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

func TestMatchingPassagesRanksTheClaimsRareTermsFirst(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		"The bridge is a bridge over the bay, and the bridge is famous.",
		"Opening hours and tickets for visitors.",
		"The bridge opened to traffic on 27 May 1937 after four years of construction.",
		"Fog often covers the bridge in summer.",
	}, "\n\n")
	got := MatchingPassages(text, "The bridge opened in 1937", 1)
	if len(got) != 1 || !strings.Contains(got[0].Text, "27 May 1937") {
		t.Fatalf("best passage = %+v, want the one with the date", got)
	}
	if text[got[0].Start:got[0].End] != got[0].Text {
		t.Errorf("offsets [%d,%d) do not give the passage", got[0].Start, got[0].End)
	}
	all := MatchingPassages(text, "The bridge opened in 1937", 10)
	for i, p := range all {
		if strings.Contains(p.Text, "Opening hours") {
			t.Errorf("a passage sharing no word with the claim was returned: %q", p.Text)
		}
		if i > 0 && p.Start < all[i-1].Start {
			t.Errorf("passages are not in the page's order: %+v", all)
		}
	}
	if MatchingPassages(text, "", 3) != nil {
		t.Error("a claim with no content words matched passages")
	}
}

func TestSplitPassagesCutsLongParagraphsAtSentences(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("This sentence is about the long paragraph. ", 40) // ~1,700 bytes
	huge := strings.Repeat("é", MaxPassageBytes)                              // one "sentence" of 2× the limit
	text := "  Short one.\n\n" + long + "\n\n" + huge
	passages := SplitPassages(text)
	if len(passages) < 5 {
		t.Fatalf("got %d passages, want the short one, the long one in runs, the huge one cut", len(passages))
	}
	for _, p := range passages {
		if len(p.Text) > MaxPassageBytes || p.Text == "" {
			t.Errorf("passage of %d bytes", len(p.Text))
		}
		if text[p.Start:p.End] != p.Text {
			t.Errorf("offsets [%d,%d) do not give %q", p.Start, p.End, p.Text)
		}
		if !strings.HasPrefix(p.Text, "é") && !strings.HasPrefix(p.Text, "This") && p.Text != "Short one." {
			t.Errorf("a run does not start at a sentence: %q", p.Text)
		}
	}
}

// A long paragraph of lines without a full stop (a list, a table's rows, FEVEROUS-S's evidence
// lines joined by line breaks, some ending in a comma) is cut at its line breaks, as
// text.Sentences reads a sentence's end: it was cut at the byte limit, in the middle of a line
// and of a word, since only a mark before a space or a line break ended a sentence there.
func TestSplitPassagesCutsLongParagraphsAtLineBreaks(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("Row %d of the harbour ledger lists a cargo of timber,", i+1))
	}
	text := strings.Join(lines, "\n")
	passages := SplitPassages(text)
	if len(passages) < 2 {
		t.Fatalf("got %d passages of a paragraph of %d bytes, want it cut in runs of lines", len(passages), len(text))
	}
	for _, p := range passages {
		if len(p.Text) > MaxPassageBytes || text[p.Start:p.End] != p.Text {
			t.Errorf("passage [%d,%d) of %d bytes", p.Start, p.End, len(p.Text))
		}
		if !strings.HasPrefix(p.Text, "Row ") || !strings.HasSuffix(p.Text, "timber,") {
			t.Errorf("a run is not whole lines: %q", p.Text)
		}
	}
}

type countingPages struct{ n atomic.Int64 }

func (c *countingPages) ReadPage(_ context.Context, url string) pipeline.Page {
	c.n.Add(1)
	return pipeline.Page{URL: url, Text: "The tower was completed in 1889 <b>for the fair</b>.", Status: 200}
}

func TestPageReadingReadsTheTopKAndFencesThePassages(t *testing.T) {
	t.Parallel()
	kept := []Retrieved{
		{SearchResult: pipeline.SearchResult{URL: "https://a.example/1", Snippet: "tower"}},
		{SearchResult: pipeline.SearchResult{URL: "https://b.example/2", Snippet: "tower"}},
		{SearchResult: pipeline.SearchResult{URL: "https://c.example/3", Snippet: "tower"}},
	}
	pages := &countingPages{}
	PageReading{Reader: pages, PerHop: 2}.Read(context.Background(), kept, "The tower was completed in 1889")
	if n := pages.n.Load(); n != 2 || kept[2].Page != nil || kept[0].Page == nil || len(kept[1].Passages) != 1 {
		t.Fatalf("read %d pages; want the top 2: %+v", n, kept)
	}
	if kept[0].Page.Text != "" || kept[0].Page.Status != 200 {
		t.Errorf("the page attempt keeps its record but not its whole text: %+v", kept[0].Page)
	}
	rendered := RenderEvidence(kept)
	if !strings.Contains(rendered, pageMarker) || !strings.Contains(rendered, "&lt;b&gt;for the fair&lt;/b&gt;") {
		t.Errorf("the passages are not rendered, fenced and escaped:\n%s", rendered)
	}
	if !PassageIn("completed in 1889", SourceText(kept[0])) || PassageIn("completed in 1889", SourceText(kept[2])) {
		t.Error("a passage from the page must count as in its source, and only in its own")
	}
	PageReading{}.Read(context.Background(), kept[2:], "claim")
	if kept[2].Page != nil {
		t.Error("the zero PageReading read a page")
	}
}

// A passage the snippet already shows is not given again: a corpus document of a few sentences
// is its own snippet, and reading it as a page would repeat each of them to the judge.
func TestPageReadingLeavesOutPassagesTheSnippetShows(t *testing.T) {
	t.Parallel()
	const body = "The Eiffel Tower was completed in 1889.\n\nIt was the world's tallest structure until 1930."
	pages := &pipelinetestPages{texts: map[string]string{
		"https://short.example/tower": body,
		"https://long.example/tower":  body + "\n\nGustave Eiffel's company completed the tower in March 1889 for the fair.",
	}}
	kept := []Retrieved{
		{SearchResult: pipeline.SearchResult{URL: "https://short.example/tower", Snippet: "The Eiffel Tower was completed in 1889. It was the world's tallest structure until 1930."}},
		{SearchResult: pipeline.SearchResult{URL: "https://long.example/tower", Snippet: "The Eiffel Tower was completed in 1889. … tallest structure until 1930."}},
	}
	PageReading{Reader: pages}.Read(context.Background(), kept, "The Eiffel Tower was completed in 1889")
	if kept[0].Page == nil || len(kept[0].Passages) != 0 {
		t.Errorf("the short page's passages repeat its snippet: %+v", kept[0].Passages)
	}
	if len(kept[1].Passages) != 1 || !strings.Contains(kept[1].Passages[0].Text, "March 1889") {
		t.Errorf("the long page's passages: %+v, want the one its snippet lacks", kept[1].Passages)
	}
}

// pipelinetestPages reads the given texts (pipelinetest.StubPages would import this package).
type pipelinetestPages struct{ texts map[string]string }

func (p *pipelinetestPages) ReadPage(_ context.Context, url string) pipeline.Page {
	return pipeline.Page{URL: url, FinalURL: url, ContentType: "text/plain", Text: p.texts[url]}
}
