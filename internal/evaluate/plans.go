package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/evaluate/datasets"
	"github.com/corroborate/corroborate/internal/evaluate/score"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/search/searcheval"
)

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

// planCase is one statement the plan evaluation asks a plan for.
type planCase struct {
	ID        string   `json:"id"`
	Statement string   `json:"statement"`
	Gold      []string `json:"gold,omitempty"`
	// Ambiguous marks one of ambiguousStatements: it has no gold claims; its plan must note
	// the ambiguity.
	Ambiguous bool `json:"ambiguous,omitempty"`
	// ScoredForRecall marks the statements claim recall is measured on: spec 004 measures it
	// on 20 statements, schema compliance and completeness on 100.
	ScoredForRecall bool `json:"scored_for_recall,omitempty"`
}

// crossReference is one cross-reference query of a plan with the claims it joins, for the
// inspection spec 004's criterion 3 asks for (each must reference at least two claims).
type crossReference struct {
	Query      string   `json:"query"`
	ClaimIDs   []string `json:"claim_ids"`
	ClaimTexts []string `json:"claim_texts"`
	TwoOrMore  bool     `json:"references_two_or_more_claims"`
}

// claimSpan is one claim of a plan with its source span, for criterion 6's inspection (every
// claim maps to a span of the statement).
type claimSpan struct {
	ClaimID   string `json:"claim_id"`
	Claim     string `json:"claim"`
	Span      string `json:"source_span"`
	SpanFound bool   `json:"span_in_statement"`
}

// Outcomes of a case beyond multihop.PlanOutcome: multihop refused the input before any call,
// or a model call failed.
const (
	outcomeRejected = "rejected"
	outcomeError    = "error"
)

// recalledClaim is a gold claim and the extracted claim matched to it.
type recalledClaim struct {
	Gold    string  `json:"gold"`
	Claim   string  `json:"claim"`
	Overlap float64 `json:"overlap"`
}

// planResult is what the plan step did with one case, measured.
type planResult struct {
	planCase
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// FirstValid: the first reply passed every rule; Repaired: the repair's reply did.
	FirstValid bool `json:"first_valid"`
	Repaired   bool `json:"repaired"`
	// Claims are the claim texts of the accepted plan.
	Claims []string `json:"claims"`
	// Recalled and Missed split the gold claims; a missed claim names its closest claim.
	Recalled []recalledClaim `json:"recalled,omitempty"`
	Missed   []recalledClaim `json:"missed,omitempty"`
	// Claims in the first and the final reply, and how many of them map to no span of the
	// statement (the validator's claim_maps_to_span: hallucinated claims).
	FirstClaims       int `json:"first_claims"`
	FirstHallucinated int `json:"first_hallucinated"`
	FinalClaims       int `json:"final_claims"`
	FinalHallucinated int `json:"final_hallucinated"`
	// Query pairs over 80% token overlap (the validator's queries_not_near_duplicates).
	FirstNearDuplicates int `json:"first_near_duplicates"`
	FinalNearDuplicates int `json:"final_near_duplicates"`
	// AmbiguityNoted: the accepted plan has a claim with an ambiguity note or several readings.
	AmbiguityNoted bool `json:"ambiguity_noted"`
	// FirstViolations and FinalViolations are the rule names the first and the final reply
	// broke, one per violation.
	FirstViolations []string `json:"first_violations,omitempty"`
	FinalViolations []string `json:"final_violations,omitempty"`
	ModelCalls      int      `json:"model_calls"`
	Tokens          int64    `json:"tokens"`
	// CrossReferences and ClaimSpans are the accepted plan's, for inspection.
	CrossReferences []crossReference `json:"cross_references,omitempty"`
	ClaimSpans      []claimSpan      `json:"claim_spans,omitempty"`
}

// planned reports whether the plan step reached an outcome (the case counts in the rates).
func (r planResult) planned() bool { return r.Outcome != outcomeRejected && r.Outcome != outcomeError }

