package multihop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// A bridge named by description (issue 23): the judge of a claim later claims bridge to often
// names no entity, because the claim's own searches look for the entity by the one fact that
// claim gives it ("The Hui people speak a Sinitic language" finds the page of the Hui, which
// names no language), while the claims building on it hold the facts that find it ("{c3} is
// primarily spoken in Kazakhstan"). When the statement has no words of its own for the entity
// either, those claims cannot be stated; each still runs one search for the entity by the bridge
// claim's words and its own (descriptionQuery). The bridge claim is then judged again with what
// they found, each source marked as found that way, and a name it confirms under resolveBridge's
// checks states them. Nothing of another claim's text reaches the judge: only
// sources a search returned.

// maxDescribedSources bounds the sources found by description a bridge claim is judged again
// with: each costs prompt tokens in that call.
const maxDescribedSources = 4

// describable reports whether the claims building on d may search for the entity d describes by
// description: d was judged, named no entity, and its verdict found nothing against the claim (a
// refuted or contradicted description names no entity worth searching for). A d whose hops
// found nothing qualifies too: its own searches missed the entity's pages (in a relay run,
// under another name of the organisation the claim names), which a search by what the
// statement says of the entity may find.
func describable(d *chainState) bool {
	return d != nil && d.checked && d.judged && d.reused == nil && d.unresolved == "" && d.bridge.Value == "" &&
		(d.verdict.Verdict == pipeline.VerdictUnverified || d.verdict.Verdict == pipeline.VerdictSupported)
}

// awaitsDescription reports whether d, a bridge claim, awaits a name by description itself and
// was not judged: it is stated, and judged, in nameByDescription, and the claims building on it
// await it in turn.
func awaitsDescription(d *chainState) bool {
	return d != nil && d.checked && (d.awaiting != "" || len(d.awaitingNames) > 0) && !d.judged
}

// awaitingReason says why the entity d describes is not established while d awaits a name.
func awaitingReason(d *chainState) string {
	if len(d.awaitingNames) > 0 {
		return fmt.Sprintf("it was not stated yet: it awaits the names of the entities %s describe, searched for by description", strings.Join(d.awaitingNames, " and "))
	}
	return fmt.Sprintf("it was not stated yet: it awaits the name of the entity %s describes, searched for by description", d.awaiting)
}

// stateAwaitingNames states st, which waited for its bridges' names (awaitingNames), with the
// names nameByDescription gave them, and runs its planned hops with the names in them, under
// the same rules as any chain; it is then judged like any claim. A bridge still without a name
// leaves it unstated, its hops recorded as not run, saying why.
func (r *multihopRun) stateAwaitingNames(ctx context.Context, st *chainState) error {
	st.awaitingNames, st.waitedForNames, st.unresolved = nil, true, ""
	r.resolveBridges(st)
	return r.runChainStatedLate(ctx, st)
}

// runChainStatedLate runs the planned hops of st, a claim stated after the chains ran, under the
// same rules as any chain. What it held already (what the cross-validation queries found for it
// while it waited, what a search by description found) goes after its hops' finds, as when its
// chain runs first, so that the last independence check keeps a hop's source over a later one
// on its domain; its new hops are recorded after those it ran, the first of them carrying its
// bridge note (runChain).
func (r *multihopRun) runChainStatedLate(ctx context.Context, st *chainState) error {
	earlier, held := st.hopRecords, st.evidence
	st.hopRecords, st.evidence = nil, nil
	err := r.runChain(ctx, st)
	st.hopRecords, st.evidence = append(earlier, st.hopRecords...), append(st.evidence, held...)
	if err != nil {
		return err
	}
	r.enforceIndependenceOf(st)
	return nil
}

