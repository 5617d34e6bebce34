package searcheval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
)

// WriteJSONL writes docs in the corpus loader's input format.
func WriteJSONL(w io.Writer, docs []search.Document) error {
	enc := json.NewEncoder(w)
	for _, d := range docs {
		line := map[string]any{"url": d.URL, "title": d.Title, "body": d.Body, "language": d.Language}
		if d.Publisher != "" {
			line["publisher"] = d.Publisher
		}
		if d.PublishedAt != nil {
			line["published_at"] = d.PublishedAt.Format(time.RFC3339)
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// Score is how well one ranking did over a query set.
type Score struct {
	Name    string
	Queries int
	// MRR is the mean over queries of 1/rank of the first gold page in the top K (0 when none).
	MRR float64
	// Hit is the share of queries with a gold page in the top K.
	Hit float64
	// Recall is the mean over queries of the share of their gold pages in the top K.
	Recall float64
	// MeanLatency is the mean time of one search.
	MeanLatency time.Duration
	K           int
}

// Evaluate runs every claim through s (Language "en", Limit k), concurrency at a time, and
// scores the rankings. A failed search fails the evaluation.
func Evaluate(ctx context.Context, name string, s pipeline.Searcher, claims []Claim, k, concurrency int) (Score, error) {
	type outcome struct {
		rr, recall float64
		hit        bool
		latency    time.Duration
		err        error
	}
	outcomes := make([]outcome, len(claims))
	concurrency = max(concurrency, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := claims[i]
				start := time.Now()
				resp, err := s.Search(ctx, pipeline.SearchQuery{Query: c.Text, Language: "en", Limit: k})
				o := outcome{latency: time.Since(start), err: err}
				if err == nil {
					o.rr, o.hit, o.recall = judge(resp.Results, c.Gold, k)
				}
				outcomes[i] = o
			}
		}()
	}
	for i := range claims {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Score{}, err
	}
	sc := Score{Name: name, Queries: len(claims), K: k}
	var latency time.Duration
	for i, o := range outcomes {
		if o.err != nil {
			return Score{}, fmt.Errorf("%s: claim %d: %w", name, claims[i].ID, o.err)
		}
		sc.MRR += o.rr
		sc.Recall += o.recall
		if o.hit {
			sc.Hit++
		}
		latency += o.latency
	}
	if n := float64(len(claims)); n > 0 {
		sc.MRR /= n
		sc.Recall /= n
		sc.Hit /= n
		sc.MeanLatency = latency / time.Duration(len(claims))
	}
	return sc, nil
}

// judge scores one ranking against its gold URLs.
func judge(results []pipeline.SearchResult, gold []string, k int) (rr float64, hit bool, recall float64) {
	found := 0
	for i, r := range results {
		if i == k {
			break
		}
		if slices.Contains(gold, r.URL) {
			if !hit {
				rr, hit = 1/float64(i+1), true
			}
			found++
		}
	}
	if len(gold) > 0 {
		recall = float64(found) / float64(len(gold))
	}
	return rr, hit, recall
}

// Table renders scores as a markdown table.
func Table(scores []Score) string {
	var b strings.Builder
	k := 10
	if len(scores) > 0 {
		k = scores[0].K
	}
	fmt.Fprintf(&b, "| query and ranking | MRR@%d | hit@%d | recall@%d | ms/query |\n", k, k, k)
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	for _, s := range scores {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.1f |\n", s.Name, s.MRR, s.Hit, s.Recall, float64(s.MeanLatency.Microseconds())/1000)
	}
	return b.String()
}

// Reference is plain BM25 computed in Go, exhaustively over every document, from the tokens
// PostgreSQL indexed (the documents' tsvectors; the query's lexemes by to_tsvector under the
// same configuration): the baseline the corpus's ranking must reach. It implements
// pipeline.Searcher for Evaluate.
type Reference struct {
	pool        *pgxpool.Pool
	config      string
	K1, B       float64
	TitleWeight float64

	urls     []string
	lengths  []float64
	avgdl    float64
	postings map[string][]posting
}

type posting struct {
	doc       int
	tf, title float64
}

// NewReference reads the tsvectors of the documents indexed under config ("english") into an
// inverted index.
func NewReference(ctx context.Context, pool *pgxpool.Pool, config string) (*Reference, error) {
	rows, err := pool.Query(ctx, `
		SELECT d.url, d.length, u.lexeme, cardinality(u.positions), cardinality(array_positions(u.weights, 'A'))
		FROM documents d, unnest(d.tsv) AS u
		WHERE d.ts_config = $1::regconfig
		ORDER BY d.url`, config)
	if err != nil {
		return nil, fmt.Errorf("reference BM25: reading the index: %w", err)
	}
	ref := &Reference{pool: pool, config: config, K1: search.DefaultK1, B: search.DefaultB, TitleWeight: 1, postings: map[string][]posting{}}
	var url, lexeme string
	var length, tf, title int
	_, err = pgx.ForEachRow(rows, []any{&url, &length, &lexeme, &tf, &title}, func() error {
		if n := len(ref.urls); n == 0 || ref.urls[n-1] != url {
			ref.urls = append(ref.urls, url)
			ref.lengths = append(ref.lengths, float64(length))
		}
		doc := len(ref.urls) - 1
		ref.postings[lexeme] = append(ref.postings[lexeme], posting{doc: doc, tf: float64(tf), title: float64(title)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reference BM25: reading the index: %w", err)
	}
	total := 0.0
	for _, l := range ref.lengths {
		total += l
	}
	ref.avgdl = max(total/math.Max(float64(len(ref.lengths)), 1), 1)
	return ref, nil
}

// Documents is the number of documents in the index.
func (r *Reference) Documents() int { return len(r.urls) }

// Search ranks every document containing a query lexeme by BM25 and returns the top Limit.
func (r *Reference) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	resp := pipeline.SearchResponse{Provider: "bm25-go"}
	var lexemes []string
	if err := r.pool.QueryRow(ctx, `SELECT tsvector_to_array(to_tsvector($1::regconfig, $2))`, r.config, q.Query).Scan(&lexemes); err != nil {
		return resp, fmt.Errorf("reference BM25: query lexemes: %w", err)
	}
	n := float64(len(r.urls))
	scores := map[int]float64{}
	for _, l := range lexemes {
		ps := r.postings[l]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := p.tf + (r.TitleWeight-1)*p.title
			scores[p.doc] += idf * tf * (r.K1 + 1) / (tf + r.K1*(1-r.B+r.B*r.lengths[p.doc]/r.avgdl))
		}
	}
	docs := make([]int, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if scores[docs[i]] != scores[docs[j]] {
			return scores[docs[i]] > scores[docs[j]]
		}
		return r.urls[docs[i]] < r.urls[docs[j]]
	})
	limit := cmp.Or(q.Limit, pipeline.DefaultSearchLimit)
	for i, d := range docs {
		if i == limit {
			break
		}
		resp.Results = append(resp.Results, pipeline.SearchResult{URL: r.urls[d], Rank: i + 1, Score: scores[d], Provider: resp.Provider})
	}
	return resp, nil
}

// K is the cut-off of the benchmark's metrics.
const K = 10

// Variant is one ranking the benchmark measures.
type Variant struct {
	Name string
	Opts search.CorpusOpts
}

// Variants are the corpus rankings the benchmark compares, the default last.
var Variants = []Variant{
	{"websearch_to_tsquery (every term must match) + ts_rank_cd", search.CorpusOpts{Ranking: search.RankingWebsearch}},
	{"OR of the claim's lexemes + ts_rank_cd", search.CorpusOpts{Ranking: search.RankingRankCD}},
	{"OR + BM25 in PostgreSQL, every matching document scored", search.CorpusOpts{Ranking: search.RankingBM25, CandidateBudget: -1}},
	{"OR + BM25 in PostgreSQL, candidates cut to a budget of 100 documents (5% of this corpus)", search.CorpusOpts{Ranking: search.RankingBM25, CandidateBudget: 100}},
	{"OR + BM25 in PostgreSQL", search.CorpusOpts{Ranking: search.RankingBM25}},
	{"OR + BM25 in PostgreSQL, title x2", search.CorpusOpts{Ranking: search.RankingBM25Title, TitleWeight: 2}},
	{"OR + BM25 in PostgreSQL, title x3 (the default)", search.CorpusOpts{}},
}

// LoadCorpus loads docs into the corpus on pool through the corpus loader (as `corpus load`
// would load them from a JSONL file), in one transaction.
func LoadCorpus(ctx context.Context, pool *pgxpool.Pool, docs []search.Document) (search.LoadStats, error) {
	var input strings.Builder
	if err := WriteJSONL(&input, docs); err != nil {
		return search.LoadStats{}, err
	}
	return search.NewCorpus(pool, search.CorpusOpts{}).Load(ctx, strings.NewReader(input.String()), search.LoadOpts{})
}

// RunFeverous loads docs into the corpus on pool (a schema of the benchmark's own), then scores
// every Variant and the Go reference BM25 (plain, and with the default title weight) on claims.
// progress hears one line per step.
func RunFeverous(ctx context.Context, pool *pgxpool.Pool, docs []search.Document, claims []Claim, concurrency int, progress func(string)) ([]Score, search.LoadStats, error) {
	stats, err := LoadCorpus(ctx, pool, docs)
	if err != nil {
		return nil, stats, err
	}
	progress(fmt.Sprintf("loaded %d documents in %s", stats.Inserted+stats.Updated+stats.Unchanged, stats.Duration.Round(time.Millisecond)))
	var scores []Score
	ref, err := NewReference(ctx, pool, "english")
	if err != nil {
		return nil, stats, err
	}
	for _, tw := range []float64{1, search.DefaultTitleWeight} {
		ref.TitleWeight = tw
		name := "plain BM25 computed in Go over the same tokens (reference)"
		if tw != 1 {
			name = fmt.Sprintf("BM25 computed in Go, title x%g", tw)
		}
		sc, err := Evaluate(ctx, name, ref, claims, K, concurrency)
		if err != nil {
			return nil, stats, err
		}
		progress(fmt.Sprintf("%s: MRR@%d %.3f", name, K, sc.MRR))
		scores = append(scores, sc)
	}
	for _, v := range Variants {
		sc, err := Evaluate(ctx, v.Name, search.NewCorpus(pool, v.Opts), claims, K, concurrency)
		if err != nil {
			return nil, stats, err
		}
		progress(fmt.Sprintf("%s: MRR@%d %.3f", v.Name, K, sc.MRR))
		scores = append(scores, sc)
	}
	return scores, stats, nil
}
