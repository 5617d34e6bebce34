package multihop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Plan is a multihop verification plan as the model writes it (PlanSchemaJSON): the statement's
// claims, one query chain per verifiable claim, the cross-validation pairs and queries that test
// claims jointly, and the order to verify the claims in.
type Plan struct {
	PlanID                 string                 `json:"plan_id"`
	Claims                 []PlanClaim            `json:"claims"`
	QueryChains            []QueryChain           `json:"query_chains"`
	CrossValidationPairs   []CrossValidationPair  `json:"cross_validation_pairs"`
	CrossValidationQueries []CrossValidationQuery `json:"cross_validation_queries"`
	ExecutionOrder         []string               `json:"execution_order"`
}

// PlanClaim is one claim of a plan.
type PlanClaim struct {
	ClaimID   string `json:"claim_id"`
	ClaimText string `json:"claim_text"`
	// SourceSpan is the statement's words the claim comes from, copied verbatim.
	SourceSpan            string   `json:"source_span"`
	Entities              []string `json:"entities"`
	Verifiable            bool     `json:"verifiable"`
	RequiresTemporalScope bool     `json:"requires_temporal_scope"`
	// AmbiguityNote and Interpretations are set for an ambiguous or underspecified claim: what
	// is unclear, and each reading with the query that tests it.
	AmbiguityNote   string           `json:"ambiguity_note"`
	Interpretations []Interpretation `json:"interpretations"`
	// DependsOn are the ids of claims that must be verified before this one.
	DependsOn               []string `json:"depends_on"`
	SubQueries              []string `json:"sub_queries"`
	SourceIndependenceScore float64  `json:"source_independence_score"`
}

// ambiguous reports whether the plan marked the claim ambiguous, by a note or by readings.
func (c PlanClaim) ambiguous() bool {
	return strings.TrimSpace(c.AmbiguityNote) != "" || len(c.Interpretations) > 0
}

// Interpretation is one reading of an ambiguous claim and the query that tests it.
type Interpretation struct {
	Reading string `json:"reading"`
	Query   string `json:"query"`
}

// QueryChain is the hops that verify one claim, run in order.
type QueryChain struct {
	ClaimID string    `json:"claim_id"`
	Hops    []PlanHop `json:"hops"`
}

// PlanHop is one retrieval of a query chain.
type PlanHop struct {
	HopNumber            int    `json:"hop_number"`
	Query                string `json:"query"`
	TargetSourceType     string `json:"target_source_type"`
	ExpectedEvidenceType string `json:"expected_evidence_type"`
}

// CrossValidationPair says how two claims relate.
type CrossValidationPair struct {
	ClaimAID     string `json:"claim_a_id"`
	ClaimBID     string `json:"claim_b_id"`
	Relationship string `json:"relationship"`
}

// CrossValidationQuery is one retrieval that tests two or more claims jointly;
// TargetClaimIndices are positions in Plan.Claims, from 0.
type CrossValidationQuery struct {
	QueryText          string `json:"query_text"`
	TargetClaimIndices []int  `json:"target_claim_indices"`
}

// PlanViolation is one rule a plan broke: the rule's name (one of the Rule constants) and what
// broke it, in words the repair prompt shows the model.
type PlanViolation struct {
	Rule    string
	Message string
}

func (v PlanViolation) String() string { return v.Rule + ": " + v.Message }

// The rules a plan is validated against: JSON, the schemas, then each rule of spec 004 in code.
const (
	RulePlanJSON                 = "plan_is_json"
	RulePlanSchema               = "plan_matches_schema"
	RuleClaimIDsSequential       = "claim_ids_sequential"
	RuleClaimTextUnique          = "claim_text_unique"
	RuleClaimHasSpan             = "claim_maps_to_span"
	RuleNoAddedQuantification    = "claim_adds_no_quantification"
	RuleClaimNotAtomic           = "claim_not_atomic"
	RuleClaimAddsToSpan          = "claim_adds_to_span"
	RuleVerifiableClaimHasChain  = "verifiable_claim_has_chain"
	RuleChainsReferenceClaims    = "chains_reference_claims"
	RulePairsReferenceClaims     = "pairs_reference_claims"
	RuleCrossValidationPresent   = "cross_validation_present"
	RuleCrossValidationTwoClaims = "cross_validation_targets_two_claims"
	RuleCrossValidationInBounds  = "cross_validation_indices_in_bounds"
	RuleCrossValidationDistinct  = "cross_validation_differs_from_sub_queries"
	RuleCrossValidationNotConcat = "cross_validation_not_concatenation"
	RuleSubQueryNotClaim         = "sub_query_not_claim_text"
	RuleHopQueryNotClaim         = "hop_query_not_claim_copy"
	RuleHopsWithinMax            = "hops_within_max_hops"
	RuleHopsNumbered             = "hops_numbered_in_order"
	RuleQueriesDistinct          = "queries_not_near_duplicates"
	RuleAmbiguityCovered         = "ambiguous_claim_covered"
	RuleExecutionOrder           = "execution_order_consistent"
	// RuleClaimsWithinCap is asked of a plan once, not required: see makePlan.
	RuleClaimsWithinCap = "claims_within_claim_cap"
)

