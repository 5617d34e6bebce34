package evaluate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/store"
)

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

// DefaultJaccardFlag is spec 004's bound: two queries of one statement whose top-10 result sets
// have a Jaccard similarity above it retrieve the same evidence and are flagged.
const DefaultJaccardFlag = 0.7

// retrievalStatement is one FEVEROUS-S claim, its gold pages and the queries run for it.
type retrievalStatement struct {
	ID      int      `json:"id"`
	Text    string   `json:"text"`
	Gold    []string `json:"gold"`
	Queries []string `json:"queries"`
	// Outcome is the plan step's outcome when a model wrote the queries.
	Outcome string `json:"plan_outcome,omitempty"`
}

// planQueries asks model for each statement's plan through the multihop plan step and sets its
// queries to the ones a multihop run searches: every hop of every chain, in chain order, then
// the cross-validation queries. A statement without an accepted plan keeps no query. The queries
// run as written, without the exclusions a run adds to later hops: every FEVEROUS-S page is on
// one domain and one publisher (Wikipedia), so hop 2 of a run would exclude the whole corpus,
// and the spec measures the queries themselves.
func planQueries(ctx context.Context, model pipeline.Model, stmts []retrievalStatement, concurrency int, progress func(string)) {
	var mu sync.Mutex
	done := 0
	parallel(ctx, len(stmts), concurrency, func(i int) {
		s := &stmts[i]
		attempt, err := multihop.PlanStatement(ctx, model, pipeline.Input{Text: s.Text, Language: "en"})
		switch {
		case err != nil:
			s.Outcome = outcomeError + ": " + err.Error()
		default:
			s.Outcome = string(attempt.Outcome)
		}
		if err == nil && attempt.Outcome == multihop.PlanAccepted {
			p := attempt.Plan.Plan
			for _, ch := range p.QueryChains {
				for _, h := range ch.Hops {
					s.Queries = append(s.Queries, h.Query)
				}
			}
			for _, q := range p.CrossValidationQueries {
				s.Queries = append(s.Queries, q.QueryText)
			}
		}
		mu.Lock()
		done++
		progress(fmt.Sprintf("planned %d/%d: claim %d %s, %d queries", done, len(stmts), s.ID, s.Outcome, len(s.Queries)))
		mu.Unlock()
	})
}

// parallel runs fn for 0..n-1, at most limit at once, and waits; it starts nothing more once ctx
// is done.
func parallel(ctx context.Context, n, limit int, fn func(i int)) {
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			fn(i)
		}()
	}
	wg.Wait()
}

// queryPair is two queries of one statement and the Jaccard similarity of their top-k sets.
type queryPair struct {
	Statement int     `json:"statement"`
	A         string  `json:"a"`
	B         string  `json:"b"`
	Jaccard   float64 `json:"jaccard"`
	Flagged   bool    `json:"flagged"`
}

// retrievalReport is the retrieval evaluation's figures.
type retrievalReport struct {
	Corpus    string `json:"corpus"`
	Documents int    `json:"documents"`
	// QueriesFrom says who wrote the queries: a model's plans, or the claims themselves.
	QueriesFrom string `json:"queries_from"`
	K           int    `json:"k"`
	Statements  int    `json:"statements"`
	// Unplanned are the statements that got no query (no accepted plan).
	Unplanned int `json:"statements_without_queries"`
	// Score is searcheval's: MRR@k, hit@k and recall@k of a gold page over every query.
	Score searcheval.Score `json:"score"`
	// StatementsHit: statements with a gold page in the top k of at least one of their queries.
	StatementsHit ratio `json:"statements_with_a_gold_page"`
	// EmptyQueries: queries that returned nothing.
	EmptyQueries ratio `json:"queries_without_results"`
	// Pairs are every pair of queries within a statement; FlagAbove the spec's bound.
	Pairs       []queryPair          `json:"pairs"`
	MeanJaccard float64              `json:"mean_jaccard"`
	Flagged     int                  `json:"flagged_pairs"`
	FlagAbove   float64              `json:"flag_above"`
	Results     []retrievalStatement `json:"statements_measured"`
	// ByHops is chain retrieval per hop count (distinct gold pages): the gold pages that any
	// query of a statement returned in its top k, against those in the top k of one query with
	// the statement's text. The queries run as written, without a run's exclusions.
	ByHops []chainRecall `json:"chain_recall_by_hops"`
}

