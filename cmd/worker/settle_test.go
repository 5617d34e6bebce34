package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/search"
)

// Issue 22, case 5, end to end: cove2's review settles claim 3 "Eatza Pizza and Your Pie were
// not founded in the same state" from the results of claims 1 and 2, which found Arizona and
// Georgia in the PostgreSQL corpus; a dishonest reviewer that cites a claim that does not exist
// gets the cap. Claim 3 is deep (its own question finds nothing), or shallow, "The chains were
// not founded in the same state", which has no result of its own (session 37). What is asserted
// is what is stored: claim_results, claims.query_flags, the evidence rows and the run's flags.

// pizzaCorpus is a topic of its own, with no indexed word in common with the package's others.
var pizzaCorpus = []map[string]any{
	{"url": "https://en.wikipedia.org/wiki/Eatza_Pizza", "publisher": "Wikipedia", "title": "Eatza Pizza",
		"body": "Eatza Pizza was a pizza buffet restaurant chain founded in 1999 in Phoenix, Arizona."},
	{"url": "https://www.yourpie.com/about", "publisher": "Your Pie", "title": "About Your Pie",
		"body": "Your Pie Franchising, a fast casual pizza restaurant chain, was founded in 2008 in Athens, Georgia."},
}

var (
	pizzaCorpusOnce sync.Once
	pizzaCorpusErr  error
)

// pizzaBook is openBook with pizzaCorpus loaded as well, once per process.
func (b *bundle) pizzaBook(t testing.TB) {
	t.Helper()
	b.openBook(t)
	pizzaCorpusOnce.Do(func() { pizzaCorpusErr = loadCorpus(b.store.Pool(), pizzaCorpus) })
	if pizzaCorpusErr != nil {
		t.Fatalf("loading the pizza corpus: %v", pizzaCorpusErr)
	}
}

// loadCorpus loads documents, given as the corpus's JSON lines, into the corpus of pool.
func loadCorpus(pool *pgxpool.Pool, docs []map[string]any) error {
	var lines []string
	for _, d := range docs {
		raw, err := json.Marshal(d)
		if err != nil {
			return err
		}
		lines = append(lines, string(raw))
	}
	_, err := search.NewCorpus(pool, search.CorpusOpts{}).
		Load(context.Background(), strings.NewReader(strings.Join(lines, "\n")), search.LoadOpts{})
	return err
}

const (
	pizzaFounded1 = "Eatza Pizza was founded in Arizona"
	pizzaFounded2 = "Your Pie was founded in Georgia"
	pizzaNotSame  = "Eatza Pizza and Your Pie were not founded in the same state"
	pizzaShallow  = "The chains were not founded in the same state"
)

func TestCove2SettledClaimEndToEnd(t *testing.T) {
	t.Parallel()
	for _, tier := range []string{pipeline.TierDeep, pipeline.TierShallow} {
		t.Run(tier, func(t *testing.T) {
			t.Parallel()
			claim3 := deepClaim(pizzaNotSame, "In which states were Eatza Pizza and Your Pie founded?")
			if tier == pipeline.TierShallow {
				claim3 = cove2.PlanClaim{Text: pizzaShallow, Tier: pipeline.TierShallow}
			}
			testCove2SettledClaim(t, claim3)
		})
	}
}