// PlanContext is what a plan is validated against besides itself.
type PlanContext struct {
	// Statement is the text the plan decomposes: every claim must map to a span of it.
	Statement string
	// MaxHops bounds every chain (DefaultMaxHops when 0).
	MaxHops int
	// Language is the statement's ISO 639-1 code, for the stop words of token overlap.
	Language string
	schemas  planSchemas
}

// ValidatedPlan is a plan that broke no rule, with what validation found out about it.
type ValidatedPlan struct {
	Plan Plan
	// JSON is the plan re-encoded from its parsed form: what Result.PlanJSON stores.
	JSON []byte
	// Spans are the byte offsets of each claim's source span in the statement.
	Spans [][2]int
}

// ValidatePlan parses and validates a plan reply. The reply may be wrapped in a markdown fence
// or in prose, as models do; the first JSON object in it is the plan. It returns the plan when
// it broke no rule, or every violation found: the JSON Schema (the plan schema, the job's output
// schema, the claim schema on every claim) and each rule of planRules. Rules run even when the
// schema fails, whenever the reply decodes, so that one repair can fix everything.
func ValidatePlan(reply string, pc PlanContext) (*ValidatedPlan, []PlanViolation) {
	if pc.schemas.plan == nil {
		s, err := builtinSchemas()
		if err != nil {
			return nil, []PlanViolation{{RulePlanSchema, err.Error()}}
		}
		pc.schemas = s
	}
	if pc.MaxHops <= 0 {
		pc.MaxHops = pipeline.DefaultMaxHops
	}
	raw := pipeline.ReplyJSONObject(reply)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, []PlanViolation{{RulePlanJSON, "the reply is not a JSON object: " + pipeline.OneLine(err)}}
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, []PlanViolation{{RulePlanJSON, "the reply is JSON but not an object"}}
	}
	var violations []PlanViolation
	addSchema := func(msgs []string) {
		for _, m := range msgs {
			violations = append(violations, PlanViolation{RulePlanSchema, m})
		}
	}
	addSchema(pipeline.SchemaViolations(pc.schemas.plan, doc, "plan schema"))
	if pc.schemas.output != nil {
		addSchema(pipeline.SchemaViolations(pc.schemas.output, doc, "output schema"))
	}
	if claims, ok := doc.(map[string]any)["claims"].([]any); ok && pc.schemas.claim != nil {
		for i, c := range claims {
			for _, m := range pipeline.SchemaViolations(pc.schemas.claim, c, "claim schema") {
				addSchema([]string{fmt.Sprintf("claims[%d]: %s", i, m)})
			}
		}
	}

	var plan Plan
	if err := json.Unmarshal(raw, &plan); err != nil {
		if len(violations) == 0 {
			violations = append(violations, PlanViolation{RulePlanSchema, "the plan does not decode: " + pipeline.OneLine(err)})
		}
		return nil, violations
	}
	if !plan.withinBounds() {
		// The schema has said what is too long; the rules compare queries pairwise, and a
		// reply this size is not worth it.
		if len(violations) == 0 {
			violations = append(violations, PlanViolation{RulePlanSchema, "the plan is larger than the plan schema allows"})
		}
		return nil, violations
	}
	plan, bridgeViolations := declareBridges(plan)
	pv := &planValidation{plan: withoutPlaceholders(plan), written: plan, ctx: pc, spans: make([][2]int, len(plan.Claims))}
	for _, r := range planRules {
		for _, msg := range r.check(pv) {
			violations = append(violations, PlanViolation{r.name, msg})
		}
	}
	violations = append(violations, bridgeViolations...)
	if len(violations) > 0 {
		return nil, violations
	}
	encoded, err := json.Marshal(plan)
	if err != nil {
		return nil, []PlanViolation{{RulePlanJSON, err.Error()}}
	}
	return &ValidatedPlan{Plan: plan, JSON: encoded, Spans: pv.spans}, nil
}

