package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
	"github.com/corroborate/corroborate/internal/store"
)

// `go run ./cmd/bench reuse` (issue 16, item 5): a backlog in which a share of the claims repeat,
// some verbatim and some reworded, run by the multihop method twice against the simulated
// provider, once without claim reuse and once with it (store.ClaimReuse over PostgreSQL, as the
// worker does with --reuse-within), each pass in a schema of its own. It prints the model calls,
// searches and tokens of both passes, and how many verdicts differ between them.

// reuseConfig is what `bench reuse` is told.
type reuseConfig struct {
	DatabaseURL string
	Statements  int
	Repeat      float64
	Verbatim    float64
	Concurrency int
	Latency     time.Duration
	Seed        uint64
	Keep        bool
}

func (c *reuseConfig) flags(s *envflag.Set) {
	s.String(&c.DatabaseURL, "database-url", "DATABASE_URL", "", "PostgreSQL, used in schemas of the benchmark's own (empty: a throwaway cluster)")
	s.Int(&c.Statements, "statements", "CORROBORATE_BENCH_STATEMENTS", 1000, "statements in the backlog, one claim each")
	s.Float64Var(&c.Repeat, "repeat", 0.4, "share of the statements whose claim repeats an earlier one")
	s.Float64Var(&c.Verbatim, "verbatim", 0.5, "share of the repeats that are verbatim (the others are reworded)")
	s.Int(&c.Concurrency, "concurrency", "CORROBORATE_BENCH_CONCURRENCY", 8, "statements run at once")
	s.Duration(&c.Latency, "latency", "CORROBORATE_BENCH_LATENCY", 20*time.Millisecond, "model latency (fixed)")
	s.Func("seed", "seed of the backlog (default 1)", func(v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		c.Seed = n
		return err
	})
	s.Bool(&c.Keep, "keep", "CORROBORATE_BENCH_KEEP", false, "keep the temporary folder (throwaway PostgreSQL)")
}

// reuseItem is one statement of the backlog: its claim's subject and year, the true year, and
// whether it repeats an earlier claim (verbatim or reworded).
type reuseItem struct {
	text, entity string
	year, truth  int
	kind         string // "first", "verbatim", "reworded", "near-miss"
}

// Kinds of backlog items.
const (
	itemFirst    = "first"
	itemVerbatim = "verbatim"
	itemReworded = "reworded"
	// itemNearMiss: the subject of an earlier claim with another year: another claim, which must
	// not reuse that one.
	itemNearMiss = "near-miss"
)

var (
	reuseNames = strings.Fields(`Alden Brent Corvin Dalby Elston Farrow Galen Harlow Ingram Jarvis Kendal Lowell Marlow Norcott
		Orwin Penrose Quarles Rowan Selby Thorne Upton Varley Wexford Yarrow Ashby Bramley Carlow Denholm Everly Fenwick`)
	reuseKinds = strings.Fields(`Bridge Library Museum Tower Stadium Canal Theatre Station Observatory Lighthouse Aqueduct Cathedral
		Arcade Pavilion Viaduct Harbour Gallery Market Conservatory Academy`)
	// reuseTemplates write a claim; the first is the original, the others reword it with the same
	// words (the rewordings SameClaim is meant to catch).
	reuseTemplates = []string{"The %s opened in %d.", "In %[2]d, the %[1]s opened.", "The %s was opened in %d.", "In %[2]d the %[1]s was opened."}
)

