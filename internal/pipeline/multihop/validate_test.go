package multihop

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// specStatement is spec 004's example statement.
const specStatement = "The same gene variant linked to increased risk of Alzheimer's also appears to reduce the risk of certain cancers, according to recent studies."

// validPlan is a plan of specStatement that keeps every rule: two verifiable claims, the second
// ambiguous with a hop per reading, a cross-validation pair and query, and no two queries alike.
func validPlan() Plan {
	return Plan{
		PlanID: "plan-apoe4",
		Claims: []PlanClaim{
			{
				ClaimID: "c1", ClaimText: "A gene variant is linked to an increased risk of Alzheimer's disease",
				SourceSpan: "The same gene variant linked to increased risk of Alzheimer's",
				Entities:   []string{"gene variant", "Alzheimer's disease"}, Verifiable: true,
				Interpretations: []Interpretation{}, DependsOn: []string{},
				SubQueries:              []string{"APOE4 allele Alzheimer's risk odds ratio", "gene variant late-onset Alzheimer's genetic risk factor"},
				SourceIndependenceScore: 0.8,
			},
			{
				ClaimID: "c2", ClaimText: "The gene variant linked to Alzheimer's risk appears to reduce the risk of certain cancers according to recent studies",
				SourceSpan: "also appears to reduce the risk of certain cancers, according to recent studies",
				Entities:   []string{"gene variant", "cancer"}, Verifiable: true, RequiresTemporalScope: true,
				AmbiguityNote: "Which cancers and which studies are meant is not stated.",
				Interpretations: []Interpretation{
					{Reading: "The variant lowers overall cancer incidence", Query: "APOE4 carriers overall cancer incidence cohort"},
					{Reading: "The variant lowers the risk of specific cancers such as breast or prostate cancer", Query: "APOE e4 breast prostate cancer risk meta-analysis"},
				},
				DependsOn:               []string{"c1"},
				SubQueries:              []string{"APOE4 inverse association cancer", "apolipoprotein E epsilon4 tumour protection mechanism"},
				SourceIndependenceScore: 0.6,
			},
		},
		QueryChains: []QueryChain{
			{ClaimID: "c1", Hops: []PlanHop{
				{1, "APOE4 Alzheimer's disease genome-wide association study", "peer-reviewed journal", "study result"},
				{2, "apolipoprotein E e4 dementia risk NIH fact sheet", "government health agency", "official summary"},
			}},
			{ClaimID: "c2", Hops: []PlanHop{
				{1, "APOE4 carriers overall cancer incidence cohort", "peer-reviewed journal", "cohort study result"},
				{2, "APOE e4 breast prostate cancer risk meta-analysis", "systematic review", "pooled estimate"},
			}},
		},
		CrossValidationPairs:   []CrossValidationPair{{"c1", "c2", "the same variant with opposite effects on two diseases"}},
		CrossValidationQueries: []CrossValidationQuery{{"Alzheimer's cancer inverse comorbidity APOE genotype", []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

func planJSON(t testing.TB, p Plan) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func rulesOf(vs []PlanViolation) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.Rule) {
			out = append(out, v.Rule)
		}
	}
	return out
}

func TestValidPlanPasses(t *testing.T) {
	t.Parallel()
	for _, reply := range []string{
		planJSON(t, validPlan()),
		"```json\n" + planJSON(t, validPlan()) + "\n```",
		"Here is the plan:\n" + planJSON(t, validPlan()) + "\nI hope it helps.",
	} {
		vp, violations := ValidatePlan(reply, PlanContext{Statement: specStatement, MaxHops: 3, Language: "en"})
		if len(violations) > 0 {
			t.Fatalf("a valid plan broke rules: %v", violations)
		}
		if vp.Spans[0] != [2]int{0, len("The same gene variant linked to increased risk of Alzheimer's")} {
			t.Errorf("span of c1 = %v", vp.Spans[0])
		}
		if got := specStatement[vp.Spans[1][0]:vp.Spans[1][1]]; got != "also appears to reduce the risk of certain cancers, according to recent studies" {
			t.Errorf("span of c2 = %q", got)
		}
		var back Plan
		if err := json.Unmarshal(vp.JSON, &back); err != nil || back.PlanID != "plan-apoe4" {
			t.Errorf("validated JSON: %v %s", err, vp.JSON)
		}
	}
}

// One failing plan per rule: each case breaks exactly one rule, and the test fails if the rule is
// removed (its violation would be missing) or if the case trips another rule.
func TestValidatePlanRules(t *testing.T) {
	t.Parallel()
	type mutation func(p *Plan, pc *PlanContext)
	tests := []struct {
		rule    string
		message string
		mutate  mutation
		reply   string // used instead of the mutated plan when set
	}{
		{rule: RulePlanJSON, message: "not a JSON object", reply: "I cannot make a plan for this."},
		{rule: RulePlanJSON, message: "not an object", reply: `["c1"]`},
		{rule: RulePlanSchema, message: "/claims/0/source_independence_score", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[0].SourceIndependenceScore = 1.5
		}},
		{rule: RulePlanSchema, message: "/plan_id", mutate: func(p *Plan, _ *PlanContext) { p.PlanID = "" }},
		{rule: RuleClaimIDsSequential, message: `claim 2 has claim_id "c3", want "c2"`, mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].ClaimID, p.QueryChains[1].ClaimID, p.CrossValidationPairs[0].ClaimBID, p.ExecutionOrder[1] = "c3", "c3", "c3", "c3"
		}},
		{rule: RuleClaimTextUnique, message: "have the same claim_text", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].ClaimText = p.Claims[0].ClaimText
		}},
		{rule: RuleClaimHasSpan, message: "hallucinated claim", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[0].SourceSpan = "A gene variant doubles the risk of Alzheimer's"
		}},
		{rule: RuleNoAddedQuantification, message: "claim c1 adds quantification not present in the statement: 3", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[0].ClaimText = "A gene variant is linked to a 3-fold increased risk of Alzheimer's disease"
		}},
		{rule: RuleNoAddedQuantification, message: "most", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].ClaimText = "The gene variant linked to Alzheimer's risk appears to reduce the risk of most cancers according to recent studies"
		}},
		{rule: RuleClaimNotAtomic, message: "claim c1 joins two facts", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[0].ClaimText = "A gene variant is linked to an increased risk of Alzheimer's disease and also appears to reduce the risk of certain cancers"
		}},
		{rule: RuleClaimAddsToSpan, message: "claim c1 adds Finland", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[0].ClaimText = "A gene variant found in Finland is linked to an increased risk of Alzheimer's disease"
		}},
		{rule: RuleAmbiguityCovered, message: "has 0 interpretation(s)", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].Interpretations = []Interpretation{}
		}},
		{rule: RuleAmbiguityCovered, message: "no ambiguity_note", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].AmbiguityNote = ""
		}},
		{rule: RuleAmbiguityCovered, message: "is not a hop of its chain", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].Interpretations[1].Query = "APOE e4 colorectal cancer case-control"
		}},
		{rule: RuleSubQueryNotClaim, message: "is the claim_text itself", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[0].SubQueries[1] = p.Claims[0].ClaimText + "."
		}},
		{rule: RuleChainsReferenceClaims, message: "orphan query chain", mutate: func(p *Plan, _ *PlanContext) {
			p.QueryChains = append(p.QueryChains, QueryChain{ClaimID: "c9", Hops: []PlanHop{{1, "sea level rise Pacific islands", "news report", "measurement"}}})
		}},
		{rule: RuleChainsReferenceClaims, message: `depends on "c5"`, mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].DependsOn = []string{"c5"}
		}},
		{rule: RuleVerifiableClaimHasChain, message: "verifiable claim c1 has no query chain", mutate: func(p *Plan, _ *PlanContext) {
			p.QueryChains = p.QueryChains[1:]
		}},
		{rule: RuleHopsWithinMax, message: "has 2 hops, over max_hops 1", mutate: func(_ *Plan, pc *PlanContext) { pc.MaxHops = 1 }},
		{rule: RuleHopsNumbered, message: "hop_number 3 at position 2", mutate: func(p *Plan, _ *PlanContext) {
			p.QueryChains[0].Hops[1].HopNumber = 3
		}},
		{rule: RuleHopQueryNotClaim, message: "verbatim copy of the claim", mutate: func(p *Plan, _ *PlanContext) {
			p.QueryChains[0].Hops[1].Query = p.Claims[0].ClaimText
		}},
		{rule: RulePairsReferenceClaims, message: `names claim_id "c7"`, mutate: func(p *Plan, _ *PlanContext) {
			p.CrossValidationPairs[0].ClaimBID = "c7"
		}},
		{rule: RuleCrossValidationPresent, message: "no cross_validation_queries", mutate: func(p *Plan, _ *PlanContext) {
			p.CrossValidationQueries = []CrossValidationQuery{}
		}},
		{rule: RuleCrossValidationInBounds, message: "claim index 5, out of bounds", mutate: func(p *Plan, _ *PlanContext) {
			p.CrossValidationQueries[0].TargetClaimIndices = []int{0, 5}
		}},
		{rule: RuleCrossValidationTwoClaims, message: "targets 1 distinct claim(s)", mutate: func(p *Plan, _ *PlanContext) {
			p.CrossValidationQueries[0].TargetClaimIndices = []int{1, 1}
		}},
		{rule: RuleCrossValidationDistinct, message: "same as a sub_query of claim c1", mutate: func(p *Plan, _ *PlanContext) {
			p.CrossValidationQueries[0].QueryText = p.Claims[0].SubQueries[0]
		}},
		{rule: RuleCrossValidationNotConcat, message: "concatenation of queries of claims c1 and c2", mutate: func(p *Plan, _ *PlanContext) {
			p.CrossValidationQueries[0].QueryText = p.Claims[0].SubQueries[0] + " and " + p.Claims[1].SubQueries[0]
		}},
		{rule: RuleQueriesDistinct, message: "hop 1 of claim c1 and hop 2 of claim c1 are near-duplicates (100% token overlap", mutate: func(p *Plan, _ *PlanContext) {
			p.QueryChains[0].Hops[1].Query = "genome-wide association study: APOE4 and Alzheimer's disease"
		}},
		{rule: RuleQueriesDistinct, message: "sub_query 1 of claim c2 and sub_query 2 of claim c2", mutate: func(p *Plan, _ *PlanContext) {
			p.Claims[1].SubQueries[1] = "inverse association of APOE4 with cancer"
		}},
		{rule: RuleExecutionOrder, message: "runs c2 before c1, which it depends on", mutate: func(p *Plan, _ *PlanContext) {
			p.ExecutionOrder = []string{"c2", "c1"}
		}},
		{rule: RuleExecutionOrder, message: "missing verifiable claim c2", mutate: func(p *Plan, _ *PlanContext) {
			p.ExecutionOrder = []string{"c1"}
		}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.rule] = true
		t.Run(tt.rule+"/"+tt.message, func(t *testing.T) {
			t.Parallel()
			p, pc := validPlan(), PlanContext{Statement: specStatement, MaxHops: 3, Language: "en"}
			reply := tt.reply
			if reply == "" {
				tt.mutate(&p, &pc)
				reply = planJSON(t, p)
			}
			vp, violations := ValidatePlan(reply, pc)
			if vp != nil {
				t.Fatalf("the plan passed; want a violation of %s", tt.rule)
			}
			if got := rulesOf(violations); !slices.Equal(got, []string{tt.rule}) {
				t.Fatalf("rules broken = %v, want only %s: %v", got, tt.rule, violations)
			}
			if !slices.ContainsFunc(violations, func(v PlanViolation) bool { return strings.Contains(v.Message, tt.message) }) {
				t.Errorf("no %s violation says %q: %v", tt.rule, tt.message, violations)
			}
		})
	}
	for _, r := range planRules {
		if !covered[r.name] {
			t.Errorf("rule %s has no failing plan in this table", r.name)
		}
	}
}