// Bounds of PlanSchemaJSON that the rules rely on: they compare queries and claims pairwise.
const (
	maxPlanClaims     = 20
	maxPlanChains     = 20
	maxPlanHops       = 10
	maxPlanCrossQs    = 10
	maxPlanSubQueries = 6
	maxPlanTextBytes  = 1000
)

// withinBounds reports whether the plan is no larger than PlanSchemaJSON allows, in the counts
// and lengths the rules' pairwise comparisons depend on.
func (p Plan) withinBounds() bool {
	if len(p.Claims) > maxPlanClaims || len(p.QueryChains) > maxPlanChains || len(p.CrossValidationQueries) > maxPlanCrossQs ||
		len(p.CrossValidationPairs) > maxPlanClaims || len(p.ExecutionOrder) > maxPlanClaims {
		return false
	}
	for _, c := range p.Claims {
		if len(c.SubQueries) > maxPlanSubQueries || len(c.Interpretations) > 4 || len(c.DependsOn) > maxPlanClaims ||
			len(c.ClaimText) > maxPlanTextBytes || len(c.SourceSpan) > maxPlanTextBytes {
			return false
		}
	}
	for _, ch := range p.QueryChains {
		if len(ch.Hops) > maxPlanHops {
			return false
		}
	}
	for _, q := range p.CrossValidationQueries {
		if len(q.TargetClaimIndices) > maxPlanClaims {
			return false
		}
	}
	return true
}

// planValidation is one plan under validation.
type planValidation struct {
	// plan is the plan as the wording rules read it (withoutPlaceholders); written is the plan
	// as the model wrote it, placeholders included.
	plan    Plan
	written Plan
	ctx     PlanContext
	spans   [][2]int
}

// planRule is one named rule of spec 004, checked in code. check returns one message per
// violation.
type planRule struct {
	name  string
	check func(*planValidation) []string
}

// planRules are every rule a plan must keep beyond its schema, in the order they are reported.
var planRules = []planRule{
	{RuleClaimIDsSequential, checkClaimIDs},
	{RuleClaimTextUnique, checkClaimTextUnique},
	{RuleClaimHasSpan, checkClaimSpans},
	{RuleNoAddedQuantification, checkQuantification},
	{RuleClaimNotAtomic, checkClaimAtomic},
	{RuleClaimAddsToSpan, checkClaimAddsToSpan},
	{RuleAmbiguityCovered, checkAmbiguity},
	{RuleSubQueryNotClaim, checkSubQueries},
	{RuleChainsReferenceClaims, checkChainReferences},
	{RuleVerifiableClaimHasChain, checkChainPerClaim},
	{RuleHopsWithinMax, checkHopsWithinMax},
	{RuleHopsNumbered, checkHopNumbers},
	{RuleHopQueryNotClaim, checkHopCopies},
	{RulePairsReferenceClaims, checkPairReferences},
	{RuleCrossValidationPresent, checkCrossValidationPresent},
	{RuleCrossValidationInBounds, checkCrossValidationBounds},
	{RuleCrossValidationTwoClaims, checkCrossValidationTargets},
	{RuleCrossValidationDistinct, checkCrossValidationDistinct},
	{RuleCrossValidationNotConcat, checkCrossValidationConcat},
	{RuleQueriesDistinct, checkNearDuplicates},
	{RuleExecutionOrder, checkExecutionOrder},
}

// ClaimRules are the rules of planRules that read only the claims, their spans and the
// statement: the decomposition itself, apart from the queries that verify it.
var ClaimRules = []string{RuleClaimTextUnique, RuleClaimHasSpan, RuleNoAddedQuantification, RuleClaimNotAtomic, RuleClaimAddsToSpan}

// ClaimViolations validates a decomposition, claims with their source spans, against the
// statement with the rules of ValidatePlan that read claims alone (ClaimRules), as ValidatePlan
// reads them (the wording rules without {cN} bridge placeholders). It is how
// `evaluate honest` measures those rules' false positives on human-written decompositions,
// which come without queries.
func ClaimViolations(claims []PlanClaim, pc PlanContext) []PlanViolation {
	written := Plan{Claims: claims}
	pv := &planValidation{plan: withoutPlaceholders(written), written: written, ctx: pc, spans: make([][2]int, len(claims))}
	var out []PlanViolation
	for _, r := range planRules {
		if !slices.Contains(ClaimRules, r.name) {
			continue
		}
		for _, msg := range r.check(pv) {
			out = append(out, PlanViolation{r.name, msg})
		}
	}
	return out
}

// ClaimID returns the id of the claim at position i (from 0): c1, c2, ... That is the whole
// rule for ids: unique and sequential means exactly this sequence, in array order.
func ClaimID(i int) string { return "c" + strconv.Itoa(i+1) }

