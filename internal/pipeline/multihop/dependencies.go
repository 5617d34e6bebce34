package multihop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A claim that depends on others is verified with what they established (issue 23): it runs
// after them, its bridges ("{c1}") resolved from their judges' grounded answers
// (resolveBridges), and its judge is given, besides what its own hops found, the sources their
// verdicts cited, marked as established for a claim it depends on (addDependencySources). Its
// judge still sees no other claim's text: only its own, with names read from cited passages.

// maxFollowUps bounds the follow-up hops of one claim (followUp), on top of max_hops: each costs
// one search and one judge call more.
const maxFollowUps = 1

// Relations a source carries in a judge prompt (evidence.Retrieved.Relation).
const relationEstablished = "established for a claim this claim depends on"

// judgeOne judges one claim once: with no call when it cannot be stated (a bridge it builds on
// was not established) or has no evidence, else with its evidence and its dependencies'
// findings; when the judge names what the sources lack, one follow-up hop searches for it and
// the claim is judged again (followUp). A claim others bridge to then resolves its bridge.
func (r *multihopRun) judgeOne(ctx context.Context, st *chainState) {
	if st.judged || st.reused != nil {
		return // judged already, or in the run it came from (reuse.go)
	}
	st.judged = true
	defer func() { st.judgedLen = len(st.evidence) }()
	j := judge{rec: r.rec, grounding: r.in.grounding, calibration: r.calibration}
	if st.unresolved != "" {
		st.verdict = judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the claim cannot be stated: " + st.unresolved}
		st.bridge = evidence.Bridge{Reason: "it was not judged: " + st.unresolved}
		return
	}
	r.addDependencySources(st)
	if len(st.evidence) == 0 {
		st.verdict = judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: r.noEvidenceReason(st)}
		st.bridge = evidence.Bridge{Reason: "its hops found no evidence"}
		return
	}
	given := givenOf(st)
	v := j.judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, st.bridged)
	if r.followUp(ctx, st, v) {
		given = givenOf(st)
		v = j.judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, st.bridged)
	}
	st.verdict = v
	if st.bridged {
		st.bridge = resolveBridge(v, given)
		if st.bridge.Value == "" && v.answer.Value != "" {
			r.flag(pipeline.Flagf(pipeline.FlagQuoteNotInSource, "claim %d: the answer %q was refused as a bridge: %s",
				st.index+1, pipeline.TruncateUTF8(v.answer.Value, 60), st.bridge.Reason))
		}
	}
}

// givenOf is what st's judge is given: its evidence in order, each source that is not one of
// its own independent finds marked with its relation.
func givenOf(st *chainState) []evidence.Retrieved {
	given := make([]evidence.Retrieved, len(st.evidence))
	for k, e := range st.evidence {
		given[k] = e.Retrieved
		switch {
		case e.fromClaim > 0:
			given[k].Relation = relationEstablished
		case e.repeats > 0:
			keys := evidence.KeysOf(e.SearchResult)
			n := slices.IndexFunc(st.evidence[:k], func(o hopEvidence) bool {
				return o.hop == e.repeats && o.repeats == 0 && evidence.KeysOf(o.SearchResult).Shared(keys) != ""
			})
			if n >= 0 {
				given[k].Relation = fmt.Sprintf("not independent of source %d", n+1)
			} else {
				given[k].Relation = "not independent of an earlier source"
			}
		}
	}
	return given
}

// addDependencySources gives st the sources its dependencies' verdicts cited (a verdict that
// established nothing, unverified, gives none), each once, after its own evidence.
func (r *multihopRun) addDependencySources(st *chainState) {
	for _, id := range st.claim.DependsOn {
		d := r.stateOf(id)
		if d == nil || !d.checked || d.reused != nil || d.verdict.Verdict == "" || d.verdict.Verdict == pipeline.VerdictUnverified {
			continue
		}
		for _, i := range d.verdict.cited {
			e := d.evidence[i]
			url := evidence.KeysOf(e.SearchResult).URL
			if slices.ContainsFunc(st.evidence, func(o hopEvidence) bool { return evidence.KeysOf(o.SearchResult).URL == url }) {
				continue
			}
			st.evidence = append(st.evidence, hopEvidence{Retrieved: evidence.Retrieved{SearchResult: e.SearchResult, SearchSeq: e.SearchSeq},
				hop: e.hop, group: 200 + d.index, fromClaim: d.index + 1})
		}
	}
}

// resolveBridges puts into st's text and hop queries the names its bridges stand for, read from
// the judgements of the claims it depends on (resolveBridge); when one was not established, st
// is unresolved and says why. Each hop whose query took a name says where it came from.
func (r *multihopRun) resolveBridges(st *chainState) {
	ids := claimBridges(st.claim, r.chainOf(st.claim.ClaimID))
	if len(ids) == 0 {
		return
	}
	values := map[string]string{}
	var from []string
	for _, id := range ids {
		d := r.stateOf(id)
		switch {
		case d == nil || !d.checked:
			st.unresolved = fmt.Sprintf("it builds on the answer of %s, which was not checked", id)
			return
		case d.bridge.Value == "":
			st.unresolved = fmt.Sprintf("it builds on the answer of %s, which its sources did not establish (%s)", id, d.bridge.Reason)
			return
		}
		values[id] = d.bridge.Value
		from = append(from, fmt.Sprintf("{%s} is %q, the answer of %s read from its cited source %s", id, d.bridge.Value, id, d.evidence[d.bridge.Source].URL))
	}
	text, _ := evidence.SubstituteBridges(st.claim.ClaimText, values)
	st.claim.ClaimText = text
	r.res.Claims[st.index].Text = text
	hops := slices.Clone(st.hops)
	for i := range hops {
		hops[i].Query, _ = evidence.SubstituteBridges(hops[i].Query, values)
	}
	st.hops = hops
	st.bridgeNote = strings.Join(from, "; ")
}

// followUp runs one follow-up hop for st (FIRE and SAFE's next search) when its judge found the
// evidence short (unverified or partly supported) and named what is missing, within max_hops
// and maxFollowUps: the same rules as a planned hop, excluding every source the claim holds,
// recorded with its reason. It reports whether the hop added evidence, so that the claim is
// judged again.
func (r *multihopRun) followUp(ctx context.Context, st *chainState, v judgement) bool {
	if v.missing == "" || ctx.Err() != nil || st.followUps >= maxFollowUps || len(st.hopRecords) >= r.in.maxHops ||
		(v.Verdict != pipeline.VerdictUnverified && v.Verdict != pipeline.VerdictPartlySupported) {
		return false
	}
	st.followUps++
	number := 1
	for _, h := range st.hopRecords {
		number = max(number, h.Number+1)
	}
	var used usedSources
	for _, e := range st.evidence {
		used.add(e.SearchResult)
	}
	hop := pipeline.Hop{ClaimPosition: st.index + 1, Number: number, Reason: HopReasonFollowUp}
	kept, repeats, err := r.runHop(ctx, &hop, v.missing, used, newHopTopic(r.in.language, v.missing, st.claim))
	reason := "follow-up: the judge found the sources lack " + evidence.QuoteQuery(v.missing)
	if err != nil {
		hop.Status, hop.Note = HopFailed, err.Error()
	}
	hop.Note = strings.TrimSuffix(reason+"; "+hop.Note, "; ")
	before := len(st.evidence)
	r.keepHop(st, &hop, kept, repeats)
	return len(st.evidence) > before
}
