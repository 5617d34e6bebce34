// Package evaluate is the `evaluate` command's logic, importable and tested: its commands (plans,
// retrieval, verdicts, honest), their reports, the data-set readers, the claim matcher and the
// scripted fake model. cmd/evaluate only hands it the command line, as river's cmd/river hands
// its own to rivercli.
//
// The measurements follow spec 004's measurement methods; see docs/evaluation.md.
package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/evaluate/datasets"
	"github.com/corroborate/corroborate/internal/evaluate/score"
	"github.com/corroborate/corroborate/internal/evaluate/scriptedfake"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/store"
)

// Exit statuses: package exitcode's, under the names this command's code uses.
const (
	exitOK      = exitcode.OK
	exitError   = exitcode.Failed // a service (model, PostgreSQL) failed
	exitInvalid = exitcode.Usage  // bad usage, configuration or dataset
)

// exitStatuses are evaluate's exit statuses as its --help and every subcommand's explain them.
var exitStatuses = []exitcode.Status{
	exitcode.Of(exitOK, ""),
	exitcode.Of(exitError, "the model endpoint or PostgreSQL"),
	exitcode.Of(exitInvalid, "also a data set that is missing, empty or malformed"),
}

const usage = `Usage: evaluate COMMAND [flags]

Commands:
  plans       plan N factcheck-bench statements and the built-in ambiguous statements with the
              configured model, through multihop's plan step; print schema compliance, claim
              recall against the gold claims, hallucinated claims, near-duplicate queries and
              ambiguity notes
  retrieval   load FEVEROUS-S into a throwaway PostgreSQL corpus; run the queries of the model's
              plans (without a model: the claims); print MRR@10 of a gold page and the Jaccard
              similarity of top-10 sets of query pairs within a statement (flagged above 0.7)

  verdicts    run each labelled claim of a data set (FEVEROUS-S, factcheck-bench, a JSONL of
              your own) through a method as the worker does; print accuracy, macro-F1, per label
              and per hop count, cost per claim, chain retrieval and the published baselines
  honest      run the query sanitizer and the citation parsers over the honest text of
              FEVEROUS-S, factcheck-bench and EX-FEVER (no model, no database); list every
              query they change and every URL they break

Environment: OPENAI_API_KEY or OPENAI_API_KEY_FILE (the key), OPENAI_BASE_URL, CORROBORATE_MODEL
as for the worker; CORROBORATE_DATASETS, the folder of the data sets. Run "evaluate COMMAND
--help" for a command's flags and every variable it reads.
`

// Run runs the evaluate command with args (the command line without the program's name) and
// returns its exit status; cmd/evaluate's main only wires it to the process.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage+"\n"+exitcode.Help(exitStatuses))
		if len(args) == 0 {
			return exitInvalid
		}
		return exitOK
	}
	switch args[0] {
	case "plans":
		return runPlans(ctx, args[1:], stdout, stderr)
	case "retrieval":
		return runRetrieval(ctx, args[1:], stdout, stderr)
	case "verdicts":
		return runVerdicts(ctx, args[1:], stdout, stderr)
	case "honest":
		return runHonest(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "evaluate: unknown command %q\n\n%s", args[0], usage)
	return exitInvalid
}

// modelConfig is the OpenAI-compatible endpoint, configured as the worker's is. The API key
// comes from the environment only, never from a flag that would show in the process list.
type modelConfig struct {
	Model, BaseURL, APIKey string
	Timeout                time.Duration
}

