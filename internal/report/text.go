package report

import (
	"cmp"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/store"
)

// WriteSummary writes the summary of the statements f selects as aligned plain text, for a
// terminal.
func WriteSummary(w io.Writer, f store.ReportFilter, sum store.Summary) {
	fmt.Fprintf(w, "Batch: %s\n\n", Describe(f))
	fmt.Fprintf(w, "Statements: %d", sum.Statements)
	if len(sum.ByStatus) > 0 {
		var parts []string
		for _, c := range sum.ByStatus {
			parts = append(parts, fmt.Sprintf("%s %d", c.Key, c.N))
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)

	if len(sum.ByMethod) > 0 {
		fmt.Fprintln(w, "\nBy method:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  METHOD\tSTATEMENTS\tDONE\tFAILED")
		for _, m := range sum.ByMethod {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\n", text.OneLine(m.Method), m.Statements, m.Done, m.Failed)
		}
		tw.Flush()
	}

	claims := 0
	for _, c := range sum.ByVerdict {
		claims += c.N
	}
	fmt.Fprintf(w, "\nClaims by verdict (%d claims):\n", claims)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range sum.ByVerdict {
		share := 0.0
		if claims > 0 {
			share = 100 * float64(c.N) / float64(claims)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%5.1f%%\n", c.Key, c.N, share)
	}
	tw.Flush()

	var outcomes []string
	for _, c := range sum.Outcomes {
		outcomes = append(outcomes, fmt.Sprintf("%s %d", c.Key, c.N))
	}
	if len(outcomes) == 0 {
		outcomes = []string{"none"}
	}
	note := ""
	if f.Status != "" || f.Verdict != "" || f.Method != "" || f.ExternalIDPrefix != "" || f.Text != "" {
		// A rejected or dead message has no run, so nothing but its arrival can select it.
		note = " (all of them: only the time window applies to messages)"
	}
	fmt.Fprintf(w, "\nJob outcomes of the messages received in the window%s: %s\n", note, strings.Join(outcomes, ", "))

	if len(sum.Usage) == 0 {
		return
	}
	fmt.Fprintln(w, "\nUsage (every run in the window, re-verifications included):")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  MODEL\tRUNS\tMODEL CALLS\tPROMPT TOKENS\tCOMPLETION TOKENS\tSEARCHES\tCOST ESTIMATE")
	costs := map[string]float64{}
	var unpriced []string
	for _, u := range sum.Usage {
		cost := "no price"
		if u.Cost != nil {
			cost = fmt.Sprintf("%.4f %s", *u.Cost, u.Currency)
			costs[u.Currency] += *u.Cost
		} else {
			unpriced = append(unpriced, u.Model)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\t%s\n", text.OneLine(u.Model), u.Runs, u.ModelCalls, u.PromptTokens, u.CompletionTokens, u.Searches, cost)
	}
	tw.Flush()
	var totals []string
	for currency, c := range costs {
		totals = append(totals, fmt.Sprintf("%.4f %s", c, currency))
	}
	sort.Strings(totals)
	if len(totals) > 0 {
		fmt.Fprintf(w, "  estimated cost: %s\n", strings.Join(totals, " + "))
	}
	if len(unpriced) > 0 {
		fmt.Fprintf(w, "  no price for %s: add it to model_prices (see docs/reporting.md, usage_per_day)\n", strings.Join(unpriced, ", "))
	}
}

// WriteChanges writes verdict changes as plain text for a terminal, the newest first as given;
// since is the window's start (zero: ever).
func WriteChanges(w io.Writer, since time.Time, changes []store.VerdictChange) {
	window := "ever"
	if !since.IsZero() {
		window = "since " + FormatTime(since)
	}
	fmt.Fprintf(w, "%d verdict change(s) %s\n", len(changes), window)
	for _, c := range changes {
		kind := "a later run"
		if c.Reverify {
			kind = "re-verification"
		}
		fmt.Fprintf(w, "\n%s  %s -> %s  (%s, run %d -> %d)\n", FormatTime(c.ChangedAt), c.OldVerdict, c.NewVerdict, kind, c.OldRunID, c.NewRunID)
		fmt.Fprintf(w, "  statement %d%s\n", c.StatementID, optional(" (", text.OneLine(c.ExternalID), ")"))
		fmt.Fprintf(w, "  claim:    %s\n", text.OneLine(c.ClaimText))
		fmt.Fprintf(w, "  why now:  %s\n", text.OneLine(cmp.Or(c.NewReason, cmp.Or(c.NewCheckA, "(no reason recorded)"))))
		if c.OldReason != "" {
			fmt.Fprintf(w, "  before:   %s (%s)\n", text.OneLine(c.OldReason), FormatTime(c.OldFinishedAt))
		}
		if len(c.NewCitationURLs) > 0 {
			fmt.Fprintf(w, "  sources:  %s\n", text.OneLine(strings.Join(c.NewCitationURLs, " ")))
		}
	}
}

func optional(before, s, after string) string {
	if s == "" {
		return ""
	}
	return before + s + after
}
