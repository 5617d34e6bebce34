package multihop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Multihop verifies a statement by multi-hop query chains under source-independence rules
// (spec 004):
//
//  1. Inputs: every input is checked as the spec says (checkMultihopInput); a bad one ends the
//     run with a *RejectedError naming the field and the rule.
//  2. Plan: one call returns the plan (claims with spans, query chains of hops, cross-validation
//     pairs and queries, sub-queries, execution order), asked for with PlanSchemaJSON and always
//     validated by ValidatePlan: the schemas, then every rule of the spec in code. A failing plan
//     gets one repair round-trip listing its violations; a plan that still fails ends the run
//     with a PermanentError naming them. A statement in which the plan finds no verifiable claim
//     (opinion only) is rejected.
//  3. Execution: the chains of the verifiable claims (at most Options.MaxQuestions of them; the
//     rest are listed not_checked) run through the Searcher, claims started in the execution
//     order, a claim after the claims it depends on, up to Options.Concurrency at once; the hops
//     of one chain run in order, each excluding (in the query, and again in code on what came
//     back) the domains, publishers and URLs of the chain's earlier hops, and keeping only
//     evidence inside the temporal scope. A hop that finds no independent source says so. The
//     cross-validation queries run next, one after another, each excluding every source of the
//     claims it joins. A last check drops any evidence that shares a source with an earlier hop
//     of its claim, so that no independence violation reaches a verdict.
//  4. Judgement: each claim is judged in one isolated call that sees the claim's text and its
//     evidence and nothing else (judge.judgeClaim), in parallel under Options.Concurrency. The
//     grounding rule is enforced in code (no valid citation, no verdict but unverified), and the
//     confidence is calibrated by corroboration (Calibration), never High for an ambiguous claim.
//  5. Report: CoVe 2.0's format (RenderReport), with a revised statement written in code (see
//     reviseStatement): no model call.
//
// Cost per statement: 1 plan call (+1 repair), 1 judge call per checked claim with evidence (a
// claim whose hops found nothing costs no call unless another claim cited a source that holds
// its words: judgeOnOthersCitations; a failed judge call is retried once), and one search per
// hop and per cross-validation query. A follow-up hop, a second look, a provisional bridge and a
// bridge named by description each add a judge call where they apply (docs/multihop-rules.md).
type Multihop struct {
	Model    pipeline.Model
	Searcher pipeline.Searcher
	// Authoritative lists the primary-source domains of calibration; nil means
	// DefaultAuthoritativeDomains.
	Authoritative []string
	// Pages reads the pages behind the results each hop keeps, so that the judge reads the
	// page, not the snippet; the zero value reads none (the corpus, whose documents are whole).
	Pages evidence.PageReading
}

// Name returns the job method name.
func (Multihop) Name() string { return pipeline.MethodMultihop }

// Run verifies one job's statement.
func (m Multihop) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	res := &pipeline.Result{Method: pipeline.MethodMultihop}
	if m.Model == nil {
		return res, pipeline.Permanent(errors.New("multihop needs a model"))
	}
	if m.Searcher == nil {
		return res, pipeline.Permanent(fmt.Errorf("multihop %w", pipeline.ErrNoSearcher))
	}
	rec := pipeline.NewRecorder(m.Model)
	search := pipeline.NewSearchRecorder(m.Searcher)
	run := &multihopRun{rec: rec, search: search, res: res, opts: in.Options.WithDefaults(),
		calibration: evidence.Calibration{Authoritative: m.Authoritative}, pages: m.Pages,
		verified: in.Verified, reuseContext: evidence.ReuseContext(pipeline.MethodMultihop, in)}
	err := run.run(ctx, in)
	res.Calls = rec.Trace()
	res.Searches = search.Calls()
	return res, err
}

