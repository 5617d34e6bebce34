// Command report is what editors and analysts reach for after a batch: a terminal summary, CSV
// and JSONL exports, a static HTML report of verdicts with their sources and full traces, a
// read-only review page served live from PostgreSQL, and the verdicts that changed.
//
//	report summary [--since 24h] [--method M] [--status done|failed]
//	report export --format csv|jsonl --what statements|claims|evidence [filters] [--out FILE]
//	report html --out DIR [filters]
//	report serve [--addr 127.0.0.1:8080]
//	report changes [--since 24h]
//	report review approve|override|recheck --claim RUN:POSITION --editor NAME [--verdict V --reason R]
//	report users add NAME
//
// Every subcommand reads DATABASE_URL (or --database-url) and applies the schema migrations
// first, so that the reporting views exist. Nothing it does writes a result: serve runs its
// queries in read-only transactions. What editors decide (review, or serve with --auth) is
// appended to editor_decisions beside the machine's verdicts, never over them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// Exit statuses: package exitcode's, under the names this command's code uses.
const (
	exitOK      = exitcode.OK
	exitError   = exitcode.Failed // PostgreSQL unreachable or failing, a file that cannot be written
	exitInvalid = exitcode.Usage  // bad usage
)

// exitStatuses are report's exit statuses as its --help and every subcommand's explain them.
var exitStatuses = []exitcode.Status{
	exitcode.Of(exitOK, ""),
	exitcode.Of(exitError, "PostgreSQL, or a file that cannot be written"),
	exitcode.Of(exitInvalid, ""),
}

const usage = `Usage: report COMMAND [flags]

Commands:
  summary    a batch at a glance: statements by status and method, claims by verdict, job
             outcomes, what the runs cost (--since 24h, --method, --status, ...)
  export     statements, claims or evidence as CSV or JSONL (--format, --what, filters, --out)
  html       a static HTML report: an index of the batch, one page per statement with its
             claims, verdicts and sources, and the full trace of every run (--out DIR, filters)
  serve      the same pages live from PostgreSQL, read-only, with search and filters (--addr)
  changes    the claims whose verdict changed, with old and new verdict, when and why (--since)
  review     an editor's decision on a claim: approve, override (--verdict, --reason) or
             recheck (publishes a re-verification); --claim RUN:POSITION --editor NAME
  users      editor accounts of the review page: users add NAME (prints a secret once)

Filters (summary, export, html, changes): --since and --until (a duration such as 24h or 7d,
a date YYYY-MM-DD, or an RFC 3339 time; they bound the latest run's finish), --status,
--verdict, --method, --external-id-prefix, --text.

Environment: DATABASE_URL (or --database-url) names the database; every flag has a
CORROBORATE_REPORT_* or similar twin. Run "report COMMAND --help" for a command's flags and the
variables it reads.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// commands are the subcommands, by name.
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"summary": runSummary,
	"export":  runExport,
	"html":    runHTML,
	"serve":   runServe,
	"changes": runChanges,
	"review":  runReview,
	"users":   runUsers,
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage+"\n"+exitcode.Help(exitStatuses))
		if len(args) == 0 {
			return exitInvalid
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "report: unknown command %q\n\n%s", args[0], usage)
		return exitInvalid
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

// parse parses a subcommand's flags; ok false means exit with code.
func parse(name string, fs *envflag.Set, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	fs.ExitStatuses(exitStatuses...)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		fmt.Fprintf(stderr, "report %s: %v\n", name, err)
		return exitInvalid, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "report %s: unexpected arguments %q (flags only; see --help)\n", name, fs.Args())
		return exitInvalid, false
	}
	return 0, true
}

// filterFlags are the filters every subcommand but serve takes.
type filterFlags struct {
	DatabaseURL      string
	Since, Until     string
	Status           string
	Verdict          string
	Method           string
	ExternalIDPrefix string
	Text             string
}

func (f *filterFlags) define(s *envflag.Set, defaultSince string) {
	s.String(&f.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	s.String(&f.Since, "since", "CORROBORATE_REPORT_SINCE", defaultSince, "statements whose latest run finished at or after this: a duration back from now (24h, 7d), a date (YYYY-MM-DD, local midnight) or an RFC 3339 time; empty: no bound")
	s.String(&f.Until, "until", "CORROBORATE_REPORT_UNTIL", "", "and before this (same forms as --since); empty: now")
	s.String(&f.Status, "status", "CORROBORATE_REPORT_STATUS", "", "only statements whose latest run has this status: done or failed")
	s.String(&f.Verdict, "verdict", "CORROBORATE_REPORT_VERDICT", "", "only statements with a claim of this verdict (claims and evidence: of such claims): "+strings.Join(store.Verdicts, ", "))
	s.String(&f.Method, "method", "CORROBORATE_REPORT_METHOD", "", "only statements whose latest run ran (or asked for) this method: "+strings.Join(pipeline.MethodNames(), ", "))
	s.String(&f.ExternalIDPrefix, "external-id-prefix", "CORROBORATE_REPORT_EXTERNAL_ID_PREFIX", "", "only statements whose id (the producer's reference) starts with this")
	s.String(&f.Text, "text", "CORROBORATE_REPORT_TEXT", "", "only statements whose text, question or id contains this (any case)")
}

// filter turns the flags into a store filter, checked, with every problem in one error.
func (f filterFlags) filter(now time.Time) (store.ReportFilter, error) {
	var problems []string
	since, err := parseTimeBound(f.Since, now)
	if err != nil {
		problems = append(problems, "--since: "+err.Error())
	}
	until, err := parseTimeBound(f.Until, now)
	if err != nil {
		problems = append(problems, "--until: "+err.Error())
	}
	if f.Method != "" && !jobs.KnownMethod(f.Method) {
		problems = append(problems, fmt.Sprintf("--method %q is not a method; use one of %s", f.Method, strings.Join(pipeline.MethodNames(), ", ")))
	}
	rf := store.ReportFilter{Since: since, Until: until, Status: f.Status, Verdict: f.Verdict, Method: f.Method, ExternalIDPrefix: f.ExternalIDPrefix, Text: f.Text}
	if err := rf.Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if f.DatabaseURL == "" {
		problems = append(problems, "no database: set DATABASE_URL or --database-url (for example postgres://user@localhost:5432/corroborate)")
	}
	if len(problems) > 0 {
		return rf, errors.New(strings.Join(problems, "; "))
	}
	return rf, nil
}

var daysBack = regexp.MustCompile(`^([0-9]+)d$`)

// parseTimeBound reads a --since or --until: empty (no bound), a duration back from now ("24h",
// "90m", "7d"), a date (local midnight) or an RFC 3339 time.
func parseTimeBound(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if m := daysBack.FindStringSubmatch(s); m != nil {
		days, err := strconv.Atoi(m[1])
		if err == nil && days <= 100000 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: give a positive duration (how far back from now)", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (24h, 7d), a date (2026-11-01) nor an RFC 3339 time (2026-11-01T02:00:00Z)", s)
}

// openStore connects to PostgreSQL and applies the migrations, so that the views exist.
func openStore(ctx context.Context, databaseURL string) (*store.Store, error) {
	return store.OpenMigrated(ctx, store.Config{URL: databaseURL, MaxConns: 4})
}

// oneOf checks a flag's value against its choices.
func oneOf(flagName, value string, choices ...string) error {
	if !slices.Contains(choices, value) {
		return fmt.Errorf("--%s %q: use one of %s", flagName, value, strings.Join(choices, ", "))
	}
	return nil
}
