package multihop

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

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
// claim keeps its first judgement, and every claim stated with the name is unverified; unless
// the description itself is contradicted on that entity (describedOtherwise).

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
		before := len(st.evidence)
		why, another := r.confirmProvisional(ctx, st)
		if why == "" || !another && r.describedOtherwise(ctx, st, why) {
			continue
		}
		st.evidence = st.evidence[:before] // dropped with the judgement that was not kept
		r.unsettle(st, why)
	}
}

// confirmProvisional judges st again with the sources the claims stated with its name cited,
// and the entity's own pages their hops kept (entityPagesOf), each marked as found by searching
// for the entity, and keeps that judgement when it confirms st (supported, so at Medium or
// above) and names the same entity under resolveBridge's checks (sameEntityNamed).
// It returns why it did not ("" when it did), and whether the second judgement confirmed st
// naming another entity or none; the extra sources stay in st.evidence for the caller to drop
// with the judgement that was not kept.
func (r *multihopRun) confirmProvisional(ctx context.Context, st *chainState) (why string, another bool) {
	name := st.bridge.Value
	if r.addFoundOnEntity(ctx, st) == 0 {
		if r.lookAtBridge(ctx, st, st.verdict, givenOf(st)) {
			return "", false
		}
		return "the claims stated with the name cited no source it was not given, and found no page of it", false
	}
	given := givenOf(st)
	v := r.newJudge().judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, true)
	b, _ := resolveBridge(v, given)
	switch {
	case r.contradictedOnEntity(st, v, given):
		return "", false
	case v.Verdict != pipeline.VerdictSupported && (v.answer.Value == "" || sameEntityNamed(name, v.answer.Value)) && r.lookAtBridge(ctx, st, v, given):
		return "", false
	case v.Verdict != pipeline.VerdictSupported:
		return fmt.Sprintf("judged again with what they found, it was %s", v.Verdict), false
	case !sameEntityNamed(name, b.Value):
		return fmt.Sprintf("judged again with what they found, it was supported but named no entity, or another (%s)", text.Truncate(b.Value+b.Reason, 120)), true
	}
	st.verdict, st.bridge, st.provisional, st.judgedLen = v, b, false, len(st.evidence)
	return "", false
}

// addFoundOnEntity appends to st's evidence the sources the claims stated with its bridge's name
// cited, and the entity's own pages their hops kept (entityPagesOf), each marked as found by
// searching for the entity, and returns how many it added.
func (r *multihopRun) addFoundOnEntity(ctx context.Context, st *chainState) int {
	added := 0
	for _, o := range r.buildingOn(st) {
		added += st.addCitedOf(o, 400+o.index, true)
	}
	pages := r.readFor(ctx, st, r.entityPagesOf(st, st.bridge.Value))
	st.evidence = append(st.evidence, pages...)
	return added + len(pages)
}

// reconsiderContradicted judges again each bridge claim its judge contradicted in part while
// naming the entity (partly supported with a correction, so at Medium or above: a name
// resolveBridge takes as established), when every claim stated with the name was confirmed,
// with what they found on the entity (addFoundOnEntity), as a provisional bridge is judged
// again. It keeps that judgement when it confirms the claim (supported, so at Medium or above),
// cites a source they found, and names the same entity under resolveBridge's checks; otherwise
// the claim keeps its contradiction, and what the second judgement broke stays among its flags.
// The first judge read a page that leaves out what the claim says of the entity as saying
// otherwise: in session 48's tenth cohort (exfever-3931) "... had been broadcast for 17 years on
// a sports television network" was corrected on CBS's page ("a commercial broadcast television
// and radio network ... rather than a sports television network") while "CBS is a sports
// television network", stated with the name, was confirmed on another page, and a true statement
// was refuted. A claim whose contradiction holds on the entity's other pages keeps it; evidence
// on the entity can confirm the claim, and the claims it builds on single that entity out.
func (r *multihopRun) reconsiderContradicted(ctx context.Context) {
	for _, st := range r.claims {
		if ctx.Err() != nil || !st.checked || !st.hasDependents || st.reused != nil || st.provisional || st.bridge.Value == "" ||
			st.verdict.Verdict != pipeline.VerdictPartlySupported || st.verdict.Correction == "" {
			continue
		}
		dependents := r.buildingOn(st)
		if !allConfirmed(dependents) {
			continue
		}
		before := len(st.evidence)
		if r.addFoundOnEntity(ctx, st) == 0 {
			continue
		}
		given := givenOf(st)
		v := r.newJudge().judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, true)
		b, _ := resolveBridge(v, given)
		if v.Verdict != pipeline.VerdictSupported || !sameEntityNamed(st.bridge.Value, b.Value) ||
			!slices.ContainsFunc(v.cited, func(k int) bool { return k >= before }) {
			st.evidence = st.evidence[:before]
			st.verdict.flags = append(st.verdict.flags, v.flags...)
			continue
		}
		v.Reason = fmt.Sprintf("judged again with what claim %s, stated with %q, found (its first judge corrected it to %q): %s",
			positions(dependents), st.bridge.Value, st.verdict.Correction, v.Reason)
		st.verdict, st.judgedLen = v, len(st.evidence)
	}
}