// nameByDescription judges again, in execution order, each bridge claim whose dependents await
// a name by description, and states them with the name when the second judgement confirms the
// claim (supported, so at Medium or above) naming the entity from a passage it cites. A
// provisional name (a confirmation in part) is not enough here: the claims building on it have
// searched already, and no further search would settle it. Otherwise the bridge claim keeps its
// first judgement, the sources it was given for the second are dropped with it, and its
// dependents are stated with its description (stateWithDescription) or stay unstated, saying
// why. A bridge claim that awaited a name itself is judged first, once stated here
// (awaitsDescription); a name its judge gives then states its dependents with no second
// judgement. A claim that waited for the names of two bridges (awaitingNames) is stated with
// them here and runs its planned hops (stateAwaitingNames); a search failure no retry can fix
// ends the run, as in execute.
func (r *multihopRun) nameByDescription(ctx context.Context) error {
	for _, id := range r.plan.Plan.ExecutionOrder {
		d := r.stateOf(id)
		var waiting []*chainState
		for _, st := range r.claims {
			if st.checked && st.awaiting == id {
				waiting = append(waiting, st)
			}
		}
		if d == nil {
			continue
		}
		// A claim that waited for its bridges' names comes after them in the order: they are
		// named here, or not, by now.
		if len(d.awaitingNames) > 0 {
			if err := r.stateAwaitingNames(ctx, d); err != nil {
				return err
			}
		}
		// A bridge claim that awaited a name itself was stated above, by that name or by its
		// bridge claim's description, or could not be: it is judged now, before the claims
		// building on it, as it would have been when its chain ran.
		late := d.checked && d.hasDependents && !d.judged && d.reused == nil
		if late {
			r.judgeOne(ctx, d)
		}
		if len(waiting) == 0 {
			continue
		}
		var why string
		when := "when it was judged again with what this search found"
		switch {
		case late && d.unresolved != "":
			why = fmt.Sprintf("%s could not be stated: %s", id, d.unresolved)
		case late && d.bridge.Value != "" && !d.provisional:
			when = "when it was judged, stated with the name or description it had awaited itself"
		case late && !describable(d):
			why = fmt.Sprintf("%s, stated and judged, was %s and named no entity it confirmed (%s)", id, d.verdict.Verdict, text.Truncate(d.bridge.Reason, 160))
		default:
			why = r.judgeWithDescriptions(ctx, d, waiting)
			if why != "" && r.nameByCandidates(ctx, d, waiting) {
				why, when = "", "as the one of the names its judge listed that every claim building on it, judged with each, confirmed"
			}
		}
		for _, st := range waiting {
			st.awaiting = ""
			if why != "" {
				if r.stateWithDescription(st, d, why) {
					continue
				}
				st.unresolved += "; " + why
				if st.judged { // a claim others depend on was judged when its chain ran
					st.verdict.Reason += "; " + why
				}
				continue
			}
			if namesAlready(st.claim.ClaimText, id, d.bridge.Value) {
				// Stated with the name, st would relate the entity to itself, and the statement
				// has no words of its own for it (st waited for a name): not stated, as in
				// resolveBridges. In session 48's twelfth cohort exfever-4027's "Western Romance
				// languages are subdivisions of {c1}" was stated so, and left unverified.
				st.unresolved += "; " + circularBecause(id, d.bridge.Value)
				continue
			}
			r.stateWithName(st, d, when)
		}
	}
	return nil
}

// judgeWithDescriptions gives d, each once and at most maxDescribedSources, the sources the
// searches of the waiting claims kept (a source of each in turn), marked as found by description,
// and judges d again. It keeps that judgement when it names the entity under resolveBridge's
// checks and is no provisional name, and returns why it did not ("" when it did).
func (r *multihopRun) judgeWithDescriptions(ctx context.Context, d *chainState, waiting []*chainState) string {
	before := len(d.evidence)
	for k := 0; len(d.evidence)-before < maxDescribedSources; k++ {
		more := false
		for _, st := range waiting {
			own := ownFinds(st)
			if k >= len(own) {
				continue
			}
			more = true
			e := own[k]
			if holdsURL(d.evidence, e.SearchResult) || len(d.evidence)-before >= maxDescribedSources {
				continue
			}
			d.evidence = append(d.evidence, hopEvidence{Retrieved: evidence.Retrieved{SearchResult: e.SearchResult, SearchSeq: e.SearchSeq, Page: e.Page, Passages: e.Passages},
				hop: e.hop, group: 400 + st.index, fromClaim: st.index + 1, described: true})
		}
		if !more {
			break
		}
	}
	described := len(d.evidence) - before
	// d was judged when its chain ran, before the other claims' findings were shared
	// (shareFindings): what their searches kept about it may name the entity too.
	d.evidence = append(d.evidence, r.readFor(ctx, d, r.othersFinds(d))...)
	if len(d.evidence) == before {
		return fmt.Sprintf("neither the search for the entity by what the statement says of it nor the other claims' searches found a source %s's judge was not given, so %s was not judged again", d.claim.ClaimID, d.claim.ClaimID)
	}
	found := "what the search for the entity by what the statement says of it found"
	switch {
	case described == 0:
		found = "what the other claims' searches found about it"
	case len(d.evidence)-before > described:
		found += " and what the other claims' searches found about it"
	}
	given := givenOf(d)
	v := r.newJudge().judgeClaim(ctx, d.index+1, d.claim.ClaimText, given, true)
	b, provisional := resolveBridge(v, given)
	if v.Verdict != pipeline.VerdictSupported || b.Value == "" || provisional {
		d.evidence = d.evidence[:before]
		named := b.Reason
		if b.Value != "" {
			named = fmt.Sprintf("it named %q", b.Value)
		}
		return fmt.Sprintf("%s, judged again with %s, was %s and named no entity it confirmed (%s)",
			d.claim.ClaimID, found, v.Verdict, text.Truncate(named, 160))
	}
	d.verdict, d.bridge, d.judgedLen = v, b, len(d.evidence)
	d.judged, d.foundNothing = true, false
	return ""
}

