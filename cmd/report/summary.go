package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
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
	report.WriteSummary(stdout, filter, sum)
	return exitOK
}
