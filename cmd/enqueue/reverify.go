package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/reverify"
	"github.com/corroborate/corroborate/internal/store"
)

// ReverifyConfig is everything `enqueue reverify` is told.
type ReverifyConfig struct {
	NATSURL          string
	DatabaseURL      string
	OlderThan        time.Duration
	Verdict          string
	Method           string
	ExternalIDPrefix string
	Limit            int
	DryRun           bool

	Stream   jobs.StreamConfig
	NATSConn jobs.ConnConfig
}

func (c *ReverifyConfig) flags(s *envflag.Set) {
	s.String(&c.NATSURL, "nats-url", "NATS_URL", "", "NATS server URL (required, as by the worker)")
	s.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL (required: the statements are selected there)")
	s.Duration(&c.OlderThan, "older-than", "CORROBORATE_REVERIFY_OLDER_THAN", 24*time.Hour, "select statements whose latest run finished longer ago than this")
	s.String(&c.Verdict, "verdict", "CORROBORATE_REVERIFY_VERDICT", "", "only statements whose latest run has a claim of this verdict: "+strings.Join(store.Verdicts, ", "))
	s.String(&c.Method, "method", "CORROBORATE_REVERIFY_METHOD", "", "only statements whose latest run ran (or asked for) this method")
	s.String(&c.ExternalIDPrefix, "external-id-prefix", "CORROBORATE_REVERIFY_EXTERNAL_ID_PREFIX", "", "only statements whose id (the producer's reference) starts with this")
	s.Int(&c.Limit, "limit", "CORROBORATE_REVERIFY_LIMIT", 0, "enqueue at most this many, oldest latest run first (0: all)")
	s.Bool(&c.DryRun, "dry-run", "CORROBORATE_REVERIFY_DRY_RUN", false, "list what would be enqueued, publish nothing")
	c.Stream.DefineFlags(s)
	c.NATSConn.DefineFlags(s)
}

// validate lists every problem of the flags in one error, before the database is read. args are
// what is left after the flags: reverify takes none. NATS may be missing only from a dry run,
// which publishes nothing.
func (c *ReverifyConfig) validate(args []string) error {
	var problems []string
	if len(args) > 0 {
		problems = append(problems, fmt.Sprintf("unexpected arguments %q (reverify selects statements from PostgreSQL; flags only)", args))
	}
	if c.NATSURL == "" && !c.DryRun {
		problems = append(problems, noNATSUnlessDryRun)
	}
	if c.DatabaseURL == "" {
		problems = append(problems, "no database: set DATABASE_URL or --database-url")
	}
	if c.OlderThan <= 0 {
		problems = append(problems, fmt.Sprintf("--older-than %s: give a positive duration such as 24h", c.OlderThan))
	}
	if c.Verdict != "" && !slices.Contains(store.Verdicts, c.Verdict) {
		problems = append(problems, fmt.Sprintf("--verdict %q is not a verdict; use one of %s", c.Verdict, strings.Join(store.Verdicts, ", ")))
	}
	problems = append(problems, selectionProblems(c.Method, c.Limit, c.Stream, c.NATSConn)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

const reverifyUsage = `Usage: enqueue reverify [flags]

Enqueues again, as re-verification runs, the statements whose latest run finished longer ago
than --older-than (and, optionally, of one verdict, method or id prefix), each with the method
and options its latest job asked for and options.reverify set: the worker stores the run with
runs.reverify = true and sends its freshness-sensitive searches past the search cache.

The job id is reverify:<statement_id>:<YYYY-MM-DD>, the date being the cutoff's (now minus
--older-than, local time): running it twice the same night enqueues nothing twice (JetStream
drops the repeat inside its dedupe window, and a worker never runs a stored job id again).`

func runReverify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var cfg ReverifyConfig
	fs := envflag.New("enqueue reverify", reverifyUsage)
	fs.SetOutput(stderr)
	fs.ExitStatuses(subcommandExits...)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "enqueue reverify:", err)
		return exitInvalid
	}
	if err := cfg.validate(fs.Args()); err != nil {
		fmt.Fprintln(stderr, "enqueue reverify:", err)
		return exitInvalid
	}
	connOpts, _ := cfg.NATSConn.Options() // validated
	sc := cfg.Stream.WithDefaults()

	st, err := openStore(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "enqueue reverify:", err)
		return exitError
	}
	defer st.Close()
	cutoff := reverify.Cutoff(time.Now(), cfg.OlderThan)
	candidates, err := st.ReverifyCandidates(ctx, store.ReverifySelection{
		Before: cutoff, Verdict: cfg.Verdict, Method: cfg.Method, ExternalIDPrefix: cfg.ExternalIDPrefix, Limit: cfg.Limit,
	})
	if err != nil {
		fmt.Fprintln(stderr, "enqueue reverify:", err)
		return exitError
	}
	todo, skipped := reverify.Plan(candidates, cutoff, jobs.ValidationConfig{MaxMessageBytes: sc.MaxMessageBytes})
	for _, skip := range skipped {
		fmt.Fprintf(stderr, "skipped   statement %d (%s): %v\n", skip.Candidate.StatementID, cmp.Or(skip.Candidate.ExternalID, "no id"), skip.Err)
	}
	fmt.Fprintf(stdout, "%d statement(s) whose latest run finished before %s\n", len(candidates), cutoff.Format(time.RFC3339))

	if cfg.DryRun {
		for _, j := range todo {
			fmt.Fprintf(stdout, "would queue statement %d (%s)  job %s  method %s  latest run %d at %s\n",
				j.Candidate.StatementID, cmp.Or(j.Candidate.ExternalID, "no id"), j.ID, j.Message.Message.Method, j.Candidate.RunID, j.Candidate.FinishedAt.Format(time.RFC3339))
		}
		fmt.Fprintf(stdout, "dry run: %d would be queued, %d skipped; nothing was published\n", len(todo), len(skipped))
		return exitOK
	}
	if len(todo) == 0 {
		fmt.Fprintf(stdout, "0 queued, 0 duplicates, %d skipped\n", len(skipped))
		return exitOK
	}

	planned := make([]plannedJob, len(todo))
	for i, j := range todo {
		planned[i] = plannedJob{label: fmt.Sprintf("statement %d (%s)", j.Candidate.StatementID, cmp.Or(j.Candidate.ExternalID, "no id")), id: j.ID, message: j.Message}
	}
	return publishPlanned(ctx, "enqueue reverify", "tonight", cfg.NATSURL, sc, connOpts, planned, len(skipped), stdout, stderr)
}