// reuseBacklog builds the backlog: distinct claims (a tenth of them near-misses of an earlier
// subject with another year), then repeats of random earlier claims, shuffled.
func reuseBacklog(cfg reuseConfig) []reuseItem {
	r := mrand.New(mrand.NewPCG(cfg.Seed, 16))
	repeats := int(float64(cfg.Statements) * cfg.Repeat)
	distinct := cfg.Statements - repeats
	entities := make([]string, 0, len(reuseNames)*len(reuseKinds))
	for _, n := range reuseNames {
		for _, k := range reuseKinds {
			entities = append(entities, n+" "+k)
		}
	}
	r.Shuffle(len(entities), func(i, j int) { entities[i], entities[j] = entities[j], entities[i] })
	truth := map[string]int{}
	var items []reuseItem
	for i := range distinct {
		it := reuseItem{kind: itemFirst}
		if i > 10 && i%10 == 0 {
			prev := items[r.IntN(len(items))]
			it.entity, it.truth, it.kind = prev.entity, prev.truth, itemNearMiss
			for it.year = prev.year; it.year == prev.year; {
				it.year = prev.truth + r.IntN(7) - 3
			}
		} else {
			it.entity = entities[len(truth)%len(entities)]
			it.truth = 1850 + r.IntN(170)
			truth[it.entity] = it.truth
			it.year = it.truth
			if r.Float64() < 0.3 { // a false claim: refuted
				it.year = it.truth + 1 + r.IntN(5)
			}
		}
		it.text = fmt.Sprintf(reuseTemplates[0], it.entity, it.year)
		items = append(items, it)
	}
	for i := range repeats {
		orig := items[r.IntN(distinct)]
		it := orig
		it.kind = itemVerbatim
		if float64(i) >= float64(repeats)*cfg.Verbatim {
			it.kind = itemReworded
			it.text = fmt.Sprintf(reuseTemplates[1+r.IntN(len(reuseTemplates)-1)], it.entity, it.year)
		}
		items = append(items, it)
	}
	r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	return items
}

// reuseWorld is what the simulated provider and the searcher know: the true year of each subject.
type reuseWorld struct {
	truth    map[string]int
	searches atomic.Int64
}

var (
	reuseYearRE   = regexp.MustCompile(`\b(1[89]\d\d|20\d\d)\b`)
	reuseEntityRE = regexp.MustCompile(`[A-Z][a-z]+ (?:` + strings.Join(reuseKinds, "|") + `)`)
)

// plan is the multihop plan of a one-claim statement: the claim is the statement, one hop.
func (w *reuseWorld) plan(statement string) string {
	claim := strings.TrimSuffix(statement, ".")
	entity := reuseEntityRE.FindString(claim)
	p := multihop.Plan{
		PlanID: "reuse",
		Claims: []multihop.PlanClaim{{ClaimID: "c1", ClaimText: claim, SourceSpan: claim, Entities: []string{entity}, Verifiable: true,
			Interpretations: []multihop.Interpretation{}, DependsOn: []string{}, SubQueries: []string{entity + " opening year"}, SourceIndependenceScore: 0.8}},
		QueryChains: []multihop.QueryChain{{ClaimID: "c1", Hops: []multihop.PlanHop{
			{HopNumber: 1, Query: entity + " opening year", TargetSourceType: "official site", ExpectedEvidenceType: "date of an event"}}}},
		CrossValidationPairs: []multihop.CrossValidationPair{}, CrossValidationQueries: []multihop.CrossValidationQuery{},
		ExecutionOrder: []string{"c1"},
	}
	raw, _ := json.Marshal(p)
	return string(raw)
}

// reply is the simulated model: the plan of the statement, or the judgement of the claim on the
// sources it was given (supported when the claim's year is the true one, else refuted).
func (w *reuseWorld) reply(prompt string) string {
	if m := pipeline.PromptStatement.FindStringSubmatch(prompt); m != nil && strings.Contains(prompt, pipeline.MarkerMultihopPlan) {
		return w.plan(m[1])
	}
	m := pipeline.PromptClaim.FindStringSubmatch(prompt)
	if m == nil {
		return "{}"
	}
	claim := m[1]
	entity := reuseEntityRE.FindString(claim)
	year, _ := strconv.Atoi(reuseYearRE.FindString(claim))
	verdict, stance, correction := pipeline.VerdictSupported, "supports", ""
	if year != w.truth[entity] {
		verdict, stance, correction = pipeline.VerdictRefuted, "refutes", fmt.Sprintf("The %s opened in %d", entity, w.truth[entity])
	}
	var cites []map[string]any
	for _, s := range pipeline.PromptSource.FindAllStringSubmatch(prompt, 2) {
		n, _ := strconv.Atoi(s[1])
		words := strings.Fields(s[3])
		cites = append(cites, map[string]any{"source": n, "passage": strings.Join(words[:min(6, len(words))], " "), "stance": stance})
	}
	raw, _ := json.Marshal(map[string]any{"verdict": verdict, "citations": cites, "reason": "The sources give the year.",
		"supported_part": "", "correction": correction, "confidence": "High"})
	return string(raw)
}

