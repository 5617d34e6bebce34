package multihop

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// reviseStatement writes the revised statement in code, from the statement, the claims' spans
// and their verdicts; no model call, so nothing but the judgements can change the text:
//
//   - a claim's citations [n] follow its span;
//   - a corrected claim (refuted, or partly supported with a correction; the confidence gate
//     was applied by groundVerdict) replaces its span when the span is a whole sentence that no
//     other claim's span overlaps, and otherwise follows it as "(corrected: ...)";
//   - unverified and unchecked claims stand as they are, uncited.
//
// Every citation of a number that is no source, and every URL that is not a retrieved source
// (URLs the statement itself wrote included), is then removed (FilterCitations,
// StripUnknownURLs), with a review flag.
func (r *multihopRun) reviseStatement() string {
	statement := r.in.statement
	type edit struct {
		start, end int
		text       string
		order      int
	}
	var edits []edit
	for i, c := range r.res.Claims {
		if c.Verdict == pipeline.VerdictUnverified || c.Verdict == pipeline.VerdictNotChecked || c.SpanEnd <= c.SpanStart {
			continue
		}
		cites := ""
		if len(c.Citations) > 0 {
			parts := make([]string, len(c.Citations))
			for k, n := range c.Citations {
				parts[k] = strconv.Itoa(n)
			}
			cites = "[" + strings.Join(parts, ", ") + "]"
		}
		corrected := strings.TrimRight(c.CorrectedText, " .!?")
		if corrected == "" {
			if cites != "" {
				edits = append(edits, edit{c.SpanEnd, c.SpanEnd, " " + cites, i})
			}
			continue
		}
		if r.wholeSentence(c.SpanStart, c.SpanEnd) && !r.spanOverlaps(i) {
			text := corrected
			if cites != "" {
				text += " " + cites
			}
			edits = append(edits, edit{c.SpanStart, c.SpanEnd, text, i})
			continue
		}
		text := " (corrected: " + corrected + ")"
		if cites != "" {
			text += " " + cites
		}
		edits = append(edits, edit{c.SpanEnd, c.SpanEnd, text, i})
	}
	// Apply from the end, so that earlier offsets stay valid; insertions at one place keep
	// claim order.
	sort.SliceStable(edits, func(a, b int) bool {
		if edits[a].start != edits[b].start {
			return edits[a].start > edits[b].start
		}
		return edits[a].order > edits[b].order
	})
	text := statement
	for _, e := range edits {
		text = text[:e.start] + e.text + text[e.end:]
	}

	text, removed := evidence.FilterCitations(text, r.book.Has)
	for _, n := range removed {
		r.flag(pipeline.Flagf(pipeline.FlagCitationRemoved, "[%d] from the revised statement", n))
	}
	// A URL the statement wrote is no source: a statement could carry a phishing link into the
	// revised text. Only URLs of what the searches retrieved stay, as in cove2.
	var known []string
	for _, s := range r.book.Sources() {
		known = append(known, s.URL)
	}
	for _, e := range r.res.Evidence {
		known = append(known, e.URL)
	}
	text, urls := evidence.StripUnknownURLs(text, known)
	for _, u := range urls {
		r.flag(pipeline.Flagf(pipeline.FlagURLRemoved, "%s", u))
	}
	return strings.TrimSpace(text)
}

// wholeSentence reports whether [start, end) of the statement is one whole sentence: it starts
// the statement or follows a sentence's end, and ends the statement or comes before one.
func (r *multihopRun) wholeSentence(start, end int) bool {
	s := r.in.statement
	before := strings.TrimRight(s[:start], " \t\r\n")
	after := strings.TrimLeft(s[end:], " \t\r\n")
	startsSentence := before == "" || strings.ContainsAny(before[len(before)-1:], ".!?")
	endsSentence := after == "" || strings.ContainsAny(after[:1], ".!?") && (len(after) == 1 || strings.ContainsAny(after[1:2], " \t\r\n\"'”’)"))
	return startsSentence && endsSentence
}

// spanOverlaps reports whether claim i's span overlaps another claim's.
func (r *multihopRun) spanOverlaps(i int) bool {
	a := r.res.Claims[i]
	return slices.ContainsFunc(r.res.Claims, func(b pipeline.Claim) bool {
		return b.Position != a.Position && b.SpanEnd > b.SpanStart && b.SpanStart < a.SpanEnd && a.SpanStart < b.SpanEnd
	})
}