func (pv *planValidation) claimIndex(id string) int {
	return slices.IndexFunc(pv.plan.Claims, func(c PlanClaim) bool { return c.ClaimID == id })
}

// verifiableCount counts the plan's verifiable claims: those that need chains and
// cross-validation, and those the claim cap counts.
func (p Plan) verifiableCount() int {
	n := 0
	for _, c := range p.Claims {
		if c.Verifiable {
			n++
		}
	}
	return n
}

func (pv *planValidation) chainOf(id string) *QueryChain {
	for i := range pv.plan.QueryChains {
		if pv.plan.QueryChains[i].ClaimID == id {
			return &pv.plan.QueryChains[i]
		}
	}
	return nil
}

func checkClaimIDs(pv *planValidation) []string {
	var out []string
	first := map[string]int{}
	for i, c := range pv.plan.Claims {
		if j, seen := first[c.ClaimID]; seen {
			out = append(out, fmt.Sprintf("claims %d and %d have the same claim_id %q; ids must be unique", j+1, i+1, c.ClaimID))
			continue
		}
		first[c.ClaimID] = i
		if c.ClaimID != ClaimID(i) {
			out = append(out, fmt.Sprintf("claim %d has claim_id %q, want %q: ids are c1, c2, ... in the order of the claims", i+1, c.ClaimID, ClaimID(i)))
		}
	}
	return out
}

// checkClaimTextUnique reads the claims as written: "{c4} is American" and "{c8} is American"
// are two propositions about two entities.
func checkClaimTextUnique(pv *planValidation) []string {
	var out []string
	first := map[string]int{}
	for i, c := range pv.written.Claims {
		key := normalizedQuery(c.ClaimText)
		if j, seen := first[key]; seen {
			out = append(out, fmt.Sprintf("claims %s and %s have the same claim_text %q: each claim must be a distinct proposition",
				pv.written.Claims[j].ClaimID, c.ClaimID, text.Truncate(c.ClaimText, 120)))
			continue
		}
		first[key] = i
	}
	return out
}

func checkClaimSpans(pv *planValidation) []string {
	var out []string
	for i, c := range pv.plan.Claims {
		start, end, ok := evidence.LocateSpan(pv.ctx.Statement, c.SourceSpan)
		if !ok {
			out = append(out, fmt.Sprintf("claim %s: its source_span %q is not in the statement; a claim that cannot be mapped to a span of the statement is a hallucinated claim (copy the span verbatim)",
				c.ClaimID, text.Truncate(c.SourceSpan, 120)))
			continue
		}
		pv.spans[i] = [2]int{start, end}
	}
	return out
}

var (
	quantityNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	// thousands matches a number written with thousands separators: "1,000".
	thousandsNumber = regexp.MustCompile(`^\d{1,3}(,\d{3})+$`)
	// theTwo is "the two" as words: a pair named before ("the two films").
	theTwo = regexp.MustCompile(`(?i)\bthe two\b`)
	// quantityWords are English words that quantify a claim.
	quantityWords = text.WordSet("all every most majority minority always never none half twice double doubled triple tripled many few several dozens hundreds thousands millions billions")
)

// quantities returns the numbers and quantifier words in s: digits as written without
// thousands separators ("1,000" is "1000"; in English, other commas separate numbers: "11,2018"
// is 11 and 2018), English number words as digits (but "one of", and "ones" as 1), quantifier
// words as themselves.
func quantities(s, language string) map[string]bool {
	out := map[string]bool{}
	english := language == "" || language == "en"
	for _, n := range quantityNumber.FindAllString(s, -1) {
		switch {
		case thousandsNumber.MatchString(n):
			n = strings.ReplaceAll(n, ",", "")
		case english && strings.Contains(n, ","):
			// In English a comma that groups no thousands separates two numbers: "March
			// 11,2018" is 11 and 2018, as "March 11, 2018" is. Elsewhere it may be a decimal
			// comma ("3,5"), one number.
			for _, part := range strings.Split(n, ",") {
				out[part] = true
			}
			continue
		}
		out[n] = true
	}
	if english {
		words := ruleWords(strings.ToLower(s))
		for i := 0; i < len(words); i++ {
			w := words[i]
			if w == "one" && i+1 < len(words) && words[i+1] == "of" {
				continue // "one of the products" picks one out, it counts nothing
			}
			if w == "one" && i > 0 && pronounOneAfter[words[i-1]] && oneAsPronoun(words[i+1:]) {
				continue // "a ballad is one in which a story is told" counts nothing either
			}
			if w == "one" && i > 0 && words[i-1] == "the" && theOneAsPronoun(words[i+1:]) {
				continue // nor does "similar to the one stated"
			}
			if w == "one" && i+1 == len(words) && slices.Contains(words[max(0, i-3):i], "the") {
				continue // nor "... that identify the longest-serving one", a thing named before
			}
			// "twenty-one" and "twenty one" are one number, 21; an ordinal counts nothing.
			if d, ordinal, n := text.NumberAt(words, i); n > 0 && !ordinal {
				out[d] = true
				i += n - 1
				continue
			}
			if w == "ones" {
				out["1"] = true // "two UK number ones": each a number one
				continue
			}
			if quantityWords[w] {
				out[w] = true
			}
		}
	}
	return out
}

