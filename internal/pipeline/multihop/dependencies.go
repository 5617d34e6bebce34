package multihop

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// A claim that depends on others is verified with what they established (issue 23): it runs
// after them, its bridges ("{c1}") resolved from their judges' grounded answers
// (resolveBridges), and its judge is given, besides what its own hops found, the sources their
// verdicts cited, marked as established for a claim it depends on (addDependencySources). Its
// judge still sees no other claim's text: only its own, with names read from cited passages.

// maxFollowUps bounds the follow-up hops of one claim (followUp): each costs one search and one
// judge call more. A follow-up also stays within max_hops, counted as the hops that retrieved
// (retrievingHops), so a claim searches at most max_hops + maxFollowUps times.
const maxFollowUps = 1

// Relations a source carries in a judge prompt (evidence.Retrieved.Relation).
const (
	relationEstablished = "established for a claim this claim depends on"
	relationShared      = "found by the searches of another claim of this statement"
	relationBuiltOn     = "found by searching for the entity this claim describes"
	relationDescribed   = "found by searching for the entity this claim describes, by other facts about it"
)

// maxSharedSources bounds the sources of the statement's other claims one judge is given
// (shareFindings): each costs prompt tokens in every judge call of the claim.
const maxSharedSources = 3

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
	j := r.newJudge()
	if st.unresolved != "" {
		st.verdict = judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the claim cannot be stated: " + st.unresolved}
		st.bridge = evidence.Bridge{Reason: "it was not judged: " + st.unresolved}
		return
	}
	r.addDependencySources(st)
	st.addShared()
	if len(st.evidence) == 0 {
		st.verdict = judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: r.noEvidenceReason(st)}
		st.bridge = evidence.Bridge{Reason: "its hops found no evidence"}
		st.foundNothing = true
		return
	}
	given := givenOf(st)
	v := j.judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, st.bridged)
	if r.followUp(ctx, st, v) {
		given = givenOf(st)
		v = j.judgeClaim(ctx, st.index+1, st.claim.ClaimText, given, st.bridged)
	}
	if !st.bridged {
		v, _ = j.secondLook(ctx, st.index+1, st.claim.ClaimText, v, given)
		v, _ = j.lookAtContradiction(ctx, st.index+1, st.claim.ClaimText, v, given)
	}
	st.verdict, st.withheld = refutesNoDescription(st, v), nil
	if st.verdict.Verdict != v.Verdict {
		st.withheld = &v
	}
	if st.bridged {
		st.bridge, st.provisional = resolveBridge(v, given)
		if st.bridge.Value == "" && v.answer.Value != "" {
			r.flag(pipeline.Flagf(pipeline.FlagQuoteNotInSource, "claim %d: the answer %q was refused as a bridge: %s",
				st.index+1, text.Truncate(v.answer.Value, 60), st.bridge.Reason))
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
		case e.builtOn:
			given[k].Relation = relationBuiltOn
		case e.described:
			given[k].Relation = relationDescribed
		case e.shared:
			given[k].Relation = relationShared
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

// addDependencySources gives st the sources its dependencies' verdicts cited, each once, after
// its own evidence: passages checked to be in their sources, whatever the verdict made of them
// (a claim confirmed only in part is unverified and still cites what it confirmed).
func (r *multihopRun) addDependencySources(st *chainState) {
	for _, id := range st.claim.DependsOn {
		d := r.stateOf(id)
		if d == nil || !d.checked || d.reused != nil {
			continue
		}
		st.addCitedOf(d, 200+d.index, false)
	}
}

// addCitedOf appends to st's evidence, in group, each source o's verdict cited that st does not
// hold yet, and returns how many it added. A source that builtOn marks (a provisional bridge's
// second judgement: settleProvisional) keeps the page passages o's judge read, since they may
// hold what st's own sources left out; a dependency's finding is given as its search result
// with the page passages that hold what o's judge cited from it (citedPassages), since the
// others were chosen for o's fact, not st's.
func (st *chainState) addCitedOf(o *chainState, group int, builtOn bool) int {
	added := 0
	for _, k := range o.verdict.cited {
		e := o.evidence[k]
		if holdsURL(st.evidence, e.SearchResult) {
			continue
		}
		r := evidence.Retrieved{SearchResult: e.SearchResult, SearchSeq: e.SearchSeq}
		if builtOn {
			r.Page, r.Passages = e.Page, e.Passages
		} else if held := citedPassages(e.Retrieved, o.verdict.quotes[k]); len(held) > 0 {
			r.Page, r.Passages = e.Page, held
		}
		st.evidence = append(st.evidence, hopEvidence{Retrieved: r, hop: e.hop, group: group, fromClaim: o.index + 1, builtOn: builtOn})
		added++
	}
	return added
}

// citedPassages are the page passages of e that hold quote, the passage a judge cited from it,
// when the snippet e shows does not: the finding a dependent claim is given. A judge cites what
// it read below a page's snippet as often as the snippet itself; given the snippet alone, the
// dependent claim's judge would not see the fact its dependency was confirmed with (in a relay
// run, EX-FEVER: "<a team> play their home games in an arena shared with other teams, including
// <a second team>", cited from the team's page for the arena, was cut from the snippet the claim
// about the second team was given). The whole passage comes, not the quote alone: the quote is
// the words o's verdict relied on, and the rest of its sentence may be st's.
func citedPassages(e evidence.Retrieved, quote string) []pipeline.Passage {
	if quote == "" || evidence.PassageIn(quote, evidence.SourceText(evidence.Retrieved{SearchResult: e.SearchResult})) {
		return nil
	}
	var held []pipeline.Passage
	for _, p := range e.Passages {
		if evidence.PassageIn(quote, p.Text) {
			held = append(held, p)
		}
	}
	return held
}

// shareFindings sets aside, for each claim still to be judged, what the other claims' hops kept
// that is about it: a result another chain relied on that passes the hop relevance test with the
// claim as its topic, at most maxSharedSources, in the order the chains ran. The facts of one
// statement are often found by a neighbouring claim's searches (a real model's judge left
// "Tesla, Inc. is American" unverified on the one source its own hop kept, while the Model S
// chain had retrieved the page that says so). It runs once every chain has run and before any
// judge of judgeAll, so that no chain's evidence changes while it is read.
func (r *multihopRun) shareFindings(ctx context.Context, targets []*chainState) {
	for _, st := range targets {
		if st.judged || st.reused != nil || st.unresolved != "" {
			continue
		}
		st.sharedFinds = r.readFor(ctx, st, r.othersFinds(st))
	}
}

// readFor gives finds, other claims' findings set aside for st, the passages of their pages that
// best match st's claim (evidence.PageReading), and returns them: the passages their own hops
// read were chosen for another claim's text. In a relay run (EX-FEVER 3281-3360) "<a band> were
// formed in a city" was given the band's page with the passages chosen for "<the band> are a
// rock band" (its line-up), and its judge found nothing on where the band was formed, which the
// page says. A page that cannot be read again, or none of whose passages matches st's claim,
// keeps the passages it had.
func (r *multihopRun) readFor(ctx context.Context, st *chainState, finds []hopEvidence) []hopEvidence {
	again := make([]evidence.Retrieved, len(finds))
	for i, f := range finds {
		again[i] = f.Retrieved
		again[i].Page, again[i].Passages = nil, nil
	}
	r.pages.Read(ctx, again, st.claim.ClaimText)
	for i := range finds {
		if len(again[i].Passages) > 0 {
			finds[i].Retrieved = again[i]
		}
	}
	return finds
}

// othersFinds is what the other claims' hops kept that is about st and st does not hold: each
// result a chain relied on that passes the hop relevance test with st as its topic, at most
// maxSharedSources, the pages of st's entities first (ownPagesFirst), then in the order the
// chains ran, marked as found by another claim's searches. No other claim's text comes with it:
// only what a search returned.
func (r *multihopRun) othersFinds(st *chainState) []hopEvidence {
	topic := newHopTopic(r.in.language, st.claim.ClaimText, st.claim)
	var out []hopEvidence
	for _, o := range r.claims {
		if o == st || !o.checked || o.reused != nil {
			continue
		}
		for _, e := range o.evidence {
			if e.fromClaim > 0 || e.shared || holdsURL(st.evidence, e.SearchResult) || holdsURL(out, e.SearchResult) ||
				!topic.relevant(e.Title, evidence.SourceText(e.Retrieved)) {
				continue
			}
			found := e.Retrieved
			found.Relation = ""
			out = append(out, hopEvidence{Retrieved: found, hop: e.hop, group: 300 + o.index, fromClaim: o.index + 1, shared: true})
		}
	}
	ownPagesFirst(out, topic, func(e hopEvidence) string { return e.Title })
	return out[:min(len(out), maxSharedSources)]
}

// minCitedSharedWords is how many of a claim's content words a source another claim cited must
// hold to be given to the claim when its own hops found nothing (judgeOnOthersCitations), unless
// it holds every word of the name the claim is about (subjectWords).
const minCitedSharedWords = 3

// subjectWords are the topic words of the name a claim opens with, its subject ("Jay-Z" of
// "Jay-Z is Canadian", "Calling" of "The Calling is a rock band"): the run of names (isName; a
// first word only when the plan lists it among the claim's entities) from the claim's first
// word, after an opening "The". None when the claim opens otherwise ("Two riders were ...").
// A page that holds the subject and not the claim's other words is what refutes a swapped
// attribute: "features American rapper Jay-Z" for "Jay-Z is Canadian".
func subjectWords(c PlanClaim, language string) map[string]bool {
	lang := cmpLang(language)
	entityWords := map[string]bool{}
	for _, e := range c.Entities {
		for _, t := range tokensOf(e) {
			entityWords[t.text] = true
		}
	}
	var run []string
	for i, t := range tokensOf(evidence.WithoutBridges(c.ClaimText)) {
		if i == 0 && t.key == "the" {
			continue
		}
		if !isName(t, i, lang, entityWords) {
			break
		}
		run = append(run, t.text)
	}
	return tokenSet(topicWords(strings.Join(run, " "), language))
}

// judgeOnOthersCitations judges once more, after every other claim, each claim that had no
// source when it was judged (foundNothing), and each claim its judge left wanting on the
// sources it had (a bridge claim: leftWanting; a claim no other builds on: leftShort): with the
// sources, not among its own, the other claims' verdicts cited that hold at least
// minCitedSharedWords of its content words (all of them when it has fewer), or every word of its
// subject (subjectWords) or of one of the entities the plan lists for it
// (a book's page lists "A Flight of Pigeons" among its author's works with "written", not the
// claim's "wrote"), at most maxSharedSources, marked as another claim's findings. A real
// model's run: "Two women were killed by a truck driver in <a region's long official name>"
// kept nothing, since the pages give the region's short name and the hop relevance test wants
// every word of a name, and it was judged before the others, since the victims' claims build
// on it; their searches, by the victims' names, found and cited the page that says so. A cited
// source is one a judge read and relied on: with enough of the claim's words it is about the
// claim's fact, whatever name it gives the claim's entities, and the judge, under the same
// grounding rules, says whether it states it. A claim is judged again only when such a source
// exists, so a run without one costs nothing more. The claims are judged one after another, in
// plan order, so that none reads a verdict while it changes. A bridge claim that found nothing and was named by
// no search by description is judged again too, for its own verdict: the claims building on it
// were stated with its description or not at all, and stay so, and what a claim so stated cited
// (its follow-up hop's page of the entity, in a relay run: "An author wrote A Flight of Pigeons"
// beside "The Angry River is by the author that wrote A Flight of Pigeons") was found after the
// bridge claim was judged.
func (r *multihopRun) judgeOnOthersCitations(ctx context.Context, targets []*chainState) {
	for _, st := range targets {
		if !(st.foundNothing || leftWanting(st) || r.leftShort(st)) || st.reused != nil || ctx.Err() != nil {
			continue
		}
		words := tokenSet(topicWords(evidence.WithoutBridges(st.claim.ClaimText), r.in.language))
		need := min(minCitedSharedWords, len(words))
		if need == 0 {
			continue // a claim of no content words shares none with any source
		}
		// The names a source may hold whole instead: the claim's subject, and each entity the
		// plan lists for it ("{c1}" names nothing yet).
		names := []map[string]bool{}
		if subject := subjectWords(st.claim, r.in.language); len(subject) > 0 {
			names = append(names, subject)
		}
		for _, e := range st.claim.Entities {
			if w := tokenSet(topicWords(e, r.in.language)); len(w) > 0 && !strings.Contains(e, "{") {
				names = append(names, w)
			}
		}
		about := func(held map[string]bool) bool {
			return heldCount(words, held) >= need ||
				slices.ContainsFunc(names, func(name map[string]bool) bool { return heldCount(name, held) == len(name) })
		}
		subject := subjectWords(st.claim, r.in.language)
		rest := map[string]bool{} // the claim's words outside its subject
		for w := range words {
			if !subject[w] {
				rest[w] = true
			}
		}
		for _, o := range targets {
			if o == st || o.foundNothing || o.reused != nil {
				continue
			}
			onSubject := confirmedOnSubject(o, subject, r.in.language) && len(rest) > 0
			for _, k := range o.verdict.cited {
				e := o.evidence[k]
				if len(st.sharedFinds) >= maxSharedSources || holdsURL(st.sharedFinds, e.SearchResult) || holdsURL(st.evidence, e.SearchResult) {
					continue
				}
				held := tokenSet(topicWords(e.Title+" "+evidence.SourceText(e.Retrieved), r.in.language))
				if !about(held) && !(onSubject && heldCount(rest, held) == len(rest)) {
					continue
				}
				found := e.Retrieved
				found.Relation = ""
				st.sharedFinds = append(st.sharedFinds, hopEvidence{Retrieved: found, hop: e.hop, group: 300 + o.index, fromClaim: o.index + 1, shared: true})
			}
		}
		if len(st.sharedFinds) == 0 {
			continue
		}
		st.sharedFinds = r.readFor(ctx, st, st.sharedFinds)
		st.judged, st.foundNothing = false, false
		r.judgeOne(ctx, st)
		r.judgeDescribedAgain(ctx, st)
		r.stateNamedLate(ctx, st)
	}
}

// confirmedOnSubject reports whether o's judge confirmed o (supported, so at Medium or above)
// and o is about subject, a claim's subject words (subjectWords): a source that judge cited is
// one it read as about that subject, whatever name the source gives it ("A film director
// controls ..." cited for "The filmmaker controls ..."), and so is about the subject for
// judgeOnOthersCitations when it holds the rest of a claim's words.
func confirmedOnSubject(o *chainState, subject map[string]bool, language string) bool {
	return len(subject) > 0 && o.verdict.Verdict == pipeline.VerdictSupported && maps.Equal(subjectWords(o.claim, language), subject)
}

// stateNamedLate states the claims left unstated for want of d's name, now that d, judged again
// after every other claim (judgeOnOthersCitations), confirms its claim naming the entity from a
// passage it cites (a provisional name is not enough: nothing would settle it now). Each runs its
// planned hops with the name, numbered after the hops it ran while it waited (the first one
// saying where the name came from), and is judged like any claim, with d's cited sources as a
// dependency's findings and what the other claims' hops kept about it; a claim others build on
// names its entity in turn and states theirs. The name was found by what a search for another
// claim returned, not by the statement, so evidence on it can confirm a claim and never refute
// it (namedBy: refutesNoDescription, corroboratedRefutations). A claim with another bridge still
// unnamed stays unstated. In a relay run (EX-FEVER 3761-3840) "Brian Casey is a member of a
// group" found nothing and named "Jagged Edge" only when judged with the page another claim
// cited ("Nice & Slow is a song written by Brian Casey of the Jagged Edge"); "{c2} is an
// American R&B group" and "{c2} has a debut studio album released in October 1997" were never
// stated, and a true statement was left unverified.
func (r *multihopRun) stateNamedLate(ctx context.Context, d *chainState) {
	if d.verdict.Verdict != pipeline.VerdictSupported || d.bridge.Value == "" || d.provisional {
		return
	}
	for _, st := range r.claims {
		if !st.checked || st.reused != nil || st.unresolved == "" || ctx.Err() != nil || !slices.Contains(r.bridgesOf(st), d.claim.ClaimID) {
			continue
		}
		ch := r.chainOf(st.claim.ClaimID)
		if ch == nil || len(ch.Hops) == 0 {
			continue
		}
		next := st.nextHopNumber()
		hops := slices.Clone(ch.Hops)
		for i := range hops {
			hops[i].HopNumber = next + i
		}
		was := st.unresolved
		st.unresolved, st.awaiting, st.awaitingNames, st.waitedForNames, st.hops = "", "", nil, true, hops
		r.resolveBridges(st)
		if st.unresolved != "" {
			st.unresolved = was // another bridge of st has no name: it stays unstated
			continue
		}
		st.bridgeNote += fmt.Sprintf(", named when %s was judged again after every claim, with what the other claims' judges cited: the planned hops run now", d.claim.ClaimID)
		st.judged, st.verdict, st.bridge, st.namedBy = false, judgement{}, evidence.Bridge{}, d.claim.ClaimID
		if err := r.runChainStatedLate(ctx, st); err != nil {
			// A search failure no retry can fix is this claim's reason; the run's other verdicts
			// were reached already and stand.
			st.judged = true
			st.verdict = judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow,
				Reason: fmt.Sprintf("stated with %q once %s named it, its planned hops failed: %s", d.bridge.Value, d.claim.ClaimID, err)}
			continue
		}
		st.sharedFinds = r.readFor(ctx, st, r.othersFinds(st))
		r.judgeOne(ctx, st)
		r.stateNamedLate(ctx, st)
	}
}

// judgeDescribedAgain judges once more each claim stated with d's description
// (stateWithDescription) whose judgement found nothing either way (unverified), now that d,
// judged again after every other claim (judgeOnOthersCitations), is confirmed: it was judged
// before d's judge cited the source that names the entity, and is given that source now, as a
// finding established for a claim it depends on (addDependencySources), under the same
// grounding rules. In a relay run (EX-FEVER) "A composer composed <a rock opera>" found nothing,
// the claim stated with its description was judged on a page of the composer that names no
// opera, and the bridge claim was then confirmed from a page a third claim cited ("<the
// composer>'s rock opera"): a true statement stayed unverified. The claim keeps its
// description: d's name came from another claim's finding, after its search ran.
func (r *multihopRun) judgeDescribedAgain(ctx context.Context, d *chainState) {
	if d.verdict.Verdict != pipeline.VerdictSupported {
		return
	}
	for _, st := range r.claims {
		if st.describedBy != d.claim.ClaimID || !st.checked || !st.judged || st.reused != nil ||
			st.verdict.Verdict != pipeline.VerdictUnverified || ctx.Err() != nil {
			continue
		}
		first := st.verdict
		st.judged, st.foundNothing = false, false
		r.judgeOne(ctx, st)
		if st.verdict.Verdict == pipeline.VerdictUnverified {
			st.verdict.Reason = strings.TrimSpace(st.verdict.Reason + fmt.Sprintf("; judged again once %s was confirmed, with what its judge cited", d.claim.ClaimID))
			continue
		}
		st.verdict.Reason = fmt.Sprintf("judged again once %s was confirmed, with what its judge cited (first: %s, %s): %s", d.claim.ClaimID, first.Verdict, text.Truncate(first.Reason, 160), st.verdict.Reason)
	}
}

// leftWanting reports whether st is a bridge claim, judged as soon as its chain ran, whose judge
// read its sources and found them short of the claim (its own verdict unverified, or partly
// supported with nothing contradicted, which code makes unverified), and whose entity no claim
// was stated with: the claims building on it searched after it was judged, by its description,
// and what they cited may hold its fact (a relay run: "Victor Hugo wrote a drama in rhyming
// alexandrines", judged on the author's page alone, beside the claim stated with its
// description that found and cited the play's page). A claim judged with the others had what
// their searches kept already (shareFindings); a bridge claim whose provisional name was
// refused (unsettle) was judged again with what the claims stated with it cited, and those
// claims stay unverified whatever a later judgement says.
func leftWanting(st *chainState) bool {
	return st.hasDependents && !st.unsettled && judgedShort(st)
}

// leftShort reports whether st, a claim no other builds on, was left unverified on the sources
// it was judged with (judgedShort), and is stated with no name a provisional bridge failed to
// establish (such a claim stays unverified whatever a later judgement says: unsettle). The
// sources the other claims' searches kept reach it before its judgement only when they pass the
// hop relevance test with the claim as topic (shareFindings), and the wrong value of a false
// claim is on no page about its subject: in two relay cohorts (sessions 46 and 47)
// exfever-3759's "Chennai is in Telangana" was judged on a composer's page from Chennai and left
// unverified, while the claim "Kollywood is the Indian film industry ... based in Chennai" cited
// "based in Chennai, Tamil Nadu".
func (r *multihopRun) leftShort(st *chainState) bool {
	return !st.hasDependents && judgedShort(st) && !slices.ContainsFunc(r.bridgesOf(st), func(id string) bool {
		d := r.stateOf(id)
		return d != nil && d.unsettled
	})
}

// judgedShort reports whether st was judged, could be stated, and was left unverified with its
// judge's own verdict unverified, or partly supported with nothing contradicted (which code
// makes unverified).
func judgedShort(st *chainState) bool {
	said := strings.ToLower(strings.TrimSpace(st.verdict.VariantVerdict))
	return st.judged && st.unresolved == "" && st.verdict.Verdict == pipeline.VerdictUnverified &&
		(said == pipeline.VerdictUnverified || said == pipeline.VerdictPartlySupported)
}

// heldCount counts the words of words that held holds (both read as topicWords reads them).
func heldCount(words, held map[string]bool) int {
	n := 0
	for w := range words {
		if held[w] {
			n++
		}
	}
	return n
}

// addShared puts the findings shareFindings set aside for st after its evidence, each source once.
func (st *chainState) addShared() {
	for _, e := range st.sharedFinds {
		if !holdsURL(st.evidence, e.SearchResult) {
			st.evidence = append(st.evidence, e)
		}
	}
	st.sharedFinds = nil
}

// holdsURL reports whether list holds a source with the URL of r (as evidence.KeysOf reads it).
func holdsURL(list []hopEvidence, r pipeline.SearchResult) bool {
	url := evidence.KeysOf(r).URL
	return slices.ContainsFunc(list, func(h hopEvidence) bool { return evidence.KeysOf(h.SearchResult).URL == url })
}

// resolveBridges puts into st's text and hop queries the names its bridges stand for, read from
// the judgements of the claims it depends on (resolveBridge). When one was not established (its
// judge named no entity, or the name was refused), st is stated with the statement's own words
// for the entity, the span of the claim it builds on, and its hops search without the
// placeholder: its judge, given that claim's cited sources, can still join the two facts, and no
// name of the model's enters the claim. Only when the statement has no words of its own for it
// (the spans overlap, or the span is no noun phrase) and st's text writes its placeholder is st
// unresolved, and says why; a placeholder only st's hops write is dropped from them, and st is
// judged as written. Each hop says where its names came from.
func (r *multihopRun) resolveBridges(st *chainState) {
	ids := claimBridges(st.claim, r.chainOf(st.claim.ClaimID))
	if len(ids) == 0 {
		return
	}
	values := map[string]string{}
	var names, described, from, unstated []string
	unstatedWhy := map[string]string{}
	for _, id := range ids {
		d := r.stateOf(id)
		if d != nil && d.checked && d.bridge.Value != "" && !d.provisional && namesAlready(st.claim.ClaimText, id, d.bridge.Value) {
			words, ok := r.statementWordsFor(d, st)
			if !ok {
				st.unresolved = circularBecause(id, d.bridge.Value)
				return
			}
			values[id] = words
			described = append(described, id)
			from = append(from, fmt.Sprintf("{%s} is %q, the answer of %s, which this claim names already (stated with it, it would relate that entity to itself): the claim is stated with the statement's words for it, %q, and searched without it",
				id, d.bridge.Value, id, words))
			continue
		}
		if d != nil && d.checked && d.bridge.Value != "" {
			values[id] = d.bridge.Value
			names = append(names, d.bridge.Value)
			note := fmt.Sprintf("{%s} is %q, the answer of %s read from its cited source %s", id, d.bridge.Value, id, d.evidence[d.bridge.Source].URL)
			if d.provisional {
				note += fmt.Sprintf(" (provisional: its judge confirmed %s only in part, and judges it again with what the claims building on the name find)", id)
			}
			from = append(from, note)
			continue
		}
		why := "it was not checked"
		switch {
		case awaitsDescription(d):
			why = awaitingReason(d)
		case d != nil && d.checked:
			why = d.bridge.Reason
		}
		words, ok := r.statementWordsFor(d, st)
		if !ok {
			if len(unstated) == 0 {
				st.unresolved = unresolvedBecause(id, why)
			}
			unstated = append(unstated, id)
			unstatedWhy[id] = why
			continue
		}
		values[id] = words
		described = append(described, id)
		from = append(from, fmt.Sprintf("{%s} was not established (%s): the claim is stated with the statement's words for it, %q, and searched without it", id, why, words))
	}
	if len(unstated) > 0 && !slices.ContainsFunc(unstated, func(id string) bool { return strings.Contains(st.claim.ClaimText, "{"+id+"}") }) {
		// Only the planned hops write the placeholders the statement has no words for: the
		// claim's text is whole ("A request was put to Francis Fisher to stand in the City of
		// Wellington electorate to fill the vacancy", its hop "{c2} City of Wellington seat
		// vacancy ...", c2 a father no source names) and is judged as written; its hops search
		// without them.
		st.unresolved = ""
		for _, id := range unstated {
			described = append(described, id)
			from = append(from, fmt.Sprintf("{%s} was not established (%s): the claim's text does not build on it, and its hops are searched without it", id, unstatedWhy[id]))
		}
		unstated = nil
	}
	if len(unstated) > 0 {
		// One entity the statement has no words for, the others named or worded: the claim,
		// stated with those, searches for it by description (nameByDescription). Two such
		// entities leave too little to search by; a placeholder only the planned hops write is
		// dropped with them. A bridge claim that awaits a name by description itself is
		// awaited in turn: once it is stated, by that name or by its own bridge claim's
		// description, it is judged with what this claim's search found (a bridge of a
		// bridge: "{c1} is aired by a cable channel", c1 a sitcom no source names, and "{c2}
		// set the record ...", whose hops a real plan wrote with {c1} too).
		inText := slices.DeleteFunc(slices.Clone(unstated), func(id string) bool { return !strings.Contains(st.claim.ClaimText, "{"+id+"}") })
		if st.waitedForNames {
			return // stated once its bridges were named, or not at all (stateAwaitingNames)
		}
		if len(inText) > 1 && !slices.ContainsFunc(inText, func(id string) bool {
			d := r.stateOf(id)
			return !describable(d) && !awaitsDescription(d)
		}) {
			// Two entities to search for leave too little to search by: the claim waits until
			// they are named by description, and is stated then (stateAwaitingNames).
			st.awaitingNames = inText
			return
		}
		if d := r.stateOf(first(inText)); len(inText) == 1 && (describable(d) || awaitsDescription(d)) {
			id := inText[0]
			st.unresolved = unresolvedBecause(id, unstatedWhy[id])
			r.stateWith(st, values, names...)
			st.awaiting = id
			st.hops = []PlanHop{{HopNumber: 1, Query: descriptionQuery(d, st)}}
			st.bridgeNote = strings.Join(append(from, fmt.Sprintf("{%s} was not established (%s) and the statement has no words of its own for it: one search for the entity by what the statement says of it, %s's words and this claim's, stands for the planned hops, and %s is judged again with what it finds",
				id, unstatedWhy[id], id, id)), "; ")
		}
		return
	}
	r.stateWith(st, values, names...)
	hops := slices.Clone(st.hops)
	for i := range hops {
		hops[i].Query, _ = evidence.SubstituteBridges(withoutBridges(hops[i].Query, described), values)
	}
	st.hops = hops
	st.bridgeNote = strings.Join(from, "; ")
}

// namesAlready reports whether claim names value, the answer of the bridge id it builds on, apart
// from the placeholder: stated with it, the claim would relate the entity to itself. In two relay
// cohorts (sessions 46 and 47) exfever-4027's bridge judge read "Western Romance languages" from
// "Western Romance languages are one of the two subdivisions of a proposed subdivision of the
// Romance languages based on ...", and "Western Romance languages are a subdivision of {c1}" was
// stated "... a subdivision of Western Romance languages": unverified as circular, and the true
// statement with it. Such a claim is stated with the statement's words for the entity instead
// (resolveBridges), as when the bridge was not established, and, when the statement has none,
// is not stated at all (in session 47's second cohort the claim so planned was judged as written
// and refuted as circular: a true statement refuted). Not when the bridge is provisional, since
// the claims stated with its name are what settles it.
//
// The name counts only as a whole name: not as the opening or closing words of a longer one, a
// capitalised word right before or after it ("FX" in "{c3} is owned by FX Networks, LLC", in
// session 47's second cohort: the claim went unstated and its statement lost a finding), a
// determiner opening the claim excepted ("The Walt Disney Company owns {c1}").
func namesAlready(claim, id, value string) bool {
	rest := strings.ReplaceAll(claim, "{"+id+"}", " ")
	name := text.Words(text.FoldForMatch(value))
	var words, folded []string
	for _, sp := range text.WordSpans(rest) {
		words = append(words, rest[sp[0]:sp[1]])
		folded = append(folded, strings.Join(text.Words(text.FoldForMatch(rest[sp[0]:sp[1]])), " "))
	}
	for i := 0; len(name) > 0 && i+len(name) <= len(folded); i++ {
		if !slices.Equal(folded[i:i+len(name)], name) {
			continue
		}
		after := i+len(name) < len(words) && text.IsCapitalised(words[i+len(name)])
		before := i > 0 && text.IsCapitalised(words[i-1]) && !(i == 1 && articles[strings.ToLower(words[0])])
		if !after && !before {
			return true
		}
	}
	return false
}

// circularBecause says why a claim that names the answer of the bridge id it builds on, value,
// already is not stated: with it, the claim would relate the entity to itself, and the statement
// has no words of its own for it (namesAlready).
func circularBecause(id, value string) string {
	return fmt.Sprintf("it builds on the answer of %s, %q, which it names already (stated with it, it would relate that entity to itself), and the statement has no words of its own for it",
		id, value)
}

// unresolvedBecause says why a claim cannot be stated: the bridge id it builds on was not
// established (why).
func unresolvedBecause(id, why string) string {
	return fmt.Sprintf("it builds on the answer of %s, which was not established (%s), and the statement has no words of its own for it", id, why)
}

// first is the first of ids, or "" when there is none.
func first(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

// stateWith writes the values (names, or the statement's words for an entity) into st's text and
// entities, and into its result claim. The entities anchor what its hops may keep (hopTopic), so
// they name the entity too: real plans list the placeholder among them ("{c1} is Canadian":
// ["{c1}"]), or leave it out ("{c1} appears in Asia comic books": ["Asia"], the value the
// statement got wrong, which the named entity's page does not hold); each of names, the entities
// judges named, is listed when no entity holds it yet. A claim planned with no entity is left
// so: with no anchor, its hops keep a result that shares two of its words, the named entity's
// page among them, and an anchor would narrow that. The entities go into a new slice: st.claim's
// shares its array with the plan's, which keeps the placeholders.
func (r *multihopRun) stateWith(st *chainState, values map[string]string, names ...string) {
	// A claim awaiting another bridge's name by description is stated with the names it has
	// (resolveBridges), the placeholder it awaits kept.
	st.claim.ClaimText, _ = evidence.SubstituteKnownBridges(withoutKindBefore(st.claim.ClaimText, values), values)
	r.res.Claims[st.index].Text = st.claim.ClaimText
	entities := make([]string, len(st.claim.Entities), len(st.claim.Entities)+len(names))
	for i, e := range st.claim.Entities {
		entities[i], _ = evidence.SubstituteKnownBridges(e, values)
	}
	for _, n := range names {
		if len(entities) > 0 && !slices.ContainsFunc(entities, func(e string) bool { return strings.Contains(strings.ToLower(e), strings.ToLower(n)) }) {
			entities = append(entities, n)
		}
	}
	st.claim.Entities = entities
	r.res.Claims[st.index].Entities = slices.Clone(entities)
}

// kindBefore matches a determiner and one to three words a plan writes before a placeholder, the
// kind of entity it stands for: "the genre {c3}", "The actor {c1}".
var kindBefore = regexp.MustCompile(`\b([Tt]he|[Aa]n?)((?: [\p{L}-]+){1,3}) \{(c[0-9]{1,2})\}`)

// withoutKindBefore is claim with each placeholder's kind (kindBefore) replaced, with the
// placeholder, by the placeholder's value, when that value is a description that names the kind
// itself (describesKind): stated as planned, "{c2} belongs to the genre {c3}" read "... belongs
// to the genre the music genre that ..." in a relay run. The value takes the case of the
// determiner it replaces. A name ("the genre Rock music") keeps the kind, and so does a
// description of another kind or one that lacks a word of it ("the Slipknot actor {c1}" for "the
// actor that played ...").
func withoutKindBefore(claim string, values map[string]string) string {
	return kindBefore.ReplaceAllStringFunc(claim, func(m string) string {
		sub := kindBefore.FindStringSubmatch(m)
		value := values[sub[3]]
		if !describesKind(value, strings.Fields(sub[2])) {
			return m
		}
		if sub[1][0] == 'T' || sub[1][0] == 'A' {
			value = strings.ToUpper(value[:1]) + value[1:]
		}
		return value
	})
}

// describesKind reports whether value is a description (a noun phrase opening with "the", "a" or
// "an" in lower case, as a name never does) whose noun phrase, the words before its relative
// clause, holds every word of kind and ends with kind's last, its head: "the music genre that
// originated in ..." describes the kind "genre"; "the film director that made Beetlejuice" is no
// film. A value holding a placeholder is never read (SubstituteKnownBridges reads no value
// again).
func describesKind(value string, kind []string) bool {
	words := strings.Fields(value)
	if len(words) < 2 || len(kind) == 0 || strings.Contains(value, "{") || !(indefiniteArticles[words[0]] || words[0] == "the") {
		return false
	}
	np := words[1:]
	if at := slices.IndexFunc(np, func(w string) bool { return w == "that" || relativePronouns[w] }); at >= 0 {
		np = np[:at]
	}
	if len(np) == 0 || !strings.EqualFold(np[len(np)-1], kind[len(kind)-1]) {
		return false
	}
	for _, k := range kind {
		if !slices.ContainsFunc(np, func(w string) bool { return strings.EqualFold(w, k) }) {
			return false
		}
	}
	return true
}

// statementWordsFor is how the statement itself names the entity claim d describes: d's span
// when it names the entity (entityWords), with the case its place in st's text wants. ok is
// false when the statement has no such words apart from st's own (no d, no span, spans that
// overlap, a span that does not name the entity, or one st restates).
func (r *multihopRun) statementWordsFor(d, st *chainState) (string, bool) {
	if d == nil {
		return "", false
	}
	dc, sc := r.res.Claims[d.index], r.res.Claims[st.index]
	span := strings.TrimSpace(dc.SpanText)
	if span == "" || (dc.SpanStart < sc.SpanEnd && sc.SpanStart < dc.SpanEnd) {
		return "", false
	}
	// d's text as planned: by now its own bridges may be resolved in d.claim.
	words, ok := entityWords(r.plan.Plan.Claims[d.index].ClaimText, span, r.in.language)
	if !ok {
		return "", false
	}
	if restates(evidence.WithoutBridges(st.claim.ClaimText), words, r.in.language) {
		return "", false
	}
	return casedFor(st, d.claim.ClaimID, words), true
}

// casedFor is words, a noun phrase opening with a determiner, written for the place of
// placeholder id in st's text: the determiner in lower case, unless the placeholder opens the
// text.
func casedFor(st *chainState, id, words string) string {
	first, _, _ := strings.Cut(words, " ")
	opener := strings.ToLower(first)
	if strings.HasPrefix(strings.TrimSpace(st.claim.ClaimText), "{"+id+"}") {
		opener = strings.ToUpper(opener[:1]) + opener[1:]
	}
	return opener + words[len(first):]
}

// restates reports whether claim already says most of span: more than half of the span's
// content words are in it. The span would then stand beside its own restatement, and the claim
// would read twice over ("their guitarist, who released his solo recording on August 26,
// 1997's solo recording released on August 26, 1997 was released on Birdman Records", from a
// real plan); "The actor who played Detective Chester Lake" shares one word of five with
// "{c1} played Slipknot in Suicide Squad".
func restates(claim, span, language string) bool {
	have := tokenSet(topicWords(claim, language))
	words := topicWords(span, language)
	shared := 0
	for _, w := range words {
		if have[w] {
			shared++
		}
	}
	return 2*shared > len(words)
}

// entityWords reports whether span, the statement's words for the fact described states, names
// the entity described describes, so that a claim building on it can be stated with them:
//
//   - they are a noun phrase: they open with a determiner ("released an album on June 29, 2015"
//     or "that was originally written by ..." in place of a name reads as no claim);
//   - headed by the entity: the span's first content word is that of described's description of
//     it, its subject ("An actor played Detective Chester Lake": "The actor who played ...") or
//     else its last indefinite noun phrase ("{c3} created an American war comedy-drama television
//     series"), where "a creator and producer of an American war ..." names the creator;
//   - and they state the fact that pins the entity down (more than half of described's content
//     words): "an Irish actor" alone, for "Mallrats stars an Irish actor", would make "An Irish
//     actor is a comedian" a claim any Irish comedian bears out.
func entityWords(described, span, language string) (string, bool) {
	first, _, _ := strings.Cut(span, " ")
	if !nounPhraseOpeners[strings.ToLower(first)] {
		return "", false
	}
	claim := evidence.WithoutBridges(described)
	description := describedEntity(claim)
	if description == "" {
		return "", false
	}
	head, spanHead := topicWords(description, language), topicWords(span, language)
	if len(head) == 0 || len(spanHead) == 0 || head[0] != spanHead[0] {
		return "", false
	}
	if !restates(span, claim, language) {
		return "", false
	}
	return span, true
}

// describedEntity is how claim describes the entity it does not name: its subject when it opens
// with an indefinite article ("An actor played ..."), else its last indefinite noun phrase on
// ("Corinth was a city-state in a civilization": "a civilization"); "" when it has none.
func describedEntity(claim string) string {
	words := strings.Fields(claim)
	at := -1
	for i, w := range words {
		if indefiniteArticles[strings.ToLower(w)] {
			at = i
			if i == 0 {
				break
			}
		}
	}
	if at < 0 {
		return ""
	}
	return strings.Join(words[at+1:], " ")
}

// indefiniteArticles open a description of an entity the claim does not name ("An actor",
// "a 1974 novel").
var indefiniteArticles = text.WordSet("a an")

// nounPhraseOpeners are the English determiners a description of an entity opens with ("the
// actor who played ...", "an American singer"). Other languages' spans are not used: their
// claims stay unresolved.
// "That" is not among them: a span opening with it is a relative clause ("that was originally
// written by ..."), which a real plan gave and which read as a claim without a subject.
var nounPhraseOpeners = text.WordSet("the a an this these those its his her their our")

// withoutBridges removes the placeholders of the given claim ids from a query.
func withoutBridges(query string, ids []string) string {
	if len(ids) == 0 {
		return query
	}
	for _, id := range ids {
		query = strings.ReplaceAll(query, "{"+id+"}", " ")
	}
	return strings.Join(strings.Fields(query), " ")
}

// asksForAnotherEntity reports whether the judge's follow-up query asks for an entity its sources
// name and the claim does not: a name the query writes that a given source holds word for word
// (groundedNames) with a word that neither the claim, its entities nor the entity its judge
// named (named) hold. What the claim says is then that entity's to state, on its own page ("The
// Beguiled stars an American actor and producer" on "The Beguiled is a 1971 American film
// starring Clint Eastwood": "Clint Eastwood American actor producer"), and no definition of a
// kind says it. A query that names only the claim's own entities ("Howard Hughes wealth
// fortune" for "Howard Robard Hughes Jr. achieved immense wealth") asks for more of the pages a
// definition is wanted beside.
func asksForAnotherEntity(missing string, claim PlanClaim, given []evidence.Retrieved, named string) bool {
	own := map[string]bool{}
	for _, s := range append([]string{claim.ClaimText, named}, claim.Entities...) {
		for _, w := range text.Words(text.FoldForMatch(s)) {
			own[w] = true
		}
	}
	for _, name := range groundedNames(missing, given) {
		if slices.ContainsFunc(text.Words(text.FoldForMatch(name)), func(w string) bool { return !own[w] }) {
			return true
		}
	}
	return false
}

// claimsOwnTopicWords are the content words (topicWords) of claim's text, its entities and the
// entity its judge named: what a follow-up query asks for besides them is another thing's
// (askedPhrases).
func claimsOwnTopicWords(claim PlanClaim, named, language string) map[string]bool {
	own := map[string]bool{}
	for _, s := range append([]string{claim.ClaimText, named}, claim.Entities...) {
		for _, w := range topicWords(evidence.WithoutBridges(s), language) {
			own[w] = true
		}
	}
	return own
}

// followUp runs one follow-up hop for st (FIRE and SAFE's next search) when its judge found the
// evidence short (unverified or partly supported) and named what is missing, within max_hops
// (of the hops that retrieved: retrievingHops) and maxFollowUps: the same rules as a planned
// hop, recorded with its reason. Like a planned hop it excludes the domains, publishers and
// documents its chain's hops used; the documents the claim has from elsewhere (its
// dependencies' findings, other claims') it excludes as documents only: another chain's domain
// is no earlier hop of this one, and in a corpus of one publisher excluding it left every
// follow-up empty. It reports whether the hop added evidence, so that the claim is judged again.
//
// When a source is the claim's entity's entry and says what kind of thing it is, and no source
// states what the claim says of it, the hop searches for a definition of that in the claim's
// own words instead of the judge's query (definitionQuery), unless that query asks for another
// entity the sources name (asksForAnotherEntity).
func (r *multihopRun) followUp(ctx context.Context, st *chainState, v judgement) bool {
	if ctx.Err() != nil || st.followUps >= maxFollowUps || retrievingHops(st) >= r.in.maxHops ||
		(v.Verdict != pipeline.VerdictUnverified && v.Verdict != pipeline.VerdictPartlySupported) {
		return false
	}
	given := givenOf(st)
	query, reason := v.missing, "follow-up: the judge found the sources lack "+text.Quote(v.missing)
	if q := definitionQuery(st.claim, r.in.language, given, v.answer.Value); q != "" && !asksForAnotherEntity(v.missing, st.claim, given, v.answer.Value) {
		query, reason = q, "follow-up: a source says what kind of thing the claim's entity is and none states what the claim says of it, so the hop looks for a definition in the claim's words "+text.Quote(q)
	}
	if query == "" {
		return false
	}
	st.followUps++
	number := st.nextHopNumber()
	var used usedSources
	used.merge(st.used)
	for _, e := range st.evidence {
		if e.fromClaim > 0 && r.pages.Reader != nil {
			continue // read again for this claim if found (readAgain)
		}
		used.hold(e.SearchResult)
	}
	hop := pipeline.Hop{ClaimPosition: st.index + 1, Number: number, Reason: HopReasonFollowUp}
	topic := newHopTopic(r.in.language, query, st.claim)
	names := groundedNames(query, given)
	topic.addNames(names, r.in.language)
	topic.asked = askedPhrases(query, r.in.language, given, claimsOwnTopicWords(st.claim, v.answer.Value, r.in.language))
	// The names a source holds are words the query may be about besides the claim's: a judge
	// that writes the claim's words, then the names its sources list ("Judy Greer 2013 film
	// role; Adaptation Jawbreaker The Descendants release years", in a relay run) had the names'
	// part cut as a sentence sharing no term with the claim.
	about := strings.Join(append([]string{r.claimTextOf(&hop)}, names...), " ")
	kept, repeats, err := r.runHop(ctx, &hop, query, about, used, topic)
	if err != nil {
		hop.Status, hop.Note = HopFailed, err.Error()
	}
	hop.Note = strings.TrimSuffix(reason+"; "+hop.Note, "; ")
	kept, readAgain := st.readAgain(kept, hop.Number)
	if readAgain > 0 {
		hop.Note += fmt.Sprintf("; %d of them the claim had from another claim, and now has read for itself", readAgain)
	}
	before := len(st.evidence)
	r.keepHop(ctx, st, &hop, kept, repeats, pagesAskedFor(topic, repeats), about)
	return len(st.evidence) > before || readAgain > 0
}

// readAgain puts each result of kept, a follow-up hop's (number), that st has as another claim's
// finding in that finding's place, as the hop's own evidence, and returns the rest of kept and
// how many it put. A finding comes with what the other claim's hop or judge read of its page,
// chosen for that claim's fact (addCitedOf, readFor); the hop read the page for st's (runHop),
// and its judge then reads what the page says of st. In a relay run (FEVEROUS-S 8153) "<a
// series> released commercial products including dolls" had the series' page from the claim it
// depends on, with the passage on the series' success; its follow-up found the page again and
// dropped it as held, and the page's sentence on the dolls never reached the judge. followUp
// holds no such finding when pages are read: without a page, a finding found again adds nothing.
func (st *chainState) readAgain(kept []evidence.Retrieved, number int) ([]evidence.Retrieved, int) {
	var rest []evidence.Retrieved
	n := 0
	for _, k := range kept {
		i := slices.IndexFunc(st.evidence, func(e hopEvidence) bool {
			return e.fromClaim > 0 && evidence.KeysOf(e.SearchResult).URL == evidence.KeysOf(k.SearchResult).URL
		})
		if i < 0 {
			rest = append(rest, k)
			continue
		}
		st.evidence[i] = hopEvidence{Retrieved: k, hop: number, group: number}
		st.used.add(k.SearchResult)
		n++
	}
	return rest, n
}

// nextHopNumber is the number of a hop added to st's chain after the hops it ran: one past the
// highest (a claim's hop numbers are its hops' key, whatever ran them: its plan, a follow-up, a
// search by description or for a candidate).
func (st *chainState) nextHopNumber() int {
	next := 1
	for _, h := range st.hopRecords {
		next = max(next, h.Number+1)
	}
	return next
}

// retrievingHops counts the hops of st's chain that gave its judge a source. Spec 004's
// max_hops is an upper bound on the retrieval hops of a claim; a hop whose exclusions left it
// nothing but what the chain already held retrieved nothing, and a follow-up may run in its
// place. In a corpus of one publisher the planned hops after the first are often such hops: in a
// relay run on FEVEROUS-S (321-360) four claims spent their last hops so and never searched for
// what their judges said was missing.
func retrievingHops(st *chainState) int {
	n := 0
	for _, h := range st.hopRecords {
		if slices.ContainsFunc(st.evidence, func(e hopEvidence) bool { return e.fromClaim == 0 && e.hop == h.Number }) {
			n++
		}
	}
	return n
}

// knownValue matches the words the plan prompt gives a comparison's facts: "Květa Peschke was
// born on a known date", "Lake Baikal has a known area".
var knownValue = regexp.MustCompile(`(?i)\ba known\b`)

// ComparisonInput reports whether a claim of a plan only says that a value exists ("was born on
// a known date"), as the plan prompt asks a comparison's facts compared to be written: the
// plan's route to the comparison that depends on it, not something the statement asserts.
func ComparisonInput(claimText string) bool {
	return knownValue.MatchString(claimText)
}