// lookAtBridge settles a provisional bridge whose latest judgement v, given given, confirmed it
// at Low or in part, when every claim stated with its name was confirmed: it gets the second
// look a claim no other builds on gets (secondLook), on the sources v cited, and is settled only
// by a grounded confirmation at Medium or above. v is its first judgement when the claims
// stated with its name found nothing it was not given (so it cannot be judged again with more),
// or its second, with what they found, when that one answered with the same entity or none.
// The name stays the one its first judge read from a cited passage (resolveBridge).
//
// Relay runs left such statements unverified with every fact found: in session 46's second
// cohort exfever-3730 ("An actress has established her career predominantly in Tamil-language
// films" confirmed at Low, the claim stated with Catherine Tresa Alexander confirmed, nothing
// more found; replayed with the look: supported, its gold label), exfever-3816 and -4077 (a
// confirmation in part, nothing more found), -3728 and -6030 (judged again with the entity's
// page, unverified). The look is not asked when a claim stated with the name was not confirmed
// (the entity may not be the one the statement means); a confirmation in part of a description
// no source states (EX-FEVER's garbled "Alec/X5-494", exfever-4038) is for the look to decline.
// It reports whether it settled st; when not, st keeps what the look broke among its flags.
func (r *multihopRun) lookAtBridge(ctx context.Context, st *chainState, v judgement, given []evidence.Retrieved) bool {
	if !allConfirmed(r.buildingOn(st)) {
		return false
	}
	w, ok := r.newJudge().secondLook(ctx, st.index+1, st.claim.ClaimText, v, given)
	if !ok {
		st.verdict.flags = append(st.verdict.flags, w.flags[len(v.flags):]...)
		return false
	}
	st.verdict, st.provisional, st.judgedLen = w, false, len(st.evidence)
	return true
}

// contradictedOnEntity settles st, a provisional bridge, with its second judgement v (given
// given) when v contradicts the claim at Medium or above on the entity the first judge named:
// partly supported with a correction (code drops one given below Medium), citing a passage that
// refutes the claim, and answering with that entity under resolveBridge's checks; and every
// claim stated with the name was confirmed, so that the statement's other facts single the
// entity out. That is the finding describedOtherwise asks a check for, given by the second
// judgement itself on what the claims stated with the name found, and it costs no call. The
// check asks only what the claim says the entity is; the second judgement reads the whole claim:
// in a relay run (session 48, exfever-3814) "A television drama series aired on JTBC on
// December 20, 2022", judged again with the page that says "On December 20, 2021, JTBC broadcast
// The One and Only", was corrected to 2021 at Medium naming The One and Only, which the claim
// stated with the name confirmed Joy starred in; the check of "a television drama series" found
// nothing wrong, the bridge was unsettled and the false statement left unverified. The name
// stays the first judge's.
func (r *multihopRun) contradictedOnEntity(st *chainState, v judgement, given []evidence.Retrieved) bool {
	dependents := r.buildingOn(st)
	if v.Verdict != pipeline.VerdictPartlySupported || v.Correction == "" || !allConfirmed(dependents) ||
		!slices.ContainsFunc(v.cited, func(k int) bool { return v.stances[k] == evidence.StanceRefutes }) {
		return false
	}
	name := st.bridge.Value
	if b, _ := resolveBridge(v, given); !sameEntityNamed(name, b.Value) {
		return false
	}
	v.Reason = fmt.Sprintf("its judge named %q but confirmed the claim only in part; claim %s, stated with that name, confirmed the rest the statement says of it, and judged again with what it found, the claim was contradicted on that entity: %s",
		name, positions(dependents), v.Reason)
	st.verdict, st.provisional, st.judgedLen = v, false, len(st.evidence)
	return true
}