// multihopRun is the state of one multihop run.
type multihopRun struct {
	in          multihopInputs
	opts        pipeline.Options
	rec         *pipeline.Recorder
	search      *pipeline.SearchRecorder
	calibration evidence.Calibration
	pages       evidence.PageReading
	res         *pipeline.Result
	plan        *ValidatedPlan
	// claims are the plan's claims, by plan index.
	claims []*chainState
	book   evidence.SourceBook

	mu    sync.Mutex
	flags []pipeline.ReviewFlag

	// verified is where claims verified before are looked up (nil: no reuse); reuseContext is
	// this job's evidence.ReuseContext.
	verified     pipeline.VerifiedClaims
	reuseContext string

	// unreadAmbiguity are the ambiguity notes of claims the plan noted as ambiguous without two
	// readings, judged as written (makePlan), by claim_id: each claim keeps its note.
	unreadAmbiguity map[string]string
}

// flag adds a review flag once.
func (r *multihopRun) flag(f pipeline.ReviewFlag) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.flags, f) {
		r.flags = append(r.flags, f)
	}
}

func (r *multihopRun) run(ctx context.Context, in pipeline.Input) error {
	mi, err := checkMultihopInput(in)
	if err != nil {
		return err
	}
	r.in = mi
	r.res.Draft, r.res.DraftFromInput = mi.statement, true
	for _, f := range mi.reviewFlags {
		r.flag(f)
	}
	defer func() { r.res.ReviewFlags = append(r.res.ReviewFlags, r.flags...) }()

	if err := r.makePlan(ctx); err != nil {
		return err
	}
	r.planClaims()
	if err := r.execute(ctx); err != nil {
		return err
	}
	if err := r.nameByDescription(ctx); err != nil {
		return err
	}
	r.judgeAll(ctx)
	if err := ctx.Err(); err != nil {
		return pipeline.StepError(pipeline.StepJudge, err)
	}
	r.finish()
	return nil
}

