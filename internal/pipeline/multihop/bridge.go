package multihop

import (
	"fmt"
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

// judgeAnswer is the entity a judge names for a claim that later claims bridge to: the name as
// the source writes it, the source's number and the passage of it that holds the name. It is
// evidence.BridgeAnswer in the judge's reply, which is what evidence.ResolveBridge checks.
type judgeAnswer struct {
	Value   string `json:"value"`
	Source  int    `json:"source"`
	Passage string `json:"passage"`
}

// claimBridges are the claim ids a plan claim refers to by placeholder: in its text, its
// sub-queries, its readings' queries or the hops of its chain.
func claimBridges(c PlanClaim, chain *QueryChain) []string {
	texts := append([]string{c.ClaimText}, c.SubQueries...)
	for _, in := range c.Interpretations {
		texts = append(texts, in.Query)
	}
	if chain != nil {
		for _, h := range chain.Hops {
			texts = append(texts, h.Query)
		}
	}
	var ids []string
	for _, t := range texts {
		for _, id := range evidence.BridgesIn(t) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// withoutPlaceholders is the plan as the wording rules read it: a placeholder stands for a name
// the statement holds through the claim it refers to, so no rule counts "{c1}" as an added
// number or name, nor its words as a query's.
func withoutPlaceholders(p Plan) Plan {
	strip := evidence.WithoutBridges
	p.Claims = slices.Clone(p.Claims)
	for i, c := range p.Claims {
		c.ClaimText = strip(c.ClaimText)
		c.SubQueries = slices.Clone(c.SubQueries)
		for k := range c.SubQueries {
			c.SubQueries[k] = strip(c.SubQueries[k])
		}
		// A reading's query is compared with the chain's hops, stripped the same way.
		c.Interpretations = slices.Clone(c.Interpretations)
		for k := range c.Interpretations {
			c.Interpretations[k].Query = strip(c.Interpretations[k].Query)
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

// RuleBridgeDeclared: a placeholder "{cN}" names another verifiable claim of the plan, which the
// claim depends on.
const RuleBridgeDeclared = "bridge_names_a_dependency"

// declareBridges checks every placeholder of a claim (text, sub-queries, readings, hops): it names
// another verifiable claim of the plan, so that the claim runs after the finding it needs, and
// no claim bridges to itself. The placeholder declares the dependency: "{c1}" is the answer of
// c1, so the claim depends on c1 whether or not the model listed it (a real model left it out in
// 5 of 12 plan repairs, each a second plan call of some 5,000 tokens), and the plan it returns
// lists it in depends_on. A dependency that breaks the execution order or makes a cycle is left
// to the rules on those.
func declareBridges(p Plan) (Plan, []PlanViolation) {
	var out []PlanViolation
	for i, c := range p.Claims {
		for _, id := range claimBridges(c, p.chainOf(c.ClaimID)) {
			k := slices.IndexFunc(p.Claims, func(o PlanClaim) bool { return o.ClaimID == id })
			switch {
			case id == c.ClaimID:
				out = append(out, PlanViolation{RuleBridgeDeclared, fmt.Sprintf("claim %s writes {%s}, its own answer: a placeholder stands for the answer of an earlier claim", c.ClaimID, id)})
			case k < 0 || !p.Claims[k].Verifiable:
				out = append(out, PlanViolation{RuleBridgeDeclared, fmt.Sprintf("claim %s writes {%s}, which is no verifiable claim of the plan", c.ClaimID, id)})
			case !slices.Contains(p.Claims[i].DependsOn, id):
				p.Claims[i].DependsOn = append(slices.Clone(p.Claims[i].DependsOn), id)
			}
		}
	}
	return p, out
}

// resolveBridge reads the bridge value of a judged claim, under the grounding rules, in code:
// the verdict must confirm the claim (supported or partly supported), and the answer must pass
// evidence.ResolveBridge: it cites one of the sources that ground the verdict, its passage is in
// THAT source's text, and the value is in the passage. Anything else is no bridge, with the
// reason: a model cannot put a name of its own into a later claim.
//
// A judge that confirmed the claim only in part (partly supported with nothing contradicted, or
// supported at Low: unverified once the rules in code read it, its citations kept) names a
// provisional bridge, under the same checks on the sources it cited: "A Canadian actor played
// Detective Chester Lake" from a source that names Adam Beach and says nothing of where he is
// from. The claims building on it are stated with the name, and the claim is judged again with
// what they find (settleProvisional). A judge that found the sources insufficient, or
// contradicting the claim, names none.
func resolveBridge(v judgement, given []evidence.Retrieved) (b evidence.Bridge, provisional bool) {
	switch {
	case v.Verdict == pipeline.VerdictSupported || v.Verdict == pipeline.VerdictPartlySupported:
		return evidence.ResolveBridge(evidence.BridgeAnswer(v.answer), given, v.cited, "judge"), false
	case confirmedOnlyInPart(v):
		b := evidence.ResolveBridge(evidence.BridgeAnswer(v.answer), given, v.cited, "judge")
		return b, b.Value != ""
	}
	return evidence.Bridge{Reason: fmt.Sprintf("its verdict is %s, so its sources establish no answer", v.Verdict)}, false
}

// confirmedOnlyInPart reports whether v is a confirmation the rules in code made unverified
// (partly supported with nothing contradicted, or supported at Low), its citations kept: a
// bridge it names is provisional (resolveBridge, nameByCandidates).
func confirmedOnlyInPart(v judgement) bool {
	return v.Verdict == pipeline.VerdictUnverified && len(v.cited) > 0 && confirmedInPart(v)
}

// confirmedInPart reports whether the judge's own verdict confirmed the claim, whole or in
// part, and every source it cited supports it.
func confirmedInPart(v judgement) bool {
	switch strings.ToLower(v.VariantVerdict) {
	case pipeline.VerdictSupported, pipeline.VerdictPartlySupported:
	default:
		return false
	}
	for _, k := range v.cited {
		if v.stances[k] == evidence.StanceRefutes {
			return false
		}
	}
	return true
}
