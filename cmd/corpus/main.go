// Command corpus manages the PostgreSQL search corpus: it loads documents (a newsroom's archive)
// from JSONL files, searches them by hand, and measures retrieval on FEVEROUS-S.
//
//	corpus load FILE.jsonl...        one document a line: url, title, body, publisher,
//	                                 published_at (RFC 3339 or YYYY-MM-DD), language
//	corpus search [--limit 10] [--json] [--language en] QUERY
//	corpus eval-feverous [--limit N]  MRR@10 and recall@10 of every ranking
//	corpus owners add DOMAIN ORGANISATION  record who owns a domain (source_owners)
//	corpus owners list               the source_owners table
//
// Every subcommand applies the schema migrations first. A file with a bad line is reported line
// by line and nothing of it is loaded.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/store"
)

// Exit statuses: package exitcode's, under the names this command's code uses.
const (
	exitOK      = exitcode.OK
	exitError   = exitcode.Failed // PostgreSQL unreachable or failing
	exitInvalid = exitcode.Usage  // bad input or usage: nothing was loaded
)

// exitStatuses are corpus's exit statuses as its --help and every subcommand's explain them.
var exitStatuses = []exitcode.Status{
	exitcode.Of(exitOK, ""),
	exitcode.Of(exitError, "PostgreSQL unreachable or failing"),
	exitcode.Of(exitInvalid, "a file with a bad line, or an empty one, loads nothing"),
}

