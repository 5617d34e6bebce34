package multihop

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Hop statuses (Hop.Status).
const (
	// HopFound: the hop kept evidence independent of the chain's earlier hops.
	HopFound = "found"
	// HopNoIndependentSource: the search returned only sources an earlier hop of the chain used
	// (domain, publisher or URL); none was reused.
	HopNoIndependentSource = "no_independent_source"
	// HopNoResults: the search returned nothing usable (nothing at all, or nothing inside the
	// temporal scope).
	HopNoResults = "no_results"
	// HopFailed: the search failed; its evidence could not be fetched.
	HopFailed = "failed"
	// HopRejected: the hop's query held only directives or markup, nothing to search for; it was
	// not run.
	HopRejected = "rejected"
)

// Bounds of one hop.
const (
	// hopSearchLimit is the number of results a hop asks for; the filters in code may drop some.
	hopSearchLimit = pipeline.DefaultSearchLimit
	// evidencePerHop is the number of relevant results a hop keeps as evidence (see hopTopic).
	evidencePerHop = 3
)

// chainState is one claim of the plan during execution: its chain, what its hops found and
// used, and its judgement.
type chainState struct {
	index   int
	claim   PlanClaim
	checked bool
	hops    []PlanHop
	// done is closed when the chain has run (or will not run).
	done chan struct{}

	// used are the sources the chain's hops kept (the relevant results they rely on), for the
	// next hops' exclusions.
	used usedSources
	// evidence is what the hops (and the cross-validation queries that join this claim) kept,
	// in hop order; hop 0 is a cross-validation query.
	evidence   []hopEvidence
	hopRecords []pipeline.Hop
	// fetchErrors are the errors of the hops whose search failed.
	fetchErrors []string
	verdict     judgement
	// reused is the earlier verification the claim took instead of running its chain (reuse.go).
	reused *pipeline.VerifiedClaim

	// hasDependents: another claim depends on this one, so it is judged as soon as its chain
	// has run, before done is closed (judgeOne), or, when it awaits a name by description,
	// once it is stated (nameByDescription); its dependents get its findings.
	hasDependents bool
	// bridged: a later claim writes "{id}" for the entity this claim describes, so its judge is
	// asked to name it, and bridge holds what code made of that answer (resolveBridge).
	bridged bool
	bridge  evidence.Bridge
	// provisional: bridge.Value was named by a judge that confirmed the claim only in part; the
	// claims building on it are stated with it, and the claim is judged again with what they
	// found (settleProvisional).
	provisional bool
	// unsettled: the provisional name was not confirmed when the claim was judged again, and
	// the claims stated with it were made unverified (unsettle); no later judgement reopens them.
	unsettled bool
	// unresolved says why a bridge this claim builds on was not established: its hops do not
	// run and it is unverified, for it cannot be stated.
	unresolved string
	// awaiting is the id of the bridge claim whose judge named no entity while the statement
	// has no words of its own for it: the claim is unresolved, yet it runs one search for the
	// entity by the bridge claim's words and its own (descriptionQuery), and the bridge claim is
	// judged again with what it finds (nameByDescription). "" otherwise.
	awaiting string
	// awaitingNames are the ids of the bridge claims the claim builds on when none of them has
	// a name or the statement's words for its entity while each is named by description, or
	// awaits a name so (awaitsDescription): two entities leave too little to search by, so the
	// claim runs nothing when its chain would, and is stated with the names, its planned hops
	// run, once nameByDescription has named them (stateAwaitingNames). waitedForNames is set
	// then: the claim does not wait twice.
	awaitingNames  []string
	waitedForNames bool
	// namedBy is the id of the bridge claim whose name, given when it was judged again with
	// what this claim's description search found, this claim is stated with (stateWithName).
	namedBy string
	// withheld is the refutation (or contradiction in part) refutesNoDescription withheld from
	// the claim's judgement; corroboratedRefutations gives it back once the name is corroborated.
	withheld *judgement
	// describedBy is the id of the bridge claim whose description this claim is stated with
	// (stateWithDescription): a later confirmation of that claim reaches it
	// (judgeDescribedAgain).
	describedBy string
	// judged is set once the claim has its judgement; judgedLen is how many of its evidence
	// entries the judgement indexes (what came later is never cited).
	judged    bool
	judgedLen int
	// followUps counts the follow-up hops the claim ran (followUp).
	followUps int
	// sharedFinds are the other claims' findings set aside for this claim's judge
	// (shareFindings, judgeOnOthersCitations), added to its evidence when it is judged.
	sharedFinds []hopEvidence
	// foundNothing: when the claim was judged, its hops, its dependencies and the statement's
	// other findings had given it no source (and, for a bridge claim, no search by description
	// named its entity): judgeOnOthersCitations judges it again with what the other claims cited.
	foundNothing bool
	// bridgeNote says which names the claim's bridges took, and from which source.
	bridgeNote string
}