func (m *modelConfig) flags(fs *envflag.Set) {
	llm.DefineKeyEnv(fs)
	fs.String(&m.Model, "model", "CORROBORATE_MODEL", llm.DefaultModel, "model name sent to the OpenAI-compatible endpoint")
	fs.String(&m.BaseURL, "openai-base-url", "OPENAI_BASE_URL", "", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 for Ollama (default OpenAI)")
	fs.Duration(&m.Timeout, "model-timeout", "CORROBORATE_MODEL_TIMEOUT", llm.DefaultTimeout, "timeout of one model request")
}

// configured reports whether a model is configured: a key for OpenAI, a base URL, or the
// scripted fake or offline replay (--model fake, --model offline-replay).
func (m modelConfig) configured() bool {
	return m.APIKey != "" || m.BaseURL != "" || m.Model == scriptedfake.Name || m.Model == llm.ReplayModel
}

// open returns the model client and a description of it for the report; the fake and the
// replay are named in capitals there (see openVerdictModel).
func (m modelConfig) open() (pipeline.Model, string, error) {
	if m.Model == scriptedfake.Name || m.Model == llm.ReplayModel {
		// The fake's server lives as long as the command.
		model, name, kind, _, err := openVerdictModel(m)
		return model, kind + " MODEL, not a quality measurement: " + name, err
	}
	client, err := llm.New(llm.Config{APIKey: m.APIKey, BaseURL: m.BaseURL, Model: m.Model, Timeout: m.Timeout})
	if err != nil {
		return nil, "", err
	}
	return client, fmt.Sprintf("%s at %s", client.Model(), client.BaseURL()), nil
}

// parse parses a subcommand's flags; ok false means exit with code.
func parse(fs *envflag.Set, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	fs.ExitStatuses(exitStatuses...)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		fmt.Fprintln(stderr, fs.Name()+":", err)
		return exitInvalid, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q (every input is a flag)\n", fs.Name(), fs.Args())
		return exitInvalid, false
	}
	return 0, true
}

// unitFloat parses a flag value that must be a number in [0, 1].
func unitFloat(name, value string, problems *[]string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil || f < 0 || f > 1 {
		*problems = append(*problems, fmt.Sprintf("--%s %q must be a number from 0 to 1", name, value))
	}
	return f
}

// plansConfig is the configuration of `evaluate plans`.
type plansConfig struct {
	model          modelConfig
	N              int
	Dataset        string
	Ambiguous      bool
	MatchThreshold string
	threshold      float64
	Concurrency    int
	JSON           bool
	RecallN        int
	Evidence       string
}

