package multihop

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
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
}

// hopEvidence is one kept search result with the hop that kept it.
type hopEvidence struct {
	evidence.Retrieved
	hop int
	// group orders the evidence for the last independence check: the hop number, or
	// 100 + the cross-validation query's position.
	group int
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
			if r.reuse(ctx, st) {
				errs <- nil
				return
			}
			errs <- r.runChain(ctx, st)
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
	for _, st := range r.claims {
		r.res.Hops = append(r.res.Hops, st.hopRecords...)
	}
	if err := r.crossValidate(ctx); err != nil {
		return err
	}
	r.enforceIndependence()
	return nil
}

// runChain runs the hops of one chain in order: each excludes what the earlier hops kept.
func (r *multihopRun) runChain(ctx context.Context, st *chainState) error {
	for _, h := range st.hops {
		hop := pipeline.Hop{ClaimPosition: st.index + 1, Number: h.HopNumber, TargetSourceType: h.TargetSourceType,
			ExpectedEvidenceType: h.ExpectedEvidenceType}
		kept, err := r.runHop(ctx, &hop, h.Query, st.used, newHopTopic(r.in.language, h.Query, st.claim))
		if err != nil {
			return err
		}
		if hop.Status == HopFailed {
			st.fetchErrors = append(st.fetchErrors, hop.Note)
		}
		for _, e := range kept {
			st.evidence = append(st.evidence, hopEvidence{Retrieved: e, hop: h.HopNumber, group: h.HopNumber})
			st.used.add(e.SearchResult)
		}
		st.hopRecords = append(st.hopRecords, hop)
	}
	return nil
}

// runHop searches for one query under the exclusions of used and returns what it keeps (the
// results relevant to topic), filling hop's query, exclusions, status and note. Only an error no
// retry can fix is returned: any other search failure is the hop's status.
//
// A hop left empty is no_independent_source when the exclusions emptied it: the provider
// returned only excluded sources, or it applied the exclusions and the one search run again
// without them (recorded like any search) finds a relevant source the chain used. Otherwise it
// is no_results.
func (r *multihopRun) runHop(ctx context.Context, hop *pipeline.Hop, planned string, used usedSources, topic hopTopic) ([]evidence.Retrieved, error) {
	query, note, ok := searchQueryOf(planned, r.claimTextOf(hop.ClaimPosition))
	if !ok {
		hop.Query, hop.Status, hop.Note = pipeline.TruncateUTF8(planned, evidence.MaxVerificationQueryBytes), HopRejected, note
		return nil, nil
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
			return nil, fmt.Errorf("search for %q: %w", query, err)
		}
		hop.Status, hop.Note = HopFailed, "evidence could not be fetched: "+err.Error()
		return nil, nil
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
	if len(kept) == 0 && dropped.independence == 0 && len(hop.ExcludedDomains)+len(hop.ExcludedPublishers)+len(hop.ExcludedURLs) > 0 {
		note, err := r.excludedWouldFind(ctx, sq, used, topic)
		if err != nil {
			return nil, err
		}
		if note.count > 0 {
			dropped.independence = note.count
		}
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
	return kept, nil
}

// withoutExclusions is what the search of an empty hop found once run without its exclusions:
// count relevant sources in scope that the chain used, and the note that says so.
type withoutExclusions struct {
	count int
	text  string
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
	would, _ := r.filterResults(resp.Results, usedSources{}, topic)
	n := 0
	for _, e := range would {
		// Only what a query can exclude counts: a copy of earlier evidence on a new domain
		// would have come back with the exclusions too, and been dropped as a copy.
		if reason, excludable := r.in.rules.conflict(used, evidence.KeysOf(e.SearchResult)); reason != "" && excludable {
			n++
		}
	}
	if n == 0 {
		return withoutExclusions{text: fmt.Sprintf("the search without the exclusions (search %d) found no relevant source the earlier hops used either", seq)}, nil
	}
	return withoutExclusions{count: n, text: fmt.Sprintf("the search without the exclusions (search %d) found %d relevant sources that earlier hops of this chain used", seq, n)}, nil
}

// dropCounts says what filterResults dropped and why.
type dropCounts struct {
	independence, scope, irrelevant int
	firstConflict                   string
}

// filterResults keeps, in rank order, the results that share no source with used, lie inside the
// temporal scope and are about topic (hopTopic.relevant), one per URL, at most evidencePerHop of
// them (the most recent ones when the scope prefers recent evidence). A provider should have
// applied the query's exclusions and dates already; this check is what guarantees them. A
// result that is not about the topic is neither kept nor, so, excluded from later hops; an
// excluded one counts against independence only when it is relevant.
func (r *multihopRun) filterResults(results []pipeline.SearchResult, used usedSources, topic hopTopic) ([]evidence.Retrieved, dropCounts) {
	var d dropCounts
	var out []evidence.Retrieved
	seen := map[string]bool{}
	for _, res := range results {
		if strings.TrimSpace(res.URL) == "" {
			continue
		}
		k := evidence.KeysOf(res)
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
			evidence.QuoteQuery(planned)), false
	}
	return sq.Query, note, true
}

// claimTextOf is the text a hop's query must be about: its claim's (position from 1), or, for
// a cross-validation query (position 0), the claims of the plan together.
func (r *multihopRun) claimTextOf(position int) string {
	if position > 0 && position <= len(r.claims) {
		return r.claims[position-1].claim.ClaimText
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
			cv.Query = pipeline.TruncateUTF8(q.QueryText, evidence.MaxVerificationQueryBytes)
			cv.Verdict, cv.Reason = pipeline.VerdictNotChecked, "it joins fewer than two checked claims"
			r.res.CrossChecks = append(r.res.CrossChecks, cv)
			continue
		}
		var hop pipeline.Hop
		claims := make([]PlanClaim, len(joined))
		for k, st := range joined {
			claims[k] = st.claim
		}
		kept, err := r.runHop(ctx, &hop, q.QueryText, used, newHopTopic(r.in.language, q.QueryText, claims...))
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
		if st.reused != nil {
			// Its evidence passed this check in the run it came from, and its judgement cites it
			// by index: dropping any would cite the wrong source. What a cross-validation query
			// added to it here is not cited by that judgement.
			continue
		}
		var used, group usedSources
		current := -1
		kept := st.evidence[:0]
		for _, e := range st.evidence {
			if e.group != current {
				used.merge(group)
				group, current = usedSources{}, e.group
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
}