// hopEvidence is one kept search result with the hop that kept it.
type hopEvidence struct {
	evidence.Retrieved
	hop int
	// group orders the evidence for the last independence check: the hop number, or
	// 100 + the cross-validation query's position.
	group int
	// fromClaim is the position of the claim this one depends on whose judgement cited this
	// source (its finding, given to this claim's judge), or, when shared is set, of the claim
	// whose hops found it (shareFindings); 0 for the claim's own evidence.
	fromClaim int
	// shared: another claim's hops found this source, about this claim too (shareFindings).
	shared bool
	// builtOn: a claim stated with this claim's provisional bridge cited this source, found by
	// searching for the entity (settleProvisional); fromClaim is that claim's position.
	builtOn bool
	// described: a claim building on this one found this source, searching for the entity this
	// claim describes by the words of both claims (nameByDescription); fromClaim is that claim's
	// position.
	described bool
	// repeats is the number of the earlier hop this source is not independent of: the search
	// of an emptied hop, run without its exclusions, found it (runHop). 0 otherwise.
	repeats int
}

// execute runs the chains of the checked claims, then the cross-validation queries, then the
// last independence check. A search failure no retry can fix ends the run.
func (r *multihopRun) execute(ctx context.Context) error {
	var order []*chainState
	for _, id := range r.plan.Plan.ExecutionOrder {
		if st := r.stateOf(id); st != nil && st.checked {
			order = append(order, st)
		}
	}
	for _, st := range r.claims {
		if !st.checked || !slices.Contains(order, st) {
			close(st.done)
		}
	}
	// Slots are taken in execution order, so that claims start in that order; a claim then
	// waits for the claims it depends on, which come before it in the order and so hold or
	// have released their slots already: no claim can wait on one that waits for a slot.
	slots := make(chan struct{}, max(1, r.opts.Concurrency))
	errs := make(chan error, len(order))
	started := 0
	for _, st := range order {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		started++
		go func() {
			defer func() { <-slots }()
			defer close(st.done)
			for _, dep := range st.claim.DependsOn {
				if d := r.stateOf(dep); d != nil {
					select {
					case <-d.done:
					case <-ctx.Done():
						errs <- nil
						return
					}
				}
			}
			r.resolveBridges(st)
			// A claim others bridge to must be judged here, for its judge's answer: no
			// earlier run stored one.
			if st.unresolved == "" && !st.bridged && r.reuse(ctx, st) {
				errs <- nil
				return
			}
			if err := r.runChain(ctx, st); err != nil {
				errs <- err
				return
			}
			// A claim awaiting a name by description is judged once it is stated
			// (nameByDescription): its dependents await it in turn.
			if st.hasDependents && st.awaiting == "" && len(st.awaitingNames) == 0 {
				r.judgeOne(ctx, st)
			}
			errs <- nil
		}()
	}
	var first error
	for range started {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return pipeline.StepError("search", err)
	}
	if err := r.crossValidate(ctx); err != nil {
		return err
	}
	r.enforceIndependence()
	return nil
}

