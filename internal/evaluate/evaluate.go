// Package evaluate is the `evaluate` command's logic, importable and tested: its commands (plans,
// retrieval, verdicts, honest) and their reports. The data sets they read (datasets), the claim
// matcher (score) and the scripted fake model (scriptedfake) are packages of their own.
// cmd/evaluate only hands it the command line, as river's cmd/river hands its own to rivercli.
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
	"github.com/corroborate/corroborate/internal/evaluate/scriptedfake"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
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