const usage = `Usage: corpus COMMAND [flags] [ARGS]

Commands:
  load FILE.jsonl...   load documents (one JSON object a line: url, title, body, publisher,
                       published_at, language); a URL loaded again is updated; a file with a bad
                       line is reported line by line and nothing of it is loaded. "-" reads stdin.
  search QUERY         search the corpus (--limit, --json, --language, --ranking)
  eval-feverous        load FEVEROUS-S into a schema of its own and print MRR@10 and recall@10
                       of every ranking against a plain BM25 computed in Go
  owners add DOMAIN ORGANISATION
                       record that ORGANISATION owns DOMAIN (source_owners): independence counts
                       one organisation as one publisher (apnews.com and ap.org are one source)
  owners list          list source_owners, the seed list and what editors added

Environment: DATABASE_URL (or --database-url) names the database; eval-feverous finds its data
set under $CORROBORATE_DATASETS. Run "corpus COMMAND --help" for a command's flags and the
variables it reads.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage+"\n"+exitcode.Help(exitStatuses))
		if len(args) == 0 {
			return exitInvalid
		}
		return exitOK
	}
	switch args[0] {
	case "load":
		return runLoad(ctx, args[1:], stdin, stdout, stderr)
	case "search":
		return runSearch(ctx, args[1:], stdout, stderr)
	case "eval-feverous":
		return runEval(ctx, args[1:], stdout, stderr)
	case "owners":
		return runOwners(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "corpus: unknown command %q\n\n%s", args[0], usage)
	return exitInvalid
}

// parse parses a subcommand's flags; ok false means exit with code.
func parse(fs *envflag.Set, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	fs.ExitStatuses(exitStatuses...)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		fmt.Fprintln(stderr, "corpus:", err)
		return exitInvalid, false
	}
	return 0, true
}

// open connects to PostgreSQL and applies the migrations. searchPath, when set, is the schema
// every statement works in.
func open(ctx context.Context, databaseURL, searchPath string) (*pgxpool.Pool, error) {
	if databaseURL == "" {
		return nil, errors.New("no database: set DATABASE_URL or --database-url (for example postgres://user@localhost:5432/corroborate)")
	}
	st, err := store.OpenMigrated(ctx, store.Config{URL: databaseURL, SearchPath: searchPath})
	if err != nil {
		return nil, err
	}
	return st.Pool(), nil
}

func runLoad(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var databaseURL, language string
	fs := envflag.New("corpus load", "Usage: corpus load [flags] FILE.jsonl... (- for stdin)\n\n"+
		"Loads documents, one JSON object a line: url (required), title, body (one of them required),\n"+
		"publisher, published_at (RFC 3339 or YYYY-MM-DD), language (ISO 639-1). Each file is loaded\n"+
		"in one transaction: a URL loaded again is updated; a file with a bad line loads nothing.")
	fs.String(&databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&language, "language", "CORROBORATE_CORPUS_LANGUAGE", "en", "language of documents that give none")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "corpus load: no file given: corpus load FILE.jsonl (- for stdin)")
		return exitInvalid
	}
	pool, err := open(ctx, databaseURL, "")
	if err != nil {
		fmt.Fprintln(stderr, "corpus load:", err)
		return exitError
	}
	defer pool.Close()
	corpus := search.NewCorpus(pool, search.CorpusOpts{})
	status := exitOK
	for _, path := range fs.Args() {
		if code := loadFile(ctx, corpus, path, language, stdin, stdout, stderr); code != exitOK {
			status = max(status, code)
			if code == exitError {
				return code
			}
		}
	}
	return status
}

func loadFile(ctx context.Context, corpus *search.Corpus, path, language string, stdin io.Reader, stdout, stderr io.Writer) int {
	r, name := stdin, "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "corpus load: %v\n", err)
			return exitInvalid
		}
		defer f.Close()
		r, name = f, path
	}
	// On a terminal, a bar over the file's bytes; otherwise (logs) a plain line every 10,000 lines.
	bar := loadBar(r, name, stderr)
	if bar != nil {
		reader := progressbar.NewReader(r, bar)
		r = &reader
		defer bar.Finish()
	}
	stats, err := corpus.Load(ctx, r, search.LoadOpts{
		DefaultLanguage: language,
		Progress: func(p search.LoadProgress) {
			if !p.Done && bar == nil {
				fmt.Fprintf(stderr, "%s: %d lines read (%d documents)...\n", name, p.Lines, p.Documents)
			}
		},
	})
	var inputErr *search.InputError
	switch {
	case errors.As(err, &inputErr):
		fmt.Fprintf(stderr, "corpus load: %s: %v\n", name, err)
		return exitInvalid
	case err != nil:
		fmt.Fprintf(stderr, "corpus load: %s: %v\n", name, err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s: %d documents loaded: %d new, %d updated, %d unchanged, %d duplicate lines (%s)\n",
		name, stats.Documents-stats.Duplicates, stats.Inserted, stats.Updated, stats.Unchanged, stats.Duplicates, stats.Duration.Round(time.Millisecond))
	return exitOK
}

// loadBar returns a progress bar over the bytes of a file being loaded when progress goes to a
// terminal, nil otherwise (or for stdin, whose size is unknown).
func loadBar(r io.Reader, name string, progressOut io.Writer) *progressbar.ProgressBar {
	f, isFile := r.(*os.File)
	out, isTerm := progressOut.(*os.File)
	if !isFile || !isTerm || !term.IsTerminal(int(out.Fd())) {
		return nil
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	return progressbar.NewOptions64(info.Size(), progressbar.OptionSetWriter(progressOut), progressbar.OptionSetDescription(name),
		progressbar.OptionShowBytes(true), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
}

// resultLine is one --json output line.
type resultLine struct {
	Rank      int    `json:"rank"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	Snippet   string `json:"snippet"`
	Domain    string `json:"domain"`
	Publisher string `json:"publisher,omitempty"`
	// Organisation owns the domain, from source_owners (as the worker sees it).
	Organisation string     `json:"organisation,omitempty"`
	PublishedAt  *time.Time `json:"published_at,omitempty"`
	Score        float64    `json:"score"`
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var databaseURL, language, ranking string
	var limit int
	var asJSON bool
	fs := envflag.New("corpus search", "Usage: corpus search [flags] QUERY\n\nSearches the corpus as the worker does.")
	fs.String(&databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&language, "language", "CORROBORATE_SEARCH_LANGUAGE", "", "ISO 639-1 language of the query (empty: every language)")
	fs.String(&ranking, "ranking", "CORROBORATE_CORPUS_RANKING", string(search.RankingBM25Title), "ranking: "+rankingNames())
	fs.Int(&limit, "limit", "CORROBORATE_SEARCH_LIMIT", pipeline.DefaultSearchLimit, "number of results")
	fs.Bool(&asJSON, "json", "CORROBORATE_SEARCH_JSON", false, "one JSON object per line per result (rank, url, title, snippet, domain, score)")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	query := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if query == "" {
		fmt.Fprintln(stderr, "corpus search: no query: corpus search [flags] QUERY")
		return exitInvalid
	}
	if limit < 1 {
		fmt.Fprintf(stderr, "corpus search: --limit %d: give at least 1\n", limit)
		return exitInvalid
	}
	opts := search.CorpusOpts{Ranking: search.Ranking(ranking)}
	if err := opts.Validate(); err != nil {
		fmt.Fprintln(stderr, "corpus search:", err)
		return exitInvalid
	}
	pool, err := open(ctx, databaseURL, "")
	if err != nil {
		fmt.Fprintln(stderr, "corpus search:", err)
		return exitError
	}
	defer pool.Close()
	searcher := search.WithOrganisations(search.NewCorpus(pool, opts), store.New(pool).SourceOwnerMap, search.OrganisationsOpts{})
	resp, err := searcher.Search(ctx, pipeline.SearchQuery{Query: query, Language: language, Limit: limit})
	if err != nil {
		fmt.Fprintln(stderr, "corpus search:", err)
		return exitError
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, r := range resp.Results {
			_ = enc.Encode(resultLine{Rank: r.Rank, URL: r.URL, Title: r.Title, Snippet: r.Snippet, Domain: r.Domain, Publisher: r.Publisher, Organisation: r.Organisation, PublishedAt: r.PublishedAt, Score: r.Score})
		}
		return exitOK
	}
	if len(resp.Results) == 0 {
		fmt.Fprintln(stdout, "no results")
		return exitOK
	}
	for _, r := range resp.Results {
		meta := r.Domain
		if r.Publisher != "" {
			meta += ", " + r.Publisher
		}
		if r.Organisation != "" && !strings.EqualFold(r.Organisation, r.Publisher) {
			meta += ", owned by " + r.Organisation
		}
		if r.PublishedAt != nil {
			meta += ", " + r.PublishedAt.Format(time.DateOnly)
		}
		fmt.Fprintf(stdout, "%2d. %s  (%s)  score %.3f\n    %s\n    %s\n", r.Rank, r.Title, meta, r.Score, r.URL, r.Snippet)
	}
	return exitOK
}