// Why a hop ran (Hop.Reason).
const (
	// HopReasonPlan: a hop of the plan's query chain.
	HopReasonPlan = "plan"
	// HopReasonFollowUp: a search for what the claim's judge found the sources lack (followUp).
	HopReasonFollowUp = "follow_up"
	// HopReasonDescription: a search for the entity a bridge claim describes whose judge named
	// none, by the words of that claim and of the claim building on it (nameByDescription).
	HopReasonDescription = "description"
)

// runChain runs the hops of one chain in order: each excludes what the earlier hops kept. A
// claim whose bridge was not established runs none (each hop is recorded as not run), unless it
// awaits a name by description: its one hop then searches for the entity (descriptionQuery).
func (r *multihopRun) runChain(ctx context.Context, st *chainState) error {
	if len(st.awaitingNames) > 0 {
		return nil // its hops run once it is stated with the names (stateAwaitingNames)
	}
	reason := HopReasonPlan
	if st.awaiting != "" {
		reason = HopReasonDescription
	}
	for _, h := range st.hops {
		hop := pipeline.Hop{ClaimPosition: st.index + 1, Number: h.HopNumber, TargetSourceType: h.TargetSourceType,
			ExpectedEvidenceType: h.ExpectedEvidenceType, Reason: reason}
		if st.unresolved != "" && st.awaiting == "" {
			hop.Query, hop.Status, hop.Note = text.Truncate(h.Query, evidence.MaxVerificationQueryBytes), HopRejected, "not run: "+st.unresolved
			st.hopRecords = append(st.hopRecords, hop)
			continue
		}
		about := r.claimTextOf(&hop)
		kept, repeats, err := r.runHop(ctx, &hop, h.Query, about, st.used, r.hopTopicOf(st, h.Query))
		if err != nil {
			return err
		}
		if st.bridgeNote != "" && len(st.hopRecords) == 0 {
			hop.Note = strings.TrimSuffix(st.bridgeNote+"; "+hop.Note, "; ")
		}
		r.keepHop(ctx, st, &hop, kept, repeats, maxRepeatsPerHop, about)
	}
	return nil
}

// hopTopicOf is the topic of a hop of st searched with query: st's claim, and, in a description
// hop, what the claim whose entity it searches for says of that entity too (describing).
func (r *multihopRun) hopTopicOf(st *chainState, query string) hopTopic {
	topic := newHopTopic(r.in.language, query, st.claim)
	if d := r.stateOf(st.awaiting); st.awaiting != "" && d != nil {
		topic.describing(d.claim)
	}
	return topic
}

// maxRepeatsPerHop bounds the sources an emptied hop's search without exclusions gives the
// judge: the first relevant one, in the search's order. In a relay run (1,050 calls) judges
// cited the first 22 times in 285 and the ones after it 5 times in 170, which cost about 100
// tokens a claim on EX-FEVER; each counts as one voice with the hop it repeats anyway.
const maxRepeatsPerHop = 1

// pagesAskedFor is how many of an emptied follow-up hop's repeats reach its judge: one for each
// that is the own page of a name of its topic (hopTopic.titled: the names the judge asked for
// that a source writes, the claim's own), which filterResults put first, at most evidencePerHop,
// and at least maxRepeatsPerHop. A judge that asks what three writers of a song are wants the
// three writers' pages: in a relay run (exfever-3845) the first, Burt Bacharach's, reached the
// judge, and Neil Diamond's, which says what the claim says of him, did not.
func pagesAskedFor(topic hopTopic, repeats []evidence.Retrieved) int {
	n := 0
	for _, e := range repeats {
		if topic.titled(e.Title) {
			n++
		}
	}
	return max(maxRepeatsPerHop, min(n, evidencePerHop))
}

