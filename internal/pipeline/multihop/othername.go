package multihop

import (
	"context"
	"fmt"
	"slices"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// Another name for a confirmed bridge (issue 23): a bridge claim's description may fit more than
// one entity its sources name ("Travis Barker is a member of an American rock supergroup": +44
// and Antemasque, both on his page), and its judge names one. When that one is not the entity
// the statement means, every claim stated with it is left unverified, and the statement with
// them, though the corpus holds every fact of the other: in three relay cohorts (sessions 46, 47
// and 48) exfever-3930's judge named +44, and "+44 includes former members of a post-hardcore
// band" found nothing. The entity is then searched for by what the statement says of it, the
// bridge claim is judged again with what that finds, and a name it confirms that every claim
// stated with it confirms, each after a search of its own, replaces the first. A name found so
// came from a search, not from the statement: evidence on it confirms the claims stated with it
// and never refutes them (namedBy).

// nameAgainByDescription gives each bridge claim d that was confirmed naming an entity (supported,
// so at Medium or above, its name established), whose every claim stated with the name was left
// unverified on its sources (judgedShort: none refuted, none contradicted, none confirmed) and
// builds on nothing further, one search for the entity by d's words and the first such claim's
// (descriptionQuery, the placeholder dropped), within max_hops of d's chain, and judges d again
// with what it kept. When that judgement confirms d naming another entity under resolveBridge's
// checks, each claim is judged stated with that name after a search of its own (tryCandidate);
// when every one is confirmed, d keeps the second judgement and its search, and each claim is
// stated with the new name, keeps its search and is judged again (namedBy d). Otherwise nothing
// the trial found is kept, and d and its claims are as they were. A search failure no retry can
// fix leaves them so too.
func (r *multihopRun) nameAgainByDescription(ctx context.Context) {
	for _, d := range r.claims {
		if ctx.Err() != nil || !d.checked || !d.hasDependents || d.reused != nil || d.provisional || d.bridge.Value == "" ||
			d.verdict.Verdict != pipeline.VerdictSupported || retrievingHops(d) >= r.in.maxHops {
			continue
		}
		dependents := r.buildingOn(d)
		if len(dependents) == 0 || slices.ContainsFunc(dependents, func(st *chainState) bool {
			return !judgedShort(st) || st.hasDependents || st.reused != nil || retrievingHops(st) >= r.in.maxHops
		}) {
			continue
		}
		r.tryAnotherName(ctx, d, dependents)
	}
}

// tryAnotherName is nameAgainByDescription's trial of d with its claims dependents, and reports
// whether d was named again.
func (r *multihopRun) tryAnotherName(ctx context.Context, d *chainState, dependents []*chainState) bool {
	first := d.bridge.Value
	planned := r.plan.Plan.Claims[dependents[0].index]
	trial := &chainState{index: d.index, claim: d.claim, evidence: slices.Clone(d.evidence)}
	trial.used.merge(d.used)
	query := descriptionQuery(d, &chainState{claim: planned})
	about := d.claim.ClaimText + " " + evidence.WithoutBridges(planned.ClaimText)
	hop := pipeline.Hop{ClaimPosition: d.index + 1, Number: d.nextHopNumber(), Reason: HopReasonDescription}
	topic := newHopTopic(r.in.language, query, d.claim, PlanClaim{ClaimText: planned.ClaimText, Entities: planned.Entities})
	kept, repeats, err := r.runHop(ctx, &hop, query, about, d.used, topic)
	if err != nil || len(kept)+len(repeats) == 0 {
		return false
	}
	hop.Note = fmt.Sprintf("every claim stated with %q, the answer of %s, was left unverified: a search for the entity by what the statement says of it, %s's words and %s's; %s",
		first, d.claim.ClaimID, d.claim.ClaimID, planned.ClaimID, hop.Note)
	r.keepHop(ctx, trial, &hop, kept, repeats, maxRepeatsPerHop, about)
	if len(trial.evidence) == len(d.evidence) {
		return false
	}
	given := givenOf(trial)
	v := r.newJudge().judgeClaim(ctx, d.index+1, d.claim.ClaimText, given, true)
	b, _ := resolveBridge(v, given)
	if v.Verdict != pipeline.VerdictSupported || b.Value == "" || sameEntityNamed(first, b.Value) || sameEntityNamed(b.Value, first) {
		return false
	}
	// The claims are tried on d as judged again: its cited sources are their dependency's findings.
	named := *d
	named.evidence, named.verdict, named.bridge = trial.evidence, v, b
	trials := make([]candidateTrial, len(dependents))
	for i, st := range dependents {
		// Tried as planned: its text holds d's placeholder, not the first name.
		unstated := *st
		unstated.claim = r.plan.Plan.Claims[st.index]
		t, err := r.tryCandidate(ctx, &unstated, &named, b.Value, fmt.Sprintf("the name %s's judge confirmed with a search for the entity by description, every claim stated with %q having been left unverified", d.claim.ClaimID, first))
		if err != nil || !t.confirmed {
			return false
		}
		trials[i] = t
	}
	v.Reason = fmt.Sprintf("judged again with a search for the entity by what the statement says of it, since every claim stated with %q, the entity its first judge named, was left unverified: %s", first, v.Reason)
	d.evidence, d.used, d.verdict, d.bridge, d.judgedLen = trial.evidence, trial.used, v, b, len(trial.evidence)
	d.hopRecords = append(d.hopRecords, trial.hopRecords...)
	for i, st := range dependents {
		ch := r.chainOf(st.claim.ClaimID)
		st.claim, st.hops = r.plan.Plan.Claims[st.index], slices.Clone(ch.Hops)
		r.resolveBridges(st)
		if t := trials[i]; t.searched {
			r.keepHop(ctx, st, &t.hop, t.kept, t.repeats, maxRepeatsPerHop, t.about)
		}
		st.judged, st.verdict, st.bridge, st.namedBy, st.followUps = false, judgement{}, evidence.Bridge{}, d.claim.ClaimID, 0
		r.judgeOne(ctx, st)
	}
	return true
}
