package evidence

import (
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// Attribute checks each citation's passage against THAT source's text: NFKC, case, white space
// and an ellipsis between fragments aside; a passage of another source, or none, is dropped.
func TestAttribute(t *testing.T) {
	t.Parallel()
	given := []Retrieved{
		{SearchResult: pipelinetest.SearchResult("https://a.example/1", "A", "The Golden Gate Bridge opened to vehicles on May 28, 1937, a day after the pedestrian opening.")},
		{SearchResult: pipelinetest.SearchResult("https://b.example/2", "B", "Its main span was the longest from 1937 until 1964.")},
	}
	got := Attribute([]Citation{
		{Ref: SourceRef{Number: 1}, Passage: "OPENED to  vehicles … a day after the pedestrian opening", Stance: "supports"},
		{Ref: SourceRef{Number: 2}, Passage: "opened to vehicles on May 28, 1937"}, // source 1's words, cited for 2
		{Ref: SourceRef{Number: 3}, Passage: "anything at all, long enough"},       // not shown
		{Ref: SourceRef{URL: "https://b.example/2"}, Passage: ""},                  // no passage
	}, given)
	if !slices.Equal(got.Indices(), []int{0}) || got.Sources[0].Stance != StanceSupports {
		t.Errorf("sources: %+v", got.Sources)
	}
	if len(got.Removed) != 1 || got.Removed[0].Number != 3 {
		t.Errorf("removed: %+v", got.Removed)
	}
	if len(got.NotInSource) != 1 || got.NotInSource[0].Ref.Number != 2 {
		t.Errorf("not in source (source 2 once): %+v", got.NotInSource)
	}
}

// Corroborate: High on two independent agreeing sources, Medium and single_source on one voice,
// a confirmation on conflicting stances unverified with sources_conflict, a refutation or a
// partial confirmation on them at most Medium with it, nothing supported, refuted or partly
// supported at Low.
func TestCorroborate(t *testing.T) {
	t.Parallel()
	given := []Retrieved{
		{SearchResult: pipelinetest.SearchResult("https://www.reuters.com/a", "Reuters", "x")},
		{SearchResult: pipelinetest.SearchResult("https://apnews.com/b", "AP", "x")},
		{SearchResult: pipelinetest.SearchResult("https://someblog.example/c", "", "x")},
	}
	cite := func(i int, stance string) CitedSource { return CitedSource{Index: i, Passage: "p", Stance: stance} }
	tests := []struct {
		name, verdict, stated string
		cited                 []CitedSource
		want, confidence      string
		flags                 []string
	}{
		{"two independent agree", pipeline.VerdictSupported, "High", []CitedSource{cite(0, StanceSupports), cite(1, StanceSupports)}, pipeline.VerdictSupported, "High", nil},
		{"two independent agree, no stance given", pipeline.VerdictRefuted, "High", []CitedSource{cite(0, ""), cite(1, "")}, pipeline.VerdictRefuted, "High", nil},
		{"one blog claimed High", pipeline.VerdictSupported, "High", []CitedSource{cite(2, StanceSupports)}, pipeline.VerdictSupported, "Medium", []string{pipeline.FlagSingleSource}},
		{"conflict", pipeline.VerdictSupported, "High", []CitedSource{cite(0, StanceSupports), cite(1, StanceRefutes)}, pipeline.VerdictUnverified, "Low", []string{pipeline.FlagSourcesConflict}},
		// A refutation that cites a source for the part it confirms ("Source 4 identifies Tim
		// Burton as the maker of Beetlejuice") beside the one that contradicts the rest ("has
		// directed but not produced superhero films") is no conflict the judge left open.
		{"refuted beside a confirming source", pipeline.VerdictRefuted, "High", []CitedSource{cite(0, StanceSupports), cite(1, StanceRefutes)}, pipeline.VerdictRefuted, "Medium", []string{pipeline.FlagSourcesConflict, pipeline.FlagSingleSource}},
		{"partly supported conflict", pipeline.VerdictPartlySupported, "High", []CitedSource{cite(0, StanceSupports), cite(1, StanceRefutes)}, pipeline.VerdictPartlySupported, "Medium", []string{pipeline.FlagSourcesConflict}},
		{"supported at Low", pipeline.VerdictSupported, "Low", []CitedSource{cite(0, StanceSupports), cite(1, StanceSupports)}, pipeline.VerdictUnverified, "Low", nil},
		// A real judge marked "sold to the Ohai Railway Board" partly supported at Low (the page
		// names one locomotive, not several), and the true statement was scored refuted.
		{"partly supported at Low", pipeline.VerdictPartlySupported, "Low", []CitedSource{cite(2, StanceRefutes)}, pipeline.VerdictUnverified, "Low", nil},
		{"no source of the verdict's stance", pipeline.VerdictSupported, "High", []CitedSource{cite(0, StanceRefutes)}, pipeline.VerdictUnverified, "Low", nil},
	}
	for _, tt := range tests {
		got := Calibration{}.Corroborate(tt.verdict, tt.stated, given, tt.cited)
		var codes []string
		for _, f := range got.Flags {
			codes = append(codes, f.Code)
		}
		if got.Verdict != tt.want || got.Confidence != tt.confidence || !slices.Equal(codes, tt.flags) {
			t.Errorf("%s: %s %s %v (%s%s), want %s %s %v", tt.name, got.Verdict, got.Confidence, got.Flags, got.Note, got.Reason, tt.want, tt.confidence, tt.flags)
		}
		if got.Verdict == pipeline.VerdictUnverified && got.Reason == "" {
			t.Errorf("%s: unverified without a reason", tt.name)
		}
	}
}