// positions lists the claims' positions, as a reason names them ("2, 3").
func positions(claims []*chainState) string {
	out := make([]string, len(claims))
	for i, o := range claims {
		out[i] = strconv.Itoa(o.index + 1)
	}
	return strings.Join(out, ", ")
}

// allConfirmed reports whether there are claims and every one was supported.
func allConfirmed(claims []*chainState) bool {
	for _, o := range claims {
		if o.verdict.Verdict != pipeline.VerdictSupported {
			return false
		}
	}
	return len(claims) > 0
}

// describedOtherwise settles a provisional bridge that its second judgement did not confirm,
// when what the claim says of the entity is contradicted on the entity the statement's other
// facts single out: c1's judge named it and confirmed c1 in part, every claim stated with the
// name was confirmed (the entity does all else the statement says of it), and c1's description
// of it, asked of it by name ("Gran Torino is a 2009 American drama film", judged on its own
// with the sources c1's second judgement had), is contradicted at Medium or above. c1 is then
// partly supported, with its first judge's confirmed part and the check's correction, and the
// bridge is that entity: the statement is false as EX-FEVER's explanations read it ("Scott
// Eastwood is best known for Gran Torino, a 2008 film directed by Clint Eastwood"). In a relay
// run (EX-FEVER 2561-2640, session 42) five false statements were left unverified with every
// claim stated with the entity confirmed; asked so, three of their descriptions were
// contradicted (Gran Torino 2008, Sisters a comedy, Superman a DC Comics character).
// The entity is singled out only as far as the claims stated with it pin it down: with none
// ("Mallrats stars an Irish actor" alone), or one not confirmed, nothing is asked and the bridge
// is unsettled as before; facts that hold of it without singling it out are the rule's risk
// (docs/multihop-rules.md). A check that confirms the description, or contradicts it only at
// Low, changes nothing (a confirmation is the second judgement's to give, and a Low
// contradiction corrects nothing); nor is it asked when the second judgement confirmed c1
// naming another entity. It reports whether it settled st.
func (r *multihopRun) describedOtherwise(ctx context.Context, st *chainState, why string) bool {
	dependents := r.buildingOn(st)
	if !allConfirmed(dependents) || r.in.language != "en" {
		return false
	}
	description, ok := descriptionOf(st.claim.ClaimText)
	if !ok {
		return false
	}
	name := st.bridge.Value
	check := name + " is " + description
	w := r.newJudge().judgeClaim(ctx, st.index+1, check, givenOf(st), false)
	if !contradicts(w) {
		// What the check broke (a quote no source holds) is still for the editor to see.
		st.verdict.flags = append(st.verdict.flags, w.flags...)
		return false
	}
	w.Verdict, w.SupportedPart = pipeline.VerdictPartlySupported, st.verdict.SupportedPart
	w.Reason = fmt.Sprintf("its judge named %q but confirmed the claim only in part, and %s; claim %s, stated with that name, confirmed the rest the statement says of it, and the sources contradict %q: %s",
		name, why, positions(dependents), check, w.Reason)
	st.verdict, st.provisional, st.judgedLen = w, false, len(st.evidence)
	return true
}

// descriptionOf is the noun phrase claim describes the entity it does not name by, with its
// article ("a 2015 American drama film" of "Jason Moore directed a 2015 American drama film",
// "a Marvel Comics character" of "A Marvel Comics character is the identity used by Clark"),
// when it says more of the entity than what kind of thing it is: "an actor" is nothing to
// contradict. A phrase that ends in a possessive or a small word was cut short where
// describedAs read a word as the verb (a relay run's "a branch of a nation's" of "A branch of
// a nation's armed forces is ...", before describedAs read a past form after a possessive as
// an adjective): no check is better than a check of half a phrase.
func descriptionOf(claim string) (string, bool) {
	described, ok := describedAs(claim)
	if !ok {
		return "", false
	}
	phrase, ok := indefiniteOf(claim, described)
	words := strings.Fields(phrase)
	if !ok || len(words) < 3 {
		return "", false
	}
	last := strings.ToLower(words[len(words)-1])
	if endsPossessive(last) || text.IsTitleMinorWord(last) {
		return "", false
	}
	return phrase, true
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