// The job's own output and claim schemas are applied on top of the plan schema.
func TestValidatePlanWithJobSchemas(t *testing.T) {
	t.Parallel()
	claimSchema := `{"type":"object","required":["claim_id","claim_text","verifiable"],
		"properties":{"claim_id":{"type":"string"},"claim_text":{"type":"string","maxLength":100},"verifiable":{"type":"boolean"}}}`
	schemas, err := compilePlanSchemas([]byte(claimSchema), PlanSchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	_, violations := ValidatePlan(planJSON(t, validPlan()), PlanContext{Statement: specStatement, schemas: schemas})
	if got := rulesOf(violations); !slices.Equal(got, []string{RulePlanSchema}) ||
		!strings.Contains(violations[0].Message, "claims[1]: claim schema at /claim_text") {
		t.Fatalf("violations = %v, want the claim schema's maxLength on claim 2", violations)
	}
}

func TestLocateSpanTolerance(t *testing.T) {
	t.Parallel()
	statement := "Officials said the “new bridge”  opened in\nMarch 2024 — ahead of schedule."
	tests := []struct {
		span string
		want string
	}{
		{`the "new bridge" opened in March 2024`, "the “new bridge”  opened in\nMarch 2024"},
		{"THE NEW BRIDGE OPENED", "the “new bridge”  opened"},
		{"March 2024 - ahead of schedule.", "March 2024 — ahead of schedule"},
		{"ahead of schedule", "ahead of schedule"},
		// Quote marks the span opens or closes with are its own (a real plan's span
		// `who was referred to as the "Princess of Pop"` was stored without its closing quote).
		{`said the "new bridge"`, "said the “new bridge”"},
		{`"new bridge" opened`, "“new bridge”  opened"},
	}
	for _, tt := range tests {
		start, end, ok := evidence.LocateSpan(statement, tt.span)
		if !ok || statement[start:end] != tt.want {
			t.Errorf("locateSpan(%q) = %q (%v), want %q", tt.span, statement[start:min(end, len(statement))], ok, tt.want)
		}
	}
	for _, span := range []string{"", "  ", "\"\"", "the old bridge", "opened in April"} {
		if _, _, ok := evidence.LocateSpan(statement, span); ok {
			t.Errorf("locateSpan(%q) found a span", span)
		}
	}
}

func TestTokenOverlap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want float64
	}{
		{"APOE4 Alzheimer's risk", "the risk of Alzheimer's and APOE4", 1},
		{"APOE4 Alzheimer risk", "APOE4 Alzheimer risk cohort", 0.75},
		{"Eiffel Tower height", "Statue of Liberty height", 0.2},
		{"the of and", "the of and", 0},
	}
	for _, tt := range tests {
		if got := TokenOverlap(tt.a, tt.b, "en"); got != tt.want {
			t.Errorf("TokenOverlap(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzValidatePlan: whatever the model replies, validation returns a plan or violations of
// known rules, never both, never neither, and never panics.
func FuzzValidatePlan(f *testing.F) {
	base := validPlan()
	b, _ := json.Marshal(base)
	f.Add(string(b), specStatement, 3)
	f.Add(`{"claims":[],"query_chains":[],"cross_validation_pairs":[],"cross_validation_queries":[],"execution_order":[]}`, specStatement, 3)
	f.Add(`{"claims":[{"claim_id":"c1","source_span":"`+"\u00e9\u0301"+`"}],"query_chains":[{"claim_id":"c1","hops":[{"hop_number":-1}]}],"cross_validation_queries":[{"target_claim_indices":[-5,99999999999]}]}`, "é x", 0)
	f.Add("```json\n{\"plan_id\":1}\n```", "a b", 11)
	f.Add(`{"claims":null}`, "", 1)
	f.Add(`not json at all {`, "x y", 2)
	known := map[string]bool{RulePlanJSON: true, RulePlanSchema: true}
	for _, r := range planRules {
		known[r.name] = true
	}
	f.Fuzz(func(t *testing.T, reply, statement string, maxHops int) {
		vp, violations := ValidatePlan(reply, PlanContext{Statement: statement, MaxHops: maxHops, Language: "en"})
		if (vp == nil) == (len(violations) == 0) {
			t.Fatalf("plan %v with %d violations", vp != nil, len(violations))
		}
		for _, v := range violations {
			if !known[v.Rule] || v.Message == "" {
				t.Fatalf("violation of unknown rule or without message: %+v", v)
			}
		}
		if vp != nil {
			for i, s := range vp.Spans {
				if s[0] < 0 || s[1] > len(statement) || s[0] >= s[1] {
					t.Fatalf("span %d = %v out of the statement of %d bytes", i, s, len(statement))
				}
			}
		}
	})
}

// Rule 10: the plan checker rejects a claim that joins two facts the statement states
// separately, and a claim that adds an entity, number, date or place its source span does not
// hold; and allows what only looks like either: ranges, names and set phrases with "and", a
// paraphrase of the span, a subject or a date resolved from the rest of the statement.
func TestClaimAtomicAndFaithfulToSpan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, statement, claim, span string
		entities                     []string
		rule                         string // "" when the claim is allowed
		message                      string
	}{
		{"two predicates with numbers", "The Eiffel Tower is 330 metres tall. It weighs 10,100 tonnes.",
			"The Eiffel Tower is 330 metres tall and weighs 10,100 tonnes", "The Eiffel Tower is 330 metres tall. It weighs 10,100 tonnes", nil,
			RuleClaimNotAtomic, `"The Eiffel Tower is 330 metres tall" and "weighs 10,100 tonnes"`},
		{"two dates", "The bridge was repainted in 1990. It was repainted again in 2005.",
			"The bridge was repainted in 1990 and 2005", "The bridge was repainted in 1990. It was repainted again in 2005", nil,
			RuleClaimNotAtomic, "two numbers or dates"},
		{"two named subjects", "Paris has a metro. London has one too.",
			"Paris and London have a metro", "Paris has a metro. London has one too", []string{"Paris", "London"},
			RuleClaimNotAtomic, "two named subjects"},
		{"a semicolon", "The tower opened in 1889; it was the tallest structure of its time.",
			"The tower opened in 1889; it was the tallest structure of its time", "The tower opened in 1889; it was the tallest structure of its time", nil,
			RuleClaimNotAtomic, "split"},
		{"while", "Exports rose 5% while imports fell 3%.",
			"Exports rose 5% while imports fell 3%", "Exports rose 5% while imports fell 3%", nil,
			RuleClaimNotAtomic, "two predicates"},
		{"a range", "Sales grew between 1990 and 2000.", "Sales grew between 1990 and 2000", "Sales grew between 1990 and 2000", nil, "", ""},
		{"a company name", "Procter and Gamble sells soap in 180 countries.",
			"Procter and Gamble sells soap in 180 countries", "Procter and Gamble sells soap in 180 countries", []string{"Procter and Gamble"}, "", ""},
		{"a set phrase", "Elvis Presley was the king of rock and roll.",
			"Elvis Presley was the king of rock and roll", "Elvis Presley was the king of rock and roll", []string{"Elvis Presley"}, "", ""},
		{"a paraphrase", "Officials said the new bridge, which cost 2 billion dollars, opened in March 2024.",
			"The new bridge opened in March 2024", "the new bridge, which cost 2 billion dollars, opened in March 2024", nil, "", ""},
		{"the subject resolved", examplePlanStatement,
			"The Eiffel Tower was the tallest structure in the world for 41 years", "was the tallest structure in the world for 41 years", []string{"Eiffel Tower"}, "", ""},
		{"a pronoun resolved", "The Golden Gate Bridge opened in 1937, and its main span was the longest in the world for 40 years.",
			"The Golden Gate Bridge's main span was the longest in the world for 40 years", "its main span was the longest in the world for 40 years",
			[]string{"Golden Gate Bridge", "main span"}, "", ""},
		{"a date from the context", "In 2020, exports rose and imports fell.", "Imports fell in 2020", "imports fell", nil, "", ""},
		{"an added place", "Lake Baikal reaches a depth of 1642 m.", "Lake Baikal reaches a depth of 1642 m in Siberia", "Lake Baikal reaches a depth of 1642 m",
			[]string{"Lake Baikal"}, RuleClaimAddsToSpan, "adds Siberia"},
		{"a date swapped from elsewhere", "Smith won the award in 2019. Jones lost the race in 2021.",
			"Jones lost the race in 2019", "Jones lost the race in 2021", []string{"Jones"}, RuleClaimAddsToSpan, "adds 2019 in place of 2021"},
		{"a subject swapped from elsewhere", "Smith won the award in 2019. Jones lost the race in 2021.",
			"Smith lost the race in 2021", "Jones lost the race in 2021", []string{"Smith"}, RuleClaimAddsToSpan, "adds Smith in place of Jones"},
		// An entity written with its article ("The Proms") makes no "the" of the claim a name: a
		// real model's plan was refused for "adds the" ("performed several times at the Proms"
		// from "at Proms", FEVEROUS-S).
		{"an article of an entity's name", "Mara Quinn performed several times at Proms, an eight week long concert.",
			"Mara Quinn performed several times at the Proms", "Mara Quinn performed several times at Proms", []string{"Mara Quinn", "The Proms"}, "", ""},
		// A common noun is no name because an entity capitalises it: "awards" beside the entity
		// "Academy Awards" (a real-model plan was refused for "adds awards").
		{"a common noun an entity capitalises", "Ostmoor Films released the three-time Harbour winner for artistic merit in the film industry, Night Tide.",
			"The Harbours are awards for artistic merit in the film industry", "Harbour winner for artistic merit in the film industry", []string{"Harbour Awards"}, "", ""},
		// Two named subjects of one joint action are one fact (a FEVEROUS-S plan was refused for
		// "Frith and Richard had previously worked together", the two named apart).
		{"a joint action of two named subjects", "Karl Olsen, a founder of the Ostmoor band, and Jens Berg, a founder of the Westmoor band, had worked together before forming a duo.",
			"Karl Olsen and Jens Berg had worked together before forming a duo", "had worked together before forming a duo", []string{"Karl Olsen", "Jens Berg"}, "", ""},
		// "teamed up", "collaborated", "partnered": a joint action too (a FEVEROUS-S plan of
		// session 35 was refused for "Maestu and Marcelina Lech teamed up to compete for Spain").
		{"two named subjects who teamed up", "In 2014, Ana Berg teamed up with Westmoor's Karl Olsen to compete for Ostmoor.",
			"Ana Berg and Karl Olsen teamed up to compete for Ostmoor", "Ana Berg teamed up with Westmoor's Karl Olsen to compete for Ostmoor", []string{"Ana Berg", "Karl Olsen"}, "", ""},
		{"two named subjects who collaborated", "Ana Berg collaborated with Karl Olsen on the Westmoor album.",
			"Ana Berg and Karl Olsen collaborated on the Westmoor album", "Ana Berg collaborated with Karl Olsen on the Westmoor album", []string{"Ana Berg", "Karl Olsen"}, "", ""},
		// Two names a range word opens are one relation's two ends before a verb too (a
		// FEVEROUS-S plan of session 36 was refused for "... Falco is sure that the marriage
		// between Giannino and Dorina will take place").
		{"a relation between two names before its verb", "In the opera, Falco is sure that the marriage between Ana and Karl will take place.",
			"In the opera, Falco is sure that the marriage between Ana and Karl will take place", "Falco is sure that the marriage between Ana and Karl will take place", []string{"Falco"}, "", ""},
		// An irregular past participle beside another is one description of one complement (a
		// plan was refused for "... the first period comedy film written and directed by Whit
		// Stillman": split, it would have said two other things).
		{"two participles of one agent", "Westmoor Nights was the first comedy film written and directed by Ana Berg.",
			"Westmoor Nights was the first comedy film written and directed by Ana Berg", "Westmoor Nights was the first comedy film written and directed by Ana Berg", []string{"Westmoor Nights", "Ana Berg"}, "", ""},
		{"a participle and a finite verb", "Ana Berg's novel was written in Ostmoor and sold 10,000 copies.",
			"Ana Berg's novel was written in Ostmoor and sold 10,000 copies", "Ana Berg's novel was written in Ostmoor and sold 10,000 copies", []string{"Ana Berg"}, RuleClaimNotAtomic, "two predicates"},
		{"two named subjects who each moved", "Ana Berg moved with Karl Olsen to Westmoor.",
			"Ana Berg and Karl Olsen moved to Westmoor", "Ana Berg moved with Karl Olsen to Westmoor", []string{"Ana Berg", "Karl Olsen"}, RuleClaimNotAtomic, "two named subjects"},
		{"two named subjects of one action each", "Karl Olsen, a founder of the Ostmoor band, and Jens Berg, a founder of the Westmoor band, had worked in Westhaven.",
			"Karl Olsen and Jens Berg had worked in Westhaven", "had worked in Westhaven", []string{"Karl Olsen", "Jens Berg"}, RuleClaimNotAtomic, "two named subjects"},
		{"an added entity", "The tower opened in 1889.", "The tower opened in 1889 with Gustave Eiffel present", "The tower opened in 1889", nil,
			RuleClaimAddsToSpan, "adds Gustave"},
		// Issue 22, case 4: honest claims a real model wrote, refused before.
		{"an and inside an italic title", "The poet who was the subject of the musical *A Soldier and a Maker* was born in Gloucester.",
			"The poet who was the subject of the musical *A Soldier and a Maker* was born in Gloucester",
			"The poet who was the subject of the musical *A Soldier and a Maker* was born in Gloucester", nil, "", ""},
		{"an and inside a quoted title the claim writes bare", `The poet who was the subject of the musical "A Soldier and a Maker" was born in Gloucester.`,
			"The poet who was the subject of the musical A Soldier and a Maker was born in Gloucester",
			`The poet who was the subject of the musical "A Soldier and a Maker" was born in Gloucester`, nil, "", ""},
		{"an and inside a title the entities name", "The poet who was the subject of the musical A Soldier and a Maker was born in Gloucester.",
			"The poet who was the subject of the musical A Soldier and a Maker was born in Gloucester",
			"The poet who was the subject of the musical A Soldier and a Maker was born in Gloucester", []string{"A Soldier and a Maker", "Gloucester"}, "", ""},
		{"a period between the years", "The Ink Spots were an American vocal group. They were active between the years 1914 and 1944.",
			"The Ink Spots were active between the years 1914 and 1944", "They were active between the years 1914 and 1944", []string{"The Ink Spots"}, "", ""},
		{"a demonym in the span", "The Danish colony was at the Indian town Tharangambadi.",
			"Tharangambadi is in India", "the Indian town Tharangambadi", []string{"Tharangambadi", "India"}, "", ""},
		{"a pronoun's referent beside a name the claim leaves out", "Abong Mbang lies on the N2 road, which connects it to Yaounde and Douala.",
			"The N2 road connects Abong Mbang to Douala", "which connects it to Yaounde and Douala", []string{"N2 road", "Abong Mbang", "Douala"}, "", ""},
		// Found by evaluate honest on factcheck-bench's gold claims.
		{"an omitted subject beside a name the claim leaves out", "Gary Smith is an economist. He holds a bachelor's degree in economics from Stanford University and a doctorate in economics from the University of California at Berkeley.",
			"Gary Smith holds a doctorate in economics from the University of California at Berkeley",
			"holds a bachelor's degree in economics from Stanford University and a doctorate in economics from the University of California at Berkeley", nil, "", ""},
		{"an acronym written out", "Byte Pair Encoding (BPE) merges frequent pairs. The mapping changes with each iteration of the BPE algorithm.",
			"The mapping changes with each iteration of the Byte Pair Encoding algorithm", "The mapping changes with each iteration of the BPE algorithm", nil, "", ""},
		{"a singular of the span's plural", "Arsenal won six FA Cups: 1993, 1998 and 2002.", "Arsenal won the FA Cup in 1998", "Arsenal won six FA Cups: 1993, 1998", nil, "", ""},
		{"coordinated participles", "Epigenetic traits are encoded in the way that the DNA is packaged and regulated.",
			"Epigenetic traits are encoded in the way that the DNA is packaged and regulated", "Epigenetic traits are encoded in the way that the DNA is packaged and regulated", nil, "", ""},
		{"coordinated adjectives", "The story follows a disillusioned and bored priest.", "The story follows a disillusioned and bored priest", "The story follows a disillusioned and bored priest", nil, "", ""},
		{"a noun with its relative clause", "A star's size is determined by the amount of mass and energy it has.",
			"A star's size is determined by the amount of mass and energy it has", "A star's size is determined by the amount of mass and energy it has", nil, "", ""},
		{"a participle after a noun", "Dr. Marloes Arts has published several papers and articles on topics related to sustainability.",
			"Dr. Marloes Arts has published several papers and articles on topics related to sustainability",
			"Dr. Marloes Arts has published several papers and articles on topics related to sustainability", []string{"Marloes Arts"}, "", ""},
		{"a subordinate clause", "Sinking sand becomes liquefied and viscous when it is disturbed.", "Sinking sand becomes liquefied and viscous when it is disturbed",
			"Sinking sand becomes liquefied and viscous when it is disturbed", nil, "", ""},
		{"a joint subject the statement names together", "Eise Eisinga built a planetarium. Eisinga and his wife, Rinske Jans, had five sons in total.",
			"Eise Eisinga and Rinske Jans had five sons in total", "Eisinga and his wife, Rinske Jans, had five sons in total", []string{"Eise Eisinga", "Rinske Jans"}, "", ""},
		// "between A and B" is one relation of two named subjects, as "between 1990 and 2000" is
		// one range (a real-model plan of a multi-hop statement was refused for it).
		{"a relation between two named subjects", "While serving in the regiment, Anna Berg became friends with its commander Karl Olsen.",
			"The friendship between Anna Berg and Karl Olsen began in the regiment", "Anna Berg became friends with its commander Karl Olsen",
			[]string{"Anna Berg", "Karl Olsen"}, "", ""},
		{"a relation between two named adjectives", "Mira Holm signed the treaty between the Danish ministry and the Finnish one.",
			"The treaty between the Danish and Finnish ministries was signed by Mira Holm", "Mira Holm signed the treaty between the Danish ministry and the Finnish one",
			[]string{"Mira Holm"}, "", ""},
		{"a reciprocal relation of two named subjects", "Karl Olsen founded the band with his brother Jens Olsen.",
			"Karl Olsen and Jens Olsen are brothers", "Karl Olsen founded the band with his brother Jens Olsen", []string{"Karl Olsen", "Jens Olsen"}, "", ""},
		{"an adverb before the second modifier", "Odia is spoken in a landlocked and heavily forested state.",
			"Odia is spoken in a landlocked and heavily forested state", "Odia is spoken in a landlocked and heavily forested state", []string{"Odia"}, "", ""},
		{"a route between two cities", "The night train to London leaves Paris at ten.", "The night train runs between Paris and London",
			"The night train to London leaves Paris", []string{"Paris", "London"}, "", ""},
		// "and" inside a relative clause joins two nouns of it, not two predicates: the verb before
		// "whose" is the main clause's (a real-model plan was refused for it).
		{"two nouns of a relative clause", "Maria Lind was raised by parents whose habits and outlook differed from their neighbours.",
			"Maria Lind was raised by parents whose habits and outlook differed from their neighbours",
			"Maria Lind was raised by parents whose habits and outlook differed from their neighbours", []string{"Maria Lind"}, "", ""},
		// "and" inside a relative clause of the subject joins two objects of its verb; the verb
		// after them is the main clause's ("Those who believed in God and divine law wanted a
		// union ...": a real-model plan of FEVEROUS-S was refused for it, split as "Those who
		// believed in God" and "divine law wanted ...", and its repair bridged the group as an
		// entity no source names, so three true claims went unverified).
		{"two objects of a relative clause in the subject", "Those who kept the harbour laws and the old customs wanted a new charter for Ostmoor.",
			"Those who kept the harbour laws and the old customs wanted a new charter for Ostmoor",
			"Those who kept the harbour laws and the old customs wanted a new charter for Ostmoor", []string{"Ostmoor"}, "", ""},
		{"a relative clause closed by a comma before a second subject", "Mara Quinn, who founded the bakery, and Ada Brook moved to Ostmoor.",
			"Mara Quinn, who founded the bakery, and Ada Brook moved to Ostmoor", "Mara Quinn, who founded the bakery, and Ada Brook moved to Ostmoor",
			[]string{"Mara Quinn", "Ada Brook", "Ostmoor"}, RuleClaimNotAtomic, "two predicates"},
		{"a relative clause going on with a second verb", "The baker who sold the farm and moved to Ostmoor opened a shop.",
			"The baker who sold the farm and moved to Ostmoor opened a shop", "The baker who sold the farm and moved to Ostmoor opened a shop",
			[]string{"Ostmoor"}, RuleClaimNotAtomic, "two predicates"},
		{"a main clause before the relative clause", "Mara Quinn met the baker who sold the farm and Ada Brook moved to Ostmoor.",
			"Mara Quinn met the baker who sold the farm and Ada Brook moved to Ostmoor", "Mara Quinn met the baker who sold the farm and Ada Brook moved to Ostmoor",
			[]string{"Mara Quinn", "Ada Brook", "Ostmoor"}, RuleClaimNotAtomic, "two predicates"},
		{"consecutive decades", "China started gaining prominence in the 1980s and 1990s.", "China started gaining prominence in the 1980s and 1990s",
			"China started gaining prominence in the 1980s and 1990s", []string{"China"}, "", ""},
		{"a participle before its noun", "Intellicontext is a tool for extracting and classifying entities and concepts from unstructured text.",
			"Intellicontext is a tool for extracting and classifying entities and concepts from unstructured text",
			"Intellicontext is a tool for extracting and classifying entities and concepts from unstructured text", []string{"Intellicontext"}, "", ""},
		// Two words of one noun phrase after its article: the verb before them is the only one
		// (real-model plans were refused for both and split them into two claims each).
		{"two modifiers of one noun after its article", "Westmoor is a province that holds jurisdiction over a separate and defined territory.",
			"Westmoor is a province that holds jurisdiction over a separate and defined territory",
			"Westmoor is a province that holds jurisdiction over a separate and defined territory", []string{"Westmoor"}, "", ""},
		{"two nouns of one object after its article", "The Ostmoor fair is an event that holds the attention and interest of a crowd or gives it joy.",
			"The Ostmoor fair is an event that holds the attention and interest of a crowd or gives it joy",
			"The Ostmoor fair is an event that holds the attention and interest of a crowd or gives it joy", []string{"Ostmoor"}, "", ""},
		// A list the statement writes with a comma before its "and" is the statement's own join
		// (a real-model plan was refused for "the conflict in Vietnam, Laos, and Cambodia").
		{"a list with a serial comma the statement writes", "Mara Quinn opposed the long dispute in Ostmoor, Westmoor, and Harlow.",
			"The dispute in Ostmoor, Westmoor, and Harlow was long", "the long dispute in Ostmoor, Westmoor, and Harlow",
			[]string{"Ostmoor", "Westmoor", "Harlow"}, "", ""},
		// Two names the statement joins with an apposition between them ("Claudia Castillo
		// Campos, 19, and Melisa Silva Ruiz, 23, were killed by a truck driver who ..."): one
		// object of the claim's relative clause or preposition, not two facts. A real-model plan
		// (FEVEROUS-S) was refused for both claims, and its statement went unchecked.
		{"two names the statement joins around an apposition", "Two sailors, Mara Quinn, 19, and Ada Brook, 23, were rescued by a fisherman who was trying to cross the bar.",
			"The fisherman in the rescue of Mara Quinn and Ada Brook was trying to cross the bar", "a fisherman who was trying to cross the bar",
			[]string{"Mara Quinn", "Ada Brook"}, "", ""},
		{"two names the statement joins, objects of a relative clause", "Two sailors, Mara Quinn, 19, and Ada Brook, 23, were rescued by a fisherman who was trying to cross the bar.",
			"The fisherman who rescued Mara Quinn and Ada Brook was trying to cross the bar", "a fisherman who was trying to cross the bar",
			[]string{"Mara Quinn", "Ada Brook"}, "", ""},
		// Two adverbs of one adjective, and a noun with a participle and its agent after it: one
		// predicate each (real-model plans were refused for "its critically and commercially
		// successful computer animated feature films" and "superhero films and television series
		// distributed by Warner Bros. Pictures", EX-FEVER 3681-3760).
		{"two adverbs of one adjective", "Ostmoor Studios is known for its critically and commercially successful animated films.",
			"Ostmoor Studios is known for its critically and commercially successful animated films",
			"Ostmoor Studios is known for its critically and commercially successful animated films", []string{"Ostmoor Studios"}, "", ""},
		{"a noun with a participle and its agent", "The Westmoor universe is centered on a series of films and television series distributed by Harlow Pictures.",
			"The Westmoor universe is centered on a series of films and television series distributed by Harlow Pictures",
			"The Westmoor universe is centered on a series of films and television series distributed by Harlow Pictures", []string{"Westmoor", "Harlow Pictures"}, "", ""},
		// A capitalised word in "-ed" is a name's, not a past tense ("the United States": a
		// real-model plan was refused for "the army of the Thirteen Colonies and the
		// Revolutionary-era United States").
		{"a name with a word in -ed", "Mara Quinn joined the army of the Ostmoor Colonies and the Revolutionary-era United Provinces.",
			"Mara Quinn joined the army of the Ostmoor Colonies and the Revolutionary-era United Provinces",
			"joined the army of the Ostmoor Colonies and the Revolutionary-era United Provinces", []string{"Mara Quinn", "Ostmoor Colonies", "United Provinces"}, "", ""},
		// A verb inside a relative clause without "that" deep in the right-hand side ("the music
		// she recorded") is the clause's, as it is right after its noun ("energy it has"): a
		// real-model plan of EX-FEVER 3841-3920 was refused twice for "combined blues, rhythm and
		// blues, gospel, and {c3} in the music he recorded", and its statement went unchecked.
		{"a relative clause without that, deep in the list", "Mara Quinn pioneered the harbour sound by combining blues, rhythm and blues, gospel, and sea shanties in the music she recorded.",
			"Mara Quinn combined blues, rhythm and blues, gospel, and sea shanties in the music she recorded",
			"combining blues, rhythm and blues, gospel, and sea shanties in the music she recorded", []string{"Mara Quinn"}, "", ""},
		{"a pronoun subject of a second clause", "Mara Quinn sold the farm and she bought a house.", "Mara Quinn sold the farm and she bought a house",
			"Mara Quinn sold the farm and she bought a house", []string{"Mara Quinn"}, RuleClaimNotAtomic, "two predicates"},
		// An initialism written with its full stops in the statement and without them in the
		// claim is the same name ("the E.P" as "an EP": a real-model plan of FEVEROUS-S was
		// refused for "adds EP").
		{"an initialism without its full stops", "Harbour Lights was finalised in August with the E.P now ready for release.",
			"Harbour Lights is an EP", "the E.P", []string{"Harbour Lights"}, "", ""},
		{"an initialism the statement does not hold", "Harbour Lights was finalised in August with the E.P now ready for release.",
			"Harbour Lights is an LP", "the E.P", []string{"Harbour Lights"}, RuleClaimAddsToSpan, "adds LP"},
		// Session 37's relay runs (FEVEROUS-S "Other" 441-560) asked a repair of honest plans for
		// these: a range of two years before the second clause's subject ("found that between
		// 2010 and 2015 the US coal sector had cut its value"), a hyphenated participle sharing
		// the agent ("directed and co-produced by Mel Gibson"), and a name written with or
		// without its space ("GrupoDesportivo", "J SL Cups").
		{"a range of years before a clause", "The Ostmoor Trust found that between 2010 and 2015 the harbour had lost half its trade.",
			"The Ostmoor Trust found that between 2010 and 2015 the harbour had lost half its trade",
			"The Ostmoor Trust found that between 2010 and 2015 the harbour had lost half its trade", []string{"Ostmoor Trust"}, "", ""},
		{"a hyphenated participle sharing the agent", "Harbour Lights is the last drama film directed and co-produced by Mara Quinn.",
			"The drama films directed and co-produced by Mara Quinn have known release dates", "the last drama film directed and co-produced by Mara Quinn",
			[]string{"Harbour Lights", "Mara Quinn"}, "", ""},
		{"a name the statement writes without its space", "Karl Olsen played for the OstmoorRovers before moving to Westmoor.",
			"Karl Olsen played for the Ostmoor Rovers", "Karl Olsen played for the OstmoorRovers", []string{"Karl Olsen", "Ostmoor Rovers"}, "", ""},
		{"a name the statement writes with a space", "Karl Olsen won six J SL Cups with Westmoor.",
			"Karl Olsen won six JSL Cups with Westmoor", "Karl Olsen won six J SL Cups with Westmoor", []string{"Karl Olsen", "Westmoor"}, "", ""},
		{"a name the statement does not write, spaced or not", "Karl Olsen won six J SL Cups with Westmoor.",
			"Karl Olsen won six JFL Cups with Westmoor", "Karl Olsen won six J SL Cups with Westmoor", []string{"Karl Olsen", "Westmoor"}, RuleClaimAddsToSpan, "adds JFL"},
		// What the rules were built for, beside what they now allow.
		{"a clause opened by while", "While love is a broader and deeper emotional connection, affection is usually a milder expression of fondness.",
			"While love is a broader and deeper emotional connection, affection is usually a milder expression of fondness",
			"While love is a broader and deeper emotional connection, affection is usually a milder expression of fondness", nil, RuleClaimNotAtomic, "two predicates"},
		{"a noun then a verb with its own complement", "Mara Quinn left the city and moved to Ostmoor.", "Mara Quinn left the city and moved to Ostmoor",
			"Mara Quinn left the city and moved to Ostmoor", []string{"Mara Quinn", "Ostmoor"}, RuleClaimNotAtomic, "two predicates"},
		{"a noun then a finite verb", "Mara Quinn sold the farm and bought a house.", "Mara Quinn sold the farm and bought a house",
			"Mara Quinn sold the farm and bought a house", []string{"Mara Quinn"}, RuleClaimNotAtomic, "two predicates"},
		{"a noun then a verb in -s with its object", "Mara Quinn founded the bakery and owns it.", "Mara Quinn founded the bakery and owns it",
			"Mara Quinn founded the bakery and owns it", []string{"Mara Quinn"}, RuleClaimNotAtomic, "two predicates"},
		{"two past tenses after their subjects", "The company was founded in 1990 and renamed in 2005.", "The company was founded in 1990 and renamed in 2005",
			"The company was founded in 1990 and renamed in 2005", nil, RuleClaimNotAtomic, "two predicates"},
		{"two passives with their agents", "The film was directed by Mara Quinn and produced by Ada Brook.", "The film was directed by Mara Quinn and produced by Ada Brook",
			"The film was directed by Mara Quinn and produced by Ada Brook", []string{"Mara Quinn", "Ada Brook"}, RuleClaimNotAtomic, "two predicates"},
		{"two adverbs, the second of a verb", "Mara Quinn worked tirelessly and quickly sold the farm.", "Mara Quinn worked tirelessly and quickly sold the farm",
			"Mara Quinn worked tirelessly and quickly sold the farm", []string{"Mara Quinn"}, RuleClaimNotAtomic, "two predicates"},
		{"two years without a range", "They were active in 1914. They were active again in 1944.", "They were active in 1914 and 1944",
			"They were active in 1914. They were active again in 1944", nil, RuleClaimNotAtomic, "two numbers or dates"},
		{"two decades apart", "Sales grew in the 1960s. They grew again in the 1990s.", "Sales grew in the 1960s and 1990s",
			"Sales grew in the 1960s. They grew again in the 1990s", nil, RuleClaimNotAtomic, "two numbers or dates"},
		{"a title beside a second predicate", "Ivor Gurney wrote *Severn and Somme*. He died in 1937.", "Ivor Gurney wrote *Severn and Somme* and died in 1937",
			"Ivor Gurney wrote *Severn and Somme*. He died in 1937", []string{"Ivor Gurney"}, RuleClaimNotAtomic, "two predicates"},
		{"a country the demonym does not name", "The Danish colony was at the Indian town Tharangambadi.",
			"Tharangambadi is in Indonesia", "the Indian town Tharangambadi", []string{"Tharangambadi", "Indonesia"}, RuleClaimAddsToSpan, "adds Indonesia"},
		{"a name swapped beside a pronoun", "Smith won the award in 2019. He said Jones lost the race in 2021.",
			"Smith said Smith lost the race in 2021", "He said Jones lost the race in 2021", []string{"Smith"}, RuleClaimAddsToSpan, "adds Smith in place of Jones"},
		{"two predicates of a relative clause", "He met a nurse who lived in Rome and worked at the hospital.",
			"He met a nurse who lived in Rome and worked at the hospital", "He met a nurse who lived in Rome and worked at the hospital", nil,
			RuleClaimNotAtomic, "two predicates"},
		{"two named subjects and a fact of each", "Karl Olsen plays bass. Jens Olsen plays drums.", "Karl Olsen and Jens Olsen are musicians",
			"Karl Olsen plays bass. Jens Olsen plays drums", []string{"Karl Olsen", "Jens Olsen"}, RuleClaimNotAtomic, "two named subjects"},
		{"both of two named subjects", "Paris has a metro. London has one too.", "Both Paris and London have a metro",
			"Paris has a metro. London has one too", []string{"Paris", "London"}, RuleClaimNotAtomic, "two named subjects"},
		{"two subjects in two sentences", "Eisinga built a planetarium. Rinske Jans had five sons.", "Eisinga and Rinske Jans had five sons",
			"Eisinga built a planetarium. Rinske Jans had five sons", []string{"Eisinga", "Rinske Jans"}, RuleClaimNotAtomic, "two named subjects"},
		// The statement's own join of two clauses is still two facts, names either side or not.
		{"two clauses the statement joins between two names", "Mara Quinn left Ostmoor and Ada Brook moved to Westmoor.",
			"Mara Quinn left Ostmoor and Ada Brook moved to Westmoor", "Mara Quinn left Ostmoor and Ada Brook moved to Westmoor",
			[]string{"Mara Quinn", "Ada Brook", "Ostmoor", "Westmoor"}, RuleClaimNotAtomic, "two predicates"},
		{"two subjects with an apposition in two sentences", "Mara Quinn, 19, was rescued. Ada Brook, 23, was not.",
			"Mara Quinn and Ada Brook were rescued", "Mara Quinn, 19, was rescued. Ada Brook, 23, was not",
			[]string{"Mara Quinn", "Ada Brook"}, RuleClaimNotAtomic, "two named subjects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := PlanClaim{ClaimID: "c1", ClaimText: tt.claim, SourceSpan: tt.span, Entities: tt.entities}
			pv := &planValidation{plan: Plan{Claims: []PlanClaim{c}}, ctx: PlanContext{Statement: tt.statement, Language: "en"}}
			got := map[string][]string{RuleClaimNotAtomic: checkClaimAtomic(pv), RuleClaimAddsToSpan: checkClaimAddsToSpan(pv)}
			for rule, msgs := range got {
				switch {
				case rule == tt.rule && len(msgs) == 0:
					t.Errorf("%q passed %s", tt.claim, rule)
				case rule == tt.rule && !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, tt.message) }):
					t.Errorf("%s says %q, want %q in it", rule, msgs, tt.message)
				case rule != tt.rule && len(msgs) > 0:
					t.Errorf("%q broke %s: %q", tt.claim, rule, msgs)
				}
			}
		})
	}
}