// maxCandidates bounds the names nameByCandidates tries: each costs a search and a judgement of
// every claim waiting for the name.
const maxCandidates = 3

// nameByCandidates names the entity d describes when d's judge confirmed d (supported, at
// Medium or above), or confirmed it in part and contradicted nothing (the name is then
// provisional: settleProvisional), and named none, listing in "missing" the entities its
// sources name without saying which one d describes, as its prompt asks (a cast list, two
// programs a host hosted):
// the candidates are the names it listed (a list, not a query: onlyNames) that a source it cited
// holds, at least two and at most maxCandidates, each read from the source's sentence that
// names it (sentenceWith). Each claim waiting for the name is judged stated with each candidate,
// on what its search by description kept and d's cited sources, and a candidate every one of
// them confirms, and no other does, names the entity (resolveBridge's checks, on that
// sentence). Each judgement follows a search of the claim's own for the candidate
// (tryCandidate). It reports whether one candidate was chosen; those judgements only choose: the
// chosen candidate's searches are kept as hops of their claims, and the claims are then stated
// with the name and judged as any claim stated with a name found by a search
// (refutesNoDescription: evidence on one entity never refutes what the statement says of
// another that may fit). In a relay run (EX-FEVER 3761-3840) Olivia Munn's page named the two
// programs she hosted, and "{c2} airs on G4" told them apart. Nothing of another claim's text
// reaches a judge.
func (r *multihopRun) nameByCandidates(ctx context.Context, d *chainState, waiting []*chainState) bool {
	inPart := confirmedOnlyInPart(d.verdict)
	if (d.verdict.Verdict != pipeline.VerdictSupported && !inPart) || d.verdict.missing == "" || d.reused != nil {
		return false
	}
	given := givenOf(d)
	names := groundedNames(d.verdict.missing, given)
	if !onlyNames(d.verdict.missing, names, evidence.WithoutBridges(d.claim.ClaimText)) {
		return false // a search query for a fact ("top division of English football name"), no list
	}
	type candidate struct {
		name    string
		source  int
		passage string
	}
	var candidates []candidate
	for _, name := range names {
		for _, k := range d.verdict.cited {
			if passage := sentenceWith(evidence.SourceText(given[k]), name); passage != "" {
				candidates = append(candidates, candidate{name, k + 1, passage})
				break
			}
		}
	}
	if len(candidates) < 2 || len(candidates) > maxCandidates {
		return false
	}
	chosen := -1
	var trials []candidateTrial
	for i, c := range candidates {
		var these []candidateTrial
		for _, st := range waiting {
			t, err := r.tryCandidate(ctx, st, d, c.name)
			if err != nil || ctx.Err() != nil {
				return false // a search failure no retry can fix names no one; the claims stay as they were
			}
			if !t.confirmed {
				these = nil
				break
			}
			these = append(these, t)
		}
		if these == nil {
			continue
		}
		if chosen >= 0 {
			return false // two candidates fit what the claims say: neither is the one
		}
		chosen, trials = i, these
	}
	if chosen < 0 {
		return false
	}
	c := candidates[chosen]
	b := evidence.ResolveBridge(evidence.BridgeAnswer{Value: c.name, Source: c.source, Passage: c.passage}, given, d.verdict.cited, "judge")
	if b.Value == "" {
		return false
	}
	// A claim confirmed only in part is named provisionally: once the claims stated with the
	// name are judged, it is judged again with what they cited (settleProvisional), and what it
	// then confirms, or not, establishes the name, or leaves them unverified (unsettle).
	d.bridge, d.provisional = b, inPart
	// The chosen candidate's searches are hops of the claims that ran them.
	for i, st := range waiting {
		if t := trials[i]; t.searched {
			r.keepHop(ctx, st, &t.hop, t.kept, t.repeats, maxRepeatsPerHop, t.about)
		}
	}
	return true
}

