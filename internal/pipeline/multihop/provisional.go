package multihop

import (
	"context"
	"fmt"
	"slices"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// A provisional bridge (issue 23): the judge of a claim later claims bridge to often finds the
// entity and not every attribute the claim gives it ("A guitarist released a solo recording on
// August 26, 1997 on Birdman Records": the album's page names John Frusciante and says nothing
// of his guitar), and an unconfirmed bridge left every claim building on it unstated. The name
// it cited (resolveBridge) states them instead; their hops search for the entity and find its
// own page, which holds what the first sources left out. Once they are judged, the bridge claim
// is judged again with the sources they cited (settleProvisional). Evidence gathered on the one
// entity a judge named can establish that entity, never refute the description: another entity
// may fit it ("Mallrats stars an Irish actor" is not refuted by one cast member's page). So the
// second judgement counts only when it confirms the claim naming the same entity; otherwise the
// claim keeps its first judgement, and every claim stated with the name is unverified.

// settleProvisional judges each claim with a provisional bridge again once the claims building
// on it have been judged, the latest in execution order first, so that a provisional bridge
// building on another is settled before the one it builds on.
func (r *multihopRun) settleProvisional(ctx context.Context) {
	order := r.plan.Plan.ExecutionOrder
	for i := len(order) - 1; i >= 0; i-- {
		st := r.stateOf(order[i])
		if st == nil || !st.checked || !st.provisional {
			continue
		}
		if why := r.confirmProvisional(ctx, st); why != "" {
			r.unsettle(st, why)
		}
	}
}

// confirmProvisional judges st again with the sources the claims stated with its name cited,
// and the entity's own pages their hops kept (entityPagesOf), each marked as found by searching
// for the entity, and keeps that judgement when it confirms st (supported, so at Medium or
// above) and names the same entity under resolveBridge's checks (sameEntityNamed).
// It returns why it did not ("" when it did); the extra sources are then dropped with the
// judgement that was not kept.
func (r *multihopRun) confirmProvisional(ctx context.Context, st *chainState) string {
	name := st.bridge.Value
	before, added := len(st.evidence), 0
	for _, o := range r.buildingOn(st) {
		added += st.addCitedOf(o, 400+o.index, true)
	}
	pages := r.readFor(ctx, st, r.entityPagesOf(st, name))
	st.evidence = append(st.evidence, pages...)
	added += len(pages)
	if added == 0 {
		return "the claims stated with the name cited no source it was not given, and found no page of it"
	}
	given := givenOf(st)
	v := r.newJudge().judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, true)
	b, _ := resolveBridge(v, given)
	switch {
	case v.Verdict != pipeline.VerdictSupported:
		st.evidence = st.evidence[:before]
		return fmt.Sprintf("judged again with what they found, it was %s", v.Verdict)
	case !sameEntityNamed(name, b.Value):
		st.evidence = st.evidence[:before]
		return fmt.Sprintf("judged again with what they found, it was supported but named no entity, or another (%s)", text.Truncate(b.Value+b.Reason, 120))
	}
	st.verdict, st.bridge, st.provisional, st.judgedLen = v, b, false, len(st.evidence)
	return ""
}

// entityPagesOf is the pages of the entity st's provisional bridge named (titled with name)
// that the hops of the claims stated with the name kept and st does not hold, each marked as
// found by searching for the entity: whether or not a judge of theirs cited one, it is where the
// facts of the entity are. In a relay run (EX-FEVER 3761-3840) the judge of "Simon Wincer won an
// award given by a Christian organization" named the Christopher Award from his page; the one
// claim stated with it, a planner's "Christopher Award was founded in 1945", found the award's
// page (which says the organization that gives it was) and cited nothing, and the bridge claim
// was never judged with the page that confirms it. Their passages are read again for st's claim
// (readFor).
func (r *multihopRun) entityPagesOf(st *chainState, name string) []hopEvidence {
	page := newHopTopic(r.in.language, "", PlanClaim{Entities: []string{name}})
	var out []hopEvidence
	for _, o := range r.buildingOn(st) {
		for _, e := range o.evidence {
			if !page.titled(e.Title) || holdsURL(st.evidence, e.SearchResult) || holdsURL(out, e.SearchResult) {
				continue
			}
			found := evidence.Retrieved{SearchResult: e.SearchResult, SearchSeq: e.SearchSeq, Page: e.Page, Passages: e.Passages}
			out = append(out, hopEvidence{Retrieved: found, hop: e.hop, group: 400 + o.index, fromClaim: o.index + 1, builtOn: true})
		}
	}
	return out
}

