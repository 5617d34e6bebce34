package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Ranking is how the corpus orders the documents that match a query.
type Ranking string

// Rankings the corpus offers. RankingBM25Title is the default: it measured best on FEVEROUS-S
// (see README.md beside this file); the others are there to be measured against it.
const (
	// RankingBM25Title is BM25 over title and body, a title occurrence counting TitleWeight times.
	RankingBM25Title Ranking = "bm25-title"
	// RankingBM25 is plain BM25 (k1, b) over title and body as one text.
	RankingBM25 Ranking = "bm25"
	// RankingRankCD is PostgreSQL's ts_rank_cd (normalization 0) over the OR of the query's
	// lexemes. It knows nothing of how rare a term is.
	RankingRankCD Ranking = "ts_rank_cd"
	// RankingWebsearch is websearch_to_tsquery (every term must match) ranked by ts_rank_cd: what
	// a first attempt usually does, and why it finds almost nothing for a long claim.
	RankingWebsearch Ranking = "websearch"
)

// Rankings lists every Ranking, the default first.
var Rankings = []Ranking{RankingBM25Title, RankingBM25, RankingRankCD, RankingWebsearch}

// Defaults of CorpusOpts, applied by NewCorpus.
const (
	DefaultK1          = 1.2
	DefaultB           = 0.75
	DefaultTitleWeight = 3.0
	// DefaultCandidateBudget bounds the work of one query. Every document is scored from its
	// tsvector, so a long claim's common words ("year", "city") would make most of a large
	// archive candidates. Instead candidates are the documents that contain one of the query's
	// rarest lexemes, taken rarest first while their document frequencies add up to at most
	// the budget; the other lexemes still count in every candidate's score. A document that has
	// none of the rare lexemes could only score low. DefaultCandidateMinTerms of the rarest
	// lexemes are always taken, so that a query of common words still finds something.
	DefaultCandidateBudget   = 10000
	DefaultCandidateMinTerms = 3
	// DefaultMaxLimit caps a query's Limit.
	DefaultMaxLimit = 100
)

// MaxQueryBytes bounds the query text the corpus and the web providers take; longer text is cut
// at a character boundary. A claim is a few hundred bytes.
const MaxQueryBytes = 4096

// CorpusOpts tunes the corpus. Zero fields take the defaults above.
type CorpusOpts struct {
	Ranking Ranking
	// K1 and B are BM25's term-frequency saturation and length normalization.
	K1, B float64
	// TitleWeight is how many body occurrences one title occurrence counts for in
	// RankingBM25Title.
	TitleWeight float64
	// CandidateBudget bounds the candidates a query scores (see DefaultCandidateBudget); a
	// negative value turns the bound off: every document that has any of the query's lexemes
	// is scored.
	CandidateBudget   int
	CandidateMinTerms int
	MaxLimit          int
}

func (o CorpusOpts) withDefaults() CorpusOpts {
	o.Ranking = cmp.Or(o.Ranking, RankingBM25Title)
	o.K1 = cmp.Or(o.K1, DefaultK1)
	o.B = cmp.Or(o.B, DefaultB)
	o.TitleWeight = cmp.Or(o.TitleWeight, DefaultTitleWeight)
	o.CandidateBudget = cmp.Or(o.CandidateBudget, DefaultCandidateBudget)
	o.CandidateMinTerms = cmp.Or(o.CandidateMinTerms, DefaultCandidateMinTerms)
	o.MaxLimit = cmp.Or(o.MaxLimit, DefaultMaxLimit)
	return o
}

// Validate reports every problem of o, defaults applied, in one error.
func (o CorpusOpts) Validate() error {
	if problems := o.withDefaults().validate(); len(problems) > 0 {
		return errors.New("corpus options: " + strings.Join(problems, "; "))
	}
	return nil
}

// validate lists what is wrong with o (after defaults).
func (o CorpusOpts) validate() []string {
	var problems []string
	known := false
	for _, r := range Rankings {
		known = known || r == o.Ranking
	}
	if !known {
		problems = append(problems, fmt.Sprintf("corpus ranking %q is not one of %s", o.Ranking, joinRankings()))
	}
	if o.K1 < 0 || o.B < 0 || o.B > 1 {
		problems = append(problems, fmt.Sprintf("BM25 parameters k1=%g b=%g: k1 must be >= 0 and b within [0, 1]", o.K1, o.B))
	}
	if o.TitleWeight < 1 {
		problems = append(problems, fmt.Sprintf("title weight %g must be at least 1", o.TitleWeight))
	}
	return problems
}

