package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
)

func changesFlags(f *filterFlags) *envflag.Set {
	fs := envflag.New("report changes", "Usage: report changes [flags]\n\n"+
		"Prints the claims whose verdict changed (verdict_changes): old and new verdict, when, and why\n"+
		"(the new run's reason, and the old one), newest first. --since and --until bound when the new\n"+
		"run finished; --verdict is the new verdict; --method the new run's method.")
	f.define(fs, "24h")
	return fs
}

func runChanges(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f filterFlags
	fs := changesFlags(&f)
	if code, ok := parse("changes", fs, args, stderr); !ok {
		return code
	}
	filter, err := f.filter(time.Now())
	if err == nil && (f.Status != "" || f.Text != "") {
		err = fmt.Errorf("--status and --text do not apply to verdict changes (a change is between two done runs)")
	}
	if err != nil {
		fmt.Fprintln(stderr, "report changes:", err)
		return exitInvalid
	}
	st, err := openStore(ctx, f.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report changes:", err)
		return exitError
	}
	defer st.Close()
	changes, err := st.VerdictChanges(ctx, filter)
	if err != nil {
		fmt.Fprintln(stderr, "report changes:", err)
		return exitError
	}
	window := "ever"
	if !filter.Since.IsZero() {
		window = "since " + report.FormatTime(filter.Since)
	}
	fmt.Fprintf(stdout, "%d verdict change(s) %s\n", len(changes), window)
	for _, c := range changes {
		kind := "a later run"
		if c.Reverify {
			kind = "re-verification"
		}
		fmt.Fprintf(stdout, "\n%s  %s -> %s  (%s, run %d -> %d)\n", report.FormatTime(c.ChangedAt), c.OldVerdict, c.NewVerdict, kind, c.OldRunID, c.NewRunID)
		fmt.Fprintf(stdout, "  statement %d%s\n", c.StatementID, optional(" (", oneLine(c.ExternalID), ")"))
		fmt.Fprintf(stdout, "  claim:    %s\n", oneLine(c.ClaimText))
		fmt.Fprintf(stdout, "  why now:  %s\n", oneLine(cmp.Or(c.NewReason, cmp.Or(c.NewCheckA, "(no reason recorded)"))))
		if c.OldReason != "" {
			fmt.Fprintf(stdout, "  before:   %s (%s)\n", oneLine(c.OldReason), report.FormatTime(c.OldFinishedAt))
		}
		if len(c.NewCitationURLs) > 0 {
			fmt.Fprintf(stdout, "  sources:  %s\n", oneLine(strings.Join(c.NewCitationURLs, " ")))
		}
	}
	return exitOK
}

func optional(before, s, after string) string {
	if s == "" {
		return ""
	}
	return before + s + after
}

// oneLine puts stored text on one line for a terminal. Control characters become spaces: a
// model's reply could carry escape sequences that a terminal would obey.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
