package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

func summaryFlags(f *filterFlags) *envflag.Set {
	fs := envflag.New("report summary", "Usage: report summary [flags]\n\n"+
		"A batch at a glance: its statements (by their latest run) by status and method, their claims\n"+
		"by verdict, the messages received in the window by outcome, and what the runs cost (priced\n"+
		"from the model_prices table).")
	f.define(fs, "24h")
	return fs
}

func runSummary(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f filterFlags
	fs := summaryFlags(&f)
	if code, ok := parse("summary", fs, args, stderr); !ok {
		return code
	}
	filter, err := f.filter(time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "report summary:", err)
		return exitInvalid
	}
	st, err := openStore(ctx, f.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report summary:", err)
		return exitError
	}
	defer st.Close()
	sum, err := st.Summary(ctx, filter)
	if err != nil {
		fmt.Fprintln(stderr, "report summary:", err)
		return exitError
	}
	printSummary(stdout, filter, sum)
	return exitOK
}

// printSummary writes the summary as aligned plain text.
func printSummary(w io.Writer, f store.ReportFilter, sum store.Summary) {
	fmt.Fprintf(w, "Batch: %s\n\n", report.Describe(f))
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
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\n", oneLine(m.Method), m.Statements, m.Done, m.Failed)
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
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\t%s\n", oneLine(u.Model), u.Runs, u.ModelCalls, u.PromptTokens, u.CompletionTokens, u.Searches, cost)
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
		fmt.Fprintf(w, "  no price for %s: add it to model_prices (see README, usage_per_day)\n", strings.Join(unpriced, ", "))
	}
}