// datesInWords reads the parts of dates an English statement writes in words or short that a
// claim writes in figures: a day as an ordinal beside its month ("January ninth", "the ninth
// of January": 9), and a decade in two figures ("the 50's", "the 80s": "50", "80"), which
// a claim may write with its century ("the 1950s", fullDecades). In session 37's relay runs
// plans were refused for "January 9, 1957" and "the 1950s" and asked again. An ordinal
// elsewhere ("the ninth album") still counts nothing.
func datesInWords(statement string) (days, decades map[string]bool) {
	days, decades = map[string]bool{}, map[string]bool{}
	words := ruleWords(strings.ToLower(statement))
	for i := range words {
		d, ordinal, n := text.NumberAt(words, i)
		if n == 0 || !ordinal {
			continue
		}
		after := words[min(i+n, len(words)):]
		if i > 0 && monthNames[words[i-1]] || len(after) > 1 && after[0] == "of" && monthNames[after[1]] {
			days[d] = true
		}
	}
	for _, m := range twoFigureDecade.FindAllStringSubmatch(statement, -1) {
		decades[m[1]] = true
	}
	return days, decades
}

// fullDecades are the decades a claim writes with their century ("the 1950s"), by their year
// ("1950"); "1950" alone is a year, not among them.
func fullDecades(claim string) map[string]bool {
	out := map[string]bool{}
	for _, m := range fullDecade.FindAllStringSubmatch(claim, -1) {
		out[m[1]] = true
	}
	return out
}

var (
	monthNames = text.WordSet(text.MonthNames)
	// twoFigureDecade is a decade written with two figures, its apostrophe before or after
	// them or none: "50's", "'50s", "80s".
	twoFigureDecade = regexp.MustCompile(`(?:^|[^\d'’])['’]?([1-9]0)['’]?s\b`)
	// fullDecade is a decade written with four figures: "1950s", "1950's".
	fullDecade = regexp.MustCompile(`\b((?:1[0-9]|20)[0-9]0)['’]?s\b`)
)

// relativeWords open a relative clause; "one" before one is a pronoun, not a number.
var relativeWords = text.WordSet("who whom whose which that where")

// pronounOneAfter are the words after which a "one" heading a relative clause is a pronoun ("is
// one who", "the one that"); after others it is the number ("between zero and one that ...").
var pronounOneAfter = text.WordSet("is are was were be been being the this that every any no each")

// prepositionsBeforeRelative stand between a pronoun and its relative clause ("one in which").
var prepositionsBeforeRelative = text.WordSet("in on at of for by with from to")

// oneAsPronoun reports whether the words after a "one" make it the head of a relative clause:
// "one who ...", "one in which ...", not "one in ten". The caller checks the word before it
// (pronounOneAfter).
func oneAsPronoun(after []string) bool {
	switch {
	case len(after) > 0 && relativeWords[after[0]]:
		return true
	case len(after) > 1 && prepositionsBeforeRelative[after[0]] && relativeWords[after[1]] && after[1] != "that":
		return true
	}
	return false
}

// theOneAsPronoun reports whether the words after "the one" make it a pronoun for a thing named
// before it: none ("the prize went to the one"), or a past participle ("the one stated", "the
// one described in the guide"; a real-model plan was refused for "similar to the one stated").
// Before a noun it is the number ("the one goal of the match").
func theOneAsPronoun(after []string) bool {
	if len(after) == 0 {
		return true
	}
	w := after[0]
	if _, _, n := text.NumberAt(after, 0); n > 0 {
		return false
	}
	return len(w) > 4 && strings.HasSuffix(w, "ed")
}

