package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/testenv"
)

// evaluate runs the command and returns its exit status, stdout and stderr.
func evaluate(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// testClaim is one claim of a scripted plan. Its hops default to two reformulations of its
// text; an ambiguous claim (note set) searches one hop per reading.
type testClaim struct {
	text, span string
	hops       []string
	opinion    bool
	note       string
}

// testPlan is a scripted plan reply; cross is its cross-validation query, made up from the
// first two verifiable claims when empty and there are two.
func testPlan(cross string, claims ...testClaim) multihop.Plan {
	p := multihop.Plan{PlanID: "scripted", Claims: []multihop.PlanClaim{}, QueryChains: []multihop.QueryChain{},
		CrossValidationPairs: []multihop.CrossValidationPair{}, CrossValidationQueries: []multihop.CrossValidationQuery{}, ExecutionOrder: []string{}}
	var verifiable []int
	for i, c := range claims {
		id := multihop.ClaimID(i)
		pc := multihop.PlanClaim{ClaimID: id, ClaimText: c.text, SourceSpan: c.span, Entities: []string{}, Verifiable: !c.opinion,
			AmbiguityNote: c.note, Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
			SubQueries: []string{c.text + " archive"}, SourceIndependenceScore: 0.8}
		hops := c.hops
		if hops == nil {
			hops = []string{c.text + " official record", c.text + " encyclopedia entry"}
		}
		if c.note != "" {
			hops = []string{c.text + " alpha variant", c.text + " beta option"}
			for j, h := range hops {
				pc.Interpretations = append(pc.Interpretations, multihop.Interpretation{Reading: fmt.Sprintf("reading %d", j+1), Query: h})
			}
		}
		p.Claims = append(p.Claims, pc)
		if c.opinion {
			continue
		}
		verifiable = append(verifiable, i)
		ch := multihop.QueryChain{ClaimID: id}
		for j, h := range hops {
			ch.Hops = append(ch.Hops, multihop.PlanHop{HopNumber: j + 1, Query: h, TargetSourceType: "encyclopedia", ExpectedEvidenceType: "fact"})
		}
		p.QueryChains = append(p.QueryChains, ch)
		p.ExecutionOrder = append(p.ExecutionOrder, id)
	}
	if len(verifiable) >= 2 {
		a, b := verifiable[0], verifiable[1]
		if cross == "" {
			cross = "relationship " + claims[a].text + " " + claims[b].text
		}
		p.CrossValidationPairs = append(p.CrossValidationPairs, multihop.CrossValidationPair{ClaimAID: multihop.ClaimID(a), ClaimBID: multihop.ClaimID(b), Relationship: "same subject"})
		p.CrossValidationQueries = append(p.CrossValidationQueries, multihop.CrossValidationQuery{QueryText: cross, TargetClaimIndices: []int{a, b}})
	}
	return p
}

// reply encodes p after checking that it breaks exactly the rules the script means it to: a
// scripted plan that is wrong by accident would make the expected figures wrong.
func reply(t *testing.T, statement string, p multihop.Plan, wantBroken ...string) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	_, violations := multihop.ValidatePlan(string(b), multihop.PlanContext{Statement: statement})
	var broken []string
	for _, v := range violations {
		broken = append(broken, v.Rule)
	}
	if strings.Join(broken, ",") != strings.Join(wantBroken, ",") {
		t.Fatalf("scripted plan of %q breaks %v, want %v: %v", statement, broken, wantBroken, violations)
	}
	return string(b)
}

// benchLine is one factcheck-bench record with one sentence.
func benchLine(text, decontext string, claims []string, labels []string) string {
	b, _ := json.Marshal(map[string]any{"sentences": map[string]any{"sentence1": map[string]any{
		"text": text, "decontext": decontext, "claims": claims, "claim_checkworthiness": labels}}})
	return string(b)
}

const (
	obama  = "Barack Obama was born in Honolulu, Hawaii, to a mother from Kansas and a father from Kenya."
	bridge = "The Golden Gate Bridge opened in 1937 and spans 1280 metres."
	summit = "Mount Everest is the highest mountain on Earth."
	python = "Python is a programming language created by Guido van Rossum and it is the best language."
)