// Search answers a hop with three independent sources that give the subject's true year.
func (w *reuseWorld) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	w.searches.Add(1)
	entity := reuseEntityRE.FindString(q.Query)
	t, ok := w.truth[entity]
	if !ok {
		return pipeline.SearchResponse{Provider: "bench"}, nil
	}
	slug := strings.ToLower(strings.ReplaceAll(entity, " ", "-"))
	res := []pipeline.SearchResult{
		{URL: "https://archive.example.org/" + slug, Title: entity + " history", Domain: "archive.example.org", Publisher: "City Archive",
			Snippet: fmt.Sprintf("Records of the city archive show that the %s opened in %d after four years of work.", entity, t)},
		{URL: "https://www.encyclopedia.example.com/" + slug, Title: entity, Domain: "encyclopedia.example.com", Publisher: "Encyclopedia",
			Snippet: fmt.Sprintf("%s: a landmark whose opening year, %d, is marked by a plaque at its entrance.", entity, t)},
		{URL: "https://news.example.net/" + slug, Title: "Anniversary of the " + entity, Domain: "news.example.net", Publisher: "Daily News",
			Snippet: fmt.Sprintf("Visitors celebrated the anniversary of the day in %d when the %s first opened its doors.", t, entity)},
	}
	for i := range res {
		res[i].Rank, res[i].Provider = i+1, "bench"
	}
	return pipeline.SearchResponse{Results: res, Provider: "bench"}, nil
}

// reusePass is what one pass measured.
type reusePass struct {
	name                    string
	calls, tokens, searches int64
	// verifyCalls and verifyTokens are the calls of the judge step: the per-claim verification
	// that reuse saves (the plan call of each statement remains).
	verifyCalls, verifyTokens int64
	reused                    int
	// wrongReuse counts claims that reused another claim (another subject or year).
	wrongReuse int
	verdicts   []string
	// from is, per statement, the statement its claim was reused from (-1: verified here).
	from    []int
	elapsed time.Duration
	failed  int
}