// keepHop records a hop of st and keeps what it found: its results as the claim's evidence and
// sources for the next hops' exclusions; what the search found without its exclusions as
// evidence marked with the hop it repeats, which excludes nothing new (it shares a source with
// that hop already) and counts as one voice with it (evidence.IndependentSources).
//
// maxRepeats bounds the repeats that reach the judge: maxRepeatsPerHop, or more for a follow-up
// that asked for several entities' pages (pagesAskedFor). Their pages are read for about, the
// text runHop read the kept results' pages for, as a kept result's are: a repeat reached the
// judge as its snippet alone, two fragments around the query's words on a long corpus document,
// and in a corpus of one domain every hop after a claim's first is emptied so (in a relay run,
// exfever-6092, the sentence of Frank Sinatra's page that decides "Frank Sinatra performed in
// Vegas as part of The Beach Boys" never reached its judge).
func (r *multihopRun) keepHop(ctx context.Context, st *chainState, hop *pipeline.Hop, kept, repeats []evidence.Retrieved, maxRepeats int, about string) {
	if hop.Status == HopFailed {
		st.fetchErrors = append(st.fetchErrors, hop.Note)
	}
	for _, e := range kept {
		st.evidence = append(st.evidence, hopEvidence{Retrieved: e, hop: hop.Number, group: hop.Number})
		st.used.add(e.SearchResult)
	}
	var chosen []evidence.Retrieved
	var repeatsOf []int
	for _, e := range repeats {
		if len(chosen) == maxRepeats {
			break
		}
		k := evidence.KeysOf(e.SearchResult)
		repeated := 0
		same := false
		for _, o := range st.evidence {
			ok := evidence.KeysOf(o.SearchResult)
			if ok.URL == k.URL {
				same = true // the same document again adds nothing
				break
			}
			if repeated == 0 && o.fromClaim == 0 && o.hop > 0 && ok.Shared(k) != "" {
				repeated = o.hop
			}
		}
		if same || repeated == 0 {
			continue
		}
		chosen, repeatsOf = append(chosen, e), append(repeatsOf, repeated)
	}
	r.pages.Read(ctx, chosen, about)
	for i, e := range chosen {
		st.evidence = append(st.evidence, hopEvidence{Retrieved: e, hop: hop.Number, group: hop.Number, repeats: repeatsOf[i]})
	}
	if n := len(chosen); n > 0 {
		hop.Note += fmt.Sprintf("; %d of them reach the judge marked as not independent of the hop they repeat, and count as one voice with it", n)
	}
	st.hopRecords = append(st.hopRecords, *hop)
}