func (c *plansConfig) validate() error {
	var problems []string
	if !c.model.configured() {
		problems = append(problems, "no model: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL (--openai-base-url) for an OpenAI-compatible server")
	}
	if c.N < 1 {
		problems = append(problems, fmt.Sprintf("--n %d: give at least 1 statement", c.N))
	}
	if c.Concurrency < 1 || c.Concurrency > 64 {
		problems = append(problems, fmt.Sprintf("--concurrency %d must be between 1 and 64", c.Concurrency))
	}
	if c.RecallN < 0 {
		problems = append(problems, fmt.Sprintf("--recall-n %d: give 0 or more", c.RecallN))
	}
	c.threshold = unitFloat("match-threshold", c.MatchThreshold, &problems)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func runPlans(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var cfg plansConfig
	fs := envflag.New("evaluate plans", "Usage: evaluate plans [flags]\n\n"+
		"Asks the configured model for the multihop plans of the first N factcheck-bench statements\n"+
		"(sentences with gold claims, decontextualised) and of the built-in ambiguous statements,\n"+
		"through multihop's plan step (its prompt, validation and one repair), and prints spec 004's\n"+
		"plan measurements.")
	cfg.model.flags(fs)
	fs.Int(&cfg.N, "n", "CORROBORATE_EVAL_N", 100, "number of factcheck-bench statements (spec 004 measures schema compliance and completeness on 100)")
	fs.Int(&cfg.RecallN, "recall-n", "CORROBORATE_EVAL_RECALL_N", 20, "claim recall is measured on the first N of them (spec 004: 20)")
	fs.String(&cfg.Evidence, "evidence", "CORROBORATE_EVAL_EVIDENCE", "", "write the cross-reference queries and each claim with its span here, one JSON line each (criteria 3 and 6)")
	fs.String(&cfg.Dataset, "dataset", "CORROBORATE_FACTCHECK_BENCH", datasets.FactcheckBenchPath(), "path of factcheck-GPT-benchmark.jsonl")
	fs.Env(searcheval.DatasetsEnv, searcheval.DatasetsUsage)
	fs.Bool(&cfg.Ambiguous, "ambiguous", "CORROBORATE_EVAL_AMBIGUOUS", true, fmt.Sprintf("also plan the %d built-in ambiguous statements", len(ambiguousStatements)))
	fs.String(&cfg.MatchThreshold, "match-threshold", "CORROBORATE_EVAL_MATCH_THRESHOLD", strconv.FormatFloat(score.DefaultMatchThreshold, 'g', -1, 64),
		"token overlap (Jaccard of content words) at which an extracted claim recalls a gold claim")
	fs.Int(&cfg.Concurrency, "concurrency", "CORROBORATE_EVAL_CONCURRENCY", 4, "plans asked for at once")
	fs.Bool(&cfg.JSON, "json", "CORROBORATE_EVAL_JSON", false, "print the report, every statement included, as JSON")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	key, err := llm.APIKeyFromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "evaluate plans:", err)
		return exitInvalid
	}
	cfg.model.APIKey = key
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "evaluate plans:", err)
		return exitInvalid
	}
	statements, err := datasets.ReadFactcheckBench(cfg.Dataset, cfg.N)
	if err != nil {
		fmt.Fprintln(stderr, "evaluate plans:", err)
		return exitInvalid
	}
	if len(statements) < cfg.N {
		fmt.Fprintf(stderr, "evaluate plans: %s has %d statements with gold claims; measuring those\n", cfg.Dataset, len(statements))
	}
	model, name, err := cfg.model.open()
	if err != nil {
		fmt.Fprintln(stderr, "evaluate plans:", err)
		return exitInvalid
	}
	var cases []planCase
	for i, s := range statements {
		cases = append(cases, planCase{ID: s.ID, Statement: s.Text, Gold: s.Gold, ScoredForRecall: i < cfg.RecallN})
	}
	if cfg.Ambiguous {
		for i, a := range ambiguousStatements {
			cases = append(cases, planCase{ID: fmt.Sprintf("ambiguous/%d", i+1), Statement: a.Text, Ambiguous: true})
		}
	}
	results := measurePlans(ctx, model, cases, cfg.threshold, cfg.Concurrency, func(line string) { fmt.Fprintln(stderr, line) })
	rep := summarize(name, cfg.threshold, results)
	if cfg.Evidence != "" {
		if err := writeFileWith(cfg.Evidence, func(w io.Writer) error { return writePlanEvidence(w, results) }); err != nil {
			fmt.Fprintln(stderr, "evaluate plans: --evidence:", err)
			return exitError
		}
	}
	if code := printReport(stdout, cfg.JSON, rep, func() { writePlanTable(stdout, rep) }); code != exitOK {
		return code
	}
	if rep.Errors > 0 {
		fmt.Fprintf(stderr, "evaluate plans: %d statements got no plan because a model call failed (see the report)\n", rep.Errors)
		return exitError
	}
	return exitOK
}

func printReport(w io.Writer, asJSON bool, rep any, table func()) int {
	if !asJSON {
		table()
		return exitOK
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return exitError
	}
	return exitOK
}

// Query sources of `evaluate retrieval --queries`.
const (
	queriesAuto   = "auto"
	queriesPlans  = "plans"
	queriesClaims = "claims"
)

// retrievalConfig is the configuration of `evaluate retrieval`.
type retrievalConfig struct {
	model       modelConfig
	Feverous    string
	Limit       int
	Challenge   string
	Queries     string
	DatabaseURL string
	Schema      string
	FlagAbove   string
	flagAbove   float64
	Concurrency int
	JSON        bool
}