// chainRecall counts the gold pages of the statements with one hop count, and those found.
type chainRecall struct {
	Hops       int `json:"hops"`
	Statements int `json:"statements"`
	Gold       int `json:"gold_pages"`
	ChainFound int `json:"found_by_the_queries"`
	ClaimFound int `json:"found_by_the_claim_text"`
}

// resultRecorder is a Searcher that keeps the URLs each query got back, so that one run of
// searcheval.Evaluate gives both its scores and the result sets the pairs are compared on.
type resultRecorder struct {
	s pipeline.Searcher

	mu   sync.Mutex
	urls map[string][]string
}

func (r *resultRecorder) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	resp, err := r.s.Search(ctx, q)
	if err == nil {
		urls := make([]string, 0, len(resp.Results))
		for _, res := range resp.Results {
			urls = append(urls, res.URL)
		}
		r.mu.Lock()
		r.urls[q.Query] = urls
		r.mu.Unlock()
	}
	return resp, err
}

// measureRetrieval runs every query of stmts through s (top k, concurrency at a time) and
// scores it: MRR@k of a gold page by searcheval.Evaluate, and the Jaccard similarity of the
// top-k sets of every pair of queries within a statement, flagged above flagAbove.
func measureRetrieval(ctx context.Context, s pipeline.Searcher, stmts []retrievalStatement, k, concurrency int, flagAbove float64) (retrievalReport, error) {
	rep := retrievalReport{K: k, Statements: len(stmts), FlagAbove: flagAbove, Pairs: []queryPair{}, Results: stmts}
	rec := &resultRecorder{s: s, urls: map[string][]string{}}
	var queries []searcheval.Claim
	for _, st := range stmts {
		if len(st.Queries) == 0 {
			rep.Unplanned++
		}
		for _, q := range st.Queries {
			queries = append(queries, searcheval.Claim{ID: st.ID, Text: q, Gold: st.Gold})
		}
	}
	score, err := searcheval.Evaluate(ctx, "queries", rec, queries, k, concurrency)
	if err != nil {
		return rep, err
	}
	rep.Score = score
	total := 0.0
	for _, st := range stmts {
		hit := false
		for i, q := range st.Queries {
			urls := rec.urls[q]
			rep.EmptyQueries.add(b2i(len(urls) == 0), 1)
			hit = hit || slices.ContainsFunc(urls, func(u string) bool { return slices.Contains(st.Gold, u) })
			for _, other := range st.Queries[i+1:] {
				j := jaccard(urls, rec.urls[other])
				p := queryPair{Statement: st.ID, A: q, B: other, Jaccard: j, Flagged: j > flagAbove}
				rep.Pairs = append(rep.Pairs, p)
				rep.Flagged += b2i(p.Flagged)
				total += j
			}
		}
		if len(st.Queries) > 0 {
			rep.StatementsHit.add(b2i(hit), 1)
		}
		found := map[string]bool{}
		for _, q := range st.Queries {
			for _, u := range rec.urls[q] {
				found[u] = true
			}
		}
		claimTop := map[string]bool{}
		resp, err := s.Search(ctx, pipeline.SearchQuery{Query: st.Text, Language: "en", Limit: k})
		if err != nil {
			return rep, fmt.Errorf("claim %d as a query: %w", st.ID, err)
		}
		for _, r := range resp.Results {
			claimTop[r.URL] = true
		}
		hops := len(st.Gold)
		i := slices.IndexFunc(rep.ByHops, func(c chainRecall) bool { return c.Hops == hops })
		if i < 0 {
			rep.ByHops = append(rep.ByHops, chainRecall{Hops: hops})
			i = len(rep.ByHops) - 1
		}
		c := &rep.ByHops[i]
		c.Statements++
		c.Gold += len(st.Gold)
		c.ChainFound += countIn(st.Gold, found)
		c.ClaimFound += countIn(st.Gold, claimTop)
	}
	slices.SortFunc(rep.ByHops, func(a, b chainRecall) int { return a.Hops - b.Hops })
	if len(rep.Pairs) > 0 {
		rep.MeanJaccard = total / float64(len(rep.Pairs))
	}
	return rep, nil
}