func testCove2SettledClaim(t *testing.T, claim3 cove2.PlanClaim) {
	pizzaDraft := pizzaFounded1 + ". " + pizzaFounded2 + ". " + claim3.Text + "."
	b := setup(t)
	b.pizzaBook(t)

	// The reviewer settles claim 3 on claims 1 and 2 ("honest"), or on claim 1 and a claim 9
	// that does not exist ("dishonest"); the draft names the case.
	settledBy := map[string][]int{"honest": {1, 2}, "dishonest": {1, 9}}
	drafts := map[string]string{}
	for name := range settledBy {
		drafts[name] = b.own(pizzaDraft + " Case " + name + ".")
	}
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		if !strings.Contains(prompt, pipeline.MarkerCove2Finalize) {
			return llmtest.Response{}, false
		}
		name := "honest"
		if strings.Contains(prompt, "Case dishonest.") {
			name = "dishonest"
		}
		sources := finalizeSources(prompt)
		review := cove2.Review{
			Claims: []cove2.ClaimReview{
				{ID: 1, Status: cove2.ReviewConfirmed, Basis: sources[1]},
				{ID: 2, Status: cove2.ReviewConfirmed, Basis: sources[2]},
				{ID: 3, Status: cove2.ReviewConfirmed, Basis: append(slices.Clone(sources[1]), sources[2]...), SettledBy: settledBy[name]},
			},
			RevisedResponse: drafts[name],
		}
		return llmtest.Response{Text: mustJSON(t, review)}, true
	})
	b.cove2Model(t, cove2Script{
		plan: cove2.Plan{Draft: pizzaDraft, NeedsVerification: true, Claims: []cove2.PlanClaim{
			deepClaim(pizzaFounded1, "In which state was Eatza Pizza founded?"),
			deepClaim(pizzaFounded2, "In which state was Your Pie founded?"),
			claim3,
		}},
		// Claim 3's question, if it has one, matches neither: its verifier answers "unable to verify".
		verify: map[string]verifierAnswer{
			"state was Eatza":    {answer: "Arizona", sourcesWith: "Arizona"},
			"state was Your Pie": {answer: "Georgia", sourcesWith: "Georgia"},
		},
	})
	jobsByCase := map[string]string{}
	for name := range settledBy {
		jobsByCase[name] = b.publish(t, jobs.Message{V: 1, ID: "settle-" + name, Text: drafts[name], Method: pipeline.MethodCove2})
	}
	b.runWorkers(t, 1)

	type stored struct {
		verdict, confidence string
		citations           []int32
		passages            []map[string]any
		queryFlags          []string
		runFlags            string
		fromClaims          []int32
	}
	read := func(job string) stored {
		t.Helper()
		var s stored
		var passages []byte
		if err := b.store.Pool().QueryRow(context.Background(), `
			SELECT cr.verdict, coalesce(cr.confidence, ''), cr.citations, cr.cited_passages::text, c.query_flags, r.review_flag_details::text,
			       coalesce((SELECT array_agg(e.from_claim_position ORDER BY e.source_number) FROM evidence e
			                 WHERE e.run_id = cr.run_id AND e.claim_position = 3 AND e.source_number IS NOT NULL), '{}')
			FROM claim_results cr
			JOIN claims c ON c.run_id = cr.run_id AND c.position = cr.position
			JOIN runs r ON r.id = cr.run_id
			WHERE cr.job_id = $1 AND cr.position = 3`, job).
			Scan(&s.verdict, &s.confidence, &s.citations, &passages, &s.queryFlags, &s.runFlags, &s.fromClaims); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(passages, &s.passages); err != nil {
			t.Fatal(err)
		}
		return s
	}

	honest := read(jobsByCase["honest"])
	if honest.verdict != pipeline.VerdictSupported || honest.confidence != pipeline.ConfidenceMedium || len(honest.citations) != 2 {
		t.Errorf("honest: claim 3 stored %+v, want supported at Medium on two citations", honest)
	}
	if len(honest.passages) != 2 || !slices.Equal(honest.fromClaims, []int32{1, 2}) {
		t.Errorf("honest: claim 3's cited passages %v, from claims %v; want the passages of claims 1 and 2", honest.passages, honest.fromClaims)
	}
	if slices.Contains(honest.queryFlags, pipeline.FlagReviewNotGrounded) || strings.Contains(honest.runFlags, pipeline.FlagReviewNotGrounded) {
		t.Errorf("honest: flagged %v %v", honest.queryFlags, honest.runFlags)
	}

	dishonest := read(jobsByCase["dishonest"])
	if dishonest.verdict != pipeline.VerdictUnverified || len(dishonest.citations) != 0 || len(dishonest.passages) != 0 || len(dishonest.fromClaims) != 0 {
		t.Errorf("dishonest: claim 3 got past the cap: %+v", dishonest)
	}
	if !slices.Contains(dishonest.queryFlags, pipeline.FlagReviewNotGrounded) || !strings.Contains(dishonest.runFlags, `"code": "`+pipeline.FlagReviewNotGrounded+`", "detail": "claim 3: `) ||
		!strings.Contains(dishonest.runFlags, "there is no claim 9") {
		t.Errorf("dishonest: flags %v %v", dishonest.queryFlags, dishonest.runFlags)
	}
}
