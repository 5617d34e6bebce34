package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/reverify"
	"github.com/corroborate/corroborate/internal/store"
)

// reviewConfig is what `report review approve|override|recheck` is told.
type reviewConfig struct {
	DatabaseURL string
	Claim       string
	Editor      string
	Verdict     string
	Reason      string
	recheckConfig
}

// recheckConfig is where a re-check is published: the stream enqueue publishes to.
type recheckConfig struct {
	NATSURL  string
	Stream   jobs.StreamConfig
	NATSConn jobs.ConnConfig
}

func (c *recheckConfig) define(fs *envflag.Set, natsDefault string) {
	fs.String(&c.NATSURL, "nats-url", "NATS_URL", natsDefault, "NATS server URL, where a re-check is published")
	c.Stream.DefineFlags(fs)
	c.NATSConn.DefineFlags(fs)
}

const reviewUsage = `Usage: report review approve|override|recheck --claim RUN:POSITION --editor NAME [flags]

Records an editor's decision on one claim of a statement's latest run (RUN:POSITION as
claim_results and the review page list them), in editor_decisions, beside the machine's verdict
and never over it; editorial_verdicts shows which verdict stands.

  approve    the machine's verdict stands, now signed off by the editor
  override   --verdict V --reason "why": the editor's verdict stands instead
  recheck    the claim goes back for checking: the statement is published again as a
             re-verification (job recheck:<statement>:<run>, to NATS_URL), and the machine's
             verdict stands until the new run lands

Exit status: 0 recorded; 1 PostgreSQL or NATS error; 2 bad usage, or a claim that does not
exist or is not of its statement's latest run.`

func runReview(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != store.DecisionApprove && args[0] != store.DecisionOverride && args[0] != store.DecisionRecheck) {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stderr, reviewUsage)
			return exitOK
		}
		fmt.Fprintf(stderr, "report review: say what the editor decides: approve, override or recheck\n\n%s\n", reviewUsage)
		return exitInvalid
	}
	kind := args[0]
	var c reviewConfig
	fs := envflag.New("report review "+kind, reviewUsage)
	fs.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&c.Claim, "claim", "CORROBORATE_REVIEW_CLAIM", "", "the claim decided on: RUN:POSITION (claim_results.run_id and position)")
	fs.String(&c.Editor, "editor", "CORROBORATE_EDITOR", os.Getenv("USER"), "who decides (stored with the decision)")
	fs.String(&c.Verdict, "verdict", "CORROBORATE_REVIEW_VERDICT", "", "override: the editor's verdict, one of "+strings.Join(store.Verdicts, ", "))
	fs.String(&c.Reason, "reason", "CORROBORATE_REVIEW_REASON", "", "why (required for an override)")
	c.define(fs, nats.DefaultURL)
	if code, ok := parse("review "+kind, fs, args[1:], stderr); !ok {
		return code
	}
	runID, position, err := parseClaimRef(c.Claim)
	d := store.Decision{Editor: c.Editor, RunID: runID, Position: position, Kind: kind, Verdict: c.Verdict, Reason: c.Reason}
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	} else if err := d.Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if c.DatabaseURL == "" {
		problems = append(problems, "no database: set DATABASE_URL or --database-url")
	}
	if len(problems) > 0 {
		fmt.Fprintln(stderr, "report review:", strings.Join(problems, "; "))
		return exitInvalid
	}
	st, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report review:", err)
		return exitError
	}
	defer st.Close()
	if kind == store.DecisionRecheck {
		jobID, duplicate, err := c.publish(ctx, st, runID)
		if err != nil {
			fmt.Fprintln(stderr, "report review recheck:", err)
			return decisionExit(err)
		}
		d.RecheckJobID = jobID
		state := "queued"
		if duplicate {
			state = "already queued"
		}
		fmt.Fprintf(stdout, "re-check %s: job %s\n", state, jobID)
	}
	decided, err := st.Decide(ctx, d)
	if err != nil {
		fmt.Fprintln(stderr, "report review:", err)
		return decisionExit(err)
	}
	fmt.Fprintf(stdout, "%s of claim %d:%d by %s recorded (decision %d, statement %d)", kind, runID, position, d.Editor, decided.ID, decided.StatementID)
	if decided.Verdict != "" {
		fmt.Fprintf(stdout, "; standing verdict: %s", decided.Verdict)
	}
	fmt.Fprintln(stdout)
	return exitOK
}