// checkQuantification: a claim may not carry a number or a quantifier ("all", "most", "twice")
// that the statement does not contain. The statement, not only the claim's span, because a
// claim may rightly take its date from another clause ("In 2020, X rose and Y fell" gives "Y
// fell in 2020").
//
// "The two" counts nothing new in a statement that joins things with "and" or "or": it names the
// pair the statement joins ("which connects the two films" of "Lost Highway and Mulholland Drive
// are connected ..."; a real-model plan was refused for it, and its statement lost).
func checkQuantification(pv *planValidation) []string {
	have := quantities(pv.ctx.Statement, pv.ctx.Language)
	days, decades := datesInWords(pv.ctx.Statement)
	for d := range days {
		have[d] = true
	}
	joins := (pv.ctx.Language == "" || pv.ctx.Language == "en") &&
		slices.ContainsFunc(ruleWords(strings.ToLower(pv.ctx.Statement)), func(w string) bool { return w == "and" || w == "or" || w == "both" })
	var out []string
	for _, c := range pv.plan.Claims {
		claim := c.ClaimText
		if joins {
			claim = theTwo.ReplaceAllString(claim, "the")
		}
		var added []string
		claimDecades := fullDecades(claim)
		for q := range quantities(claim, pv.ctx.Language) {
			if !have[q] && !(claimDecades[q] && decades[q[2:]]) {
				added = append(added, q)
			}
		}
		if len(added) > 0 {
			slices.Sort(added)
			out = append(out, fmt.Sprintf("claim %s adds quantification not present in the statement: %s",
				c.ClaimID, strings.Join(added, ", ")))
		}
	}
	return out
}

func checkAmbiguity(pv *planValidation) []string {
	var out []string
	for _, c := range pv.plan.Claims {
		if !c.ambiguous() {
			continue
		}
		switch {
		case strings.TrimSpace(c.AmbiguityNote) == "":
			out = append(out, fmt.Sprintf("claim %s has interpretations but no ambiguity_note saying what is ambiguous", c.ClaimID))
			continue
		case len(c.Interpretations) < 2:
			out = append(out, fmt.Sprintf("claim %s is noted as ambiguous but has %d interpretation(s); give at least two readings, each with a query", c.ClaimID, len(c.Interpretations)))
			continue
		}
		seen := map[string]bool{}
		for _, in := range c.Interpretations {
			q := normalizedQuery(in.Query)
			if strings.TrimSpace(in.Reading) == "" || q == "" {
				out = append(out, fmt.Sprintf("claim %s has an interpretation without a reading or a query", c.ClaimID))
				continue
			}
			if seen[q] {
				out = append(out, fmt.Sprintf("claim %s gives two readings the same query %q", c.ClaimID, in.Query))
				continue
			}
			seen[q] = true
			if !c.Verifiable {
				continue
			}
			chain := pv.chainOf(c.ClaimID)
			if chain == nil || !slices.ContainsFunc(chain.Hops, func(h PlanHop) bool { return normalizedQuery(h.Query) == q }) {
				out = append(out, fmt.Sprintf("claim %s: the query %q of the reading %q is not a hop of its chain; every reading must be searched",
					c.ClaimID, in.Query, text.Truncate(in.Reading, 80)))
			}
		}
	}
	return out
}

func checkSubQueries(pv *planValidation) []string {
	var out []string
	for _, c := range pv.plan.Claims {
		claim := normalizedQuery(c.ClaimText)
		for _, q := range c.SubQueries {
			if normalizedQuery(q) == claim {
				out = append(out, fmt.Sprintf("claim %s: the sub_query %q is the claim_text itself; write a retrieval query", c.ClaimID, text.Truncate(q, 120)))
			}
		}
	}
	return out
}

func checkChainReferences(pv *planValidation) []string {
	var out []string
	for i, ch := range pv.plan.QueryChains {
		if pv.claimIndex(ch.ClaimID) < 0 {
			out = append(out, fmt.Sprintf("query chain %d names claim_id %q, which is not a claim of the plan (an orphan query chain)", i+1, ch.ClaimID))
		}
	}
	for _, c := range pv.plan.Claims {
		for _, dep := range c.DependsOn {
			if dep == c.ClaimID || pv.claimIndex(dep) < 0 {
				out = append(out, fmt.Sprintf("claim %s depends on %q, which is not another claim of the plan", c.ClaimID, dep))
			}
		}
	}
	return out
}

func checkChainPerClaim(pv *planValidation) []string {
	var out []string
	for _, c := range pv.plan.Claims {
		n := 0
		for _, ch := range pv.plan.QueryChains {
			if ch.ClaimID == c.ClaimID {
				n++
			}
		}
		switch {
		case c.Verifiable && n == 0:
			out = append(out, fmt.Sprintf("verifiable claim %s has no query chain", c.ClaimID))
		case n > 1:
			out = append(out, fmt.Sprintf("claim %s has %d query chains; give one chain per claim", c.ClaimID, n))
		case !c.Verifiable && n == 1:
			out = append(out, fmt.Sprintf("claim %s is not verifiable but has a query chain: mark it verifiable or drop the chain", c.ClaimID))
		}
	}
	return out
}

