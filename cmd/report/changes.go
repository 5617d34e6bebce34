package main

import (
	"context"
	"fmt"
	"io"
	"time"

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
	report.WriteChanges(stdout, filter.Since, changes)
	return exitOK
}