// makePlan asks for the plan and validates it, with one repair round-trip.
//
// A plan with more verifiable claims than the claim cap is sent back once, though it broke no
// rule, asked to write what the statement says of one thing as one claim, as the plan prompt asks
// every plan (rule 1): planners still split a description into one claim per modifier ("Inferno is
// a 2016 film", "... an American film", "... an action mystery thriller film"), and past the cap
// the rest of the statement is skipped (a real plan of twelve such claims left "Inferno is an
// American film" unchecked, and its statement unverified). The answer is taken when it breaks no
// rule and keeps every word of the statement the over-cap plan's claims hold (overCapRepairDrops);
// otherwise the over-cap plan is verified under the cap, as it would have been without the
// request. The over-cap plan is the first one, or the repair of a first one that broke a rule:
// asked to split one claim, a planner may split the others too ("are film and television writers",
// "... directors", "... producers"), and its repair is then sent back the same way, one call more.
func (r *multihopRun) makePlan(ctx context.Context) error {
	prompt, err := renderPlanPrompt(r.in)
	if err != nil {
		return pipeline.StepError(pipeline.StepPlan, err)
	}
	pc := PlanContext{Statement: r.in.statement, MaxHops: r.in.maxHops, Language: r.in.language, schemas: r.in.schemas}
	// overCap is the plan the cap's request was sent for, once it was; overCapRaw its reply.
	var validated, overCap *ValidatedPlan
	var overCapRaw string
	var droppedSubQueries []string
	// firstRaw is the first reply; keptFirst says the plan is it, its redundant sub_queries
	// dropped, its repair having failed.
	var firstRaw string
	keptFirst := false
	// unreadAmbiguity are the notes that withoutUnreadAmbiguity took from the repaired plan.
	var unreadAmbiguity map[string]string
	opinionOnly, replies := false, 0
	capRequest := func(vp *ValidatedPlan) string {
		n := vp.Plan.verifiableCount()
		return PlanViolation{RuleClaimsWithinCap, fmt.Sprintf(
			"the plan has %d verifiable claims and the claim cap verifies %d; the other %d would be skipped, not verified. "+
				"Keep every fact of the statement, but write what the statement says of one thing in one phrase as one claim: "+
				"a name with its description is one claim (\"Inferno is a 2016 American mystery thriller film\", "+
				"not one claim per word of the description).%s Every other rule still holds: two facts joined with \"and\" "+
				"(\"wrote and directed\") are still two claims.",
			n, r.opts.MaxQuestions, n-r.opts.MaxQuestions, sameOpeningHint(vp.Plan))}.String()
	}
	step := pipeline.StructuredStep{Step: pipeline.StepPlan, Schema: planRequestSchema(), MaxTokens: min(32768, 4096+len(r.in.statement)),
		Check: func(reply string) ([]byte, []string) {
			replies++
			if overCap != nil {
				// The answer to the cap's request: the over-cap plan unless it is better.
				vp, violations := ValidatePlan(reply, pc)
				if noClaims(reply) || len(violations) > 0 || len(overCapRepairDrops(overCap.Plan, vp.Plan, pc.Statement, pc.Language)) > 0 {
					validated = overCap
					return overCap.JSON, nil
				}
				validated = vp
				return vp.JSON, nil
			}
			if noClaims(reply) {
				opinionOnly = true
				return pipeline.ReplyJSONObject(reply), nil
			}
			vp, violations := ValidatePlan(reply, pc)
			if replies == 1 {
				firstRaw = reply
			}
			if replies > 1 && len(violations) > 0 {
				// sub_queries are not searched (the hops are the query chains'): a sub_query that
				// is its claim's own text, or a near-duplicate of another of the claim's, is
				// dropped in code rather than lose the statement, and recorded. First in the
				// repair; else in the first plan, when that was its only fault and the repair
				// broke another rule (in a relay run, "four accolades of one award" for the
				// statement's "four accolades"): the first plan's claims are the model's own and
				// broke no rule.
				if fixed, dropped := withoutRedundantQueries(reply, pc.Language); len(dropped) > 0 {
					if again, more := ValidatePlan(fixed, pc); len(more) == 0 {
						droppedSubQueries = append(droppedSubQueries, droppedNotes(dropped, "after the repair")...)
						vp, violations = again, nil
					}
				}
				// A claim noted as ambiguous with no two readings, the repair's only fault, is
				// judged as written with its note kept (which caps its confidence at Medium): a
				// relay run lost a statement to "the most prominent" noted so twice.
				if fixed, notes := withoutUnreadAmbiguity(reply); len(violations) > 0 && len(notes) > 0 {
					if again, more := ValidatePlan(fixed, pc); len(more) == 0 {
						for _, id := range slices.Sorted(maps.Keys(notes)) {
							droppedSubQueries = append(droppedSubQueries, PlanViolation{RuleAmbiguityCovered, fmt.Sprintf(
								"claim %s is noted as ambiguous (%q) with no two readings after the repair: judged as written, its note kept", id, notes[id])}.String())
						}
						unreadAmbiguity, vp, violations = notes, again, nil
					}
				}
				if fixed, dropped := withoutRedundantQueries(firstRaw, pc.Language); len(violations) > 0 && len(dropped) > 0 {
					if first, more := ValidatePlan(fixed, pc); len(more) == 0 {
						droppedSubQueries = append(droppedSubQueries, droppedNotes(dropped, "from the first plan, kept since its repair broke another rule")...)
						for _, v := range violations {
							droppedSubQueries = append(droppedSubQueries, v.String()+" (in the repair, not kept)")
						}
						vp, violations, keptFirst = first, nil, true
					}
				}
			}
			if len(violations) > 0 {
				out := make([]string, len(violations))
				for i, v := range violations {
					out[i] = v.String()
				}
				return nil, pipeline.CapViolations(out)
			}
			if replies == 1 && vp.Plan.verifiableCount() > r.opts.MaxQuestions {
				overCap, overCapRaw = vp, reply
				return nil, []string{capRequest(vp)}
			}
			validated = vp
			return vp.JSON, nil
		}}
	out, err := step.Run(ctx, r.rec, prompt)
	if keptFirst {
		out.Raw = firstRaw
	}
	var capAfterRepair []string
	if err == nil && out.Repaired && overCap == nil && !opinionOnly && validated.Plan.verifiableCount() > r.opts.MaxQuestions {
		overCap, overCapRaw = validated, out.Raw
		capAfterRepair = []string{capRequest(validated)}
		var answer pipeline.StructuredReply
		answer, err = step.SendBack(ctx, r.rec, prompt, out.Raw, capAfterRepair)
		switch {
		case err != nil:
		case len(answer.Violations) > 0:
			validated = overCap // an answer cut off at the token limit
		case validated != overCap:
			out.Raw = answer.Raw
		}
	}
	if err != nil && overCap != nil && ctx.Err() == nil {
		// The cap's request is optional: an answer that failed (an error, a reply cut off)
		// leaves the over-cap plan, recorded in the run's calls like any other.
		validated, err = overCap, nil
	}
	r.res.Plan, r.res.PlanViolations, r.res.PlanRepaired = out.Raw, append(append(out.Violations, droppedSubQueries...), capAfterRepair...), out.Repaired
	if validated != nil && validated == overCap {
		// A first plan kept is no repair; a repaired plan kept is still one.
		r.res.Plan, r.res.PlanRepaired = overCapRaw, capAfterRepair != nil
	}
	if err != nil {
		return err
	}
	if opinionOnly || !slices.ContainsFunc(validated.Plan.Claims, func(c PlanClaim) bool { return c.Verifiable }) {
		if validated != nil {
			r.res.PlanJSON = validated.JSON
		}
		return pipeline.Rejected(fieldText, "the statement contains no verifiable factual claim (the plan found opinion, preference or prediction only)")
	}
	r.plan = validated
	if overCap == nil || validated == overCap {
		// Else the plan verified is the answer to the cap's request, which met every rule
		// itself: the notes were of the plan it replaced.
		r.unreadAmbiguity = unreadAmbiguity
	}
	r.res.PlanJSON = validated.JSON
	return nil
}