// runHop searches for one query under the exclusions of used and returns what it keeps (the
// results relevant to topic), filling hop's query, exclusions, status and note. about is the text
// the query must be about (claimTextOf, searchQueryOf), which the pages of what it keeps are read
// for too. Only an error no retry can fix is returned: any other search failure is the hop's
// status.
//
// A hop left empty is no_independent_source when the exclusions emptied it: the provider
// returned only excluded sources, or it applied the exclusions and the one search run again
// without them (recorded like any search) finds a relevant source the chain used. Otherwise it
// is no_results.
//
// Independence decides confidence, not visibility (issue 23): the relevant sources that search
// without exclusions finds, sources an earlier hop of the chain used, are returned as repeats
// (at most evidencePerHop), for the judge to read marked as not independent of that hop.
func (r *multihopRun) runHop(ctx context.Context, hop *pipeline.Hop, planned, about string, used usedSources, topic hopTopic) (kept, repeats []evidence.Retrieved, err error) {
	query, note, ok := searchQueryOf(planned, about)
	if !ok {
		hop.Query, hop.Status, hop.Note = text.Truncate(planned, evidence.MaxVerificationQueryBytes), HopRejected, note
		return nil, nil, nil
	}
	query = r.in.scope.ShapeQuery(query, r.in.today)
	hop.Query = query
	hop.ExcludedDomains, hop.ExcludedPublishers, hop.ExcludedURLs = r.in.rules.exclusions(used)
	from, to := r.in.scope.Bounds()
	sq := pipeline.SearchQuery{
		Query: query, Language: r.in.language, From: from, To: to,
		ExcludeDomains: hop.ExcludedDomains, ExcludePublishers: hop.ExcludedPublishers, ExcludeURLs: hop.ExcludedURLs,
		Limit: hopSearchLimit,
	}
	resp, seq, err := r.search.SearchSeq(ctx, sq)
	hop.SearchSeq = seq
	if err != nil {
		if pipeline.IsPermanent(err) {
			return nil, nil, fmt.Errorf("search for %q: %w", query, err)
		}
		hop.Status, hop.Note = HopFailed, "evidence could not be fetched: "+err.Error()
		return nil, nil, nil
	}
	kept, dropped := r.filterResults(resp.Results, used, topic)
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	if dropped.independence > 0 {
		notes = append(notes, fmt.Sprintf("%d results shared a source with an earlier hop (%s) and were dropped", dropped.independence, dropped.firstConflict))
	}
	if dropped.scope > 0 {
		notes = append(notes, fmt.Sprintf("%d results outside the temporal scope were dropped", dropped.scope))
	}
	if dropped.irrelevant > 0 {
		notes = append(notes, fmt.Sprintf("%d results were not about the claim and were not kept", dropped.irrelevant))
	}
	if dropped.held > 0 {
		notes = append(notes, fmt.Sprintf("%d results were already among the claim's sources", dropped.held))
	}
	if len(kept) == 0 && dropped.independence == 0 && len(hop.ExcludedDomains)+len(hop.ExcludedPublishers)+len(hop.ExcludedURLs) > 0 {
		note, err := r.excludedWouldFind(ctx, sq, used, topic)
		if err != nil {
			return nil, nil, err
		}
		if note.count > 0 {
			dropped.independence = note.count
		}
		repeats = note.found
		notes = append(notes, note.text)
	}
	switch {
	case len(kept) > 0:
		hop.Status = HopFound
	case dropped.independence > 0:
		hop.Status = HopNoIndependentSource
		notes = append([]string{"no source independent of the earlier hops of this chain was found; none was reused"}, notes...)
		r.flag(pipeline.Flag(pipeline.FlagNoIndependentSource))
	default:
		hop.Status = HopNoResults
		notes = append([]string{"the search returned no usable result"}, notes...)
	}
	hop.Note = strings.Join(notes, "; ")
	for i := range kept {
		kept[i].SearchSeq = seq
	}
	// The pages of what the hop keeps are read once it is kept: relevance and independence are
	// decided on the search result, the verdict on the page.
	r.pages.Read(ctx, kept, about)
	return kept, repeats, nil
}

// withoutExclusions is what the search of an empty hop found once run without its exclusions:
// count relevant sources in scope that the chain used, and the note that says so.
type withoutExclusions struct {
	count int
	text  string
	// found are those sources, each with the search that found it.
	found []evidence.Retrieved
}