func checkHopsWithinMax(pv *planValidation) []string {
	var out []string
	for _, ch := range pv.plan.QueryChains {
		if len(ch.Hops) > pv.ctx.MaxHops {
			out = append(out, fmt.Sprintf("the chain of claim %s has %d hops, over max_hops %d", ch.ClaimID, len(ch.Hops), pv.ctx.MaxHops))
		}
	}
	return out
}

func checkHopNumbers(pv *planValidation) []string {
	var out []string
	for _, ch := range pv.plan.QueryChains {
		for i, h := range ch.Hops {
			if h.HopNumber != i+1 {
				out = append(out, fmt.Sprintf("the chain of claim %s has hop_number %d at position %d; hops are numbered 1, 2, ... in order", ch.ClaimID, h.HopNumber, i+1))
				break
			}
		}
	}
	return out
}

func checkHopCopies(pv *planValidation) []string {
	var out []string
	for _, ch := range pv.plan.QueryChains {
		i := pv.claimIndex(ch.ClaimID)
		if i < 0 {
			continue
		}
		claim := normalizedQuery(pv.plan.Claims[i].ClaimText)
		for _, h := range ch.Hops {
			if normalizedQuery(h.Query) == claim {
				out = append(out, fmt.Sprintf("hop %d of claim %s is a verbatim copy of the claim; reformulate it for retrieval (key entities, dates, constraints)", h.HopNumber, ch.ClaimID))
			}
		}
	}
	return out
}

func checkPairReferences(pv *planValidation) []string {
	var out []string
	for i, p := range pv.plan.CrossValidationPairs {
		for _, id := range []string{p.ClaimAID, p.ClaimBID} {
			if pv.claimIndex(id) < 0 {
				out = append(out, fmt.Sprintf("cross-validation pair %d names claim_id %q, which is not a claim of the plan", i+1, id))
			}
		}
		if p.ClaimAID == p.ClaimBID {
			out = append(out, fmt.Sprintf("cross-validation pair %d pairs claim %q with itself", i+1, p.ClaimAID))
		}
	}
	return out
}

func checkCrossValidationPresent(pv *planValidation) []string {
	if n := pv.plan.verifiableCount(); n >= 2 && len(pv.plan.CrossValidationQueries) == 0 {
		return []string{fmt.Sprintf("the plan has %d verifiable claims but no cross_validation_queries; test related claims jointly", n)}
	}
	return nil
}

func checkCrossValidationBounds(pv *planValidation) []string {
	var out []string
	for i, q := range pv.plan.CrossValidationQueries {
		for _, idx := range q.TargetClaimIndices {
			if idx < 0 || idx >= len(pv.plan.Claims) {
				out = append(out, fmt.Sprintf("cross-validation query %d targets claim index %d, out of bounds for %d claims (indices are 0 to %d)",
					i+1, idx, len(pv.plan.Claims), len(pv.plan.Claims)-1))
			}
		}
	}
	return out
}

func checkCrossValidationTargets(pv *planValidation) []string {
	var out []string
	for i, q := range pv.plan.CrossValidationQueries {
		distinct := map[int]bool{}
		for _, idx := range q.TargetClaimIndices {
			distinct[idx] = true
		}
		if len(distinct) < 2 {
			out = append(out, fmt.Sprintf("cross-validation query %d targets %d distinct claim(s); it must join at least two", i+1, len(distinct)))
		}
	}
	return out
}

func checkCrossValidationDistinct(pv *planValidation) []string {
	subs := map[string]string{}
	for _, c := range pv.plan.Claims {
		for _, q := range c.SubQueries {
			subs[normalizedQuery(q)] = c.ClaimID
		}
	}
	var out []string
	for i, q := range pv.plan.CrossValidationQueries {
		if id, ok := subs[normalizedQuery(q.QueryText)]; ok {
			out = append(out, fmt.Sprintf("cross-validation query %d is the same as a sub_query of claim %s; it must be a retrieval of its own", i+1, id))
		}
	}
	return out
}