// writeRetrievalTable prints the report as a markdown table with the spec's targets, then the
// flagged pairs.
func writeRetrievalTable(w io.Writer, rep retrievalReport) {
	fmt.Fprintf(w, "Retrieval (spec 004) on %s: %d statements, %d documents, queries from %s, top %d\n\n",
		rep.Corpus, rep.Statements, rep.Documents, rep.QueriesFrom, rep.K)
	fmt.Fprintln(w, "| measure | result | spec 004 target |")
	fmt.Fprintln(w, "| --- | --- | --- |")
	row := func(measure, result, target string) { fmt.Fprintf(w, "| %s | %s | %s |\n", measure, result, target) }
	row(fmt.Sprintf("MRR@%d of a gold page, over queries", rep.K), fmt.Sprintf("%.3f (%d queries)", rep.Score.MRR, rep.Score.Queries), "> 0.5 over 50 statements")
	row(fmt.Sprintf("hit@%d, recall@%d of the gold pages, over queries", rep.K, rep.K), fmt.Sprintf("%.3f, %.3f", rep.Score.Hit, rep.Score.Recall), "")
	row(fmt.Sprintf("statements with a gold page in some query's top %d", rep.K), rep.StatementsHit.String(), "")
	row("queries without results", rep.EmptyQueries.String(), "none (too narrow)")
	if rep.Unplanned > 0 {
		row("statements without queries (no accepted plan)", fmt.Sprint(rep.Unplanned), "")
	}
	pairs := fmt.Sprintf("%d, mean Jaccard %.3f", len(rep.Pairs), rep.MeanJaccard)
	if len(rep.Pairs) == 0 {
		pairs = "0 (one query per statement)"
	}
	row(fmt.Sprintf("query pairs within a statement, Jaccard of top-%d sets", rep.K), pairs, "")
	row(fmt.Sprintf("pairs above %.1f (flagged: same evidence)", rep.FlagAbove), fmt.Sprint(rep.Flagged), "none")
	row("ms per query", fmt.Sprintf("%.1f", float64(rep.Score.MeanLatency.Microseconds())/1000), "")
	if len(rep.ByHops) > 0 {
		fmt.Fprintf(w, "\n| hops (distinct gold pages) | statements | gold pages found by any query of the statement (top %d) | by one query with the claim text |\n| --- | --- | --- | --- |\n", rep.K)
		for _, c := range rep.ByHops {
			fmt.Fprintf(w, "| %d | %d | %s | %s |\n", c.Hops, c.Statements, share(c.ChainFound, c.Gold), share(c.ClaimFound, c.Gold))
		}
	}
	var flagged []string
	for _, p := range rep.Pairs {
		if p.Flagged {
			flagged = append(flagged, fmt.Sprintf("claim %d: %q and %q: %.2f", p.Statement, p.A, p.B, p.Jaccard))
		}
	}
	var unplanned []string
	for _, st := range rep.Results {
		if len(st.Queries) == 0 {
			reason := "no query"
			if st.Outcome != "" {
				reason = "plan " + st.Outcome
			}
			unplanned = append(unplanned, fmt.Sprintf("claim %d: %s", st.ID, reason))
		}
	}
	for _, l := range []struct {
		title string
		lines []string
	}{{"Flagged pairs", flagged}, {"Statements without queries", unplanned}} {
		if len(l.lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", l.title)
		for _, line := range l.lines {
			fmt.Fprintf(w, "- %s\n", line)
		}
	}
}