// excludedWouldFind runs sq once more without its exclusions, for a hop that kept nothing while
// excluding the sources of earlier hops, and counts the relevant results in scope that share a
// source with used: what the exclusions kept out. Only an error no retry can fix is returned.
func (r *multihopRun) excludedWouldFind(ctx context.Context, sq pipeline.SearchQuery, used usedSources, topic hopTopic) (withoutExclusions, error) {
	sq.ExcludeDomains, sq.ExcludePublishers, sq.ExcludeURLs = nil, nil, nil
	resp, seq, err := r.search.SearchSeq(ctx, sq)
	if err != nil {
		if pipeline.IsPermanent(err) {
			return withoutExclusions{}, fmt.Errorf("search for %q without exclusions: %w", sq.Query, err)
		}
		return withoutExclusions{text: fmt.Sprintf("the search without the exclusions (search %d) failed: %s", seq, err)}, nil
	}
	would, _ := r.filterResults(resp.Results, usedSources{held: used.held}, topic)
	n := 0
	var found []evidence.Retrieved
	for _, e := range would {
		// Only what a query can exclude counts: a copy of earlier evidence on a new domain
		// would have come back with the exclusions too, and been dropped as a copy.
		if reason, excludable := r.in.rules.conflict(used, evidence.KeysOf(e.SearchResult)); reason != "" && excludable {
			n++
			e.SearchSeq = seq
			found = append(found, e)
		}
	}
	if n == 0 {
		return withoutExclusions{text: fmt.Sprintf("the search without the exclusions (search %d) found no relevant source the earlier hops used either", seq)}, nil
	}
	return withoutExclusions{count: n, found: found, text: fmt.Sprintf("the search without the exclusions (search %d) found %d relevant sources that earlier hops of this chain used", seq, n)}, nil
}

// dropCounts says what filterResults dropped and why.
type dropCounts struct {
	independence, scope, irrelevant int
	// held counts results the claim already had from outside its chain (usedSources.hold).
	held          int
	firstConflict string
}

// filterResults keeps, in rank order, the results that share no source with used, lie inside the
// temporal scope and are about topic (hopTopic.relevant), one per URL, at most evidencePerHop of
// them: the pages of the topic's entities first (ownPagesFirst), or the most recent ones when
// the scope prefers recent evidence. A provider should have
// applied the query's exclusions and dates already; this check is what guarantees them. A
// result that is not about the topic is neither kept nor, so, excluded from later hops; an
// excluded one counts against independence only when it is relevant.
func (r *multihopRun) filterResults(results []pipeline.SearchResult, used usedSources, topic hopTopic) ([]evidence.Retrieved, dropCounts) {
	var d dropCounts
	var out []evidence.Retrieved
	seen := map[string]bool{}
	topic = topic.linking(results)
	for _, res := range results {
		if strings.TrimSpace(res.URL) == "" {
			continue
		}
		k := evidence.KeysOf(res)
		if used.holds(k) {
			d.held++
			continue
		}
		relevant := topic.relevant(res.Title, res.Snippet)
		if reason, excludable := r.in.rules.conflict(used, k); reason != "" {
			if excludable {
				// A provider returned what the query excluded; a copy of earlier evidence
				// (same text) is no exclusion a query could have made.
				r.flag(pipeline.Flag(pipeline.FlagExclusionsIgnored))
			}
			if !relevant {
				d.irrelevant++
				continue
			}
			d.independence++
			if d.firstConflict == "" {
				d.firstConflict = reason
			}
			continue
		}
		if !r.in.scope.Admits(res.PublishedAt) {
			d.scope++
			r.flag(pipeline.Flag(pipeline.FlagTemporalDropped))
			continue
		}
		if !relevant {
			d.irrelevant++
			continue
		}
		if seen[k.URL] {
			continue
		}
		seen[k.URL] = true
		out = append(out, evidence.Retrieved{SearchResult: res})
	}
	if r.in.scope != nil && r.in.scope.PreferRecent {
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i].PublishedAt, out[j].PublishedAt
			return a != nil && (b == nil || a.After(*b))
		})
	} else {
		ownPagesFirst(out, topic, func(e evidence.Retrieved) string { return e.Title })
	}
	if len(out) > evidencePerHop {
		out = out[:evidencePerHop]
	}
	return out, d
}