// measurePlan asks model for c's plan through the multihop plan step and measures it.
func measurePlan(ctx context.Context, model pipeline.Model, c planCase, threshold float64) planResult {
	res := planResult{planCase: c}
	attempt, err := multihop.PlanStatement(ctx, model, pipeline.Input{Text: c.Statement, Language: "en"})
	res.ModelCalls = len(attempt.Calls)
	for _, call := range attempt.Calls {
		res.Tokens += call.PromptTokens + call.CompletionTokens
	}
	var rejected *pipeline.RejectedError
	switch {
	case errors.As(err, &rejected):
		res.Outcome, res.Error = outcomeRejected, rejected.Error()
		return res
	case err != nil:
		res.Outcome, res.Error = outcomeError, err.Error()
		return res
	}
	res.Outcome = string(attempt.Outcome)
	first, last := attempt.First(), attempt.Last()
	res.FirstValid = first.Valid
	res.Repaired = len(attempt.Replies) > 1 && last.Valid
	res.FirstClaims, res.FirstHallucinated = replyClaims(first), first.Broke(multihop.RuleClaimHasSpan)
	res.FinalClaims, res.FinalHallucinated = replyClaims(last), last.Broke(multihop.RuleClaimHasSpan)
	res.FirstNearDuplicates, res.FinalNearDuplicates = first.Broke(multihop.RuleQueriesDistinct), last.Broke(multihop.RuleQueriesDistinct)
	for _, v := range first.Violations {
		res.FirstViolations = append(res.FirstViolations, v.Rule)
	}
	for _, v := range last.Violations {
		res.FinalViolations = append(res.FinalViolations, v.Rule)
	}
	res.Claims = []string{}
	if attempt.Plan != nil {
		p := attempt.Plan.Plan
		for _, q := range p.CrossValidationQueries {
			ref := crossReference{Query: q.QueryText}
			for _, i := range q.TargetClaimIndices {
				if i >= 0 && i < len(p.Claims) {
					ref.ClaimIDs = append(ref.ClaimIDs, p.Claims[i].ClaimID)
					ref.ClaimTexts = append(ref.ClaimTexts, p.Claims[i].ClaimText)
				}
			}
			ref.TwoOrMore = len(slices.Compact(slices.Sorted(slices.Values(ref.ClaimIDs)))) >= 2
			res.CrossReferences = append(res.CrossReferences, ref)
		}
		for _, pc := range p.Claims {
			_, _, found := evidence.LocateSpan(c.Statement, pc.SourceSpan)
			res.ClaimSpans = append(res.ClaimSpans, claimSpan{pc.ClaimID, pc.ClaimText, pc.SourceSpan, found})
		}
		for _, pc := range attempt.Plan.Plan.Claims {
			res.Claims = append(res.Claims, pc.ClaimText)
			if strings.TrimSpace(pc.AmbiguityNote) != "" || len(pc.Interpretations) >= 2 {
				res.AmbiguityNoted = true
			}
		}
	}
	match := score.MatchClaims(c.Gold, res.Claims, threshold, "en")
	for i, g := range c.Gold {
		if j := match[i]; j >= 0 {
			res.Recalled = append(res.Recalled, recalledClaim{g, res.Claims[j], multihop.TokenOverlap(g, res.Claims[j], "en")})
			continue
		}
		missed := recalledClaim{Gold: g}
		if j, o := score.BestOverlap(g, res.Claims, "en"); j >= 0 {
			missed.Claim, missed.Overlap = res.Claims[j], o
		}
		res.Missed = append(res.Missed, missed)
	}
	return res
}

func replyClaims(r multihop.PlanReply) int {
	if r.Plan == nil {
		return 0
	}
	return len(r.Plan.Claims)
}

// measurePlans measures every case, concurrency at a time; progress hears one line per case. A
// case not reached before ctx ended is an error case.
func measurePlans(ctx context.Context, model pipeline.Model, cases []planCase, threshold float64, concurrency int, progress func(string)) []planResult {
	results := make([]planResult, len(cases))
	for i, c := range cases {
		results[i] = planResult{planCase: c, Outcome: outcomeError, Error: "not planned: interrupted"}
	}
	var mu sync.Mutex
	done := 0
	parallel(ctx, len(cases), concurrency, func(i int) {
		results[i] = measurePlan(ctx, model, cases[i], threshold)
		mu.Lock()
		done++
		progress(fmt.Sprintf("planned %d/%d: %s %s", done, len(cases), cases[i].ID, results[i].Outcome))
		mu.Unlock()
	})
	return results
}

