package pipelinetest

import (
	"fmt"
	"regexp"
	"strings"
)

// ReportTemplate returns the report template of spec 000 (CoVe 2.0): the "Output:" block of its
// Phase 3, from its "## Verification Summary" line to the line before "Optional: iterate", as
// the specification writes it. A report test compares with this text, not with a golden file
// that -update rewrites from the code.
func ReportTemplate(spec string) (string, error) {
	phase := strings.Index(spec, "Phase 3 — Critique & Finalize with Citations")
	if phase < 0 {
		return "", fmt.Errorf("the specification has no Phase 3")
	}
	rest := spec[phase:]
	start := strings.Index(rest, "\nOutput:\n")
	end := strings.Index(rest, "\nOptional: iterate")
	if start < 0 || end < start {
		return "", fmt.Errorf("the specification's Phase 3 has no Output: block before \"Optional: iterate\"")
	}
	return strings.Trim(rest[start+len("\nOutput:\n"):end], "\n"), nil
}

// ReportLine is one line of the report template, as a kind and the pattern a report's line of
// that kind matches.
type ReportLine struct {
	// Kind is "blank", "heading <text>", "summary", "skipped", "correction", "source", "revised"
	// (the free text of the revised response) or "literal <text>".
	Kind    string
	Pattern *regexp.Regexp
}

var templateCount = regexp.MustCompile(`: [A-Z]\b`)

// ParseReportTemplate turns each line of the template into the pattern of its kind: the
// placeholders N, X, Y, Z become numbers, [original] and [corrected] bracketed text, [n] one or
// more bracketed numbers, <url> a URL, <list them ...> a list; everything else stays literal,
// spaces included.
func ParseReportTemplate(template string) []ReportLine {
	var out []ReportLine
	for _, line := range strings.Split(template, "\n") {
		q := regexp.QuoteMeta(line)
		var l ReportLine
		switch {
		case line == "":
			l = ReportLine{"blank", regexp.MustCompile(`^$`)}
		case strings.HasPrefix(line, "## "):
			l = ReportLine{"heading " + line, regexp.MustCompile("^" + q + "$")}
		case strings.Contains(line, "<list them"):
			prefix := line[:strings.Index(line, "<")]
			l = ReportLine{"skipped", regexp.MustCompile("^" + regexp.QuoteMeta(prefix) + `(\S.*)$`)}
		case strings.Contains(line, "Checked: N"):
			l = ReportLine{"summary", regexp.MustCompile("^" + templateCount.ReplaceAllString(q, `: (\d+)`) + "$")}
		case strings.Contains(line, "[original]"):
			p := strings.NewReplacer(`\[original\]`, `\[(.+)\]`, `\[corrected\]`, `\[(.+)\]`, `\[n\]`, `(\[\d+\](?:, \[\d+\])*)`).Replace(q)
			l = ReportLine{"correction", regexp.MustCompile("^" + p + "$")}
		case regexp.MustCompile(`^\[\d+\] <url>$`).MatchString(line):
			l = ReportLine{"source", regexp.MustCompile(`^\[(\d+)\] (\S+)$`)}
		case strings.HasPrefix(line, "<") && strings.HasSuffix(line, ">"):
			l = ReportLine{"revised", regexp.MustCompile(`.*`)}
		default:
			l = ReportLine{"literal " + line, regexp.MustCompile("^" + q + "$")}
		}
		// Two lines of one kind (the template's [1] and [2]) are one repeated kind.
		if len(out) > 0 && out[len(out)-1].Kind == l.Kind {
			continue
		}
		out = append(out, l)
	}
	return out
}

// CheckReportFormat returns how report departs from the template: every line must be of the
// template's next kind or repeat a repeatable one (corrections, sources), in the template's
// order; the lines after the heading before the revised text are that text. skipped says
// whether the report lists skipped claims (the template's Skipped line is omitted when none).
func CheckReportFormat(template, report string, skipped bool) []string {
	var want []ReportLine
	for _, l := range ParseReportTemplate(template) {
		if l.Kind == "skipped" && !skipped {
			continue
		}
		want = append(want, l)
	}
	var problems []string
	lines := strings.Split(strings.TrimSuffix(report, "\n"), "\n")
	k := 0
	for i, line := range lines {
		switch {
		case k < len(want) && want[k].Kind == "revised":
			continue // the revised response runs to the end
		case k < len(want) && want[k].Pattern.MatchString(line):
			k++
		case k > 0 && (want[k-1].Kind == "correction" || want[k-1].Kind == "source") && want[k-1].Pattern.MatchString(line):
			// another line of a repeated kind
		default:
			expected := "the end of the report"
			if k < len(want) {
				expected = want[k].Kind + " (" + want[k].Pattern.String() + ")"
			}
			return append(problems, fmt.Sprintf("line %d %q: the specification's template has %s here", i+1, line, expected))
		}
	}
	for ; k < len(want); k++ {
		if want[k].Kind != "revised" {
			problems = append(problems, fmt.Sprintf("the report ends before the template's %s", want[k].Kind))
		}
	}
	return problems
}
