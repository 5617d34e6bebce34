package multihop

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// Bridges (issue 23): a statement may name an entity only by a description that another fact
// pins down ("the actor who played Detective Chester Lake"). The plan gives that fact its own
// claim, written with the description ("An actor played Detective Chester Lake"), and the claims
// that use the entity depend on it and write "{c1}" where its name goes, as ProgramFC's programs
// use a variable for the answer of an earlier question. The name is never the model's: the
// judge of c1 names the entity together with the cited source and the passage of it that holds
// the name, and code substitutes the name only when that passage is in that source, the source
// grounds c1's verdict and the name is in the passage (resolveBridge).

// bridgePattern matches a placeholder for the answer of a claim: "{c1}".
var bridgePattern = regexp.MustCompile(`\{(c[0-9]{1,2})\}`)

// maxBridgeBytes bounds a bridge value: a name, not a paragraph.
const maxBridgeBytes = 120

// bridgesIn returns the claim ids a text refers to by placeholder, each once, in order.
func bridgesIn(s string) []string {
	var ids []string
	for _, m := range bridgePattern.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// claimBridges are the claim ids a plan claim refers to by placeholder: in its text, its
// sub-queries or the hops of its chain.
func claimBridges(c PlanClaim, chain *QueryChain) []string {
	texts := append([]string{c.ClaimText}, c.SubQueries...)
	if chain != nil {
		for _, h := range chain.Hops {
			texts = append(texts, h.Query)
		}
	}
	var ids []string
	for _, t := range texts {
		for _, id := range bridgesIn(t) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// substituteBridges replaces each placeholder of s with its value; ok is false (and s is
// returned unchanged) when one has none.
func substituteBridges(s string, values map[string]string) (string, bool) {
	ok := true
	out := bridgePattern.ReplaceAllStringFunc(s, func(m string) string {
		v, found := values[bridgePattern.FindStringSubmatch(m)[1]]
		if !found || v == "" {
			ok = false
			return m
		}
		return v
	})
	if !ok {
		return s, false
	}
	return out, true
}

// withoutPlaceholders is the plan as the wording rules read it: a placeholder stands for a name
// the statement holds through the claim it refers to, so no rule counts "{c1}" as an added
// number or name, nor its words as a query's.
func withoutPlaceholders(p Plan) Plan {
	strip := func(s string) string {
		return strings.Join(strings.Fields(bridgePattern.ReplaceAllString(s, " ")), " ")
	}
	p.Claims = slices.Clone(p.Claims)
	for i, c := range p.Claims {
		c.ClaimText = strip(c.ClaimText)
		c.SubQueries = slices.Clone(c.SubQueries)
		for k := range c.SubQueries {
			c.SubQueries[k] = strip(c.SubQueries[k])
		}
		p.Claims[i] = c
	}
	p.QueryChains = slices.Clone(p.QueryChains)
	for i, ch := range p.QueryChains {
		ch.Hops = slices.Clone(ch.Hops)
		for k := range ch.Hops {
			ch.Hops[k].Query = strip(ch.Hops[k].Query)
		}
		p.QueryChains[i] = ch
	}
	return p
}

// RuleBridgeDeclared: a placeholder "{cN}" names a verifiable claim the claim depends on.
const RuleBridgeDeclared = "bridge_names_a_dependency"

// checkBridgePlaceholders: every placeholder of a claim (text, sub-queries, hops) names a
// verifiable claim of the plan listed in its depends_on, so that the claim runs after the
// finding it needs, and no claim bridges to itself.
func checkBridgePlaceholders(p Plan) []PlanViolation {
	var out []PlanViolation
	for _, c := range p.Claims {
		var chain *QueryChain
		for i := range p.QueryChains {
			if p.QueryChains[i].ClaimID == c.ClaimID {
				chain = &p.QueryChains[i]
			}
		}
		for _, id := range claimBridges(c, chain) {
			k := slices.IndexFunc(p.Claims, func(o PlanClaim) bool { return o.ClaimID == id })
			switch {
			case id == c.ClaimID:
				out = append(out, PlanViolation{RuleBridgeDeclared, fmt.Sprintf("claim %s writes {%s}, its own answer: a placeholder stands for the answer of an earlier claim", c.ClaimID, id)})
			case k < 0 || !p.Claims[k].Verifiable:
				out = append(out, PlanViolation{RuleBridgeDeclared, fmt.Sprintf("claim %s writes {%s}, which is no verifiable claim of the plan", c.ClaimID, id)})
			case !slices.Contains(c.DependsOn, id):
				out = append(out, PlanViolation{RuleBridgeDeclared, fmt.Sprintf("claim %s writes {%s} but does not list %s in depends_on", c.ClaimID, id, id)})
			}
		}
	}
	return out
}

// judgeAnswer is the entity a judge names for a claim that later claims bridge to: the name as
// the source writes it, the source's number and the passage of it that holds the name.
type judgeAnswer struct {
	Value   string `json:"value"`
	Source  int    `json:"source"`
	Passage string `json:"passage"`
}

// bridge is a resolved (or refused) bridge value of one claim.
type bridge struct {
	// value is the name; "" when the bridge was not established.
	value string
	// source is the given-source index the value was read from.
	source int
	// reason says why there is no value.
	reason string
}

// resolveBridge reads the bridge value of a judged claim, under the grounding rules, in code:
// the verdict must confirm the claim (supported or partly supported), the answer must cite one
// of the sources that ground the verdict, its passage must be in THAT source's text, and the
// value must be in the passage. Anything else is no bridge, with the reason: a model cannot put
// a name of its own into a later claim.
func resolveBridge(v judgement, given []evidence.Retrieved) bridge {
	a := v.answer
	value := evidence.OneLineText(a.Value)
	switch {
	case v.Verdict != pipeline.VerdictSupported && v.Verdict != pipeline.VerdictPartlySupported:
		return bridge{reason: fmt.Sprintf("its verdict is %s, so its sources establish no answer", v.Verdict)}
	case value == "":
		return bridge{reason: "its judge named no answer"}
	case len(value) > maxBridgeBytes || strings.ContainsAny(value, "{}<>"):
		return bridge{reason: fmt.Sprintf("its judge's answer %q is no name", pipeline.TruncateUTF8(value, 60))}
	case a.Source < 1 || a.Source > len(given) || !slices.Contains(v.cited, a.Source-1):
		return bridge{reason: fmt.Sprintf("its judge read the answer %q from [%d], which is not a source grounding its verdict", value, a.Source)}
	case !evidence.PassageIn(a.Passage, evidence.SourceText(given[a.Source-1])):
		return bridge{reason: fmt.Sprintf("the passage its judge gave for the answer %q is not in source [%d]", value, a.Source)}
	case !strings.Contains(pipeline.FoldForMatch(a.Passage), pipeline.FoldForMatch(value)):
		return bridge{reason: fmt.Sprintf("the answer %q is not in the passage its judge cited from source [%d]", value, a.Source)}
	}
	return bridge{value: value, source: a.Source - 1}
}
