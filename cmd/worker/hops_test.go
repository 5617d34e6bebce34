package main

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/store"
)

// Rule 7 of issue 12 end to end: hop exclusions come from what a hop relied on, through
// JetStream, the worker, the fake model and the PostgreSQL corpus.

// lakeCorpus is a third topic of the package's corpus, with no indexed word in common with
// openBookCorpus's two. Three pages share the words of the depth hop's query (sonar, survey,
// depth, lake) but are about no lake in particular; one page of the same site as one of them
// gives the depth. Two pages of baikalfacts.org give the water share: a chain that
// relied on one of them has no independent second source.
var lakeCorpus = []map[string]any{
	{"url": "https://sonar-gear.com/depth-sounders", "publisher": "Sonar Gear", "title": "Depth sounders for a lake survey",
		"body": "Sonar survey kits for lake depth mapping: compare depth sounders for any survey boat."},
	{"url": "https://fishing-trips.net/sonar-tips", "publisher": "Fishing Trips", "title": "Sonar tips",
		"body": "Depth charts and sonar tips for trout anglers on a survey of northern lakes."},
	{"url": "https://hydro-tools.org/how-sonar-works", "publisher": "Hydro Tools", "title": "How sonar measures depth",
		"body": "Survey depth: how sonar measures the depth of any lake, pond or reservoir."},
	{"url": "https://www.baikal-institute.ru/bathymetry", "publisher": "Limnological Institute", "title": "Bathymetry of Lake Baikal",
		"body": "A sonar survey measured the maximum depth of Lake Baikal at 1642 m."},
	{"url": "https://fishing-trips.net/deepest-lake", "publisher": "Fishing Trips", "title": "The deepest lake",
		"body": "The deepest lake in Siberia drops 1642 m below its surface."},
	{"url": "https://baikalfacts.org/freshwater", "publisher": "Baikal Facts", "title": "Baikal freshwater share",
		"body": "Lake Baikal holds 23 percent of the fresh surface water of the planet."},
	{"url": "https://baikalfacts.org/reserves", "publisher": "Baikal Facts", "title": "Fresh surface water reserves",
		"body": "Of the planet's fresh surface water reserves, 23 percent lie in one Siberian lake."},
}

var (
	lakeCorpusOnce sync.Once
	lakeCorpusErr  error
)

// lakeBook is openBook with lakeCorpus loaded as well, once per process.
func (b *bundle) lakeBook(t testing.TB) {
	t.Helper()
	b.openBook(t)
	lakeCorpusOnce.Do(func() { lakeCorpusErr = loadCorpus(b.store.Pool(), lakeCorpus) })
	if lakeCorpusErr != nil {
		t.Fatalf("loading the lake corpus: %v", lakeCorpusErr)
	}
}

const (
	lakeDepth      = "Lake Baikal reaches a depth of 1642 m"
	lakeShareSpan  = "it holds 23 percent of the fresh surface water of the planet"
	lakeShare      = "Lake Baikal holds 23 percent of the fresh surface water of the planet"
	lakeStatement  = lakeDepth + ", and " + lakeShareSpan + "."
	lakeDepthHop2  = "deepest lake Siberia 1642"
	lakeShareHop2  = "planet fresh surface water reserves percent"
	lakeDepthHop1  = "Baikal bathymetry sonar survey"
	lakeShareHop1  = "Baikal freshwater share"
	lakeCrossQuery = "Siberian rift lake bathymetry and water volume"
)