// sameEntityNamed reports whether a second judgement's name, second, names the entity a first
// judgement named first: the same words with or without their spaces (a relay run's first judge
// named "black bear" from the page that wrote him so, and its second "Blackbear" from the
// musician's own page), or first's words as the opening or closing words of second, the name in
// full ("Robin" then "Robin Gibb": a relay run's first judge read "his younger brother, Robin",
// its second the page the claims stated with "Robin" had cited). A name with other words around
// the first's ("Adam Beach Jones" for "Beach") is another entity's.
func sameEntityNamed(first, second string) bool {
	if spaceless(first) == spaceless(second) {
		return true
	}
	short, full := text.Words(text.FoldForMatch(first)), text.Words(text.FoldForMatch(second))
	if len(short) == 0 || len(short) >= len(full) {
		return false
	}
	return slices.Equal(full[:len(short)], short) || slices.Equal(full[len(full)-len(short):], short)
}

// unsettle leaves st's bridge not established, st with its first judgement, and makes every
// claim stated with its name (and, in turn, with a name read from one of those) unverified:
// such a claim is about an entity no judge confirmed, whatever its own judge made of it.
func (r *multihopRun) unsettle(st *chainState, why string) {
	name := st.bridge.Value
	st.unsettled = true
	st.bridge, st.provisional = evidence.Bridge{Reason: fmt.Sprintf("its judge named %q but confirmed %s only in part, and %s", name, st.claim.ClaimID, why)}, false
	affected := []string{st.claim.ClaimID}
	for _, id := range r.plan.Plan.ExecutionOrder {
		o := r.stateOf(id)
		if o == nil || !o.checked || o.unresolved != "" || !slices.ContainsFunc(r.bridgesOf(o), func(b string) bool { return slices.Contains(affected, b) }) {
			continue
		}
		affected = append(affected, o.claim.ClaimID)
		was := o.verdict
		o.verdict = judgement{Verdict: pipeline.VerdictUnverified, VariantVerdict: was.VariantVerdict, Confidence: pipeline.ConfidenceLow,
			Reason: fmt.Sprintf("it was stated with %q, the entity claim %d describes as its judge named it, which was not established (claim %d was confirmed only in part, and %s); its own judge said %s: %s",
				name, st.index+1, st.index+1, why, was.Verdict, was.Reason)}
	}
}

// buildingOn are the checked claims stated with st's bridge value: each writes st's placeholder
// and was not left unresolved.
func (r *multihopRun) buildingOn(st *chainState) []*chainState {
	var out []*chainState
	for _, o := range r.claims {
		if o.checked && o.unresolved == "" && slices.Contains(r.bridgesOf(o), st.claim.ClaimID) {
			out = append(out, o)
		}
	}
	return out
}

// bridgesOf are the claim ids st's planned text, sub-queries and hops write placeholders for
// (st.claim holds the text with its bridges resolved).
func (r *multihopRun) bridgesOf(st *chainState) []string {
	return claimBridges(r.plan.Plan.Claims[st.index], r.chainOf(st.claim.ClaimID))
}

// newJudge is the judge of this run's claims.
func (r *multihopRun) newJudge() judge {
	return judge{rec: r.rec, grounding: r.in.grounding, calibration: r.calibration, published: r.in.published}
}