// checkCrossValidationConcat: a cross-validation query whose content words are exactly those of
// two queries (or claim texts) of two different claims, in any order, is their trivial
// concatenation.
func checkCrossValidationConcat(pv *planValidation) []string {
	type piece struct {
		claim  int
		tokens map[string]bool
	}
	var pieces []piece
	for i, c := range pv.plan.Claims {
		texts := append([]string{c.ClaimText}, c.SubQueries...)
		if ch := pv.chainOf(c.ClaimID); ch != nil {
			for _, h := range ch.Hops {
				texts = append(texts, h.Query)
			}
		}
		for _, t := range texts {
			if tokens := tokenSet(text.ContentWords(t, pv.ctx.Language)); len(tokens) > 0 {
				pieces = append(pieces, piece{i, tokens})
			}
		}
	}
	var out []string
	for qi, q := range pv.plan.CrossValidationQueries {
		want := tokenSet(text.ContentWords(q.QueryText, pv.ctx.Language))
		if len(want) == 0 {
			continue
		}
	search:
		for a := range pieces {
			for b := a + 1; b < len(pieces); b++ {
				if pieces[a].claim == pieces[b].claim {
					continue
				}
				union := map[string]bool{}
				for t := range pieces[a].tokens {
					union[t] = true
				}
				for t := range pieces[b].tokens {
					union[t] = true
				}
				if sameSet(union, want) {
					out = append(out, fmt.Sprintf("cross-validation query %d is a concatenation of queries of claims %s and %s; it must test their joint truth with a retrieval of its own",
						qi+1, pv.plan.Claims[pieces[a].claim].ClaimID, pv.plan.Claims[pieces[b].claim].ClaimID))
					break search
				}
			}
		}
	}
	return out
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// checkNearDuplicates: no two queries that run (hop queries of every chain and cross-validation
// queries), and no two sub-queries of one claim, share more than NearDuplicateOverlap of their
// tokens (TokenOverlap). A placeholder counts as a term ("{c2}" as "c2"): it stands for a name
// the query will hold, which other queries may not.
func checkNearDuplicates(pv *planValidation) []string {
	type query struct{ text, where string }
	var run []query
	for _, ch := range pv.written.QueryChains {
		for _, h := range ch.Hops {
			run = append(run, query{h.Query, fmt.Sprintf("hop %d of claim %s", h.HopNumber, ch.ClaimID)})
		}
	}
	for i, q := range pv.written.CrossValidationQueries {
		run = append(run, query{q.QueryText, fmt.Sprintf("cross-validation query %d", i+1)})
	}
	groups := [][]query{run}
	for _, c := range pv.written.Claims {
		var subs []query
		for i, q := range c.SubQueries {
			subs = append(subs, query{q, fmt.Sprintf("sub_query %d of claim %s", i+1, c.ClaimID)})
		}
		groups = append(groups, subs)
	}
	var out []string
	for _, g := range groups {
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				if overlap := queryOverlap(g[i].text, g[j].text, pv.ctx.Language); overlap > NearDuplicateOverlap {
					out = append(out, fmt.Sprintf("%s and %s are near-duplicates (%.0f%% token overlap, over 80%%): each query must target a distinct retrieval need",
						g[i].where, g[j].where, 100*overlap))
				}
			}
		}
	}
	return out
}

// queryOverlap is the share of their tokens two queries share (TokenOverlap), 1 when they are
// the same once normalised.
func queryOverlap(a, b, language string) float64 {
	if normalizedQuery(a) == normalizedQuery(b) {
		return 1
	}
	return TokenOverlap(a, b, language)
}

// nearDuplicateQueries reports whether two queries share more than NearDuplicateOverlap of their
// tokens (queryOverlap).
func nearDuplicateQueries(a, b, language string) bool {
	return queryOverlap(a, b, language) > NearDuplicateOverlap
}

func checkExecutionOrder(pv *planValidation) []string {
	var out []string
	pos := map[string]int{}
	for i, id := range pv.plan.ExecutionOrder {
		ci := pv.claimIndex(id)
		switch {
		case ci < 0:
			out = append(out, fmt.Sprintf("execution_order names %q, which is not a claim of the plan", id))
			continue
		case !pv.plan.Claims[ci].Verifiable:
			out = append(out, fmt.Sprintf("execution_order names %s, which is not verifiable and has nothing to execute", id))
			continue
		}
		if _, dup := pos[id]; dup {
			out = append(out, fmt.Sprintf("execution_order names %s twice", id))
			continue
		}
		pos[id] = i
	}
	for _, c := range pv.plan.Claims {
		if !c.Verifiable {
			continue
		}
		p, ok := pos[c.ClaimID]
		if !ok {
			out = append(out, fmt.Sprintf("execution_order is missing verifiable claim %s", c.ClaimID))
			continue
		}
		for _, dep := range c.DependsOn {
			if dp, ok := pos[dep]; ok && dp > p {
				out = append(out, fmt.Sprintf("execution_order runs %s before %s, which it depends on", c.ClaimID, dep))
			}
		}
	}
	return out
}