// candidateTrial is a claim waiting for a bridge's name judged stated with one candidate: the
// search its first planned hop ran with the candidate in it, and whether its judge confirmed it.
type candidateTrial struct {
	searched      bool
	hop           pipeline.Hop
	kept, repeats []evidence.Retrieved
	about         string // the claim stated with the candidate, which its hop read pages for
	confirmed     bool
}

// onlyNames reports whether missing is a list of names: no word of it but the names', small
// words and the claim's own ("Attack of the Show! The Daily Show with Jon Stewart", "Kehlani
// MNEK"; "Rooney Mara Amy Adams Scarlett Johansson actress" for "An actress starred in Her": the
// names, and what the claim says of the one it means). A word of neither is a query's
// ("name", "top division"). Words are compared in one form (listForm): a judge writes the
// claim's words as a query does ("Maghreb country bordering Tunisia" for "borders Tunisia").
func onlyNames(missing string, names []string, claim string) bool {
	held := map[string]bool{}
	for _, n := range append(slices.Clone(names), claim) {
		for _, w := range text.Words(text.FoldForMatch(n)) {
			held[listForm(w)] = true
		}
	}
	for _, w := range text.Words(text.FoldForMatch(missing)) {
		if !held[listForm(w)] && !text.IsAnyStopWord(w) {
			return false
		}
	}
	return len(names) > 0
}

// listForm is a folded word in the singular and without a verb form's ending: "borders",
// "bordering" and "border" are "border" (text.Singular, then verbStem).
func listForm(w string) string { return verbStem(text.Singular(w)) }

// sentenceWith is the sentence of a source's text that names name, as the source writes it
// ("" when none does): the passage a candidate is read from. A judge cites one passage a source
// (its quote of another, naming the other candidate, is not kept), and every sentence of a
// source it cited is what it read.
func sentenceWith(source, name string) string {
	want := text.FoldForMatch(name)
	for _, s := range text.Sentences(source) {
		if strings.Contains(text.FoldForMatch(s), want) {
			return s
		}
	}
	return ""
}

// tryCandidate judges st stated with name for d's placeholder: st's first planned hop runs with
// the name in it, under the chain's rules (it excludes what st's hops used, and what that leaves
// out reaches the judge marked as not independent), numbered after st's earlier hops, and the
// judge is given what it kept, st's evidence (its search by description) and d's cited sources
// as a dependency's findings. st itself is not changed: the chosen candidate's hop is kept by
// the caller. Only an error no retry can fix is returned. In a relay run (EX-FEVER 3841-3920)
// the claims on the collaborator of Gang Signs & Prayer ("{c2} is American", "... a dancer")
// had found no page of MNEK or of Kehlani by description, and neither candidate was confirmed
// on the album's page alone.
func (r *multihopRun) tryCandidate(ctx context.Context, st, d *chainState, name string) (candidateTrial, error) {
	values := map[string]string{d.claim.ClaimID: name}
	for _, id := range r.bridgesOf(st) {
		if o := r.stateOf(id); o != nil && o != d && o.bridge.Value != "" {
			values[id] = o.bridge.Value
		}
	}
	claim, _ := evidence.SubstituteKnownBridges(st.claim.ClaimText, values)
	trial := &chainState{index: st.index, evidence: slices.Clone(st.evidence)}
	trial.used.merge(st.used)
	var t candidateTrial
	if ch := r.chainOf(st.claim.ClaimID); ch != nil && len(ch.Hops) > 0 {
		planned := ch.Hops[0]
		query, _ := evidence.SubstituteKnownBridges(planned.Query, values)
		query = evidence.WithoutBridges(query)
		t.hop = pipeline.Hop{ClaimPosition: st.index + 1, Number: st.nextHopNumber(), TargetSourceType: planned.TargetSourceType,
			ExpectedEvidenceType: planned.ExpectedEvidenceType, Reason: HopReasonPlan}
		topic := newHopTopic(r.in.language, query, PlanClaim{ClaimText: claim, Entities: append(slices.Clone(st.claim.Entities), name)})
		kept, repeats, err := r.runHop(ctx, &t.hop, query, claim, st.used, topic)
		if err != nil {
			return t, err
		}
		t.hop.Note = strings.TrimSuffix(fmt.Sprintf("its first planned hop with %q, one of the names %s's judge listed, for %s (the candidate every claim building on it confirmed is kept)",
			name, d.claim.ClaimID, d.claim.ClaimID)+"; "+t.hop.Note, "; ")
		t.searched, t.kept, t.repeats, t.about = true, kept, repeats, claim
		hop := t.hop
		r.keepHop(ctx, trial, &hop, kept, repeats, maxRepeatsPerHop, claim)
	}
	trial.addCitedOf(d, 200+d.index, false)
	v := r.newJudge().judgeClaim(ctx, st.index+1, claim, givenOf(trial), st.bridged)
	t.confirmed = v.Verdict == pipeline.VerdictSupported
	return t, nil
}

