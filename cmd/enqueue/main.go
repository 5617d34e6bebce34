// Command enqueue reads statements from arguments, files (.jsonl, .csv, .txt) or stdin, validates
// every record, and publishes them as jobs on JetStream. With --wait it follows the jobs in
// PostgreSQL until each has an outcome and prints a result table.
//
// Nothing of an input is published unless all of it is valid (or --skip-invalid is given), and
// a record is reported queued only once JetStream has acknowledged it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/intake"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// Exit statuses: package exitcode's, under the names this command's code uses.
const (
	exitOK       = exitcode.OK
	exitError    = exitcode.Failed      // NATS or PostgreSQL unreachable, a publish not acknowledged
	exitInvalid  = exitcode.Usage       // bad input or usage: nothing was published
	exitJobsFail = exitcode.JobsNotDone // --wait: some job did not end done
	// exitWaitGaveUp: --wait stopped before every job had an outcome, because --wait-timeout
	// passed or because no worker consumed for --no-worker-timeout; the jobs stay queued.
	exitWaitGaveUp = exitcode.WaitGaveUp
)

// noNATS is said when NATS_URL is unset: enqueue, like the worker, has no default, so that the
// two never reach different servers by one of them defaulting.
const noNATS = "no NATS: set NATS_URL or --nats-url (for example nats://localhost:4222), the same as the worker's"

// exitStatuses are enqueue's exit statuses as its --help explains them.
var exitStatuses = []exitcode.Status{
	exitcode.Of(exitOK, "every record queued; with --wait, every job done"),
	exitcode.Of(exitError, "NATS or PostgreSQL unreachable, a publish not acknowledged"),
	exitcode.Of(exitInvalid, "an invalid record anywhere publishes nothing (--skip-invalid publishes the valid ones)"),
	exitcode.Of(exitJobsFail, ""),
	exitcode.Of(exitWaitGaveUp, ""),
}