func joinRankings() string {
	names := make([]string, len(Rankings))
	for i, r := range Rankings {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// Corpus is the PostgreSQL corpus: the documents table, searched with full-text search and
// ranked by BM25 computed in the database. It implements pipeline.Searcher and is safe for
// concurrent use.
//
// A query is built for recall: the OR of its lexemes under the text search configuration of its
// language (stop words dropped, words stemmed), so that a long claim finds the documents that
// share its rare words instead of the none that contain all of them. Ranking does the rest:
// BM25 needs the document frequency of each lexeme and each document's length, which migration
// 00002_search.sql keeps up to date in corpus_lexemes, corpus_configs and documents.length as documents
// load; term frequencies come from the documents' tsvectors.
type Corpus struct {
	pool *pgxpool.Pool
	opts CorpusOpts

	mu      sync.Mutex
	configs map[string]bool // the server's text search configurations, read once
}

// ProviderPostgres names the corpus in results and search records.
const ProviderPostgres = "postgres"

// NewCorpus returns the corpus over pool, whose schema must be migrated
// (store.Migrate). Bad options are reported by the first Search; New validates them up front.
func NewCorpus(pool *pgxpool.Pool, opts CorpusOpts) *Corpus {
	return &Corpus{pool: pool, opts: opts.withDefaults()}
}

// Name returns ProviderPostgres.
func (c *Corpus) Name() string { return ProviderPostgres }

// Opts returns the options in effect, defaults applied.
func (c *Corpus) Opts() CorpusOpts { return c.opts }

// serverConfig returns the configuration to use for language: TSConfig's answer when the server
// has it, else SimpleConfig.
func (c *Corpus) serverConfig(ctx context.Context, language string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.configs == nil {
		rows, err := c.pool.Query(ctx, `SELECT cfgname::text FROM pg_ts_config`)
		if err != nil {
			return "", fmt.Errorf("reading the text search configurations: %w", err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return "", fmt.Errorf("reading the text search configurations: %w", err)
		}
		c.configs = map[string]bool{}
		for _, n := range names {
			c.configs[n] = true
		}
	}
	if cfg := TSConfig(language); c.configs[cfg] {
		return cfg, nil
	}
	return SimpleConfig, nil
}

// Search finds the documents for q, ranked by the corpus's Ranking, with a ts_headline snippet
// each. A query in a language searches the documents indexed with that language's
// configuration; a query with no language searches them all, each configuration with its own
// statistics. A bounded date range leaves out documents with no published date. A query with no
// text finds nothing.
func (c *Corpus) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	resp := pipeline.SearchResponse{Provider: ProviderPostgres}
	if problems := c.opts.validate(); len(problems) > 0 {
		return resp, pipeline.Permanent(fmt.Errorf("search: postgres: %s", strings.Join(problems, "; ")))
	}
	text := cleanQuery(q.Query)
	if text == "" {
		return resp, nil
	}
	configs := []string{}
	if q.Language != "" {
		cfg, err := c.serverConfig(ctx, q.Language)
		if err != nil {
			return resp, fmt.Errorf("search: postgres: %w", err)
		}
		configs = append(configs, cfg)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = pipeline.DefaultSearchLimit
	}
	limit = min(limit, c.opts.MaxLimit)

	var excludeURLs []string
	for _, u := range q.ExcludeURLs {
		excludeURLs = append(excludeURLs, urlVariants(u)...)
	}
	args := pgx.NamedArgs{
		"query":              text,
		"configs":            configs,
		"limit":              limit,
		"from":               nullTime(q.From),
		"to":                 nullTime(q.To),
		"exclude_domains":    normalizeDomains(q.ExcludeDomains),
		"exclude_urls":       nonNil(excludeURLs),
		"exclude_publishers": lowerAll(q.ExcludePublishers),
		"k1":                 c.opts.K1,
		"b":                  c.opts.B,
		"title_weight":       c.titleWeight(),
		"budget":             max(c.opts.CandidateBudget, 0),
		"min_terms":          c.opts.CandidateMinTerms,
		"headline":           headlineOptions,
		"whole_body":         wholeBodySnippet,
	}
	rows, err := c.pool.Query(ctx, rankingSQL(c.opts.Ranking), args)
	if err != nil {
		return resp, fmt.Errorf("search: postgres: %w", err)
	}
	type row struct {
		URL, Title, Snippet, Domain, Publisher string
		PublishedAt                            *time.Time
		Score                                  float64
	}
	found, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		return resp, fmt.Errorf("search: postgres: %w", err)
	}
	for i, r := range found {
		resp.Results = append(resp.Results, pipeline.SearchResult{
			URL:         r.URL,
			Title:       plainText(r.Title, maxTitleRunes),
			Snippet:     plainText(r.Snippet, maxSnippetRunes),
			Domain:      r.Domain,
			Publisher:   r.Publisher,
			PublishedAt: r.PublishedAt,
			Provider:    ProviderPostgres,
			Rank:        i + 1,
			Score:       r.Score,
		})
	}
	return resp, nil
}

func (c *Corpus) titleWeight() float64 {
	if c.opts.Ranking == RankingBM25Title {
		return c.opts.TitleWeight
	}
	return 1
}

// wholeBodySnippet is the body length (in characters) up to which a document's snippet is its
// whole body: ts_headline cuts fragments at word counts, which can drop the very fact a short
// document states ("completed on 31 March 1889" came back as "completed on 31 March").
const wholeBodySnippet = 600

// headlineOptions: plain-text snippets (no <b> markup: they go to a model, not a browser) of up
// to two fragments around the query's terms.
const headlineOptions = `MaxFragments=2, MaxWords=30, MinWords=12, StartSel="", StopSel="", FragmentDelimiter=" … "`

// cleanQuery makes any string a query PostgreSQL accepts: valid UTF-8 without NUL bytes, at most
// MaxQueryBytes long, trimmed.
func cleanQuery(s string) string {
	s = strings.ToValidUTF8(s, " ")
	s = strings.ReplaceAll(s, "\x00", " ")
	if len(s) > MaxQueryBytes {
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return strings.TrimSpace(s)
}

// orQuery is the SQL expression that turns a configuration's lexemes of the query (rows of
// terms(ts_config, lexeme)) into their OR as a tsquery. The lexemes are already normalized by
// to_tsvector, so they are quoted, not parsed again: inside quotes tsquery input takes every
// character literally once quotes and backslashes are doubled. FuzzBuildQuery holds it to that.
const orQuery = `string_agg('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''', ' | ' ORDER BY lexeme)`

// queryLexemesSQL lists the lexemes of @query under configuration cfg.ts_config.
const queryLexemesSQL = `unnest(tsvector_to_array(to_tsvector(cfg.ts_config, @query::text))) AS t(lexeme)`

// filterSQL is the WHERE clause of every ranking: date range, exclusions.
const filterSQL = `
      (@from::timestamptz IS NULL OR d.published_at >= @from::timestamptz)
  AND (@to::timestamptz IS NULL OR d.published_at < @to::timestamptz)
  AND NOT (d.domain = ANY (@exclude_domains::text[])
           OR EXISTS (SELECT 1 FROM unnest(@exclude_domains::text[]) AS e(domain)
                      WHERE right(d.domain, length(e.domain) + 1) = '.' || e.domain))
  AND d.url <> ALL (@exclude_urls::text[])
  AND lower(coalesce(d.publisher, '')) <> ALL (@exclude_publishers::text[])`

// cfgSQL selects the configurations searched, with their statistics.
const cfgSQL = `
cfg AS (
    SELECT c.ts_config, c.documents::float8 AS n,
           greatest(c.total_length::float8 / c.documents, 1) AS avgdl
    FROM corpus_configs c
    WHERE c.documents > 0
      AND (cardinality(@configs::text[]) = 0 OR c.ts_config = ANY (@configs::text[]::regconfig[]))
)`

// rankingSQL returns the search statement of a ranking. Every one returns url, title, snippet,
// domain, publisher, published_at, score, best first, at most @limit rows.
func rankingSQL(r Ranking) string {
	var queries, scored string
	switch r {
	case RankingWebsearch:
		queries = `
queries AS (
    SELECT cfg.ts_config, websearch_to_tsquery(cfg.ts_config, @query::text) AS tsq,
           websearch_to_tsquery(cfg.ts_config, @query::text) AS candidate_tsq
    FROM cfg
)`
	default:
		// terms: the query's lexemes that some document has, with their IDF (Lucene's
		// non-negative form). Candidates must share a selective lexeme with the query: the
		// rarest ones, as long as their document frequencies add up to at most @budget. The
		// CTEs are materialized: inlined, the planner misjudges the few rows of terms and
		// rescans documents once per term.
		queries = `
terms AS MATERIALIZED (
    SELECT ts_config, lexeme, avgdl,
           ln(1 + (n - df + 0.5) / (df + 0.5)) AS idf,
           (@budget::int <= 0 OR sum(df) OVER w <= @budget::int OR row_number() OVER w <= @min_terms::int) AS selective
    FROM (
        -- A subquery per lexeme, so that each is one index lookup: as a join, the planner
        -- reads every lexeme of the configuration.
        SELECT cfg.ts_config, cfg.n, cfg.avgdl, t.lexeme,
               (SELECT l.documents FROM corpus_lexemes l
                WHERE l.ts_config = cfg.ts_config AND l.lexeme = t.lexeme) AS df
        FROM cfg
        CROSS JOIN LATERAL ` + queryLexemesSQL + `
    ) s
    WHERE df > 0
    WINDOW w AS (PARTITION BY ts_config ORDER BY df, lexeme ROWS UNBOUNDED PRECEDING)
),
queries AS MATERIALIZED (
    SELECT ts_config, (` + orQuery + `)::tsquery AS tsq,
           (` + orQuery + ` FILTER (WHERE selective))::tsquery AS candidate_tsq,
           array_agg(lexeme ORDER BY lexeme) AS lexemes, array_agg(idf ORDER BY lexeme) AS idfs,
           min(avgdl) AS avgdl
    FROM terms
    GROUP BY ts_config
)`
	}
	switch r {
	case RankingRankCD, RankingWebsearch:
		scored = `
scored AS (
    SELECT d.id, ts_rank_cd(d.tsv, q.tsq)::float8 AS score
    FROM queries q
    JOIN documents d ON d.ts_config = q.ts_config AND d.tsv @@ q.tsq
    WHERE ` + filterSQL + `
    ORDER BY score DESC, d.id
    LIMIT @limit::int
)`
	default:
		// BM25 of each candidate: its tsvector gives each query lexeme's term frequency (a
		// title occurrence counting @title_weight times), queries the lexeme's IDF.
		scored = `
candidates AS MATERIALIZED (
    SELECT d.id, d.ts_config, d.tsv, d.length
    FROM queries q
    JOIN documents d ON d.ts_config = q.ts_config AND d.tsv @@ q.candidate_tsq
    WHERE ` + filterSQL + `
),
scored AS (
    SELECT c.id,
           sum(q.idfs[array_position(q.lexemes, x.lexeme)] * x.tf * (@k1::float8 + 1)
               / (x.tf + @k1::float8 * (1 - @b::float8 + @b::float8 * c.length / q.avgdl))) AS score
    FROM candidates c
    JOIN queries q ON q.ts_config = c.ts_config
    CROSS JOIN LATERAL (
        SELECT u.lexeme,
               cardinality(u.positions)
               + (@title_weight::float8 - 1) * cardinality(array_positions(u.weights, 'A')) AS tf
        FROM unnest(c.tsv) AS u
        WHERE u.lexeme = ANY (q.lexemes)
    ) x
    GROUP BY c.id
    ORDER BY score DESC, c.id
    LIMIT @limit::int
)`
	}
	return `WITH ` + cfgSQL + `,` + queries + `,` + scored + `
SELECT d.url, d.title,
       CASE WHEN length(d.body) <= @whole_body THEN d.body ELSE ts_headline(d.ts_config, d.body, q.tsq, @headline::text) END,
       d.domain,
       coalesce(d.publisher, ''), d.published_at, s.score
FROM scored s
JOIN documents d ON d.id = s.id
JOIN queries q ON q.ts_config = d.ts_config
ORDER BY s.score DESC, d.id`
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// nonNil returns s, or an empty slice for nil: pgx sends a nil slice as NULL, and "x <> ALL
// (NULL)" is NULL, which would exclude every row.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func lowerAll(s []string) []string {
	out := []string{}
	for _, v := range s {
		if v = strings.ToLower(strings.TrimSpace(v)); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func normalizeDomains(s []string) []string {
	out := []string{}
	for _, v := range s {
		if d := Domain(v); d != "" {
			out = append(out, d)
		}
	}
	return out
}
