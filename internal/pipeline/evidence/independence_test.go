package evidence

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// wireStory is one Associated Press story as it is syndicated: the same text under another
// headline and credit line on each paper that runs it.
const wireStory = "The city council voted 7 to 2 on Tuesday to close the Elm Street bridge to cars from " +
	"March, after inspectors found corrosion in two of its steel girders. Repairs are expected to take " +
	"eighteen months and cost 4.2 million dollars, the council said in a statement."

// Rules 5 and 6 of issue 12: one organisation is one publisher, one text is one source whatever
// its domain, one DOI is one document wherever it is hosted. Each pair below would give High
// on two "independent" sources before; none may.
func TestIndependenceOfOneVoice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a, b pipeline.SearchResult
	}{
		{"one wire story on two papers' sites",
			pipeline.SearchResult{URL: "https://www.dailyherald.example/news/bridge-closed", Title: "Council closes Elm Street bridge",
				Snippet: "SPRINGFIELD (AP) — " + wireStory, Publisher: "Daily Herald"},
			pipeline.SearchResult{URL: "https://valleytimes.example/2026/03/01/elm-bridge", Title: "Elm Street bridge to close to cars",
				Snippet: wireStory + " Copyright 2026 The Associated Press. All rights reserved.", Publisher: "Valley Times"}},
		{"apnews.com and ap.org are one organisation",
			pipeline.SearchResult{URL: "https://apnews.com/article/bridge-1", Title: "Bridge closed", Snippet: "The council closed the bridge.",
				Publisher: "AP News", Organisation: "Associated Press"},
			pipeline.SearchResult{URL: "https://www.ap.org/media-center/press-releases/2026/bridge", Title: "AP statement on the Elm Street bridge",
				Snippet: "A statement about the inspection of the bridge.", Publisher: "The Associated Press", Organisation: "Associated Press"}},
		{"organisation of one, page publisher of the other",
			pipeline.SearchResult{URL: "https://apnews.com/article/bridge-1", Title: "Bridge closed", Snippet: "The council closed the bridge.",
				Publisher: "AP News", Organisation: "Associated Press"},
			pipeline.SearchResult{URL: "https://wire-mirror.example/bridge", Title: "Inspectors found corrosion", Snippet: "Girders were corroded, inspectors said.",
				Publisher: "Associated  Press"}},
		{"one DOI on two hosts",
			pipeline.SearchResult{URL: "https://doi.org/10.1234/bridge.2026.001", Title: "Corrosion of steel girders in urban bridges",
				Snippet: "Abstract. We survey corrosion in 40 bridges.", Publisher: "Journal of Bridge Engineering"},
			pipeline.SearchResult{URL: "https://www.researchgate.example/publication/10.1234/bridge.2026.001", Title: "Corrosion study (PDF)",
				Snippet: "Request full text of this publication.", Publisher: "ResearchGate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := IndependentSources([]pipeline.SearchResult{c.a, c.b})
			if len(got) != 1 || got[0].URL != c.a.URL {
				t.Errorf("IndependentSources = %d sources %v, want one: the first", len(got), urlsOf(got))
			}
			cal := Calibration{}.Calibrate(pipeline.ConfidenceHigh, []pipeline.SearchResult{c.a, c.b})
			if cal.Confidence != pipeline.ConfidenceMedium {
				t.Errorf("Calibrate = %s (%s), want Medium: one voice", cal.Confidence, cal.Note)
			}
			if !strings.Contains(cal.Note, "count as one") {
				t.Errorf("note %q does not say why", cal.Note)
			}
		})
	}
}

// The honest case: two separate reports of one event, on two sites of two organisations, with
// the same names and numbers, are two sources and give High.
func TestIndependenceOfTwoReports(t *testing.T) {
	t.Parallel()
	a := pipeline.SearchResult{URL: "https://apnews.com/article/bridge-1", Title: "Council closes Elm Street bridge", Publisher: "AP News",
		Organisation: "Associated Press", Snippet: "SPRINGFIELD (AP) — " + wireStory}
	b := pipeline.SearchResult{URL: "https://www.reuters.com/world/us/springfield-bridge-2026-03-01/", Title: "Springfield shuts corroded bridge",
		Publisher: "Reuters", Organisation: "Thomson Reuters",
		Snippet: "Springfield will shut the Elm Street bridge to traffic in March. Council members backed the closure by " +
			"seven votes to two after an inspection report described corroded girders; officials put the repair bill at " +
			"$4.2 million and the work at a year and a half."}
	if got := IndependentSources([]pipeline.SearchResult{a, b}); len(got) != 2 {
		t.Errorf("IndependentSources = %v, want both", urlsOf(got))
	}
	if cal := (Calibration{}).Calibrate(pipeline.ConfidenceHigh, []pipeline.SearchResult{a, b}); cal.Confidence != pipeline.ConfidenceHigh {
		t.Errorf("Calibrate = %s (%s), want High", cal.Confidence, cal.Note)
	}
}

// KeysOf's publisher is the organisation when the table knows one, and both names are compared.
func TestSourceKeysShared(t *testing.T) {
	t.Parallel()
	ap := KeysOf(pipeline.SearchResult{URL: "https://apnews.com/a", Publisher: "AP News", Organisation: "Associated Press"})
	for _, c := range []struct {
		r    pipeline.SearchResult
		want string
	}{
		{pipeline.SearchResult{URL: "https://www.ap.org/b", Organisation: "associated press"}, "organisation"},
		{pipeline.SearchResult{URL: "https://other.example/c", Publisher: "AP  news"}, "publisher"},
		{pipeline.SearchResult{URL: "https://news.apnews.com/d"}, "domain"},
		{pipeline.SearchResult{URL: "https://other.example/e", Publisher: "Other"}, ""},
	} {
		if got := ap.Shared(KeysOf(c.r)); !strings.Contains(got, c.want) || c.want == "" && got != "" {
			t.Errorf("Shared(%s) = %q, want it to name %q", c.r.URL, got, c.want)
		}
	}
}

func urlsOf(rs []pipeline.SearchResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URL)
	}
	return out
}