// withoutUnreadAmbiguity is the plan of reply without the ambiguity of each claim noted as
// ambiguous with fewer than two readings, and those claims' notes by claim_id; reply as it was
// and no notes when there is none.
func withoutUnreadAmbiguity(reply string) (string, map[string]string) {
	var plan Plan
	if err := json.Unmarshal(pipeline.ReplyJSONObject(reply), &plan); err != nil {
		return reply, nil
	}
	notes := map[string]string{}
	for i, c := range plan.Claims {
		if note := strings.TrimSpace(c.AmbiguityNote); note != "" && len(c.Interpretations) < 2 {
			notes[c.ClaimID] = note
			plan.Claims[i].AmbiguityNote, plan.Claims[i].Interpretations = "", []Interpretation{}
		}
	}
	if len(notes) == 0 {
		return reply, nil
	}
	encoded, err := json.Marshal(plan)
	if err != nil {
		return reply, nil
	}
	return string(encoded), notes
}

// sameOpeningHint names the plan's verifiable claims that open with the same words up to a verb
// that introduces a description or a list ("{c3} are film and television writers", "{c3} are
// film and television directors"): the claims the cap's request may join, so that a planner
// asked to join claims joins those and leaves the others as they are (a relay run's answer
// joined "wrote and directed" again, broke claim_not_atomic and was turned down). "" when no two
// claims open alike.
func sameOpeningHint(plan Plan) string {
	var openings []string
	groups := map[string][]string{}
	for _, c := range plan.Claims {
		if !c.Verifiable {
			continue
		}
		words := strings.Fields(c.ClaimText)
		// The verb is never the last word: a description or a list follows it.
		for i, w := range words[:max(0, min(len(words)-1, maxOpeningWords))] {
			if !openingVerbs[strings.ToLower(w)] {
				continue
			}
			opening := strings.Join(words[:i+1], " ")
			key := strings.ToLower(opening)
			if groups[key] == nil {
				openings = append(openings, opening)
			}
			groups[key] = append(groups[key], c.ClaimID)
			break
		}
	}
	var parts []string
	for _, opening := range openings {
		if ids := groups[strings.ToLower(opening)]; len(ids) > 1 {
			parts = append(parts, fmt.Sprintf("%s (%q)", strings.Join(ids, ", "), opening+" ..."))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " These groups of claims open alike, and each group may be one claim: " + strings.Join(parts, "; ") + "; leave the other claims as they are."
}

// maxOpeningWords bounds the words before an opening's verb: a subject is a name or a short
// description.
const maxOpeningWords = 8

// openingVerbs end a claim's opening: a description ("is", "are") or a list ("stars", "includes")
// follows them, which one claim can hold whole.
var openingVerbs = text.WordSet("is are was were stars starred features featured includes included")

// withoutRedundantQueries is reply's plan without the queries the rules refuse and code can
// drop without losing a claim's search: a sub_query that is its claim's own text
// (RuleSubQueryNotClaim, read as checkSubQueries reads it) or a near-duplicate of an earlier
// sub_query of its claim (RuleQueriesDistinct), since no sub_query is searched; and a hop whose
// query is a near-duplicate of an earlier hop's (RuleQueriesDistinct, read as checkNearDuplicates
// reads it), since it would retrieve what that hop retrieves, the later hops renumbered. A
// claim keeps its first sub_query that is not its text and its first hop, so none is left
// without one: a plan that would lose all of either is reply unchanged. dropped says what went,
// by rule and why; none when reply does not decode.
func withoutRedundantQueries(reply, language string) (string, []PlanViolation) {
	var plan Plan
	if err := json.Unmarshal(pipeline.ReplyJSONObject(reply), &plan); err != nil {
		return reply, nil
	}
	var dropped []PlanViolation
	for i, c := range plan.Claims {
		claim := normalizedQuery(evidence.WithoutBridges(c.ClaimText))
		var kept []string
		for k, q := range c.SubQueries {
			switch {
			case normalizedQuery(evidence.WithoutBridges(q)) == claim:
				dropped = append(dropped, PlanViolation{RuleSubQueryNotClaim, fmt.Sprintf("sub_query %d of claim %s is the claim_text itself; sub_queries are not searched", k+1, c.ClaimID)})
			case slices.ContainsFunc(kept, func(o string) bool { return nearDuplicateQueries(o, q, language) }):
				dropped = append(dropped, PlanViolation{RuleQueriesDistinct, fmt.Sprintf("sub_query %d of claim %s is a near-duplicate of an earlier one; sub_queries are not searched", k+1, c.ClaimID)})
			default:
				kept = append(kept, q)
			}
		}
		if len(kept) == 0 {
			return reply, nil // a claim's only sub_query is its text: the schema wants one
		}
		plan.Claims[i].SubQueries = kept
	}
	// Hops are compared across chains, as checkNearDuplicates compares them: a hop that repeats
	// another claim's hop retrieves what it retrieves too.
	var searched []PlanHop
	for i, ch := range plan.QueryChains {
		var kept []PlanHop
		for _, h := range ch.Hops {
			if len(kept) > 0 && slices.ContainsFunc(searched, func(o PlanHop) bool { return nearDuplicateQueries(o.Query, h.Query, language) }) {
				dropped = append(dropped, PlanViolation{RuleQueriesDistinct, fmt.Sprintf("hop %d of claim %s is a near-duplicate of an earlier hop, whose search retrieves what it would", h.HopNumber, ch.ClaimID)})
				continue
			}
			h.HopNumber = len(kept) + 1
			kept = append(kept, h)
			searched = append(searched, h)
		}
		plan.QueryChains[i].Hops = kept
	}
	encoded, err := json.Marshal(plan)
	if err != nil || len(dropped) == 0 {
		return reply, nil
	}
	return string(encoded), dropped
}

// droppedNotes records the queries withoutRedundantQueries dropped, and from which plan.
func droppedNotes(dropped []PlanViolation, from string) []string {
	out := make([]string, len(dropped))
	for i, v := range dropped {
		out[i] = v.String() + " (dropped in code " + from + ")"
	}
	return out
}

// overCapRepairDrops returns the words of the first plan's verifiable claims (content words,
// in lower case, in the singular) that the statement holds and no claim of the repaired plan
// has: a plan asked to join claims that answers by leaving a fact out would have that fact
// unverified, and silently. A word the first plan wrote and the statement does not is the
// planner's wording, no fact of the statement ("{c8} was released in 1992" for "a 1992 American
// drama film", joined into "A film starring {c3} is a 1992 American drama film"). Bridge
// placeholders are no words: joining claims renumbers them ({c8} becomes {c4}).
func overCapRepairDrops(first, repaired Plan, statement, language string) []string {
	// Words are compared in the singular: a plan writes "award" of the statement's "awards",
	// and its repair "awards" again.
	words := func(s string) []string {
		out := text.ContentWords(strings.ToLower(evidence.WithoutBridges(s)), language)
		for i, w := range out {
			out[i] = text.Singular(w)
		}
		return out
	}
	stated, have := map[string]bool{}, map[string]bool{}
	for _, w := range words(statement) {
		stated[w] = true
	}
	for _, c := range repaired.Claims {
		for _, w := range words(c.ClaimText) {
			have[w] = true
		}
	}
	var dropped []string
	for _, c := range first.Claims {
		if !c.Verifiable {
			continue
		}
		for _, w := range words(c.ClaimText) {
			if stated[w] && !have[w] && !slices.Contains(dropped, w) {
				dropped = append(dropped, w)
			}
		}
	}
	return dropped
}

// noClaims reports whether a plan reply is a JSON object whose claims are an empty array: the
// plan found nothing to verify at all.
func noClaims(reply string) bool {
	var p struct {
		Claims *[]json.RawMessage `json:"claims"`
	}
	return json.Unmarshal(pipeline.ReplyJSONObject(reply), &p) == nil && p.Claims != nil && len(*p.Claims) == 0
}

// planClaims turns the plan's claims into the run's claims, in plan order: the verifiable ones
// the claim cap lets through (claimsToCheck) are checked; the others are not_checked with the
// reason.
func (r *multihopRun) planClaims() {
	toCheck := claimsToCheck(r.plan.Plan.Claims, r.opts.MaxQuestions)
	for i, pc := range r.plan.Plan.Claims {
		verifiable, temporal := pc.Verifiable, pc.RequiresTemporalScope
		score := pc.SourceIndependenceScore
		span := r.plan.Spans[i]
		c := pipeline.Claim{
			Position: i + 1, Text: pc.ClaimText, Key: pc.ClaimID,
			SpanStart: span[0], SpanEnd: span[1], SpanText: r.in.statement[span[0]:span[1]],
			Entities: pc.Entities, Verifiable: &verifiable, RequiresTemporalScope: &temporal,
			AmbiguityNote: cmp.Or(strings.TrimSpace(pc.AmbiguityNote), r.unreadAmbiguity[pc.ClaimID]), SubQueries: pc.SubQueries, SourceIndependenceScore: &score,
		}
		st := &chainState{index: i, claim: pc, done: make(chan struct{})}
		switch {
		case !pc.Verifiable:
			c.Verdict, c.Reason = pipeline.VerdictNotChecked, "the plan marked it not verifiable (opinion, preference or prediction)"
		case !toCheck[i]:
			c.Verdict, c.Reason = pipeline.VerdictNotChecked, pipeline.ClaimCapReason(r.opts.MaxQuestions)
		default:
			st.checked = true
			if ch := r.chainOf(pc.ClaimID); ch != nil {
				st.hops = ch.Hops
			}
		}
		r.res.Claims = append(r.res.Claims, c)
		r.claims = append(r.claims, st)
	}
	for _, st := range r.claims {
		if !st.checked {
			continue
		}
		for _, id := range st.claim.DependsOn {
			if d := r.stateOf(id); d != nil {
				d.hasDependents = true
			}
		}
		for _, id := range claimBridges(st.claim, r.chainOf(st.claim.ClaimID)) {
			if d := r.stateOf(id); d != nil {
				d.bridged = true
			}
		}
	}
}

// claimsToCheck says which of the plan's claims are checked: every verifiable one, or, when there
// are more than limit, the limit riskiest (CoVe 2.0's cap: "prioritize the highest-risk
// claims"; the rest are listed as skipped). A claim that states a number or a date comes first,
// then one that builds on another claim (the statement's later hops, where a wrong entity hides),
// then the others, each group in plan order; a claim is taken only with the claims it depends
// on, so that none is checked without the facts it builds on. Two real plans of eleven claims
// left unchecked the one claim that made their statement false ("{c8} is American", "a
// population of less than a thousand by 2011") while checking "Avatar was co-edited by James
// Cameron".
func claimsToCheck(claims []PlanClaim, limit int) []bool {
	out := make([]bool, len(claims))
	var order []int
	for i, c := range claims {
		if c.Verifiable {
			order = append(order, i)
		}
	}
	if len(order) <= limit {
		for _, i := range order {
			out[i] = true
		}
		return out
	}
	risk := func(c PlanClaim) int {
		r := 0
		if claimStatesNumber(c.ClaimText) {
			r += 2
		}
		if len(c.DependsOn) > 0 {
			r++
		}
		return r
	}
	slices.SortStableFunc(order, func(a, b int) int { return risk(claims[b]) - risk(claims[a]) })
	index := map[string]int{}
	for i, c := range claims {
		index[c.ClaimID] = i
	}
	taken := 0
	// with is i and, first, every verifiable claim it depends on, directly or not, not taken yet.
	var with func(i int, seen map[int]bool) []int
	with = func(i int, seen map[int]bool) []int {
		if seen[i] || out[i] || !claims[i].Verifiable {
			return nil
		}
		seen[i] = true
		var need []int
		for _, id := range claims[i].DependsOn {
			if d, ok := index[id]; ok {
				need = append(need, with(d, seen)...)
			}
		}
		return append(need, i)
	}
	for _, i := range order {
		need := with(i, map[int]bool{})
		if taken+len(need) > limit {
			continue
		}
		for _, k := range need {
			out[k] = true
		}
		taken += len(need)
	}
	return out
}

// claimStatesNumber reports whether a claim's text holds a number or a date: a digit or a number
// word other than "one" and "zero" ("one of the official languages" states no quantity); a
// placeholder ("{c8}") is none.
func claimStatesNumber(s string) bool {
	for _, w := range text.Words(evidence.WithoutBridges(s)) {
		if _, ok := text.NumberWord(w); (ok && w != "one" && w != "zero") || strings.ContainsAny(w, "0123456789") {
			return true
		}
	}
	return false
}

func (r *multihopRun) chainOf(id string) *QueryChain {
	return r.plan.Plan.chainOf(id)
}

// chainOf is the query chain of claim id, or nil when the plan has none.
func (p Plan) chainOf(id string) *QueryChain {
	for i := range p.QueryChains {
		if p.QueryChains[i].ClaimID == id {
			return &p.QueryChains[i]
		}
	}
	return nil
}

func (r *multihopRun) stateOf(id string) *chainState {
	for _, st := range r.claims {
		if st.claim.ClaimID == id {
			return st
		}
	}
	return nil
}

// finish numbers the cited sources, writes the evidence rows, the cross-validation verdicts, the
// revised statement and the report.
func (r *multihopRun) finish() {
	for _, st := range r.claims {
		r.res.Hops = append(r.res.Hops, st.hopRecords...)
	}
	for _, st := range r.claims {
		if !st.checked {
			continue
		}
		c := &r.res.Claims[st.index]
		for _, i := range st.verdict.cited {
			n := r.book.Number(st.evidence[i].URL)
			if !slices.Contains(c.Citations, n) {
				c.Citations = append(c.Citations, n)
			}
		}
	}
	for _, st := range r.claims {
		for i, e := range st.evidence {
			ev := pipeline.Evidence{
				ID: len(r.res.Evidence) + 1, ClaimPosition: st.index + 1, HopNumber: e.hop, SearchSeq: e.SearchSeq,
				URL: e.URL, Title: e.Title, Snippet: e.Snippet, Domain: evidence.HostOf(e.SearchResult), Publisher: e.Publisher,
				PublishedAt: e.PublishedAt, Provider: e.Provider, Rank: e.Rank, FromClaimPosition: e.fromClaim, NotIndependentOfHop: e.repeats,
				Page: e.Page, Passages: e.Passages,
			}
			if slices.Contains(st.verdict.cited, i) {
				ev.SourceNumber = r.book.Number(e.URL)
				ev.Quote, ev.Stance = st.verdict.quotes[i], st.verdict.stances[i]
			}
			r.res.Evidence = append(r.res.Evidence, ev)
		}
	}
	r.crossValidationVerdicts()
	r.res.RevisedText = r.reviseStatement()
	r.res.Report = evidence.RenderReport(r.res.Claims, r.book.Sources(), r.res.RevisedText)
	r.res.Status = pipeline.StatusChecked
	counts := evidence.CountClaims(r.res.Claims)
	r.res.StatusReason = fmt.Sprintf("%d claims checked: %d confirmed, %d corrected, %d uncertain; %d not checked",
		counts.Checked, counts.Confirmed, counts.Corrected, counts.Uncertain, len(counts.Skipped))
}

// planPrompt is what the plan prompt interpolates; every value that comes from the job is
// escaped so that none can open or close a fence.
type planPrompt struct {
	Statement, Language, LanguageName string
	MaxHops                           int
	Rules, Grounding, Scope, Example  string
}

// renderPlanPrompt renders the plan prompt for a job's checked inputs.
func renderPlanPrompt(mi multihopInputs) (string, error) {
	return pipeline.RenderPrompt("multihop_plan", planPrompt{
		Statement: pipeline.EscapeFenced(mi.statement), Language: pipeline.FenceAttr(mi.language), LanguageName: mi.languageName,
		MaxHops: mi.maxHops, Rules: pipeline.EscapeFenced(text.OneLine(mi.rules.Text)), Grounding: pipeline.EscapeFenced(text.OneLine(mi.grounding)),
		Scope: mi.scope.Describe(mi.today), Example: examplePlanJSON(),
	})
}

// examplePlanStatement and examplePlan are the worked example of the plan prompt. A test
// validates the example against its statement: the prompt never shows a plan that breaks a rule.
const examplePlanStatement = "The Eiffel Tower, completed in 1889, was the tallest structure in the world for 41 years."

func examplePlan() Plan {
	return Plan{
		PlanID: "eiffel-tower",
		Claims: []PlanClaim{
			{ClaimID: "c1", ClaimText: "The Eiffel Tower was completed in 1889", SourceSpan: "The Eiffel Tower, completed in 1889",
				Entities: []string{"Eiffel Tower", "1889"}, Verifiable: true, Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries:              []string{"Eiffel Tower construction completion date", "Exposition Universelle 1889 Paris tower inauguration"},
				SourceIndependenceScore: 0.9},
			{ClaimID: "c2", ClaimText: "The Eiffel Tower was the tallest structure in the world for 41 years",
				SourceSpan: "was the tallest structure in the world for 41 years", Entities: []string{"Eiffel Tower"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries:              []string{"tallest man-made structure world record 1889 1930", "Chrysler Building surpassed Eiffel Tower height"},
				SourceIndependenceScore: 0.7},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{
				{1, "Eiffel Tower completed 1889 official history", "official site", "date of an event"},
				{2, "Gustave Eiffel tower construction 1887 1889 encyclopedia", "encyclopedia", "date of an event"},
			}},
			{ClaimID: "c2", Hops: []PlanHop{
				{1, "world's tallest structure 1889 to 1930 Eiffel Tower record", "encyclopedia", "record holder and period"},
				{2, "Chrysler Building 1930 surpassed Eiffel Tower tallest", "news archive", "date the record passed"},
			}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the 41 years are counted from the completion"}},
		CrossValidationQueries: []CrossValidationQuery{{"Eiffel Tower height record duration since inauguration", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

var examplePlanJSON = sync.OnceValue(func() string {
	b, err := json.Marshal(examplePlan())
	if err != nil {
		panic(fmt.Sprintf("pipeline: encoding the example plan: %v", err))
	}
	return string(b)
})
