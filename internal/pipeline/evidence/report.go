package evidence

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// ReportSource is one numbered source of a report: the [n] its citations use.
type ReportSource struct {
	Number int
	URL    string
}

// ReportSourcesOf returns the numbered sources of a run's evidence, in number order, each once.
func ReportSourcesOf(evidence []pipeline.Evidence) []ReportSource {
	seen := map[int]bool{}
	var out []ReportSource
	for _, e := range evidence {
		if e.SourceNumber > 0 && !seen[e.SourceNumber] {
			seen[e.SourceNumber] = true
			out = append(out, ReportSource{Number: e.SourceNumber, URL: e.URL})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// ReportCounts are the figures of a report's Verification Summary.
type ReportCounts struct {
	// Checked counts every claim that went through verification: Confirmed + Corrected + Uncertain.
	Checked, Confirmed, Corrected, Uncertain int
	// Skipped are the claims a cap or a gate left out (not_checked): never verified, always
	// listed.
	Skipped []pipeline.Claim
}

// CountClaims sorts claims into the Verification Summary's counts: supported claims at High or
// Medium confidence are Confirmed; refuted ones, and partly supported ones that carry a correction, are Corrected;
// unverified ones and partly supported ones without a correction are Uncertain; not_checked ones
// are Skipped, outside Checked, so that the summary never implies a coverage the run did not
// have.
func CountClaims(claims []pipeline.Claim) ReportCounts {
	var c ReportCounts
	for _, cl := range claims {
		switch {
		case cl.Verdict == pipeline.VerdictNotChecked:
			c.Skipped = append(c.Skipped, cl)
			continue
		case cl.Verdict == pipeline.VerdictSupported && pipeline.ConfidenceRank(cl.Confidence) >= pipeline.ConfidenceRank(pipeline.ConfidenceMedium):
			// A supported claim at Low or no confidence confirms nothing: it is Uncertain.
			c.Confirmed++
		case cl.Verdict == pipeline.VerdictRefuted, cl.Verdict == pipeline.VerdictPartlySupported && cl.CorrectedText != "":
			c.Corrected++
		default:
			c.Uncertain++
		}
		c.Checked++
	}
	return c
}

// RenderReport renders CoVe 2.0's output format, exactly:
//
//	## Verification Summary
//	- Checked: N | Confirmed: X | Corrected: Y | Uncertain: Z
//	- Skipped (claim-cap, NOT verified): <list them — omit this line only when none>
//
//	## Corrections
//	- [original] → [corrected]  (basis: [n])
//
//	## Sources
//	[1] <url>
//
//	## Revised Response
//	<final text with inline [n] citations>
//
// The square brackets of "[original]" and "[corrected]" are kept, as in "[n]": the word between
// them is the placeholder. The skipped claims are listed by their text, quoted, separated by
// "; ". A section with nothing
// in it says "- none" (Corrections) or "none" (Sources). Everything in the report but the
// revised response is one line per item: claim texts and URLs have their line breaks folded, so
// that no claim can start a section of its own; in the revised response, a line that would read
// as one of the report's own headings is escaped ("\## Sources").
func RenderReport(claims []pipeline.Claim, sources []ReportSource, revised string) string {
	counts := CountClaims(claims)
	var b strings.Builder
	b.WriteString("## Verification Summary\n")
	fmt.Fprintf(&b, "- Checked: %d | Confirmed: %d | Corrected: %d | Uncertain: %d\n",
		counts.Checked, counts.Confirmed, counts.Corrected, counts.Uncertain)
	if len(counts.Skipped) > 0 {
		names := make([]string, len(counts.Skipped))
		for i, c := range counts.Skipped {
			names[i] = fmt.Sprintf("%q", text.OneLine(c.Text))
		}
		b.WriteString("- Skipped (claim-cap, NOT verified): " + strings.Join(names, "; ") + "\n")
	}

	b.WriteString("\n## Corrections\n")
	corrections := 0
	for _, c := range claims {
		if c.CorrectedText == "" || (c.Verdict != pipeline.VerdictRefuted && c.Verdict != pipeline.VerdictPartlySupported) {
			continue
		}
		corrections++
		fmt.Fprintf(&b, "- [%s] → [%s]  (basis: %s)\n", text.OneLine(c.Text), text.OneLine(c.CorrectedText), basisText(c.Citations))
	}
	if corrections == 0 {
		b.WriteString("- none\n")
	}

	b.WriteString("\n## Sources\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "[%d] %s\n", s.Number, text.OneLine(s.URL))
	}
	if len(sources) == 0 {
		b.WriteString("none\n")
	}

	b.WriteString("\n## Revised Response\n")
	b.WriteString(escapeReportHeadings(strings.TrimSpace(revised)))
	b.WriteString("\n")
	return b.String()
}

// RenderNoVerificationReport is the report of a draft that CoVe 2.0's needs_verification gate
// passed: no verification needed, the draft unchanged.
func RenderNoVerificationReport(draft string) string {
	return "## Verification Summary\n" +
		"- Checked: 0 | Confirmed: 0 | Corrected: 0 | Uncertain: 0\n" +
		"- No verification needed: the draft is chitchat, subjective, or high-certainty common knowledge.\n" +
		"\n## Revised Response\n" + escapeReportHeadings(strings.TrimSpace(draft)) + "\n"
}

func basisText(citations []int) string {
	if len(citations) == 0 {
		return "none"
	}
	parts := make([]string, len(citations))
	for i, n := range citations {
		parts[i] = fmt.Sprintf("[%d]", n)
	}
	return strings.Join(parts, ", ")
}

var reportHeading = regexp.MustCompile(`(?im)^(\s*)(#{1,6}\s*(?:verification\s+summary|corrections|sources|revised\s+response)\b)`)

// escapeReportHeadings escapes, in text the report quotes, lines that would read as the report's
// own section headings.
func escapeReportHeadings(s string) string {
	return reportHeading.ReplaceAllString(s, `$1\$2`)
}