func rankingNames() string {
	names := make([]string, len(search.Rankings))
	for i, r := range search.Rankings {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var databaseURL, dataset, schema string
	var limit, concurrency int
	var keep bool
	fs := envflag.New("corpus eval-feverous", "Usage: corpus eval-feverous [flags]\n\n"+
		"Loads FEVEROUS-S (one document per page title, its evidence lines joined) into a schema of\n"+
		"its own, queries with every claim, and prints MRR@10, hit@10 and recall@10 of a gold page\n"+
		"for every ranking and for a plain BM25 computed in Go over the same tokens.")
	fs.String(&databaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL URL")
	fs.String(&dataset, "dataset", "CORROBORATE_FEVEROUS", searcheval.FeverousPath(), "path of feverous_s_dev.json")
	fs.Env(searcheval.DatasetsEnv, searcheval.DatasetsUsage)
	fs.String(&schema, "schema", "CORROBORATE_EVAL_SCHEMA", "eval_feverous", "schema to load the benchmark corpus into (dropped and made afresh; never the corpus's own)")
	fs.Int(&limit, "limit", "CORROBORATE_EVAL_LIMIT", 0, "use only the first N claims (0: all)")
	fs.Int(&concurrency, "concurrency", "CORROBORATE_EVAL_CONCURRENCY", 4, "queries at once")
	fs.Bool(&keep, "keep", "CORROBORATE_EVAL_KEEP", false, "keep the schema afterwards, to try queries by hand")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if err := store.CheckScratchSchemaName(schema); err != nil {
		fmt.Fprintf(stderr, "corpus eval-feverous: --schema %q: %v\n", schema, err)
		return exitInvalid
	}
	docs, claims, err := searcheval.ReadFeverous(dataset)
	if err != nil {
		fmt.Fprintln(stderr, "corpus eval-feverous:", err)
		return exitInvalid
	}
	if limit > 0 && limit < len(claims) {
		claims = claims[:limit]
	}
	scratch, err := store.NewScratchSchema(ctx, databaseURL, schema)
	if err != nil {
		fmt.Fprintln(stderr, "corpus eval-feverous:", err)
		return exitError
	}
	pool, err := open(ctx, databaseURL, schema)
	if err != nil {
		fmt.Fprintln(stderr, "corpus eval-feverous:", err)
		return exitError
	}
	defer pool.Close()
	if !keep {
		defer func() {
			if err := scratch.Drop(context.WithoutCancel(ctx)); err != nil {
				fmt.Fprintln(stderr, "corpus eval-feverous:", err)
			}
		}()
	}
	scores, stats, err := searcheval.RunFeverous(ctx, pool, docs, claims, concurrency, func(line string) { fmt.Fprintln(stderr, line) })
	if err != nil {
		fmt.Fprintln(stderr, "corpus eval-feverous:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "FEVEROUS-S dev: %d claims, %d documents (one per page title, loaded in %s), top %d\n\n",
		len(claims), stats.Inserted, stats.Duration.Round(time.Millisecond), searcheval.K)
	fmt.Fprint(stdout, searcheval.Table(scores))
	return exitOK
}