func (c *retrievalConfig) validate() error {
	var problems []string
	switch c.Queries {
	case queriesAuto:
		c.Queries = queriesClaims
		if c.model.configured() {
			c.Queries = queriesPlans
		}
	case queriesPlans:
		if !c.model.configured() {
			problems = append(problems, "--queries plans needs a model: set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL (--openai-base-url)")
		}
	case queriesClaims:
	default:
		problems = append(problems, fmt.Sprintf("--queries %q must be auto, plans or claims", c.Queries))
	}
	if c.Limit < 0 {
		problems = append(problems, fmt.Sprintf("--limit %d: give 0 (every claim) or more", c.Limit))
	}
	if err := store.CheckScratchSchemaName(c.Schema); err != nil {
		problems = append(problems, fmt.Sprintf("--schema %q: %v", c.Schema, err))
	}
	if c.Concurrency < 1 || c.Concurrency > 64 {
		problems = append(problems, fmt.Sprintf("--concurrency %d must be between 1 and 64", c.Concurrency))
	}
	c.flagAbove = unitFloat("flag-above", c.FlagAbove, &problems)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func runRetrieval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var cfg retrievalConfig
	fs := envflag.New("evaluate retrieval", "Usage: evaluate retrieval [flags]\n\n"+
		"Loads FEVEROUS-S (one document per page title) into a throwaway PostgreSQL corpus (a schema\n"+
		"of its own in $DATABASE_URL, else a cluster started for the run), runs the queries of the\n"+
		"first N claims (the hop and cross-validation queries of the model's plans, or the claims\n"+
		"themselves) with the corpus's default ranking, and prints MRR@10 of a gold page and the\n"+
		"Jaccard similarity of the top-10 sets of every pair of queries within a claim.")
	cfg.model.flags(fs)
	fs.String(&cfg.Feverous, "feverous", "CORROBORATE_FEVEROUS", searcheval.FeverousPath(), "path of feverous_s_dev.json")
	fs.Env(searcheval.DatasetsEnv, searcheval.DatasetsUsage)
	fs.Int(&cfg.Limit, "limit", "CORROBORATE_EVAL_LIMIT", 50, "use the first N claims (0: all 2,962)")
	fs.String(&cfg.Challenge, "challenge", "CORROBORATE_EVAL_CHALLENGE", "", `use only claims of this FEVEROUS challenge type, e.g. "Multi-hop Reasoning"`)
	fs.String(&cfg.Queries, "queries", "CORROBORATE_EVAL_QUERIES", queriesAuto, "where queries come from: plans (the model's), claims (the claims themselves), auto (plans when a model is configured)")
	fs.String(&cfg.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL (empty: start a throwaway cluster from the local PostgreSQL binaries)")
	fs.String(&cfg.Schema, "schema", "CORROBORATE_EVALUATE_SCHEMA", "eval_retrieval", "schema of $DATABASE_URL the corpus is loaded into (dropped and made afresh, dropped after)")
	fs.String(&cfg.FlagAbove, "flag-above", "CORROBORATE_EVAL_FLAG_ABOVE", strconv.FormatFloat(DefaultJaccardFlag, 'g', -1, 64), "Jaccard similarity of two queries' top-10 sets above which the pair is flagged")
	fs.Int(&cfg.Concurrency, "concurrency", "CORROBORATE_EVAL_CONCURRENCY", 4, "plans and queries at once")
	fs.Bool(&cfg.JSON, "json", "CORROBORATE_EVAL_JSON", false, "print the report, every pair included, as JSON")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	key, err := llm.APIKeyFromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval:", err)
		return exitInvalid
	}
	cfg.model.APIKey = key
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval:", err)
		return exitInvalid
	}
	docs, claims, err := searcheval.ReadFeverous(cfg.Feverous)
	if err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval:", err)
		return exitInvalid
	}
	var stmts []retrievalStatement
	for _, c := range claims {
		if cfg.Challenge != "" && c.Challenge != cfg.Challenge {
			continue
		}
		stmts = append(stmts, retrievalStatement{ID: c.ID, Text: c.Text, Gold: c.Gold})
		if cfg.Limit > 0 && len(stmts) == cfg.Limit {
			break
		}
	}
	if len(stmts) == 0 {
		fmt.Fprintf(stderr, "evaluate retrieval: no claim of challenge %q in %s\n", cfg.Challenge, cfg.Feverous)
		return exitInvalid
	}
	from := "the claims themselves (no model)"
	if cfg.Queries == queriesPlans {
		model, name, err := cfg.model.open()
		if err != nil {
			fmt.Fprintln(stderr, "evaluate retrieval:", err)
			return exitInvalid
		}
		from = "the plans of " + name + " (hop and cross-validation queries)"
		planQueries(ctx, model, stmts, cfg.Concurrency, func(line string) { fmt.Fprintln(stderr, line) })
	} else {
		for i := range stmts {
			stmts[i].Queries = []string{stmts[i].Text}
		}
	}
	if err := ctx.Err(); err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval:", err)
		return exitError
	}
	pool, closeDB, err := openCorpusDB(ctx, cfg.DatabaseURL, cfg.Schema, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval:", err)
		return exitError
	}
	defer closeDB()
	stats, err := searcheval.LoadCorpus(ctx, pool, docs)
	if err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval: loading FEVEROUS-S:", err)
		return exitError
	}
	fmt.Fprintf(stderr, "loaded %d documents in %s\n", stats.Inserted+stats.Updated+stats.Unchanged, stats.Duration.Round(time.Millisecond))
	rep, err := measureRetrieval(ctx, search.NewCorpus(pool, search.CorpusOpts{}), stmts, searcheval.K, cfg.Concurrency, cfg.flagAbove)
	if err != nil {
		fmt.Fprintln(stderr, "evaluate retrieval:", err)
		return exitError
	}
	rep.Corpus, rep.Documents, rep.QueriesFrom = "FEVEROUS-S dev", stats.Inserted+stats.Updated+stats.Unchanged, from
	if cfg.Challenge != "" {
		rep.Corpus += fmt.Sprintf(" (claims of challenge %q)", cfg.Challenge)
	}
	return printReport(stdout, cfg.JSON, rep, func() { writeRetrievalTable(stdout, rep) })
}