// searchQueryOf makes a plan's query safe to search with, by the query rules every method
// shares (evidence.SanitizeQuery): the query is cleaned and normalised, and markup, URLs,
// directives in any supported language and sentences that share no term with the claim (while
// another does) are removed, so that no directive from the untrusted statement reaches a
// search. A query that names none of its claim's terms still runs: a hop may look for an
// intermediate fact ("Verrazzano-Narrows 1964 surpassed record"). ok is false when nothing
// factual remains; note says what was removed.
func searchQueryOf(planned, claim string) (query, note string, ok bool) {
	sq := evidence.SanitizeQuery(planned, claim)
	var removed []string
	if sq.Markup {
		removed = append(removed, "markup")
	}
	if sq.Directives {
		removed = append(removed, "embedded directives")
	}
	if sq.OffClaim {
		removed = append(removed, "text about something other than the claim")
	}
	if len(removed) > 0 {
		note = "removed from the query: " + strings.Join(removed, " and ")
	}
	if !evidence.HasFactualContent(sq.Query) {
		return "", fmt.Sprintf("the query %s has nothing factual to search for once markup and directives are removed; it was not run",
			text.Quote(planned)), false
	}
	return sq.Query, note, true
}

// claimTextOf is the text a hop's query must be about: its claim's (ClaimPosition, from 1), or,
// for a cross-validation query (position 0), the claims of the plan together. A search by
// description is made of two claims' words (descriptionQuery), the bridge claim's as well as its
// own, and is read against both: in a relay run (EX-FEVER 2961-3040) "Return to Paradise stars
// an actor received an award ...", read against "{c2} received an award ..." alone, opened with
// the command "return" and was rejected as holding nothing but a directive, while the bridge
// claim's words show "Return to Paradise" to be a title.
func (r *multihopRun) claimTextOf(hop *pipeline.Hop) string {
	position := hop.ClaimPosition
	if position > 0 && position <= len(r.claims) {
		st := r.claims[position-1]
		if d := r.stateOf(st.awaiting); hop.Reason == HopReasonDescription && d != nil {
			return d.claim.ClaimText + " " + st.claim.ClaimText
		}
		return st.claim.ClaimText
	}
	var texts []string
	for _, st := range r.claims {
		texts = append(texts, st.claim.ClaimText)
	}
	return strings.Join(texts, " ")
}

// crossValidate runs the cross-validation queries, one after another: each excludes every
// source the claims it joins have kept so far (their hops and the earlier cross-validation
// queries), so that what it finds is independent of all of them. What it keeps is evidence of
// each claim it joins.
func (r *multihopRun) crossValidate(ctx context.Context) error {
	for i, q := range r.plan.Plan.CrossValidationQueries {
		cv := pipeline.CrossValidation{Position: i + 1, Relationship: r.relationship(q.TargetClaimIndices)}
		var joined []*chainState
		for _, idx := range q.TargetClaimIndices {
			st := r.claims[idx]
			if !slices.Contains(joined, st) {
				joined = append(joined, st)
				cv.ClaimPositions = append(cv.ClaimPositions, idx+1)
			}
		}
		checked := 0
		var used usedSources
		for _, st := range joined {
			if st.checked {
				checked++
			}
			for _, e := range st.evidence {
				used.add(e.SearchResult)
			}
		}
		if checked < 2 {
			cv.Query = text.Truncate(q.QueryText, evidence.MaxVerificationQueryBytes)
			cv.Verdict, cv.Reason = pipeline.VerdictNotChecked, "it joins fewer than two checked claims"
			r.res.CrossChecks = append(r.res.CrossChecks, cv)
			continue
		}
		var hop pipeline.Hop
		claims := make([]PlanClaim, len(joined))
		for k, st := range joined {
			claims[k] = st.claim
		}
		// A cross-validation query tests claims jointly; what only repeats their sources tests
		// nothing new, so its repeats are not kept.
		kept, _, err := r.runHop(ctx, &hop, q.QueryText, r.claimTextOf(&hop), used, newHopTopic(r.in.language, q.QueryText, claims...))
		if err != nil {
			return err
		}
		cv.Query, cv.SearchSeq = hop.Query, hop.SearchSeq
		switch hop.Status {
		case HopFailed:
			cv.Verdict, cv.Reason = pipeline.VerdictUnverified, hop.Note
		case HopFound:
			// Judged with the claims it joins; see crossValidationVerdicts.
		default:
			cv.Verdict, cv.Reason = pipeline.VerdictUnverified, hop.Note
		}
		for _, st := range joined {
			if !st.checked {
				continue
			}
			for _, e := range kept {
				st.evidence = append(st.evidence, hopEvidence{Retrieved: e, hop: 0, group: 100 + i + 1})
			}
		}
		r.res.CrossChecks = append(r.res.CrossChecks, cv)
		if err := ctx.Err(); err != nil {
			return pipeline.StepError("search", err)
		}
	}
	return nil
}