// planReport is the plan evaluation's figures over all cases.
type planReport struct {
	Model          string  `json:"model"`
	Statements     int     `json:"statements"`
	Ambiguous      int     `json:"ambiguous_statements"`
	MatchThreshold float64 `json:"match_threshold"`
	// FirstCompliance and Compliance: replies accepted first time, and after at most one
	// repair, over the statements planned (factcheck-bench and ambiguous alike).
	FirstCompliance ratio `json:"schema_compliance_first_reply"`
	Compliance      ratio `json:"schema_compliance_after_repair"`
	// Recall: gold claims matched over all gold claims of the planned factcheck-bench
	// statements; RecallAccepted: the same over the statements whose plan was accepted.
	Recall         ratio `json:"claim_recall"`
	RecallAccepted ratio `json:"claim_recall_accepted_plans"`
	// StatementsFullyRecalled: statements with every gold claim recalled.
	StatementsFullyRecalled ratio `json:"statements_fully_recalled"`
	HallucinatedFirst       ratio `json:"hallucinated_claims_first_reply"`
	HallucinatedFinal       ratio `json:"hallucinated_claims_final_reply"`
	NearDuplicatesFirst     int   `json:"near_duplicate_query_pairs_first_reply"`
	NearDuplicatesFinal     int   `json:"near_duplicate_query_pairs_final_reply"`
	AmbiguityNoted          ratio `json:"ambiguity_noted"`
	// RulesBrokenFirst counts the first replies' violations by rule.
	RulesBrokenFirst map[string]int `json:"rules_broken_first_reply"`
	Rejected         int            `json:"rejected_inputs"`
	Errors           int            `json:"model_errors"`
	ModelCalls       int            `json:"model_calls"`
	Tokens           int64          `json:"tokens"`
	Results          []planResult   `json:"results"`
}