// decisionExit is 2 for a claim that does not exist or is not of a latest run (the editor named
// the wrong thing), 1 otherwise.
func decisionExit(err error) int {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrNotLatestRun) {
		return exitInvalid
	}
	return exitError
}

// parseClaimRef reads RUN:POSITION.
func parseClaimRef(s string) (int64, int, error) {
	run, pos, ok := strings.Cut(strings.TrimSpace(s), ":")
	r, err1 := strconv.ParseInt(run, 10, 64)
	p, err2 := strconv.Atoi(pos)
	if !ok || err1 != nil || err2 != nil || r < 1 || p < 1 {
		return 0, 0, fmt.Errorf("--claim %q: give RUN:POSITION, such as 42:2 (claim_results.run_id and position)", s)
	}
	return r, p, nil
}

// publish sends the statement of run back for checking: the re-verification message of its
// latest job (reverify.Message), under the job id reverify.RecheckJobID, to the stream enqueue
// publishes to. duplicate is true when that re-check was queued already.
func (c recheckConfig) publish(ctx context.Context, st *store.Store, runID int64) (jobID string, duplicate bool, err error) {
	cand, err := st.RecheckCandidate(ctx, runID)
	if err != nil {
		return "", false, err
	}
	sc := c.Stream.WithDefaults()
	if err := sc.Validate(); err != nil {
		return "", false, err
	}
	msg, err := reverify.Message(cand, jobs.ValidationConfig{MaxMessageBytes: sc.MaxMessageBytes})
	if err != nil {
		return "", false, err
	}
	connOpts, err := c.NATSConn.Options()
	if err != nil {
		return "", false, err
	}
	nc, err := nats.Connect(c.NATSURL, append(connOpts, nats.Name("corroborate-report-recheck"))...)
	if err != nil {
		return "", false, fmt.Errorf("cannot connect to NATS at %s to publish the re-check (is it running? is NATS_URL right?): %w", c.NATSURL, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err == nil {
		_, _, err = jobs.Setup(ctx, js, sc)
	}
	if err != nil {
		return "", false, err
	}
	jobID = reverify.RecheckJobID(cand.StatementID, cand.RunID)
	res, err := jobs.PublishEncoded(ctx, js, sc.PublishSubject, msg, jobID)
	if err != nil {
		return "", false, fmt.Errorf("publishing the re-check %s: %w", jobID, err)
	}
	return jobID, res.Duplicate, nil
}

// publisherFlags name the organisation that publishes fact-checks as ClaimReview (export
// --format claimreview, and the JSON-LD that html and serve embed in statement pages).
type publisherFlags struct {
	Name, URL, ReviewURL string
}

func (p *publisherFlags) define(fs *envflag.Set) {
	fs.String(&p.Name, "publisher-name", "CORROBORATE_PUBLISHER_NAME", "", "ClaimReview: the publishing organisation's name (its author); empty: statement pages embed no ClaimReview")
	fs.String(&p.URL, "publisher-url", "CORROBORATE_PUBLISHER_URL", "", "ClaimReview: the publishing organisation's home page")
	fs.String(&p.ReviewURL, "review-url", "CORROBORATE_REVIEW_URL", "", "ClaimReview: the public address of the review pages; a claim's review is REVIEW_URL/statements/<id>#claim-<position>")
}

// publisher returns the configured publisher, nil when none is named and none is required.
func (p publisherFlags) publisher(required bool) (*report.Publisher, error) {
	if p.Name == "" && p.ReviewURL == "" && !required {
		return nil, nil
	}
	pub := report.Publisher{Name: p.Name, URL: p.URL, ReviewURL: p.ReviewURL}
	if err := pub.Validate(); err != nil {
		return nil, err
	}
	return &pub, nil
}