// "One of" picks one thing out of several: it counts nothing (issue 22, a factcheck-bench gold
// claim), while a count the statement does not make is still added quantification.
func TestQuantitiesOneOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		claim string
		want  []string
	}{
		{"One of the resulting products is copper sulfate", nil},
		{"The reaction gives one product", []string{"1"}},
		{"One product of the reaction is iron", []string{"1"}},
		// "one" as a pronoun, the head of a relative clause, counts nothing.
		{"A ballad is one in which a story is told", nil},
		{"The winner was one who trained alone", nil},
		{"One in ten residents owns a boat", []string{"1", "10"}},
		// "the one" before a past participle, or ending the text, stands for a thing named
		// before it (a real-model plan was refused for "similar to the one stated").
		{"The spread was similar to the one stated", nil},
		{"The harbour is the one described in the guide", nil},
		{"The prize went to the one", nil},
		{"Mara Quinn scored the one goal of the match", []string{"1"}},
		// "the earliest one" ending a claim is a thing of a kind named before it: the comparison
		// inputs a real model wrote were refused for adding 1 (session 35: "The nonprofit
		// organizations based in New York City have known founding dates that identify the
		// earliest one", and "... the longest-serving one").
		{"The harbours have known opening dates that identify the earliest one", nil},
		{"The mayors have known terms that identify the longest-serving one", nil},
		{"Of the two bridges, Mara Quinn built one", []string{"1", "2"}},
		// ... but a number before its relative clause still counts (a FEVEROUS-S statement's plan
		// was refused for "between zero and one" against "between zero and one that describes").
		{"The index is a value between zero and one that measures spread", []string{"0", "1"}},
		// A compound is one number: "twenty-one" is 21, not 20 and 1 (text.NumberAt).
		{"The band released twenty-one albums", []string{"21"}},
		{"The band released twenty one albums", []string{"21"}},
		// An ordinal counts nothing.
		{"The first album sold well", nil},
		// "Number ones" are chart toppers, each a number one: a claim of "a UK number one" adds
		// no quantity to a statement's "two UK number ones" (a real-model plan was refused for it).
		{"She co-wrote two UK number ones", []string{"1", "2"}},
	} {
		got := slices.Sorted(maps.Keys(quantities(c.claim, "en")))
		if !slices.Equal(got, c.want) {
			t.Errorf("quantities(%q) = %v, want %v", c.claim, got, c.want)
		}
	}
}

