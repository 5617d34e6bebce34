package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/store"
)

// publishedJob is a record that JetStream acknowledged, to follow with --wait.
type publishedJob struct {
	Source string
	JobID  string
}

// waitPoll is how often --wait reads the outcomes.
const waitPoll = 500 * time.Millisecond

// wait follows the jobs in PostgreSQL until every one has a final outcome, shows progress (a
// bar on a terminal, plain lines otherwise), and prints a result table. It reports whether every
// job ended done.
func wait(ctx context.Context, cfg Config, published []publishedJob, stdout, stderr io.Writer) (bool, error) {
	st, err := openStore(ctx, cfg.DatabaseURL)
	if err != nil {
		return false, err
	}
	defer st.Close()
	if cfg.WaitTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.WaitTimeout)
		defer cancel()
	}
	ids := make([]string, 0, len(published))
	for _, p := range published {
		ids = append(ids, p.JobID)
	}
	bar := progress.New("jobs have an outcome", len(ids), stderr)
	var results map[string]store.JobResult
	for {
		results, err = st.JobResults(ctx, ids)
		if err != nil {
			if ctx.Err() != nil {
				return false, fmt.Errorf("stopped waiting (%v) with jobs still running; their outcomes will be in job_outcomes", ctx.Err())
			}
			return false, err
		}
		final := 0
		for _, r := range results {
			if r.Final() {
				final++
			}
		}
		bar.Set(final)
		if final == len(ids) {
			break
		}
		select {
		case <-ctx.Done():
			bar.Done()
			return false, fmt.Errorf("stopped waiting (%v) with %d of %d jobs without an outcome; they go on in the workers", ctx.Err(), len(ids)-final, len(ids))
		case <-time.After(waitPoll):
		}
	}
	bar.Done()
	return printResults(stdout, published, results), nil
}

// printResults prints one row per job and reports whether all ended done.
func printResults(w io.Writer, published []publishedJob, results map[string]store.JobResult) bool {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tOUTCOME\tMETHOD\tCHECKS\tRESULT")
	allDone := true
	counts := map[jobs.Outcome]int{}
	for _, p := range published {
		r := results[p.JobID]
		counts[r.Status]++
		if r.Status != jobs.OutcomeDone {
			allDone = false
		}
		result := deref(r.RevisedText)
		if r.Status != jobs.OutcomeDone {
			result = deref(r.Reason)
		}
		checks := ""
		if r.Checked != nil {
			checks = fmt.Sprint(*r.Checked)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Source, r.Status, deref(r.Method), checks, oneLine(result, 100))
	}
	tw.Flush()
	fmt.Fprintf(w, "%d done, %d rejected, %d failed, %d dead\n", counts[jobs.OutcomeDone], counts[jobs.OutcomeRejected], counts[jobs.OutcomeFailed], counts[jobs.OutcomeDead])
	return allDone
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