// summarize adds the results up. Rejected inputs and failed calls are counted apart and left
// out of every rate: they measure neither the plan nor the model's plans.
func summarize(model string, threshold float64, results []planResult) planReport {
	rep := planReport{Model: model, MatchThreshold: threshold, RulesBrokenFirst: map[string]int{}, Results: results}
	for _, r := range results {
		if r.Ambiguous {
			rep.Ambiguous++
		} else {
			rep.Statements++
		}
		rep.ModelCalls += r.ModelCalls
		rep.Tokens += r.Tokens
		switch r.Outcome {
		case outcomeRejected:
			rep.Rejected++
			continue
		case outcomeError:
			rep.Errors++
			continue
		}
		accepted := r.Outcome != string(multihop.PlanInvalid)
		rep.FirstCompliance.add(b2i(r.FirstValid), 1)
		rep.Compliance.add(b2i(accepted), 1)
		rep.HallucinatedFirst.add(r.FirstHallucinated, r.FirstClaims)
		rep.HallucinatedFinal.add(r.FinalHallucinated, r.FinalClaims)
		rep.NearDuplicatesFirst += r.FirstNearDuplicates
		rep.NearDuplicatesFinal += r.FinalNearDuplicates
		for _, rule := range r.FirstViolations {
			rep.RulesBrokenFirst[rule]++
		}
		if r.Ambiguous {
			rep.AmbiguityNoted.add(b2i(r.AmbiguityNoted), 1)
			continue
		}
		if !r.ScoredForRecall {
			continue
		}
		rep.Recall.add(len(r.Recalled), len(r.Gold))
		rep.StatementsFullyRecalled.add(b2i(len(r.Missed) == 0), 1)
		if accepted {
			rep.RecallAccepted.add(len(r.Recalled), len(r.Gold))
		}
	}
	return rep
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writePlanTable prints the report as a markdown table with the spec's targets, then what
// needs a reader's eye: missed gold claims, ambiguous statements without a note, failures.
func writePlanTable(w io.Writer, rep planReport) {
	fmt.Fprintf(w, "Plan quality (spec 004): %d factcheck-bench statements and %d deliberately ambiguous statements, model %s\n\n",
		rep.Statements, rep.Ambiguous, rep.Model)
	fmt.Fprintln(w, "| measure | result | spec 004 target |")
	fmt.Fprintln(w, "| --- | --- | --- |")
	row := func(measure, result, target string) { fmt.Fprintf(w, "| %s | %s | %s |\n", measure, result, target) }
	row("schema compliance, first reply", rep.FirstCompliance.String(), "100% over 100 statements")
	row("schema compliance, after one repair", rep.Compliance.String(), "100%")
	row(fmt.Sprintf("claim recall vs gold claims (token overlap >= %.2f, one to one)", rep.MatchThreshold), rep.Recall.String()+recallOver(rep), "100% on unambiguous factual claims, 20 statements")
	row("claim recall, statements with an accepted plan", rep.RecallAccepted.String(), "")
	row("statements with every gold claim recalled", rep.StatementsFullyRecalled.String(), "")
	row("hallucinated claims (no span in the statement), first reply", rep.HallucinatedFirst.String(), "0% over 50 statements")
	row("hallucinated claims, final reply", rep.HallucinatedFinal.String(), "0%")
	row("near-duplicate query pairs (> 80% token overlap), first reply", fmt.Sprint(rep.NearDuplicatesFirst), "none")
	row("near-duplicate query pairs, final reply", fmt.Sprint(rep.NearDuplicatesFinal), "none")
	row("ambiguous statements with an ambiguity note or several readings", rep.AmbiguityNoted.String(), "100% of 10")
	perStatement := ""
	if n := rep.Statements + rep.Ambiguous; n > 0 {
		perStatement = fmt.Sprintf(" (%.2f calls, %d tokens per statement)", float64(rep.ModelCalls)/float64(n), rep.Tokens/int64(n))
	}
	row("model calls and tokens", fmt.Sprintf("%d calls, %d tokens%s", rep.ModelCalls, rep.Tokens, perStatement), "")
	if rep.Rejected > 0 || rep.Errors > 0 {
		row("left out: inputs multihop rejects, failed model calls", fmt.Sprintf("%d, %d", rep.Rejected, rep.Errors), "")
	}
	if len(rep.RulesBrokenFirst) > 0 {
		var parts []string
		for _, rule := range slices.Sorted(maps.Keys(rep.RulesBrokenFirst)) {
			parts = append(parts, fmt.Sprintf("%s %d", rule, rep.RulesBrokenFirst[rule]))
		}
		fmt.Fprintf(w, "\nRules broken by first replies: %s\n", strings.Join(parts, ", "))
	}
	var missed, unnoted, failed []string
	for _, r := range rep.Results {
		for _, m := range r.Missed {
			closest := "no claim"
			if m.Claim != "" {
				closest = fmt.Sprintf("closest %q at %.2f", m.Claim, m.Overlap)
			}
			missed = append(missed, fmt.Sprintf("%s: %q (%s)", r.ID, m.Gold, closest))
		}
		if r.Ambiguous && r.planned() && !r.AmbiguityNoted {
			unnoted = append(unnoted, fmt.Sprintf("%q (plan %s): treated as one precise claim", r.Statement, r.Outcome))
		}
		if !r.planned() || r.Outcome == string(multihop.PlanInvalid) {
			reason := r.Error
			if reason == "" {
				reason = "still invalid after its repair: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(r.FinalViolations))), ", ")
			}
			failed = append(failed, fmt.Sprintf("%s %s: %s", r.ID, r.Outcome, reason))
		}
	}
	list := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, l := range lines {
			fmt.Fprintf(w, "- %s\n", l)
		}
	}
	list("Gold claims missed", missed)
	list("Ambiguous statements flagged", unnoted)
	list("Statements without an accepted plan", failed)
}

// recallOver says how many statements claim recall was measured on, when fewer than were planned.
func recallOver(rep planReport) string {
	n := 0
	for _, r := range rep.Results {
		n += b2i(r.ScoredForRecall)
	}
	if n == rep.Statements {
		return ""
	}
	return fmt.Sprintf(" (first %d statements; numbers, dates, negations and named entities matched exactly)", n)
}

// writePlanEvidence writes what an inspector of criteria 3 and 6 needs, one JSON line each:
// every cross-reference query with the claims it joins, and every claim with its span.
func writePlanEvidence(w io.Writer, results []planResult) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		for _, ref := range r.CrossReferences {
			if err := enc.Encode(struct {
				Kind      string `json:"kind"`
				Statement string `json:"statement_id"`
				crossReference
			}{"cross_reference", r.ID, ref}); err != nil {
				return err
			}
		}
		for _, cs := range r.ClaimSpans {
			if err := enc.Encode(struct {
				Kind      string `json:"kind"`
				Statement string `json:"statement_id"`
				Text      string `json:"statement"`
				claimSpan
			}{"claim", r.ID, r.Statement, cs}); err != nil {
				return err
			}
		}
	}
	return nil
}