// descriptionQuery is the search for the entity d describes by what the statement says of it:
// d's words and st's, the placeholder dropped ("Leipzig is in a state of Germany" and "{c3}
// borders the state of Brandenburg"). The planned hops of st were written for the name and, the
// placeholder dropped, ask for next to nothing ("geography landlocked encyclopedia", from a
// real plan); d's own hops asked for the entity by d's fact alone.
func descriptionQuery(d, st *chainState) string {
	var parts []string
	for _, c := range []string{d.claim.ClaimText, st.claim.ClaimText} {
		parts = append(parts, strings.TrimRight(strings.TrimSpace(evidence.WithoutBridges(c)), ".!?;"))
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// ownFinds is what st's own hops and cross-validation queries kept: no other claim's finding.
func ownFinds(st *chainState) []hopEvidence {
	var out []hopEvidence
	for _, e := range st.evidence {
		if e.fromClaim == 0 && !e.shared {
			out = append(out, e)
		}
	}
	return out
}

// stateWithName states st with the name d's second judgement gave, to be judged like any claim
// (judgeAll): with what its hops found and d's cited sources. Its first hop says where the name
// came from: when says when d's judge gave the name.
func (r *multihopRun) stateWithName(st, d *chainState, when string) {
	r.stateWith(st, map[string]string{d.claim.ClaimID: d.bridge.Value}, d.bridge.Value)
	st.unresolved, st.judged, st.verdict, st.bridge, st.namedBy = "", false, judgement{}, evidence.Bridge{}, d.claim.ClaimID
	if len(st.hopRecords) > 0 {
		h := &st.hopRecords[0]
		h.Note += fmt.Sprintf("; {%s} is %q, the answer of %s read from its cited source %s %s",
			d.claim.ClaimID, d.bridge.Value, d.claim.ClaimID, d.evidence[d.bridge.Source].URL, when)
	}
}

// stateWithDescription states st, which waited for a name d's judgement did not give (why), with
// d's description of the entity instead (describedAs: "the province that is the easternmost
// province of ..."), to be judged like any claim (judgeAll) with what its search by description
// found and d's cited sources, and reports whether it could. The name is what d could not
// establish; the description is what the statement says of the entity, so the claim so stated
// says what the statement says, and a source that contradicts it refutes it. In a relay run, a
// statement that put a dialect's home in "the easternmost province" of the wrong country had no
// entity that fits (no judge can name one) and stayed unverified, with its search by description
// holding the page that places the dialect elsewhere. It is not stated so when there is nothing
// to judge it with (its search found nothing and d cited nothing), or when st was judged already.
// When st already says most of the description, it would read it twice over (restates): it is
// stated with the entity as the description names it instead, its indefinite noun phrase ("Roger
// Waters helped Pink Floyd achieve international success with an album", where c3 was "Pink Floyd
// achieved international success with an album", in a relay run), which says what st said, once.
func (r *multihopRun) stateWithDescription(st, d *chainState, why string) bool {
	if st.judged || (len(ownFinds(st)) == 0 && len(d.verdict.cited) == 0) {
		return false
	}
	words, ok := describedAs(d.claim.ClaimText)
	if !ok {
		return false
	}
	if restates(evidence.WithoutBridges(st.claim.ClaimText), words, r.in.language) {
		if words, ok = indefiniteOf(d.claim.ClaimText, words); !ok {
			return false
		}
	}
	words = casedFor(st, d.claim.ClaimID, words)
	r.stateWith(st, map[string]string{d.claim.ClaimID: words})
	st.unresolved, st.verdict, st.bridge, st.describedBy = "", judgement{}, evidence.Bridge{}, d.claim.ClaimID
	if len(st.hopRecords) > 0 {
		h := &st.hopRecords[0]
		h.Note += fmt.Sprintf("; %s: the claim is stated with %s's description of the entity, %q, and judged with what this search found",
			why, d.claim.ClaimID, words)
	}
	return true
}

// describedAs is claim as a noun phrase for the entity it describes, when it describes it as its
// subject: "An actor played Detective Chester Lake" is "the actor that played Detective Chester
// Lake". The subject ends at the predicate's first verb: an auxiliary ("is", "has", "was"), a
// past tense in -ed or a common irregular one ("won", "wrote"), a present tense no noun shares
// ("runs", "flows"), or one a noun shares ("stars", "plays") between a noun and a name
// (presentBeforeName); a participle followed by a preposition ("directed by", "founded in",
// "made by") or after an adverb, a possessive or a determiner ("highly decorated", "a nation's
// armed forces") still describes the subject. A claim that opens with a name describes its
// entity as its object instead (describedAsObject). A claim whose only verb is a past form before a preposition and a
// name ("A series aired on Discovery Channel") is its own description. ok is false when the
// claim holds a placeholder or has no such verb, and when the subject it would give holds a
// clause or a list ("that", "which", "and", a comma): "A company manufactures cars that were
// designed in Turin" has its verb outside what the rule reads, and no description is better
// than a wrong one.
func describedAs(claim string) (string, bool) {
	words := strings.Fields(withoutFinalStop(claim))
	if len(words) < 3 || strings.Contains(claim, "{") {
		return "", false
	}
	if !indefiniteArticles[strings.ToLower(words[0])] {
		return describedAsObject(words)
	}
	participle := -1
	for k := 2; k < len(words); k++ {
		w := strings.ToLower(words[k-1])
		if subjectBreakers[strings.Trim(w, ",;:")] || strings.ContainsAny(w, ",;:") {
			return "", false
		}
		v := strings.ToLower(words[k])
		// A participle that opens a phrase ("founded in 1903", "directed by Ang Lee"), follows
		// an adverb ("highly decorated"), or follows a possessive or a determiner ("a nation's
		// armed forces", "an animated sequence") still describes the subject.
		opensPhrase := k+1 < len(words) && participleFollowers[strings.ToLower(words[k+1])]
		modifier := strings.HasSuffix(w, "ly") || opensPhrase || endsPossessive(w) || nounPhraseOpeners[w]
		// A common irregular past before "by" is a participle too ("a film made by Tim Burton").
		passive := pastAndParticiple[v] && k+1 < len(words) && strings.EqualFold(words[k+1], "by")
		if (predicateVerbs[v] && !passive) || (len(v) > 4 && strings.HasSuffix(v, "ed") && !modifier) || presentBeforeName(words, k) {
			return "the " + strings.Join(words[1:k], " ") + " that " + strings.Join(words[k:], " "), true
		}
		if participle < 0 && (passive || (len(v) > 4 && strings.HasSuffix(v, "ed") && opensPhrase && !strings.HasSuffix(w, "ly"))) {
			participle = k
		}
	}
	// No predicate verb: the one past form before a preposition is the claim's verb, when all
	// that follows the preposition is a name or a number ("A wildlife documentary television
	// series aired on Discovery Channel", "A player moved to Spain"), so that nothing after it
	// can be another predicate ("A company founded in 1903 makes cars"). The claim is the
	// description, its article made "the": whether the past form is active or passive is not
	// read, and the words say the same either way.
	if participle > 1 && namesOnly(words[participle+2:]) {
		return "the " + strings.Join(words[1:], " "), true
	}
	return "", false
}

// presentBeforeName reports whether words[k] is a present tense that is also a plural noun
// ("stars", "plays", "features") used as the verb: after a word that is no preposition, no
// determiner and no possessive, and before a name or an article ("An American sports action
// film stars Chevy Chase"), where a noun of the subject would not stand ("a film about stars",
// "a cluster of stars is", "a photo of the stars Tom Hanks", "a film's stars Tom Hanks and").
func presentBeforeName(words []string, k int) bool {
	if !nounOrPresent[strings.ToLower(words[k])] || k+1 >= len(words) {
		return false
	}
	prev := strings.ToLower(words[k-1])
	if participleFollowers[prev] || morePrepositions[prev] || nounPhraseOpeners[prev] || endsPossessive(prev) {
		return false // a noun of the subject
	}
	next := words[k+1]
	return text.IsCapitalised(next) || indefiniteArticles[strings.ToLower(next)] || strings.EqualFold(next, "the")
}

// endsPossessive reports whether w ends in a possessive ("nation's", "players'").
func endsPossessive(w string) bool {
	return strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") || strings.HasSuffix(w, "s'") || strings.HasSuffix(w, "s’")
}

// namesOnly reports whether words are a name or a number: each capitalised, a number or a
// title's minor word, the last not a minor word.
func namesOnly(words []string) bool {
	if len(words) == 0 || text.IsTitleMinorWord(strings.ToLower(words[len(words)-1])) {
		return false
	}
	for _, w := range words {
		if !text.IsCapitalised(w) && !text.IsTitleMinorWord(strings.ToLower(w)) && strings.TrimLeft(w, "0123456789") != "" {
			return false
		}
	}
	return true
}

// indefiniteOf is the noun phrase of description (describedAs), with the indefinite article
// claim gives it: "an album" for "the album that Pink Floyd achieved international success
// with".
func indefiniteOf(claim, description string) (string, bool) {
	np, _, _ := strings.Cut(strings.TrimPrefix(description, "the "), " that ")
	lower := " " + strings.ToLower(withoutFinalStop(claim)) + " "
	for _, article := range []string{"a", "an"} {
		if strings.Contains(lower, " "+article+" "+strings.ToLower(np)+" ") {
			return article + " " + np, true
		}
	}
	return "", false
}

// withoutFinalStop is claim without the punctuation that ends it, a full stop that ends a name
// suffix kept ("a biography of Martin Luther King Jr.").
func withoutFinalStop(claim string) string {
	claim = strings.TrimSpace(claim)
	trimmed := strings.TrimRight(claim, ".!?;")
	fields := strings.Fields(trimmed)
	if len(fields) > 0 && nameSuffixes[strings.ToLower(fields[len(fields)-1])] && strings.HasPrefix(claim[len(trimmed):], ".") {
		return trimmed + "."
	}
	return trimmed
}

// describedAsObject reads a claim whose entity is the noun phrase it ends with, the one
// indefinite article of the claim opening it, as that noun phrase with the rest of the claim as
// its relative clause: "Daniel Michael DeVito Jr. plays Frank Reynolds in a sitcom" is "the
// sitcom that Daniel Michael DeVito Jr. plays Frank Reynolds in". In a relay run the plan
// bridged through such an entity that no source names (the sitcom), and the claim building on
// it ("{c1} is aired by a cable channel") could be stated no other way. ok is false when the
// claim has no indefinite article in lower case ("A" inside a title is no article) or more
// than one, when a copula comes before it ("Randall Flagg is a fantasy character" says what the
// subject is, and names no other entity), and when the noun phrase holds a clause, a list or a
// comma: which entity it describes would be a guess.
func describedAsObject(words []string) (string, bool) {
	at := -1
	for i, w := range words {
		if w == "a" || w == "an" {
			if at >= 0 {
				return "", false
			}
			at = i
		}
	}
	if at < 2 || at == len(words)-1 || subjectCopulas[strings.ToLower(words[at-1])] {
		return "", false
	}
	for _, w := range words[at:] {
		if subjectBreakers[strings.ToLower(strings.Trim(w, ",;:"))] || strings.ContainsAny(w, ",;:") {
			return "", false
		}
	}
	for _, w := range words[:at] {
		if subjectBreakers[strings.ToLower(strings.Trim(w, ",;:"))] {
			return "", false // a description within a description
		}
	}
	clause := slices.Clone(words[:at])
	// "The film won an award" reads "the award that the film won", and an existential "There
	// is ..." reads "... that there is ..."; a name keeps its case ("There Will Be Blood").
	if strings.EqualFold(clause[0], "the") && !text.IsCapitalised(clause[1]) ||
		strings.EqualFold(clause[0], "there") && subjectCopulas[strings.ToLower(clause[1])] {
		clause[0] = strings.ToLower(clause[0])
	}
	return "the " + strings.Join(words[at+1:], " ") + " that " + strings.Join(clause, " "), true
}

// subjectCopulas say what their subject is: the noun phrase after one describes the subject,
// not another entity.
var subjectCopulas = text.WordSet("is are was were be been being am remains remained became becomes")

// predicateVerbs are the auxiliaries, common irregular past tenses and present tenses a
// description's predicate opens with (describedAs).
var predicateVerbs = text.WordSet("is are was were has have had will would can could may might must shall should does did " +
	"won wrote led made became began took gave held built sang ran met saw left lost sold bought taught drew grew fought " +
	"went came told found said kept stood spoke brought flew sat hit " +
	// Present tenses that are no plural noun a subject may hold ("stars", "plays", "makes" are:
	// "a cluster of stars is ..."): "A mocăniță runs in the Vaser Valley".
	"runs flows serves teaches sings writes operates connects crosses includes contains lies belongs remains appears " +
	"competes represents produces publishes manages directs performs follows describes depicts owns")

// pastAndParticiple are the words of predicateVerbs that are past participles too: before "by"
// they describe the subject ("a film made by Tim Burton").
var pastAndParticiple = text.WordSet("made built held taught sold bought found kept told led won lost brought fought")

// nounOrPresent are the present tenses a bridge claim's verb often is that are also plural
// nouns a subject may hold; presentBeforeName reads them by the words around them.
var nounOrPresent = text.WordSet("stars plays features hosts")

// morePrepositions are, with participleFollowers, the words after which a word of
// nounOrPresent is a noun ("a film about stars", "a cluster of stars").
var morePrepositions = text.WordSet("about among between over through like without within against across around behind beyond")

// participleFollowers are the words after a participle that make it part of the subject ("a band
// formed in 1990") rather than its predicate; a claim with no other verb ("A player moved to
// Spain") is read by describedAs's last rule.
var participleFollowers = text.WordSet("by in on at after from for with as to into during under of near since")

// subjectBreakers end a subject describedAs can read: a clause or a second subject.
var subjectBreakers = text.WordSet("that which who whom whose and or")

// refutesNoDescription keeps the judgement of a claim stated with a name found by description
// from refuting it: the entity was found by a search, not named by the statement, and evidence
// on that one entity can confirm the claim, never refute it, since another entity may fit what
// the statement says of it ("A person originally wrote the song Umbrella": a real judge named one
// of its co-writers, whose page refuted the claims the statement made of another). A
// contradiction is unverified, with its judge's verdict in the reason.
func refutesNoDescription(st *chainState, v judgement) judgement {
	if st.namedBy == "" || (v.Verdict != pipeline.VerdictRefuted && v.Verdict != pipeline.VerdictPartlySupported) {
		return v
	}
	return judgement{Verdict: pipeline.VerdictUnverified, VariantVerdict: v.VariantVerdict, Confidence: pipeline.ConfidenceLow,
		Reason: fmt.Sprintf("it was stated with the entity %s's judge named from what a search by this claim's facts found, which can confirm the claim and never refute it (another entity may fit what the statement says); its own judge said %s: %s",
			st.namedBy, v.Verdict, v.Reason)}
}

// minCorroboratingClaims is how many other claims stated with a name found by description must
// be supported before a claim stated with it may be refuted on it (corroboratedRefutations).
// It was 2: replayed with 1 on 200 relay-run claims (EX-FEVER, session 29) the one refutation
// it gave back was of a false statement ("Oxygen has atomic number 10", the element found by its
// symbol, confirmed by a second claim), and no true statement was refuted; the two session 28
// found still withheld with fewer than two were of false statements too.
const minCorroboratingClaims = 1

// corroboratedRefutations gives back the refutation refutesNoDescription withheld from a claim
// stated with a name found by description once at least minCorroboratingClaims other claims
// stated with the same name are supported: the entity fits the description its bridge claim
// confirmed and another fact the statement says of it, so a contradiction on it is the
// statement's error, not another entity's fact. In relay runs (EX-FEVER 3361-3440) "London has
// been a settlement for three millennia" (its page: two) and "Dirty Dancing was released in
// 1999" (1987) stayed unverified beside seven and three supported claims on the same entity. It
// runs after every judgement, so that each claim is counted as its last judgement left it.
func (r *multihopRun) corroboratedRefutations() {
	for _, st := range r.claims {
		if st.withheld == nil || st.namedBy == "" {
			continue
		}
		var corroborating []string
		for _, o := range r.claims {
			if o != st && o.checked && o.namedBy == st.namedBy && o.verdict.Verdict == pipeline.VerdictSupported {
				corroborating = append(corroborating, o.claim.ClaimID)
			}
		}
		if len(corroborating) < minCorroboratingClaims {
			continue
		}
		v := *st.withheld
		v.Reason = fmt.Sprintf("it was stated with the entity %s's judge named from a search by description, which %s, stated with it too, confirm: %s",
			st.namedBy, strings.Join(corroborating, " and "), v.Reason)
		st.verdict, st.withheld = v, nil
	}
}
