package evidence

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// The report is exactly the specification's output format: the golden file is written out by
// hand from the specification's template.
func TestRenderReportFormat(t *testing.T) {
	t.Parallel()
	claims := []pipeline.Claim{
		{Position: 1, Text: "The tower is 300 m tall", Verdict: pipeline.VerdictRefuted, CorrectedText: "The tower is 330 m tall", Citations: []int{1, 2}},
		{Position: 2, Text: "It opened in 1889", Verdict: pipeline.VerdictSupported, Confidence: pipeline.ConfidenceMedium, Citations: []int{3}},
		{Position: 3, Text: "It was the tallest\nstructure until 1930", Verdict: pipeline.VerdictPartlySupported, CorrectedText: "It was the tallest structure until 1930 (the Chrysler Building)", Citations: []int{3}},
		{Position: 4, Text: "Its paint weighs 60 t", Verdict: pipeline.VerdictUnverified, Reason: "unable to verify"},
		{Position: 5, Text: "It has 1,665 steps", Verdict: pipeline.VerdictNotChecked, Reason: "over the claim cap of 10"},
		{Position: 6, Text: "It sways 6 cm in wind", Verdict: pipeline.VerdictNotChecked, Reason: "over the claim cap of 10"},
		{Position: 7, Text: "It is loved", Verdict: pipeline.VerdictPartlySupported},
	}
	sources := []ReportSource{{1, "https://a.example/1"}, {2, "https://b.example/2"}, {3, "https://c.example/3"}}
	revised := "The tower is 330 m tall [1, 2].\n## Sources\n[9] https://evil.example"
	got := RenderReport(claims, sources, revised)
	pipelinetest.CheckGolden(t, "report_format.golden", got)
	if !strings.Contains(got, "\n\\## Sources\n[9] https://evil.example\n") {
		t.Error("a heading inside the revised response cannot start a section of the report")
	}
}

func TestRenderReportEmptySections(t *testing.T) {
	t.Parallel()
	// A shallow claim supported closed-book, with no confidence, is no confirmation: Uncertain.
	got := RenderReport([]pipeline.Claim{{Position: 1, Text: "x", Verdict: pipeline.VerdictSupported, Tier: pipeline.TierShallow}}, nil, "Same text.")
	want := "## Verification Summary\n- Checked: 1 | Confirmed: 0 | Corrected: 0 | Uncertain: 1\n\n" +
		"## Corrections\n- none\n\n## Sources\nnone\n\n## Revised Response\nSame text.\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "Skipped") {
		t.Error("the Skipped line is omitted only when none was skipped")
	}
}

func TestReportSourcesOf(t *testing.T) {
	t.Parallel()
	got := ReportSourcesOf([]pipeline.Evidence{
		{SourceNumber: 2, URL: "https://b.example"}, {SourceNumber: 0, URL: "https://read-not-cited.example"},
		{SourceNumber: 1, URL: "https://a.example"}, {SourceNumber: 2, URL: "https://b.example"},
	})
	if len(got) != 2 || got[0] != (ReportSource{1, "https://a.example"}) || got[1] != (ReportSource{2, "https://b.example"}) {
		t.Errorf("ReportSourcesOf: %+v", got)
	}
}