// scriptPlans writes four factcheck-bench statements and scripts the fake model's plans for
// them and for the built-in ambiguous statements:
//
//	obama   first reply valid, 3 claims, all 3 gold claims recalled
//	bridge  first reply: 2 claims, 1 without a span, 1 near-duplicate pair of hops; the
//	        repair keeps the opening claim only (merging both into one claim would break
//	        claim_not_atomic), which recalls 1 of the 2 gold claims
//	summit  first reply: 1 claim without a span; the repair is not JSON: no plan, 0 of 1
//	python  first reply valid: a factual claim (recalled) and an opinion; the opinion gold
//	        claim is not a gold claim
//	ambiguous statements 1-9 noted, 10-12 not
func scriptPlans(t *testing.T, model *llmtest.Server) string {
	t.Helper()
	model.Reply(obama, reply(t, obama, testPlan("",
		testClaim{text: "Barack Obama was born in Honolulu, Hawaii", span: "Barack Obama was born in Honolulu, Hawaii"},
		testClaim{text: "Barack Obama's mother was from Kansas", span: "to a mother from Kansas"},
		testClaim{text: "Barack Obama's father came from Kenya", span: "a father from Kenya"})))
	bridgeFirst := testPlan("",
		testClaim{text: "The Golden Gate Bridge opened in 1937", span: "The Golden Gate Bridge opened in 1937",
			hops: []string{"Golden Gate Bridge opening day 1937", "1937 Golden Gate Bridge opening day", "San Francisco bridge history"}},
		testClaim{text: "The Golden Gate Bridge spans 1280 metres", span: "spans 300 metres"})
	model.Reply(bridge, reply(t, bridge, bridgeFirst, multihop.RuleClaimHasSpan, multihop.RuleQueriesDistinct)).Once()
	model.Reply(bridge, reply(t, bridge, testPlan("",
		testClaim{text: "The Golden Gate Bridge opened in 1937", span: "The Golden Gate Bridge opened in 1937"})))
	model.Reply(summit, reply(t, summit, testPlan("",
		testClaim{text: "Mount Everest is the highest mountain on Earth", span: "Everest is the tallest peak"}), multihop.RuleClaimHasSpan)).Once()
	model.Reply(summit, "I am sorry, I cannot produce a plan for this.")
	model.Reply(python, reply(t, python, testPlan("",
		testClaim{text: "Python is a programming language created by Guido van Rossum", span: "Python is a programming language created by Guido van Rossum"},
		testClaim{text: "Python is the best language", span: "it is the best language", opinion: true})))
	for i, a := range ambiguousStatements {
		c := testClaim{text: strings.TrimSuffix(a.Text, "."), span: a.Text}
		if i < 9 {
			c.note = "which one is meant is not stated: " + a.Why
		}
		model.Reply(a.Text, reply(t, a.Text, testPlan("", c)))
	}
	return testenv.WriteFile(t, "bench.jsonl", strings.Join([]string{
		benchLine("He was born in Honolulu, Hawaii, to a mother from Kansas and a father from Kenya.", obama,
			[]string{"Barack Obama was born in Honolulu, Hawaii.", "Barack Obama's mother was from Kansas.", "Barack Obama's father was from Kenya."},
			[]string{"factual", "factual", "factual"}),
		benchLine(bridge, bridge, []string{"The Golden Gate Bridge opened in 1937.", "The Golden Gate Bridge spans 1280 metres."}, []string{"factual", "factual"}),
		benchLine(summit, summit, []string{"Mount Everest is the highest mountain on Earth."}, []string{"factual"}),
		benchLine(python, python, []string{"Python is a programming language created by Guido van Rossum.", "Python is the best language."}, []string{"factual", "opinion"}),
	}, "\n")+"\n")
}