// subcommandExits are the exit statuses of enqueue reverify and enqueue retry.
var subcommandExits = []exitcode.Status{
	exitcode.Of(exitOK, ""),
	exitcode.Of(exitError, "NATS or PostgreSQL"),
	exitcode.Of(exitInvalid, ""),
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Config is everything enqueue is told, from flags and their environment twins.
type Config struct {
	NATSURL     string
	DatabaseURL string
	Texts       []string
	Method      string
	Format      string
	SkipInvalid bool
	// Urgent publishes on the urgent lane (Stream.UrgentSubject), served before the backlog.
	Urgent      bool
	Wait        bool
	WaitTimeout time.Duration
	// NoWorkerTimeout is how long --wait waits with no worker consuming before it says so and
	// stops (exitWaitGaveUp); 0 waits on.
	NoWorkerTimeout time.Duration
	// Quiet prints the summary and the problems only, not a line per record (a backlog of
	// thousands in a cron job's mail).
	Quiet bool

	// Stream holds the JetStream settings, shared with the worker (jobs.StreamConfig.DefineFlags).
	Stream jobs.StreamConfig
	// NATSConn authenticates and secures the NATS connection.
	NATSConn jobs.ConnConfig
}

type textList struct{ values *[]string }

func (l textList) String() string {
	if l.values == nil {
		return ""
	}
	return strings.Join(*l.values, " | ")
}
func (l textList) Set(s string) error { *l.values = append(*l.values, s); return nil }

func (c *Config) flags(s *envflag.Set) {
	s.String(&c.NATSURL, "nats-url", "NATS_URL", "", "NATS server URL (required, as by the worker)")
	s.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL (needed by --wait)")
	s.Var(textList{&c.Texts}, "text", "a statement to verify (repeatable)")
	s.String(&c.Method, "method", "CORROBORATE_DEFAULT_METHOD", pipeline.MethodMultihop, "method of records that name none: "+strings.Join(pipeline.MethodNames(), ", "))
	s.String(&c.Format, "format", "CORROBORATE_STDIN_FORMAT", "", "format of stdin (-): jsonl, csv or txt (default: jsonl when it starts with '{', else txt)")
	s.Bool(&c.SkipInvalid, "skip-invalid", "CORROBORATE_SKIP_INVALID", false, "publish the valid records even when some are invalid (the invalid ones are listed)")
	s.Bool(&c.Urgent, "urgent", "CORROBORATE_URGENT", false, "publish on the urgent lane (--urgent-subject), which workers serve before the backlog")
	s.Bool(&c.Wait, "wait", "CORROBORATE_WAIT", false, "follow the jobs in PostgreSQL until each has an outcome, then print a result table")
	s.Duration(&c.WaitTimeout, "wait-timeout", "CORROBORATE_WAIT_TIMEOUT", 0, "with --wait: give up after this long (exit 4; 0: wait as long as it takes)")
	s.Duration(&c.NoWorkerTimeout, "no-worker-timeout", "CORROBORATE_NO_WORKER_TIMEOUT", time.Minute, "with --wait: say so and give up (exit 4) when no worker has consumed for this long (0: wait on)")
	s.Bool(&c.Quiet, "quiet", "CORROBORATE_QUIET", false, "print only the summary line and any problem, not a line per record")
	c.Stream.DefineFlags(s)
	c.NATSConn.DefineFlags(s)
}

// validate lists every problem of the flags in one error, before anything is read or published.
func (c *Config) validate() error {
	var problems []string
	if !jobs.KnownMethod(c.Method) {
		problems = append(problems, fmt.Sprintf("--method %q is not a method; use one of %s", c.Method, strings.Join(pipeline.MethodNames(), ", ")))
	}
	if c.NATSURL == "" {
		problems = append(problems, noNATS)
	}
	if c.Wait && c.DatabaseURL == "" {
		problems = append(problems, "--wait reads outcomes from PostgreSQL: set DATABASE_URL or --database-url")
	}
	if err := c.Stream.WithDefaults().Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "reverify" {
		return runReverify(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "retry" {
		return runRetry(ctx, args[1:], stdin, stdout, stderr)
	}
	var cfg Config
	fs := envflag.New("enqueue", "Usage: enqueue [flags] [FILE.jsonl|FILE.csv|FILE.txt|-]...\n\n"+
		"Validates statements and publishes them as jobs.\n\n"+
		"Also: enqueue reverify [flags] (check statements again), enqueue retry [flags] (run failed and\n"+
		"dead jobs again); -h after either says more.")
	fs.SetOutput(stderr)
	fs.ExitStatuses(exitStatuses...)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(stderr, "enqueue:", err)
		return exitInvalid
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "enqueue:", err)
		return exitInvalid
	}
	sc := cfg.Stream.WithDefaults()

	r := intake.NewReader(jobs.ValidationConfig{MaxMessageBytes: sc.MaxMessageBytes, DefaultMethod: cfg.Method}, cfg.Format)
	for i, t := range cfg.Texts {
		r.AddText(fmt.Sprintf("--text #%d", i+1), t)
	}
	for _, path := range fs.Args() {
		if err := r.ReadFile(path, stdin); err != nil {
			fmt.Fprintln(stderr, "enqueue:", err)
			return exitInvalid
		}
	}
	if len(cfg.Texts) == 0 && fs.NArg() == 0 {
		fmt.Fprintln(stderr, "enqueue: nothing to enqueue: give --text, files (.jsonl, .csv, .txt) or - for stdin")
		return exitInvalid
	}
	records, problems := r.Records(), r.Problems()
	for _, p := range problems {
		fmt.Fprintln(stderr, "invalid", p)
	}
	if len(problems) > 0 && !cfg.SkipInvalid {
		fmt.Fprintf(stderr, "enqueue: %d invalid record(s); nothing was published (fix them, or use --skip-invalid to publish the %d valid ones)\n", len(problems), len(records))
		return exitInvalid
	}
	if len(records) == 0 {
		// --skip-invalid over inputs that hold no valid record (an empty file among them): nothing
		// to publish is a mistake of the input, exit 2 as everywhere, not a success.
		fmt.Fprintf(stderr, "enqueue: no valid record among the inputs: nothing was published\n")
		return exitInvalid
	}

	connOpts, err := cfg.NATSConn.Options()
	if err != nil {
		fmt.Fprintln(stderr, "enqueue:", err)
		return exitInvalid
	}
	js, closeNATS, err := openStream(ctx, cfg.NATSURL, sc, connOpts, "corroborate-enqueue")
	if err != nil {
		fmt.Fprintln(stderr, "enqueue:", err)
		return exitError
	}
	defer closeNATS()

	queued, duplicates := 0, 0
	var published []publishedJob
	subject := sc.PublishSubject
	if cfg.Urgent {
		subject = sc.UrgentSubject
	}
	for _, rec := range records {
		res, err := jobs.PublishEncoded(ctx, js, subject, rec.Job, "")
		if err != nil {
			fmt.Fprintf(stderr, "enqueue: %s: NOT queued: %v\n", rec.Source, err)
			fmt.Fprintf(stderr, "enqueue: stopped after %d queued and %d duplicates; the records from %s on were not published (running enqueue again is safe: queued ones are dropped as duplicates)\n", queued, duplicates, rec.Source)
			return exitError
		}
		state := "queued"
		if res.Duplicate {
			state, duplicates = "duplicate", duplicates+1
		} else {
			queued++
		}
		if !cfg.Quiet {
			fmt.Fprintf(stdout, "%-9s %s  job %s  seq %d\n", state, rec.Source, res.JobID, res.Sequence)
		}
		published = append(published, publishedJob{Source: rec.Source, JobID: res.JobID})
	}
	fmt.Fprintf(stdout, "%d queued, %d duplicates, %d invalid skipped\n", queued, duplicates, len(problems))

	if !cfg.Wait {
		return exitOK
	}
	ok, err := wait(ctx, cfg, js, published, stdout, stderr)
	var gaveUp *gaveUpError
	if errors.As(err, &gaveUp) {
		fmt.Fprintln(stderr, "enqueue:", err)
		return exitWaitGaveUp
	}
	if err != nil {
		fmt.Fprintln(stderr, "enqueue:", err)
		return exitError
	}
	if !ok {
		return exitJobsFail
	}
	return exitOK
}

// openStream connects to NATS and creates or updates the stream and its consumers, as every
// worker does at start, so that enqueue may run first. The returned func closes the connection.
func openStream(ctx context.Context, natsURL string, sc jobs.StreamConfig, connOpts []nats.Option, name string) (jetstream.JetStream, func(), error) {
	nc, err := nats.Connect(natsURL, append(connOpts, nats.Name(name))...)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot connect to NATS at %s (is it running? is NATS_URL right?): %w", natsURL, err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		_, _, err = jobs.Setup(ctx, js, sc)
	}
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return js, nc.Close, nil
}

// openStore opens PostgreSQL for enqueue's reads and applies the migrations: the reporting views
// may not exist yet when no worker has started (the same migrations every worker applies, under
// the same lock).
func openStore(ctx context.Context, url string) (*store.Store, error) {
	return store.OpenMigrated(ctx, store.Config{URL: url, MaxConns: 2})
}
