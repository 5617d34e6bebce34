package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// plannedJob is one job that reverify or retry publishes under an id of its own: what it is for
// the output, its job id and its message, encoded once.
type plannedJob struct {
	label   string
	id      string
	message jobs.Encoded
}

// publishPlanned publishes the jobs of command in order and prints each as queued or duplicate,
// then the counts. A publish that fails stops it with exit 1: running the command again within
// period is safe, since the queued jobs come back as duplicates.
func publishPlanned(ctx context.Context, command, period, natsURL string, sc jobs.StreamConfig, connOpts []nats.Option,
	todo []plannedJob, skipped int, stdout, stderr io.Writer) int {
	if natsURL == "" {
		fmt.Fprintln(stderr, command+": "+noNATS)
		return exitInvalid
	}
	js, closeNATS, err := openStream(ctx, natsURL, sc, connOpts, "corroborate-"+strings.ReplaceAll(command, " ", "-"))
	if err != nil {
		fmt.Fprintln(stderr, command+":", err)
		return exitError
	}
	defer closeNATS()
	queued, duplicates := 0, 0
	for _, j := range todo {
		res, err := jobs.PublishEncoded(ctx, js, sc.PublishSubject, j.message, j.id)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s: NOT queued: %v\n", command, j.label, err)
			fmt.Fprintf(stderr, "%s: stopped after %d queued and %d duplicates (running it again %s is safe: queued ones come back as duplicates)\n", command, queued, duplicates, period)
			return exitError
		}
		state := "queued"
		if res.Duplicate {
			state, duplicates = "duplicate", duplicates+1
		} else {
			queued++
		}
		fmt.Fprintf(stdout, "%-9s %s  job %s  seq %d\n", state, j.label, res.JobID, res.Sequence)
	}
	fmt.Fprintf(stdout, "%d queued, %d duplicates, %d skipped\n", queued, duplicates, skipped)
	return exitOK
}

// noNATSUnlessDryRun is the problem of a reverify or retry without NATS: a dry run lists what it
// would publish and needs none.
const noNATSUnlessDryRun = noNATS + " (or --dry-run, which publishes nothing)"

// selectionProblems are the problems of the flags that reverify and retry share: the --method a
// selected job runs with, --limit, and the stream and connection they publish with.
func selectionProblems(method string, limit int, stream jobs.StreamConfig, conn jobs.ConnConfig) []string {
	var problems []string
	if method != "" && !jobs.KnownMethod(method) {
		problems = append(problems, fmt.Sprintf("--method %q is not a method; use one of %s", method, strings.Join(pipeline.MethodNames(), ", ")))
	}
	if limit < 0 {
		problems = append(problems, fmt.Sprintf("--limit %d: give 0 (all) or more", limit))
	}
	if err := stream.WithDefaults().Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if _, err := conn.Options(); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}