func runReuse(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := reuseConfig{Seed: 1}
	fs := envflag.New("bench reuse", "Usage: go run ./cmd/bench reuse [flags]\n\n"+
		"Runs a backlog of one-claim statements, a share of whose claims repeat (verbatim or reworded),\n"+
		"through the multihop method against the simulated provider, without and with claim reuse, and\n"+
		"prints model calls, searches, tokens and the verdicts that differ.")
	fs.SetOutput(stderr)
	cfg.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "bench reuse:", err)
		return 2
	}
	if cfg.Statements < 10 || cfg.Repeat < 0 || cfg.Repeat >= 1 || cfg.Verbatim < 0 || cfg.Verbatim > 1 || cfg.Concurrency < 1 {
		fmt.Fprintln(stderr, "bench reuse: --statements must be at least 10, --repeat in [0, 1), --verbatim in [0, 1], --concurrency positive")
		return 2
	}
	items := reuseBacklog(cfg)
	world := &reuseWorld{truth: map[string]int{}}
	for _, it := range items {
		world.truth[it.entity] = it.truth
	}

	dir, err := os.MkdirTemp("", "corroborate-bench-reuse-")
	if err != nil {
		fmt.Fprintln(stderr, "bench reuse:", err)
		return 1
	}
	defer func() {
		if cfg.Keep {
			fmt.Fprintln(stderr, "bench reuse: kept", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	base := cfg.DatabaseURL
	if base == "" {
		// As root, the throwaway PostgreSQL runs as its own user, who must reach its folder.
		_ = os.Chmod(dir, 0o755)
		fmt.Fprintln(stderr, "bench reuse: starting a throwaway PostgreSQL")
		pg, err := devenv.StartPostgres(ctx, filepath.Join(dir, "postgres"))
		if err != nil {
			fmt.Fprintln(stderr, "bench reuse:", err)
			return 1
		}
		defer func() { _ = pg.Stop() }()
		base = pg.URL
	}
	var passes []reusePass
	for _, withReuse := range []bool{false, true} {
		p, err := reuseRun(ctx, cfg, base, items, world, withReuse, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "bench reuse:", err)
			return 1
		}
		passes = append(passes, p)
	}
	printReuseTable(stdout, cfg, items, passes)
	return 0
}

// reuseRun runs the backlog once, in a schema of its own, and measures it.
func reuseRun(ctx context.Context, cfg reuseConfig, base string, items []reuseItem, world *reuseWorld, withReuse bool, log io.Writer) (reusePass, error) {
	p := reusePass{name: "without reuse", verdicts: make([]string, len(items)), from: make([]int, len(items))}
	if withReuse {
		p.name = "with reuse"
	}
	scratch, err := store.NewScratchSchema(ctx, base, "bench_reuse_"+randomID())
	if err != nil {
		return p, err
	}
	defer func() { _ = scratch.Drop(context.WithoutCancel(ctx)) }()
	db, err := store.Open(ctx, store.Config{URL: scratch.URL, MaxConns: int32(2*cfg.Concurrency + 2)})
	if err != nil {
		return p, err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		return p, err
	}
	provider := ratelimittest.Start(ratelimittest.Config{Latency: ratelimittest.Fixed(cfg.Latency), Reply: world.reply, Seed: cfg.Seed})
	defer provider.Close()
	model, err := llm.New(llm.Config{BaseURL: provider.URL(), Model: "bench-model", Timeout: time.Minute})
	if err != nil {
		return p, err
	}
	searchesBefore := world.searches.Load()
	method := multihop.Multihop{Model: model, Searcher: world}
	fmt.Fprintf(log, "bench reuse: %s: %d statements at concurrency %d\n", p.name, len(items), cfg.Concurrency)
	started := time.Now()
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := reuseOne(ctx, db, method, items, i, withReuse, &p, &mu); err != nil {
					mu.Lock()
					p.failed++
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	p.elapsed = time.Since(started)
	if firstErr != nil {
		fmt.Fprintf(log, "bench reuse: %s: %d statements failed, the first: %v\n", p.name, p.failed, firstErr)
	}
	st := provider.Stats()
	p.calls, p.tokens, p.searches = st.Accepted, st.Tokens, world.searches.Load()-searchesBefore
	return p, nil
}

// reuseOne runs one statement as the worker would: the method with the job's claim lookup, the
// run stored in one transaction, then the job's leases released.
func reuseOne(ctx context.Context, db *store.Store, method multihop.Multihop, items []reuseItem, i int, withReuse bool, p *reusePass, mu *sync.Mutex) error {
	it := items[i]
	job := fmt.Sprintf("bench-reuse-%d", i)
	in := pipeline.Input{Text: it.text, Language: "en", Options: pipeline.Options{}.WithDefaults(), Today: time.Now()}
	var lookup *store.ClaimReuse
	if withReuse {
		lookup = db.ClaimReuse(job, 7*24*time.Hour)
		in.Verified = lookup
	}
	started := time.Now()
	res, err := method.Run(ctx, in)
	if err != nil {
		return fmt.Errorf("statement %d %q: %w", i, it.text, err)
	}
	_, err = db.SaveRun(ctx, store.RunRecord{
		Delivery:  store.Delivery{JobID: job, Stream: "BENCH", StreamSeq: uint64(i + 1), Subject: "bench.reuse", Attempt: 1, ReceivedAt: started},
		Statement: store.Statement{ExternalID: job, Text: it.text, Language: "en"},
		Method:    pipeline.MethodMultihop, RequestedMethod: pipeline.MethodMultihop, Model: "bench-model", Status: store.RunDone,
		Options: json.RawMessage(`{}`), StartedAt: started, FinishedAt: time.Now(), Result: res,
	})
	if lookup != nil {
		if rerr := lookup.Release(context.WithoutCancel(ctx)); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return fmt.Errorf("storing statement %d: %w", i, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range res.Calls {
		if c.Step != pipeline.StepPlan {
			p.verifyCalls++
			p.verifyTokens += c.PromptTokens + c.CompletionTokens
		}
	}
	p.from[i] = -1
	if len(res.Claims) > 0 {
		p.verdicts[i] = res.Claims[0].Verdict
		if from := res.Claims[0].Reuse.From; from != nil {
			p.reused++
			var k int
			if _, err := fmt.Sscanf(from.JobID, "bench-reuse-%d", &k); err == nil {
				p.from[i] = k
				if items[k].entity != it.entity || items[k].year != it.year {
					p.wrongReuse++
				}
			}
		}
	}
	return nil
}

func printReuseTable(w io.Writer, cfg reuseConfig, items []reuseItem, passes []reusePass) {
	kinds := map[string]int{}
	for _, it := range items {
		kinds[it.kind]++
	}
	fmt.Fprintf(w, "backlog: %d statements, one claim each: %d first claims, %d near-misses (an earlier subject, another year), %d verbatim repeats, %d reworded repeats (%.0f%% repeats); multihop against the simulated provider (fixed latency %s), concurrency %d, window 7d\n\n",
		len(items), kinds[itemFirst], kinds[itemNearMiss], kinds[itemVerbatim], kinds[itemReworded],
		100*float64(kinds[itemVerbatim]+kinds[itemReworded])/float64(len(items)), cfg.Latency, cfg.Concurrency)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "pass\tmodel calls\tverification calls\tsearches\ttokens\tverification tokens\tclaims reused\twrong reuses\tfailed\twall time\t")
	for _, p := range passes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", p.name, p.calls, p.verifyCalls, p.searches, p.tokens, p.verifyTokens,
			p.reused, p.wrongReuse, p.failed, p.elapsed.Round(100*time.Millisecond))
	}
	_ = tw.Flush()
	if len(passes) != 2 {
		return
	}
	a, b := passes[0], passes[1]
	saving := func(x, y int64) string {
		if x == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*(1-float64(y)/float64(x)))
	}
	fmt.Fprintf(w, "\nsavings with reuse: model calls %s (verification calls %s), searches %s, tokens %s (verification tokens %s); repeat share %.0f%%\n",
		saving(a.calls, b.calls), saving(a.verifyCalls, b.verifyCalls), saving(a.searches, b.searches), saving(a.tokens, b.tokens),
		saving(a.verifyTokens, b.verifyTokens), 100*cfg.Repeat)
	diff := map[string]int{}
	total := 0
	for i, it := range items {
		if a.verdicts[i] != b.verdicts[i] {
			diff[it.kind]++
			total++
		}
	}
	fmt.Fprintf(w, "verdicts that differ between the passes: %d of %d (%.2f%%): verbatim repeats %d of %d, reworded repeats %d of %d, near-misses %d of %d, first claims %d of %d\n",
		total, len(items), 100*float64(total)/float64(len(items)), diff[itemVerbatim], kinds[itemVerbatim], diff[itemReworded], kinds[itemReworded],
		diff[itemNearMiss], kinds[itemNearMiss], diff[itemFirst], kinds[itemFirst])
	// The least a backlog can cost is one verification per distinct claim (subject and year).
	distinct := map[string]bool{}
	for _, it := range items {
		distinct[fmt.Sprintf("%s/%d", it.entity, it.year)] = true
	}
	fmt.Fprintf(w, "distinct claims (subject and year): %d, the fewest verifications possible; verifications with reuse: %d, without: %d\n",
		len(distinct), b.verifyCalls, a.verifyCalls)
}