// relationship is the relationship of the plan's cross-validation pairs between the claims at
// indices, "; "-joined.
func (r *multihopRun) relationship(indices []int) string {
	var out []string
	for _, p := range r.plan.Plan.CrossValidationPairs {
		a, b := slices.IndexFunc(r.claims, func(st *chainState) bool { return st.claim.ClaimID == p.ClaimAID }),
			slices.IndexFunc(r.claims, func(st *chainState) bool { return st.claim.ClaimID == p.ClaimBID })
		if slices.Contains(indices, a) && slices.Contains(indices, b) && p.Relationship != "" && !slices.Contains(out, p.Relationship) {
			out = append(out, p.Relationship)
		}
	}
	return strings.Join(out, "; ")
}

// enforceIndependence is the last check before judgement: a claim's evidence must keep its
// rules, each hop (and each cross-validation query) sharing no domain, publisher or URL with an
// earlier one. The hops' exclusions and filters already make that so; evidence that does not is
// dropped, with a review flag, so that no independence violation can reach a verdict.
func (r *multihopRun) enforceIndependence() {
	for _, st := range r.claims {
		r.enforceIndependenceOf(st)
	}
}

// enforceIndependenceOf is enforceIndependence's check of one claim's evidence.
func (r *multihopRun) enforceIndependenceOf(st *chainState) {
	if st.reused != nil {
		// Its evidence passed this check in the run it came from, and its judgement cites it
		// by index: dropping any would cite the wrong source. What a cross-validation query
		// added to it here is not cited by that judgement.
		return
	}
	var used, group usedSources
	current := -1
	kept := st.evidence[:0]
	for i, e := range st.evidence {
		if e.group != current {
			used.merge(group)
			group, current = usedSources{}, e.group
		}
		// A source marked as repeating an earlier hop, or as a dependency's finding, is
		// there on purpose and counts as what it is; the sources a judgement already
		// indexes stay where they are.
		if e.repeats > 0 || e.fromClaim > 0 || i < st.judgedLen {
			if e.repeats == 0 && e.fromClaim == 0 {
				group.add(e.SearchResult)
			}
			kept = append(kept, e)
			continue
		}
		if reason, _ := r.in.rules.conflict(used, evidence.KeysOf(e.SearchResult)); reason != "" {
			r.flag(pipeline.Flag(pipeline.FlagIndependenceDropped))
			continue
		}
		group.add(e.SearchResult)
		kept = append(kept, e)
	}
	st.evidence = kept
}

// ownPagesFirst orders list, in place and otherwise as it was, with the results titled with one
// of the topic's names (hopTopic.titled: that entity's own page) before the rest, so that a
// bound on how many are kept cannot leave out the page about the claim's entity while it keeps
// others that merely name it. In a relay run "The Americans is an American series" kept, from
// its own hop and the statement's other claims, eight pages of other American series (each
// relevant by "American" and "series") and never the series' own page, which a neighbouring
// claim had found fourth: its judge found no source about the series.
func ownPagesFirst[T any](list []T, topic hopTopic, title func(T) string) {
	var own, rest []T
	for _, e := range list {
		if topic.titled(title(e)) {
			own = append(own, e)
		} else {
			rest = append(rest, e)
		}
	}
	copy(list[copy(list, own):], rest)
}
