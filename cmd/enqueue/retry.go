package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/retry"
	"github.com/corroborate/corroborate/internal/store"
)

// RetryConfig is everything `enqueue retry` is told.
type RetryConfig struct {
	NATSURL     string
	DatabaseURL string
	Statuses    string
	Since       time.Duration
	IDsFile     string
	Method      string
	Limit       int
	DryRun      bool

	Stream   jobs.StreamConfig
	NATSConn jobs.ConnConfig
}

func (c *RetryConfig) flags(s *envflag.Set) {
	s.String(&c.NATSURL, "nats-url", "NATS_URL", "", "NATS server URL (required, as by the worker)")
	s.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL (required: the failed jobs are selected there)")
	s.String(&c.Statuses, "status", "CORROBORATE_RETRY_STATUS", "failed,dead", "the outcomes to run again, comma-separated: failed, dead")
	s.Duration(&c.Since, "since", "CORROBORATE_RETRY_SINCE", 24*time.Hour, "only jobs that ended within this long (0: any time)")
	s.String(&c.IDsFile, "ids", "CORROBORATE_RETRY_IDS", "", "only the job ids listed in this file, one per line (- for stdin)")
	s.String(&c.Method, "method", "CORROBORATE_RETRY_METHOD", "", "run the retries with this method instead of the one each job named")
	s.Int(&c.Limit, "limit", "CORROBORATE_RETRY_LIMIT", 0, "enqueue at most this many, oldest first (0: all)")
	s.Bool(&c.DryRun, "dry-run", "CORROBORATE_RETRY_DRY_RUN", false, "list what would be enqueued, publish nothing")
	c.Stream.DefineFlags(s)
	c.NATSConn.DefineFlags(s)
}

// validate lists every problem of the flags in one error, before the database or --ids is read
// (so that a mistake never consumes stdin). args are what is left after the flags: retry takes
// none. NATS may be missing only from a dry run, which publishes nothing.
func (c *RetryConfig) validate(args []string) error {
	var problems []string
	if len(args) > 0 {
		problems = append(problems, fmt.Sprintf("unexpected arguments %q (retry selects jobs from PostgreSQL; flags only, --ids for a list)", args))
	}
	if c.NATSURL == "" && !c.DryRun {
		problems = append(problems, noNATSUnlessDryRun)
	}
	if c.DatabaseURL == "" {
		problems = append(problems, "no database: set DATABASE_URL or --database-url")
	}
	if _, err := parseRetryStatuses(c.Statuses); err != nil {
		problems = append(problems, err.Error())
	}
	if c.Since < 0 {
		problems = append(problems, fmt.Sprintf("--since %s: give a positive duration such as 24h, or 0 for any time", c.Since))
	}
	problems = append(problems, selectionProblems(c.Method, c.Limit, c.Stream, c.NATSConn)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

const retryUsage = `Usage: enqueue retry [flags]

Runs failed work again: publishes, from the payloads kept in job_outcomes, the jobs that ended
failed or dead (--status) within --since, optionally only the job ids in --ids and with another
--method. Use it once the cause is fixed (a wrong OPENAI_BASE_URL or key, a quota, an outage).

Each retry is a new job, retry:<original job id>:<YYYY-MM-DD> (today, local time), whose message
carries retry_of: the original job; job_outcomes.retry_of links the two. Running it twice the
same day publishes nothing twice, and a job whose retry ended done is not selected again.
Rejected jobs are not retried: their input broke a rule and would be rejected again.`

func runRetry(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cfg RetryConfig
	fs := envflag.New("enqueue retry", retryUsage)
	fs.SetOutput(stderr)
	fs.ExitStatuses(subcommandExits...)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "enqueue retry:", err)
		return exitInvalid
	}
	if err := cfg.validate(fs.Args()); err != nil {
		fmt.Fprintln(stderr, "enqueue retry:", err)
		return exitInvalid
	}
	statuses, _ := parseRetryStatuses(cfg.Statuses) // validated
	connOpts, _ := cfg.NATSConn.Options()           // validated
	sc := cfg.Stream.WithDefaults()
	var ids []string
	if cfg.IDsFile != "" {
		var err error
		if ids, err = readJobIDs(cfg.IDsFile, stdin); err != nil {
			fmt.Fprintln(stderr, "enqueue retry:", err)
			return exitInvalid
		}
	}

	st, err := openStore(ctx, cfg.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "enqueue retry:", err)
		return exitError
	}
	defer st.Close()
	now := time.Now()
	sel := store.RetrySelection{Statuses: statuses, JobIDs: ids, Limit: cfg.Limit}
	if cfg.Since > 0 {
		sel.Since = now.Add(-cfg.Since)
	}
	candidates, err := st.RetryCandidates(ctx, sel)
	if err != nil {
		fmt.Fprintln(stderr, "enqueue retry:", err)
		return exitError
	}
	todo, skipped := retry.Plan(candidates, cfg.Method, now, jobs.ValidationConfig{MaxMessageBytes: sc.MaxMessageBytes})
	for _, skip := range skipped {
		fmt.Fprintf(stderr, "skipped   job %s (%s): %v\n", skip.Candidate.JobID, skip.Candidate.Status, skip.Err)
	}
	fmt.Fprintf(stdout, "%d job(s) ended %s%s\n", len(candidates), cfg.Statuses, sinceText(cfg.Since))

	if cfg.DryRun {
		for _, j := range todo {
			fmt.Fprintf(stdout, "would queue job %s  as %s  method %s  (%s: %s)\n",
				j.Candidate.JobID, j.ID, j.Message.Message.Method, j.Candidate.Status, text.OneLineCut(j.Candidate.Reason, 120))
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
		planned[i] = plannedJob{label: "retry of job " + j.Candidate.JobID, id: j.ID, message: j.Message}
	}
	return publishPlanned(ctx, "enqueue retry", "today", cfg.NATSURL, sc, connOpts, planned, len(skipped), stdout, stderr)
}

// parseRetryStatuses reads --status: failed, dead or both, comma-separated.
func parseRetryStatuses(s string) ([]jobs.Outcome, error) {
	var out []jobs.Outcome
	for _, part := range strings.Split(s, ",") {
		o := jobs.Outcome(strings.TrimSpace(part))
		switch {
		case o == "":
			continue
		case o == jobs.OutcomeRejected:
			return nil, errors.New("--status rejected: a rejected job broke a rule of the job message and would be rejected again; fix its input and enqueue it anew")
		case o != jobs.OutcomeFailed && o != jobs.OutcomeDead:
			return nil, fmt.Errorf("--status %q: use failed, dead or failed,dead", part)
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return nil, errors.New("--status is empty: use failed, dead or failed,dead")
	}
	return out, nil
}

// readJobIDs reads job ids, one per line (blank lines and # comments skipped), from path or, for
// "-", from stdin.
func readJobIDs(path string, stdin io.Reader) ([]string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("--ids: %w", err)
		}
		defer f.Close()
		r = f
	}
	var ids []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ids = append(ids, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--ids %s: %w", path, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("--ids %s lists no job id", path)
	}
	return ids, nil
}

func sinceText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return " in the last " + d.String()
}