func lakePlan() multihop.Plan {
	return multihop.Plan{
		PlanID: "lake-baikal",
		Claims: []multihop.PlanClaim{
			{ClaimID: "c1", ClaimText: lakeDepth, SourceSpan: lakeDepth, Entities: []string{"Lake Baikal", "1642"}, Verifiable: true,
				Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Lake Baikal maximum depth", "Baikal bathymetric survey"}, SourceIndependenceScore: 0.8},
			{ClaimID: "c2", ClaimText: lakeShare, SourceSpan: lakeShareSpan, Entities: []string{"Lake Baikal", "23 percent"}, Verifiable: true,
				Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Baikal share of world fresh water", "largest freshwater lake by volume"}, SourceIndependenceScore: 0.6},
		},
		QueryChains: []multihop.QueryChain{
			{ClaimID: "c1", Hops: []multihop.PlanHop{
				{HopNumber: 1, Query: lakeDepthHop1, TargetSourceType: "research institute", ExpectedEvidenceType: "measurement"},
				{HopNumber: 2, Query: lakeDepthHop2, TargetSourceType: "travel guide", ExpectedEvidenceType: "measurement"},
			}},
			{ClaimID: "c2", Hops: []multihop.PlanHop{
				{HopNumber: 1, Query: lakeShareHop1, TargetSourceType: "fact sheet", ExpectedEvidenceType: "share"},
				{HopNumber: 2, Query: lakeShareHop2, TargetSourceType: "reference", ExpectedEvidenceType: "share"},
			}},
		},
		CrossValidationPairs:   []multihop.CrossValidationPair{{ClaimAID: "c1", ClaimBID: "c2", Relationship: "the depth gives the volume"}},
		CrossValidationQueries: []multihop.CrossValidationQuery{{QueryText: lakeCrossQuery, TargetClaimIndices: []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

// fullHopRow is one row of query_hops with its note and excluded URLs.
type fullHopRow struct {
	Claim, Number             int
	Query, Status, Note       string
	Domains, Publishers, URLs []string
	SearchSeq                 int
}

func (b *bundle) fullHops(t *testing.T, runID int64) map[[2]int]fullHopRow {
	t.Helper()
	rows, err := b.store.Pool().Query(context.Background(), `
		SELECT claim_position, hop_number, query, coalesce(status, ''), coalesce(note, ''), excluded_domains, excluded_publishers,
		       excluded_urls, coalesce(search_seq, 0)
		FROM query_hops WHERE run_id = $1 ORDER BY claim_position, hop_number`, runID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fullHopRow])
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]int]fullHopRow{}
	for _, h := range list {
		out[[2]int{h.Claim, h.Number}] = h
	}
	return out
}

// The depth chain: hop 1's search returns the institute's page among three off-topic sonar pages.
// Only the institute's page is relied on: it alone is evidence and it alone is excluded from
// hop 2, which so finds the depth page of fishing-trips.net (the site of an off-topic
// result). The share chain: hop 2's only relevant page is on the domain hop 1 relied on; the
// corpus applies the exclusion and returns nothing relevant, the search without exclusions
// (recorded) finds it, and the hop is no_independent_source, flagged, not no_results.
func TestHopExclusionsEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.lakeBook(t)
	plan := lakePlan()
	if _, violations := multihop.ValidatePlan(mustJSON(t, plan), multihop.PlanContext{Statement: lakeStatement, MaxHops: 3, Language: "en"}); len(violations) > 0 {
		t.Fatalf("the scripted plan breaks rules: %v", violations)
	}
	b.multihopModel(t, plan, map[string]judgeAnswer{
		"1642":       {verdict: pipeline.VerdictSupported, sourcesWith: "1642"},
		"23 percent": {verdict: pipeline.VerdictSupported, sourcesWith: "23 percent"},
	})
	job := b.publish(t, jobs.Message{V: 1, ID: "lake-1", Text: b.own(lakeStatement), Method: pipeline.MethodMultihop})
	b.runWorkers(t, 1)

	run := b.runOf(t, job)
	if run.Status != store.RunDone || run.ResultStatus != pipeline.StatusChecked {
		t.Fatalf("run: %+v", run)
	}
	hops := b.fullHops(t, run.ID)
	if len(hops) != 4 {
		t.Fatalf("query_hops: %+v", hops)
	}
	offTopic := []string{"https://sonar-gear.com/depth-sounders", "https://fishing-trips.net/sonar-tips", "https://hydro-tools.org/how-sonar-works"}
	institute := "https://www.baikal-institute.ru/bathymetry"

	// Hop 1 of the depth chain: its search returned off-topic pages, none kept.
	d1 := hops[[2]int{1, 1}]
	returned := b.strings1(t, `SELECT r->>'url' FROM search_calls s, jsonb_array_elements(s.results) r WHERE s.run_id = $1 AND s.seq = $2`, run.ID, d1.SearchSeq)
	if d1.Status != multihop.HopFound || !slices.Contains(returned, institute) || !slices.ContainsFunc(returned, func(u string) bool { return slices.Contains(offTopic, u) }) {
		t.Fatalf("hop 1 of claim 1: %+v returned %v; the test needs the institute's page among off-topic ones", d1, returned)
	}
	if got := b.strings1(t, `SELECT url FROM evidence WHERE run_id = $1 AND claim_position = 1 AND hop_number = 1`, run.ID); !slices.Equal(got, []string{institute}) {
		t.Errorf("evidence of hop 1 of claim 1: %v, want only the institute's page about Lake Baikal", got)
	}
	if !strings.Contains(d1.Note, "not about the claim") {
		t.Errorf("hop 1 of claim 1 note %q", d1.Note)
	}
	// Hop 2 excludes only what hop 1 relied on, and finds the depth page of a site hop 1's
	// off-topic results were on.
	d2 := hops[[2]int{1, 2}]
	if !slices.Equal(d2.Domains, []string{"baikal-institute.ru"}) || !slices.Equal(d2.URLs, []string{institute}) ||
		!slices.Equal(d2.Publishers, []string{"Limnological Institute"}) || d2.Status != multihop.HopFound {
		t.Errorf("hop 2 of claim 1: %+v; want only the institute excluded", d2)
	}
	if got := b.strings1(t, `SELECT url FROM evidence WHERE run_id = $1 AND claim_position = 1 AND hop_number = 2`, run.ID); !slices.Equal(got, []string{"https://fishing-trips.net/deepest-lake"}) {
		t.Errorf("evidence of hop 2 of claim 1: %v", got)
	}

	// The share chain's hop 2: emptied by the exclusion of what hop 1 relied on.
	s1, s2 := hops[[2]int{2, 1}], hops[[2]int{2, 2}]
	if s1.Status != multihop.HopFound || !slices.Contains(s2.Domains, "baikalfacts.org") {
		t.Fatalf("the share chain: %+v, %+v", s1, s2)
	}
	if s2.Status != multihop.HopNoIndependentSource || !strings.Contains(s2.Note, "without the exclusions") {
		t.Errorf("hop 2 of claim 2: %+v, want no_independent_source found by the search without exclusions", s2)
	}
	if !slices.Contains(run.ReviewFlags, pipeline.FlagNoIndependentSource) {
		t.Errorf("review flags %q lack %s", run.ReviewFlags, pipeline.FlagNoIndependentSource)
	}
	// The extra search is in the trace: the same query, no exclusions, the excluded page found.
	var extra int
	if err := b.store.Pool().QueryRow(context.Background(), `
		SELECT count(*) FROM search_calls s WHERE run_id = $1 AND query = $2 AND seq <> $3
		  AND coalesce(jsonb_array_length(s.options->'exclude_domains'), 0) = 0
		  AND s.results @> '[{"url": "https://baikalfacts.org/reserves"}]'`, run.ID, s2.Query, s2.SearchSeq).Scan(&extra); err != nil {
		t.Fatal(err)
	}
	if extra != 1 {
		t.Errorf("searches of %q without exclusions that found the excluded page: %d, want 1; options %v", s2.Query, extra,
			b.strings1(t, `SELECT options::text FROM search_calls WHERE run_id = $1 AND query = $2`, run.ID, s2.Query))
	}
	// Both claims stand on what they relied on: the depth on two independent pages (High); the
	// share on its first page and the page the search without exclusions found, which reached
	// the judge marked as not independent of it (issue 23: independence decides confidence, not
	// visibility): cited, but the two count as one voice, so at most Medium.
	claims := b.claimRows(t, job)
	if len(claims) != 2 || claims[0].Verdict != pipeline.VerdictSupported || len(claims[0].CitationURLs) != 2 || claims[0].Confidence != "High" ||
		claims[1].Verdict != pipeline.VerdictSupported || len(claims[1].CitationURLs) != 2 || claims[1].Confidence != "Medium" {
		t.Errorf("claims: %+v", claims)
	}
	for _, c := range claims {
		b.checkCitations(t, run.ID, c)
	}
}
