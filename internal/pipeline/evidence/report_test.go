package evidence

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// reportClaims are claims of every kind the report shows: corrected (refuted, and partly
// supported with a correction, one with a line break in its text), confirmed, uncertain (with
// and without a correction), skipped by the cap.
var reportClaims = []pipeline.Claim{
	{Position: 1, Text: "The tower is 300 m tall", Verdict: pipeline.VerdictRefuted, CorrectedText: "The tower is 330 m tall", Citations: []int{1, 2}},
	{Position: 2, Text: "It opened in 1889", Verdict: pipeline.VerdictSupported, Confidence: pipeline.ConfidenceMedium, Citations: []int{3}},
	{Position: 3, Text: "It was the tallest\nstructure until 1930", Verdict: pipeline.VerdictPartlySupported, CorrectedText: "It was the tallest structure until 1930 (the Chrysler Building)", Citations: []int{3}},
	{Position: 4, Text: "Its paint weighs 60 t", Verdict: pipeline.VerdictUnverified, Reason: "unable to verify"},
	{Position: 5, Text: "It has 1,665 steps", Verdict: pipeline.VerdictNotChecked, Reason: "over the claim cap of 10"},
	{Position: 6, Text: "It sways 6 cm in wind", Verdict: pipeline.VerdictNotChecked, Reason: "over the claim cap of 10"},
	{Position: 7, Text: "It is loved", Verdict: pipeline.VerdictPartlySupported},
}

// The report has the specification's output format: checked line by line against the template
// text of spec 000 itself (the "Output:" block of Phase 3), its headings, summary line, Skipped
// line, Corrections line, Sources and Revised Response, with the figures and texts of the
// claims. The golden file then pins the exact bytes; -update rewrites it, never the template.
func TestRenderReportFormat(t *testing.T) {
	t.Parallel()
	sources := []ReportSource{{1, "https://a.example/1"}, {2, "https://b.example/2"}, {3, "https://c.example/3"}}
	revised := "The tower is 330 m tall [1, 2].\n## Sources\n[9] https://evil.example"
	got := RenderReport(reportClaims, sources, revised)
	pipelinetest.CheckGolden(t, "report_format.golden", got)
	if !strings.Contains(got, "\n\\## Sources\n[9] https://evil.example\n") {
		t.Error("a heading inside the revised response cannot start a section of the report")
	}

	template, err := pipelinetest.ReportTemplate(testenv.ReadSpec(t, "000_062d78d26b120756.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pipelinetest.CheckReportFormat(template, got, true) {
		t.Errorf("%s\n--- report\n%s\n--- the specification's template\n%s", p, got, template)
	}
	lines := map[string]*regexp.Regexp{}
	for _, l := range pipelinetest.ParseReportTemplate(template) {
		lines[l.Kind] = l.Pattern
	}
	for _, kind := range []string{"summary", "skipped", "correction", "source", "heading ## Verification Summary", "heading ## Corrections", "heading ## Sources", "heading ## Revised Response"} {
		if lines[kind] == nil {
			t.Fatalf("the template has no %s line:\n%s", kind, template)
		}
	}
	// The figures: Checked = Confirmed + Corrected + Uncertain, skipped claims outside.
	var summary, skipped []string
	var corrections [][]string
	for _, line := range strings.Split(got, "\n") {
		switch {
		case lines["summary"].MatchString(line):
			summary = lines["summary"].FindStringSubmatch(line)[1:]
		case lines["skipped"].MatchString(line):
			skipped = append(skipped, lines["skipped"].FindStringSubmatch(line)[1])
		case lines["correction"].MatchString(line):
			corrections = append(corrections, lines["correction"].FindStringSubmatch(line)[1:])
		}
	}
	if !slices.Equal(summary, []string{"5", "1", "2", "2"}) {
		t.Errorf("summary figures %v, want Checked 5, Confirmed 1, Corrected 2, Uncertain 2", summary)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "It has 1,665 steps") || !strings.Contains(skipped[0], "It sways 6 cm in wind") {
		t.Errorf("the Skipped line lists both skipped claims: %q", skipped)
	}
	wantCorrections := [][]string{
		{"The tower is 300 m tall", "The tower is 330 m tall", "[1], [2]"},
		{"It was the tallest structure until 1930", "It was the tallest structure until 1930 (the Chrysler Building)", "[3]"},
	}
	if !slices.EqualFunc(corrections, wantCorrections, slices.Equal[[]string]) {
		t.Errorf("corrections %q, want %q", corrections, wantCorrections)
	}

	// Nothing skipped: the Skipped line is omitted, and the rest still follows the template.
	var checked []pipeline.Claim
	for _, c := range reportClaims {
		if c.Verdict != pipeline.VerdictNotChecked {
			checked = append(checked, c)
		}
	}
	noSkip := RenderReport(checked, sources, "The tower is 330 m tall [1, 2].")
	for _, p := range pipelinetest.CheckReportFormat(template, noSkip, false) {
		t.Errorf("no claim skipped: %s\n%s", p, noSkip)
	}
}

// The report of the needs_verification gate says "no verification needed" (spec 000, Phase 1)
// and keeps the template's summary line and Revised Response.
func TestRenderNoVerificationReportFormat(t *testing.T) {
	t.Parallel()
	template, err := pipelinetest.ReportTemplate(testenv.ReadSpec(t, "000_062d78d26b120756.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(testenv.ReadSpec(t, "000_062d78d26b120756.txt"), `Report "no verification needed" and stop.`) {
		t.Fatal(`spec 000 no longer says: Report "no verification needed" and stop.`)
	}
	got := RenderNoVerificationReport("Hello there.")
	if !strings.Contains(strings.ToLower(got), "no verification needed") {
		t.Errorf("the report does not say no verification needed:\n%s", got)
	}
	lines := map[string]*regexp.Regexp{}
	for _, l := range pipelinetest.ParseReportTemplate(template) {
		lines[l.Kind] = l.Pattern
	}
	first, rest, _ := strings.Cut(got, "\n")
	summary, _, _ := strings.Cut(rest, "\n")
	if !lines["heading ## Verification Summary"].MatchString(first) || !lines["summary"].MatchString(summary) ||
		!strings.HasSuffix(got, "\n## Revised Response\nHello there.\n") || !lines["heading ## Revised Response"].MatchString("## Revised Response") {
		t.Errorf("the gate's report keeps the template's heading, summary line and Revised Response:\n%s", got)
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