// openCorpusDB returns a pool on a fresh, migrated schema of databaseURL, or, when databaseURL
// is empty, on a PostgreSQL cluster started for the run from the local binaries. closeDB drops
// the schema or stops and removes the cluster.
func openCorpusDB(ctx context.Context, databaseURL, schema string, stderr io.Writer) (pool *pgxpool.Pool, closeDB func(), err error) {
	cleanups := []func(){}
	closeDB = func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	defer func() {
		if err != nil {
			closeDB()
		}
	}()
	if databaseURL == "" {
		dir, err := os.MkdirTemp("", "corroborate-evaluate-pg-")
		if err != nil {
			return nil, closeDB, err
		}
		cleanups = append(cleanups, func() { os.RemoveAll(dir) })
		fmt.Fprintf(stderr, "no DATABASE_URL: starting a throwaway PostgreSQL in %s\n", dir)
		pg, err := devenv.StartPostgres(ctx, dir)
		if err != nil {
			return nil, closeDB, fmt.Errorf("no DATABASE_URL, and a throwaway PostgreSQL would not start: %w", err)
		}
		cleanups = append(cleanups, func() {
			if err := pg.Stop(); err != nil {
				fmt.Fprintln(stderr, "evaluate: stopping the throwaway PostgreSQL:", err)
			}
		})
		databaseURL = pg.URL
	}
	scratch, err := store.NewScratchSchema(ctx, databaseURL, schema)
	if err != nil {
		return nil, closeDB, err
	}
	pool, err = pgxpool.New(ctx, scratch.URL)
	if err != nil {
		_ = scratch.Drop(context.WithoutCancel(ctx))
		return nil, closeDB, fmt.Errorf("opening the pool: %w", err)
	}
	cleanups = append(cleanups, func() {
		pool.Close()
		if err := scratch.Drop(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintln(stderr, "evaluate:", err)
		}
	})
	if _, err := store.New(pool).Migrate(ctx); err != nil {
		return nil, closeDB, err
	}
	return pool, closeDB, nil
}