// A comma with no space between a day and a year, "March 11,2018", joins no number: a plan that
// wrote the date "March 11, 2018" was refused twice in session 35's relay runs for "11" and
// "2018", numbers the statement was read not to hold ("11,2018"). Thousands separators still
// join one number.
func TestQuantitiesCommaWithoutSpace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"The station opened on March 11,2018", []string{"11", "2018"}},
		{"The station opened on March 11, 2018", []string{"11", "2018"}},
		{"The county had 1,047,380 residents", []string{"1047380"}},
		{"The county had 806,744 residents in 2001", []string{"2001", "806744"}},
		{"The rate rose to 2.08%", []string{"2.08"}},
	} {
		got := slices.Sorted(maps.Keys(quantities(c.text, "en")))
		if !slices.Equal(got, c.want) {
			t.Errorf("quantities(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// A date's day the statement writes as an ordinal ("January ninth of 1957") is the claim's "9",
// and a decade the statement writes with two figures ("the 50's") the claim's "1950s": in
// session 37's relay runs plans were refused for both and asked again. An ordinal elsewhere
// still counts nothing the claim may count ("the ninth album" gives no "9 albums").
func TestQuantificationReadsADaysOrdinalAndATwoFigureDecade(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		statement, claim string
		added            bool
	}{
		{"The comet was found by Ada Brook on January ninth of 1957.", "The comet was found on January 9, 1957", false},
		{"The comet was found by Ada Brook on the ninth of January 1957.", "The comet was found on 9 January 1957", false},
		{"Toward the end of the 50's the workshop began racing.", "Toward the end of the 1950s the workshop began racing", false},
		{"In the 80s the workshop began racing.", "In the 1980s the workshop began racing", false},
		{"Harbour Lights is the band's ninth album.", "The band has released 9 albums", true},
		{"Toward the end of the 50's the workshop began racing.", "In 1950 the workshop began racing", true},
		{"The comet was found by Ada Brook on January ninth of 1957.", "The comet was found on January 10, 1957", true},
	} {
		pv := &planValidation{plan: Plan{Claims: []PlanClaim{{ClaimID: "c1", ClaimText: c.claim}}}, ctx: PlanContext{Statement: c.statement, Language: "en"}}
		if got := checkQuantification(pv); (len(got) > 0) != c.added {
			t.Errorf("%q of %q adds quantification: %v, want %v", c.claim, c.statement, got, c.added)
		}
	}
}

// "The two" names the pair a statement joins with "and" or "or": a real-model plan was refused
// for "which connects the two films" of "Lost Highway and Mulholland Drive are connected ...",
// and its statement lost. A statement that joins nothing gives it no pair, and a count the
// statement does not make is still added.
func TestTheTwoOfAPairAddsNoQuantity(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		statement, claim string
		added            bool
	}{
		{"Harbour Lights and Meadow Lane are connected by their plots.", "The plot of Harbour Lights is similar to that of Meadow Lane, which connects the two series", false},
		{"Either Harbour Lights or Meadow Lane won the prize.", "The prize went to one of the two series", false},
		{"Harbour Lights is connected to Meadow Lane by its plot.", "The plot connects the two series", true},
		{"Harbour Lights and Meadow Lane are connected by their plots.", "Harbour Lights has two plots", true},
		{"Harbour Lights and Meadow Lane are connected by their plots.", "The three series are connected", true},
	} {
		pv := &planValidation{plan: Plan{Claims: []PlanClaim{{ClaimID: "c1", ClaimText: c.claim}}}, ctx: PlanContext{Statement: c.statement, Language: "en"}}
		if got := len(checkQuantification(pv)) > 0; got != c.added {
			t.Errorf("%q of %q adds quantification: %v, want %v", c.claim, c.statement, got, c.added)
		}
	}
}

// The claim rules read any claim, span, statement and entity without panicking, and say which
// rule each message is for.
func FuzzClaimViolations(f *testing.F) {
	f.Add("The poet who was the subject of the musical *A Soldier and a Maker* was born in Gloucester.", "The Ink Spots were active between the years 1914 and 1944", "They were active between the years 1914 and 1944", "A Soldier and a Maker")
	f.Add("Abong Mbang lies on the N2 road, which connects it to Yaounde and Douala.", "The N2 road connects Abong Mbang to Douala", "which connects it to Yaounde and Douala", "N2 road")
	f.Add("China rose in the 1980s and 1990s. While it grew, it sold s.", "While it grew in 1990 and s, BPE and Byte Pair Encoding rose", "the Indian town", "'x and y'")
	f.Fuzz(func(t *testing.T, statement, claim, span, entity string) {
		vs := ClaimViolations([]PlanClaim{{ClaimID: "c1", ClaimText: claim, SourceSpan: span, Entities: []string{entity}}},
			PlanContext{Statement: statement, Language: "en"})
		for _, v := range vs {
			if !slices.Contains(ClaimRules, v.Rule) || v.Message == "" {
				t.Fatalf("violation of a rule ClaimViolations does not run, or without message: %+v", v)
			}
		}
	})
}

// A placeholder stands for the entity its claim describes, in that claim's words: the span's
// words the claim holds them in are not dropped for the names the claim takes from the
// statement. A relay plan was refused for "David Thewlis won {c3} for the film Naked" of "for
// which he won the Cannes Film Fest Award" ("adds Naked in place of Fest Award": the referent
// of "which" read as swapped for the award {c3} names). A placeholder whose claim does not hold
// those words hides nothing.
func TestClaimAddsToSpanReadsAPlaceholderAsItsClaimsWords(t *testing.T) {
	t.Parallel()
	const statement = "Karl Olsen rose to prominence when he starred in the film Ostmoor, for which he won the Westhaven Film Fest Award which is given to an actor who has delivered an outstanding performance."
	starred := PlanClaim{ClaimID: "c1", ClaimText: "Karl Olsen starred in the film Ostmoor", SourceSpan: "he starred in the film Ostmoor", Entities: []string{"Karl Olsen", "Ostmoor"}}
	award := PlanClaim{ClaimID: "c3", ClaimText: "A Westhaven Film Fest Award is given to an actor who has delivered an outstanding performance",
		SourceSpan: "the Westhaven Film Fest Award which is given to an actor who has delivered an outstanding performance", Entities: []string{"Westhaven Film Fest Award"}}
	for _, tc := range []struct {
		claim, want string
	}{
		{"Karl Olsen won {c3} for the film Ostmoor", ""},
		{"Karl Olsen won {c1} for the film Ostmoor", "adds Ostmoor in place of Fest Award"},
	} {
		won := PlanClaim{ClaimID: "c4", ClaimText: tc.claim, SourceSpan: "for which he won the Westhaven Film Fest Award", Entities: []string{"Karl Olsen", "Ostmoor"}}
		written := Plan{Claims: []PlanClaim{starred, award, won}}
		pv := &planValidation{plan: withoutPlaceholders(written), written: written, ctx: PlanContext{Statement: statement, Language: "en"}}
		wantRefused(t, checkClaimAddsToSpan(pv), tc.claim, tc.want)
	}
	// It stands for an entity, not a number: a year its claim holds is still the span's, and
	// another written in its place is a swap.
	const years = "Karl Olsen won the Westhaven Award in 2019. He lost the Ostmoor Award in 2021."
	lost := PlanClaim{ClaimID: "c1", ClaimText: "An award was lost by Karl Olsen in 2021", SourceSpan: "He lost the Ostmoor Award in 2021", Entities: []string{"Karl Olsen"}}
	swapped := PlanClaim{ClaimID: "c2", ClaimText: "Karl Olsen lost {c1} in 2019", SourceSpan: "He lost the Ostmoor Award in 2021", Entities: []string{"Karl Olsen"}}
	written := Plan{Claims: []PlanClaim{lost, swapped}}
	pv := &planValidation{plan: withoutPlaceholders(written), written: written, ctx: PlanContext{Statement: years, Language: "en"}}
	wantRefused(t, checkClaimAddsToSpan(pv), swapped.ClaimText, "adds 2019 in place of 2021")
}

// wantRefused checks a rule's messages about claim: none when want is "", else one holding want.
func wantRefused(t *testing.T, got []string, claim, want string) {
	t.Helper()
	switch {
	case want == "" && len(got) > 0:
		t.Errorf("%q was refused: %q", claim, got)
	case want != "" && !slices.ContainsFunc(got, func(m string) bool { return strings.Contains(m, want) }):
		t.Errorf("%q: %q, want %q in it", claim, got, want)
	}
}