// TestPlansOnTheFakeModel proves the plan arithmetic: every figure of the report, computed by
// hand from the script (see scriptPlans).
func TestPlansOnTheFakeModel(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t)
	dataset := scriptPlans(t, model)
	code, out, errOut := evaluate(t, "plans", "--openai-base-url", model.URL(), "--model", "fake", "--dataset", dataset, "--n", "20", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep planReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// 16 statements planned: 4 of factcheck-bench and 12 ambiguous; 2 of them needed a repair.
	checks := []struct {
		name      string
		got, want ratio
	}{
		{"schema compliance, first reply (bridge and summit fail)", rep.FirstCompliance, ratio{14, 16}},
		{"schema compliance after one repair (summit fails)", rep.Compliance, ratio{15, 16}},
		{"claim recall: 3 + 1 + 0 + 1 of 3 + 2 + 1 + 1", rep.Recall, ratio{5, 7}},
		{"claim recall over accepted plans", rep.RecallAccepted, ratio{5, 6}},
		{"statements fully recalled (obama, python)", rep.StatementsFullyRecalled, ratio{2, 4}},
		{"hallucinated, first replies: 3 + 2 + 1 + 2 + 12 claims", rep.HallucinatedFirst, ratio{2, 20}},
		{"hallucinated, final replies: 3 + 1 + 0 + 2 + 12 claims", rep.HallucinatedFinal, ratio{0, 18}},
		{"ambiguity noted", rep.AmbiguityNoted, ratio{9, 12}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if rep.NearDuplicatesFirst != 1 || rep.NearDuplicatesFinal != 0 {
		t.Errorf("near-duplicate pairs: %d first, %d final; want 1, 0", rep.NearDuplicatesFirst, rep.NearDuplicatesFinal)
	}
	if rep.Statements != 4 || rep.Ambiguous != 12 || rep.ModelCalls != 18 || model.Count() != 18 || rep.Rejected != 0 || rep.Errors != 0 {
		t.Errorf("%d + %d statements, %d calls (server %d), %d rejected, %d errors; want 4 + 12, 18 calls",
			rep.Statements, rep.Ambiguous, rep.ModelCalls, model.Count(), rep.Rejected, rep.Errors)
	}
	if rep.RulesBrokenFirst[multihop.RuleClaimHasSpan] != 2 || rep.RulesBrokenFirst[multihop.RuleQueriesDistinct] != 1 || len(rep.RulesBrokenFirst) != 2 {
		t.Errorf("rules broken by first replies: %v", rep.RulesBrokenFirst)
	}
	for _, r := range rep.Results {
		if r.ID == "2/sentence1" && (len(r.Missed) != 1 || r.Missed[0].Gold != "The Golden Gate Bridge spans 1280 metres." || math.Abs(r.Missed[0].Overlap-0.375) > 1e-9) {
			t.Errorf("bridge: missed %+v, want the span claim, closest at 3/8 to the opening claim", r.Missed)
		}
	}
	// The decontextualised sentence is what the model was asked about.
	if prompts := strings.Join(model.Prompts(), "\n"); strings.Contains(prompts, "He was born in Honolulu") {
		t.Error("the model was sent the sentence with its pronoun, not the decontextualised statement")
	}

	// The same script on a fresh server (the first run used up its Once rules), printed.
	model = llmtest.NewServer(t)
	dataset = scriptPlans(t, model)
	code, table, errOut := evaluate(t, "plans", "--openai-base-url", model.URL(), "--model", "fake", "--dataset", dataset)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, table, errOut)
	}
	t.Logf("evaluate plans on the fake model:\n%s", table)
	for _, want := range []string{
		"| schema compliance, first reply | 14/16 = 0.875 |",
		"| schema compliance, after one repair | 15/16 = 0.938 |",
		"| claim recall vs gold claims (token overlap >= 0.50, one to one) | 5/7 = 0.714 |",
		"| hallucinated claims (no span in the statement), first reply | 2/20 = 0.100 |",
		"| near-duplicate query pairs (> 80% token overlap), first reply | 1 |",
		"| ambiguous statements with an ambiguity note or several readings | 9/12 = 0.750 |",
		"Rules broken by first replies: claim_maps_to_span 2, queries_not_near_duplicates 1",
		`- 3/sentence1: "Mount Everest is the highest mountain on Earth." (no claim)`,
		`- "Java was first released in 1995." (plan accepted): treated as one precise claim`,
		"- 3/sentence1 invalid: still invalid after its repair: plan_is_json",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

func TestPlansConfiguration(t *testing.T) {
	t.Parallel()
	code, _, errOut := evaluate(t, "plans", "--n", "0", "--match-threshold", "1.5")
	// The model may be configured by the environment; the two bad flags are reported either way.
	if code != exitInvalid || !strings.Contains(errOut, "--n 0") || !strings.Contains(errOut, `--match-threshold "1.5"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	model := llmtest.NewServer(t)
	code, _, errOut = evaluate(t, "plans", "--openai-base-url", model.URL(), "--dataset", "/nonexistent/bench.jsonl")
	if code != exitInvalid || !strings.Contains(errOut, "give --dataset the path") || model.Count() != 0 {
		t.Errorf("missing dataset: exit %d: %s", code, errOut)
	}
	if code, _, errOut = evaluate(t, "retrieval", "--queries", "everything", "--schema", "Public"); code != exitInvalid ||
		!strings.Contains(errOut, `--queries "everything"`) || !strings.Contains(errOut, `--schema "Public"`) {
		t.Errorf("retrieval: exit %d: %s", code, errOut)
	}
	if code, _, _ = evaluate(t, "judge"); code != exitInvalid {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, _, _ = evaluate(t, "plans", "--help"); code != exitOK {
		t.Errorf("--help: exit %d", code)
	}
}

// A model failure is reported, and the evaluation says it is incomplete.
func TestPlansModelFailure(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t)
	model.Fail("", 500, "")
	dataset := testenv.WriteFile(t, "bench.jsonl", benchLine(summit, summit, []string{"Mount Everest is the highest mountain on Earth."}, []string{"factual"})+"\n")
	code, out, errOut := evaluate(t, "plans", "--openai-base-url", model.URL(), "--dataset", dataset, "--ambiguous=false")
	if code != exitError || !strings.Contains(errOut, "1 statements got no plan because a model call failed") ||
		!strings.Contains(out, "| left out: inputs multihop rejects, failed model calls | 0, 1 |") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// feverous returns the FEVEROUS-S path, or skips (one line) where the data sets are absent.
func feverous(t *testing.T) string {
	t.Helper()
	return testenv.Dataset(t, searcheval.FeverousFile)
}

// TestRetrievalOnFeverousClaims loads all of FEVEROUS-S into real PostgreSQL and queries with
// the first 60 claims themselves (no model): the corpus's default ranking reaches MRR@10 0.97
// there (cmd/corpus eval-feverous), far above spec 004's 0.5.
func TestRetrievalOnFeverousClaims(t *testing.T) {
	t.Parallel()
	path := feverous(t)
	code, out, errOut := evaluate(t, "retrieval", "--feverous", path, "--limit", "60", "--queries", "claims",
		"--database-url", testenv.DatabaseURL(t), "--schema", "test_evaluate_claims", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep retrievalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Documents != 1957 || rep.Statements != 60 || rep.Score.Queries != 60 || len(rep.Pairs) != 0 || rep.K != 10 {
		t.Fatalf("%d documents, %d statements, %d queries, %d pairs, k %d", rep.Documents, rep.Statements, rep.Score.Queries, len(rep.Pairs), rep.K)
	}
	if rep.Score.MRR < 0.8 || rep.Score.MRR > 1 || rep.Score.Hit < rep.Score.MRR || rep.StatementsHit.Rate() != rep.Score.Hit {
		t.Errorf("MRR@10 %.3f, hit@10 %.3f, statements hit %v: out of bounds", rep.Score.MRR, rep.Score.Hit, rep.StatementsHit)
	}
}

// feverousFixture is a FEVEROUS-S file of our own in the data set's format (five made-up pages,
// five claims with evidence): the retrieval command is tested with it on a plain clone.
const feverousFixture = "../../internal/search/searcheval/testdata/feverous_fixture.json"

// TestRetrievalOnTheFixture runs evaluate retrieval end to end, on the claims themselves (no
// model), over the fixture loaded into real PostgreSQL.
func TestRetrievalOnTheFixture(t *testing.T) {
	t.Parallel()
	code, out, errOut := evaluate(t, "retrieval", "--feverous", feverousFixture, "--limit", "0", "--queries", "claims",
		"--database-url", testenv.DatabaseURL(t), "--schema", "test_evaluate_fixture", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep retrievalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Documents != 5 || rep.Statements != 5 || rep.Score.Queries != 5 || len(rep.Pairs) != 0 || rep.K != 10 {
		t.Fatalf("%d documents, %d statements, %d queries, %d pairs, k %d", rep.Documents, rep.Statements, rep.Score.Queries, len(rep.Pairs), rep.K)
	}
	if rep.Score.Hit != 1 || rep.Score.MRR < 0.5 || rep.StatementsHit != (ratio{5, 5}) {
		t.Errorf("MRR@10 %.3f, hit@10 %.3f, statements hit %v: each claim names its page", rep.Score.MRR, rep.Score.Hit, rep.StatementsHit)
	}
}

// With no data set named, retrieval says what to set.
func TestRetrievalWithoutADataset(t *testing.T) {
	t.Setenv("CORROBORATE_DATASETS", "")
	t.Setenv("CORROBORATE_FEVEROUS", "")
	code, out, errOut := evaluate(t, "retrieval", "--queries", "claims", "--database-url", testenv.DatabaseURL(t), "--schema", "test_evaluate_none")
	if code == exitOK || !strings.Contains(out+errOut, "set CORROBORATE_DATASETS to the directory that holds feverous-s/feverous_s_dev.json") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = evaluate(t, "plans", "--openai-base-url", "http://127.0.0.1:1/v1", "--ambiguous=false")
	if code == exitOK || !strings.Contains(out+errOut, "set CORROBORATE_DATASETS to the directory that holds factcheck-bench/factcheck-GPT-benchmark.jsonl") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// Hops of the scripted plan for the FEVEROUS-S claim about Harriet Shing. shingCouncil and
// shingMember share a third of their words (the plan rules pass them: the near-duplicate bound
// is 80%) yet retrieve nine of the same ten pages: spec 004's "identical retrieval results in a
// controlled test index", which only the Jaccard measurement catches.
const (
	shingRegion  = "Harriet Shing Eastern Victoria Region member"
	shingCouncil = "Victorian Legislative Council Labor members 2014"
	shingMember  = "Harriet Shing Victorian Legislative Council member"
)

// TestRetrievalOnFakeModelPlans: the queries of scripted plans for two FEVEROUS-S claims run on
// the real corpus; every pair within a claim is compared, and the pair that retrieves the same
// pages is flagged while the pairs that retrieve different evidence are not.
func TestRetrievalOnFakeModelPlans(t *testing.T) {
	t.Parallel()
	path := feverous(t)
	_, claims, err := searcheval.ReadFeverous(path)
	if err != nil {
		t.Fatal(err)
	}
	plantation, shing := claims[0].Text, claims[1].Text
	if !strings.HasPrefix(plantation, "The Glenn–Thompson Plantation") || !strings.HasPrefix(shing, "Harrier Shing") {
		t.Fatalf("the dataset's first claims changed: %q, %q", plantation, shing)
	}
	model := llmtest.NewServer(t)
	model.Reply(plantation, reply(t, plantation, testPlan("Glenn–Thompson Plantation Cedar Heights 1840 additions marble",
		testClaim{text: "The Glenn–Thompson Plantation is a historic plantation house near Pittsview in Russell County, Alabama",
			span: "The Glenn–Thompson Plantation, a historic plantation house near Pittsview in Russell County, Alabama",
			hops: []string{"Glenn–Thompson Plantation Pittsview Alabama", "Glenn–Thompson Plantation Russell County historic house"}},
		testClaim{text: "Four rooms and a patio were added to the house in 1840", span: "the addition of four rooms and a patio in 1840",
			hops: []string{"Glenn–Thompson Plantation 1840 four rooms patio"}})))
	model.Reply(shing, reply(t, shing, testPlan("",
		testClaim{text: "Harrier Shing has been a member for the Eastern Victoria Region from 2006 until 2018",
			span: "has always been a member of the Eastern Victoria Region from 2006 until 2018",
			hops: []string{shingRegion, shingCouncil, shingMember}})))
	code, out, errOut := evaluate(t, "retrieval", "--feverous", path, "--limit", "2", "--openai-base-url", model.URL(), "--model", "fake",
		"--database-url", testenv.DatabaseURL(t), "--schema", "test_evaluate_plans", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep retrievalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The plantation: 3 hops and 1 cross-validation query, 6 pairs; Shing: 3 hops, 3 pairs.
	if rep.Score.Queries != 7 || len(rep.Pairs) != 9 || rep.Unplanned != 0 || !strings.Contains(rep.QueriesFrom, "the plans of fake at") {
		t.Fatalf("%d queries, %d pairs, %d unplanned, from %q", rep.Score.Queries, len(rep.Pairs), rep.Unplanned, rep.QueriesFrom)
	}
	flagged, sum := 0, 0.0
	for _, p := range rep.Pairs {
		if p.Jaccard < 0 || p.Jaccard > 1 || p.Flagged != (p.Jaccard > DefaultJaccardFlag) {
			t.Errorf("pair %+v", p)
		}
		if p.A == shingCouncil && p.B == shingMember && !p.Flagged || p.A == shingRegion && p.B == shingCouncil && p.Flagged {
			t.Errorf("pair %+v: the council queries retrieve the same pages, the region query other ones", p)
		}
		flagged += b2i(p.Flagged)
		sum += p.Jaccard
	}
	if flagged != rep.Flagged || flagged == 0 || math.Abs(sum/9-rep.MeanJaccard) > 1e-9 {
		t.Errorf("flagged %d of %d, mean %.3f of %.3f", flagged, rep.Flagged, sum/9, rep.MeanJaccard)
	}
	if rep.Score.MRR < 0.5 || rep.StatementsHit != (ratio{2, 2}) {
		t.Errorf("MRR@10 %.3f, statements hit %v: the hops name the gold pages' titles", rep.Score.MRR, rep.StatementsHit)
	}
	var table strings.Builder
	writeRetrievalTable(&table, rep)
	t.Logf("evaluate retrieval on the fake model's plans:\n%s", table.String())
}

// TestPlansEvidenceAndRecallN: --evidence writes criteria 3 and 6's inspection lines (each
// cross-reference query with the claims it joins, each claim with its span), and --recall-n
// measures claim recall on the first statements only.
func TestPlansEvidenceAndRecallN(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t)
	dataset := scriptPlans(t, model)
	evidence := t.TempDir() + "/evidence.jsonl"
	code, out, errOut := evaluate(t, "plans", "--openai-base-url", model.URL(), "--model", "fake", "--dataset", dataset,
		"--recall-n", "1", "--evidence", evidence, "--ambiguous=false", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep planReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// Obama alone: 3 of 3 gold claims.
	if rep.Recall != (ratio{3, 3}) || rep.Statements != 4 {
		t.Errorf("recall %v over %d statements, want 3/3 on the first", rep.Recall, rep.Statements)
	}
	raw, err := os.ReadFile(evidence)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var l struct {
			Kind      string   `json:"kind"`
			ClaimIDs  []string `json:"claim_ids"`
			TwoOrMore bool     `json:"references_two_or_more_claims"`
			Span      string   `json:"source_span"`
			Found     bool     `json:"span_in_statement"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		kinds[l.Kind]++
		if l.Kind == "cross_reference" && (len(l.ClaimIDs) != 2 || !l.TwoOrMore) || l.Kind == "claim" && (l.Span == "" || !l.Found) {
			t.Errorf("line %s", line)
		}
	}
	// Accepted plans: obama 3 claims and 1 cross query, bridge 1 claim, python 2 claims (one an
	// opinion: no cross query); summit has no plan.
	if kinds["claim"] != 6 || kinds["cross_reference"] != 1 {
		t.Errorf("evidence lines %v, want 6 claims and 1 cross-reference", kinds)
	}
}
