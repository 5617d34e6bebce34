package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
)

// The learning table: per number of workers, the learned run's ratio to the bound and 429
// share, and the storm run's recovery and the 429s it met outside the storm.
func TestPrintLearning(t *testing.T) {
	t.Parallel()
	cfg := Config{Headers: "none", Storm: 30 * time.Second, StormAfter: 20 * time.Second}
	results := []result{
		{scenario: scenario{mode: modeConfigured, workers: 1}, stmtsPerMin: 400, bound: 480}, // not a learned run: left out
		{scenario: scenario{mode: modeLearned, workers: 1}, stmtsPerMin: 432, bound: 480,
			provider: ratelimittest.Stats{Requests: 1000, Limited: 25}},
		{scenario: scenario{mode: modeLearned, workers: 1, storm: true}, recovery: 4500 * time.Millisecond,
			provider: ratelimittest.Stats{Requests: 1200, Limited: 230, Stormed: 200}},
		{scenario: scenario{mode: modeLearned, workers: 2, storm: true}, recovery: -1,
			provider: ratelimittest.Stats{Requests: 500, Limited: 100, Stormed: 100}},
	}
	var out bytes.Buffer
	printLearning(&out, cfg, results)
	for _, want := range []string{
		"Learned (nothing configured) from a provider sending none rate-limit headers; storm: 30s of 429s with no headers and no Retry-After, 20s into its own run;",
		"\n1       |0.900              |2.50% (25/1000) |4.5s                     |3.00% (30/1000)                         |\n",
		"\n2       |-                  |-               |not within the run       |0.00% (0/400)                           |\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the learning table does not say %q:\n%s", want, out.String())
		}
	}
	if strings.Count(out.String(), "\n") != 5 { // blank, heading, columns, two rows
		t.Errorf("want a heading, the columns and one row per number of workers:\n%s", out.String())
	}

	cfg.StormAfter, cfg.StormRetryAfter = 0, 3*time.Second
	out.Reset()
	printLearning(&out, cfg, results)
	if !strings.Contains(out.String(), "no headers and Retry-After 3, from the first request of its own run, before anything was learned;") {
		t.Errorf("a storm from the first request with a Retry-After:\n%s", out.String())
	}

	out.Reset()
	printLearning(&out, cfg, results[:1])
	if out.Len() != 0 {
		t.Errorf("no learned run, yet a table:\n%s", out.String())
	}
}

// The reuse world answers as a model that knows the true years: the plan of a one-claim
// statement, and a judgement that supports the true year and corrects another.
func TestReuseWorldReplies(t *testing.T) {
	t.Parallel()
	w := &reuseWorld{truth: map[string]int{"Alden Bridge": 1901}}
	planPrompt := pipeline.MarkerMultihopPlan + "\n<untrusted_statement lang=\"en\">\nThe Alden Bridge opened in 1901.\n</untrusted_statement>"
	var plan multihop.Plan
	if err := json.Unmarshal([]byte(w.reply(planPrompt)), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Claims) != 1 || plan.Claims[0].ClaimText != "The Alden Bridge opened in 1901" || len(plan.QueryChains) != 1 ||
		plan.QueryChains[0].Hops[0].Query != "Alden Bridge opening year" {
		t.Errorf("plan %+v", plan)
	}
	res, err := w.Search(t.Context(), pipeline.SearchQuery{Query: "Alden Bridge opening year"})
	if err != nil || len(res.Results) != 3 || w.searches.Load() != 1 {
		t.Fatalf("search: %d results, %v, %d searches", len(res.Results), err, w.searches.Load())
	}
	var sources strings.Builder
	for i, r := range res.Results {
		sources.WriteString("<source n=\"" + string(rune('1'+i)) + "\" url=\"" + r.URL + "\">\n" + r.Snippet + "\n</source>\n")
	}
	for _, tt := range []struct {
		claim, verdict, correction string
	}{
		{"The Alden Bridge opened in 1901", pipeline.VerdictSupported, ""},
		{"The Alden Bridge opened in 1903", pipeline.VerdictRefuted, "The Alden Bridge opened in 1901"},
	} {
		var judged struct {
			Verdict, Correction string
			Citations           []map[string]any
		}
		prompt := pipeline.MarkerMultihopJudge + ".\n<untrusted_claim>\n" + tt.claim + "\n</untrusted_claim>\n" + sources.String()
		if err := json.Unmarshal([]byte(w.reply(prompt)), &judged); err != nil {
			t.Fatal(err)
		}
		if judged.Verdict != tt.verdict || judged.Correction != tt.correction || len(judged.Citations) != 2 {
			t.Errorf("%q: %+v, want %s correcting to %q citing two sources", tt.claim, judged, tt.verdict, tt.correction)
		}
	}
	if got := w.reply("Write a poem."); got != "{}" {
		t.Errorf("a prompt without a claim: %q", got)
	}
	if res, _ := w.Search(t.Context(), pipeline.SearchQuery{Query: "Unknown Tower"}); len(res.Results) != 0 {
		t.Errorf("an unknown subject found %d results", len(res.Results))
	}
}
