package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// Rules 5 and 6 of issue 12 end to end: JetStream, the worker, the fake model over HTTP and a
// PostgreSQL corpus searched as the worker searches it (search.New's "postgres" provider inside
// search.WithOrganisations over source_owners), every figure read back from the tables.
//
// The corpus, in a schema of its own (its documents would change the ranking statistics of the
// other open-book tests), holds three topics with no indexed word in common:
//   - one wire story run by four papers on four domains under four publishers, with their own
//     datelines and credit lines: one source;
//   - two reports of the Brennholt ferry, on apnews.com and ap.org, under two page publisher
//     names: one organisation by the seed list of source_owners, so one source;
//   - two separate reports of the Ostmoor lighthouse by two organisations: two sources.
const wireBody = "The Karlsbrook dam road will close to cars from March after inspectors found corrosion in two " +
	"steel girders, the county council said on Tuesday. Repairs are expected to take eighteen months and cost " +
	"4.2 million euros; buses will be diverted over the Neuweg viaduct."

var independenceCorpus = []map[string]any{
	{"url": "https://www.dailyherald.example/news/karlsbrook-dam", "publisher": "Daily Herald", "title": "Karlsbrook dam road to close",
		"body": "KARLSBROOK (Wire) — " + wireBody},
	{"url": "https://valleytimes.example/2026/02/karlsbrook", "publisher": "Valley Times", "title": "Dam road shut for girder repairs",
		"body": wireBody + " Copyright 2026 Wire Agency."},
	{"url": "https://www.riverside-news.example/local/karlsbrook-dam-road", "publisher": "Riverside News", "title": "Karlsbrook dam road closing in March",
		"body": "By Wire staff. " + wireBody},
	{"url": "https://northgazette.example/k/dam", "publisher": "North Gazette", "title": "Corroded girders close Karlsbrook dam road",
		"body": wireBody + " This story was provided by Wire Agency."},

	{"url": "https://apnews.com/article/brennholt-ferry-resumes", "publisher": "AP News", "title": "Brennholt ferry resumes crossings",
		"body": "The Brennholt ferry resumed its crossings on 4 May with a new hybrid vessel, the operator said."},
	{"url": "https://www.ap.org/media-center/brennholt-ferry-photos", "publisher": "The Associated Press", "title": "Brennholt ferry: photo gallery",
		"body": "Photographs of the new hybrid Brennholt ferry on its first crossing, 4 May."},

	{"url": "https://www.reuters.com/world/europe/ostmoor-lighthouse-relit", "publisher": "Reuters", "title": "Ostmoor lighthouse shines again",
		"body": "The Ostmoor lighthouse, first lit in 1871, was relit on Saturday after a two-year restoration funded by the coastal trust."},
	{"url": "https://www.bbc.co.uk/news/ostmoor-lighthouse", "publisher": "BBC News", "title": "Restored Ostmoor lantern back in service",
		"body": "Volunteers cheered as the 1871 tower's lamp came back on, ending repairs that began two summers ago with money from a coastal charity."},
}

var (
	independenceOnce sync.Once
	independenceErr  error
)

// independenceCorpusSearcher returns the searcher over the independence corpus, loading it once.
func independenceCorpusSearcher(t *testing.T) pipeline.Searcher {
	t.Helper()
	pool := testenv.Postgres(t, "worker_independence")
	independenceOnce.Do(func() {
		st := store.New(pool)
		if _, independenceErr = st.Migrate(context.Background()); independenceErr != nil {
			return
		}
		var lines []string
		for _, d := range independenceCorpus {
			raw, _ := json.Marshal(d)
			lines = append(lines, string(raw))
		}
		if _, independenceErr = search.NewCorpus(pool, search.CorpusOpts{}).
			Load(context.Background(), strings.NewReader(strings.Join(lines, "\n")), search.LoadOpts{}); independenceErr != nil {
			return
		}
	})
	if independenceErr != nil {
		t.Fatalf("the independence corpus: %v", independenceErr)
	}
	// A pool of this test's own: testenv closes it with the test.
	searcher, err := search.New(search.Config{Provider: search.ProviderPostgres}, pool)
	if err != nil {
		t.Fatal(err)
	}
	return search.WithOrganisations(searcher, store.New(pool).SourceOwnerMap, search.OrganisationsOpts{})
}

const (
	damClaim        = "The Karlsbrook dam road will close to cars from March"
	ferryClaim      = "the Brennholt ferry resumed its crossings on 4 May"
	lighthouseClaim = "the Ostmoor lighthouse was relit after its restoration"
	voicesStatement = damClaim + ", " + ferryClaim + ", and " + lighthouseClaim + "."
)

func voicesPlan() multihop.Plan {
	claim := func(id, text string, entities []string, subQueries ...string) multihop.PlanClaim {
		return multihop.PlanClaim{ClaimID: id, ClaimText: text, SourceSpan: text, Entities: entities, Verifiable: true,
			Interpretations: []multihop.Interpretation{}, DependsOn: []string{}, SubQueries: subQueries, SourceIndependenceScore: 0.8}
	}
	chain := func(id, q1, q2 string) multihop.QueryChain {
		return multihop.QueryChain{ClaimID: id, Hops: []multihop.PlanHop{
			{HopNumber: 1, Query: q1, TargetSourceType: "news report", ExpectedEvidenceType: "date of an event"},
			{HopNumber: 2, Query: q2, TargetSourceType: "local newspaper", ExpectedEvidenceType: "date of an event"},
		}}
	}
	return multihop.Plan{
		PlanID: "three-voices",
		Claims: []multihop.PlanClaim{
			claim("c1", damClaim, []string{"Karlsbrook dam", "March"}, "Karlsbrook dam road closure date", "Karlsbrook girder corrosion repairs"),
			claim("c2", ferryClaim, []string{"Brennholt ferry", "4 May"}, "Brennholt ferry service resumed", "Brennholt hybrid vessel first crossing"),
			claim("c3", lighthouseClaim, []string{"Ostmoor lighthouse"}, "Ostmoor lighthouse relit", "Ostmoor lighthouse restoration finished"),
		},
		QueryChains: []multihop.QueryChain{
			chain("c1", "Karlsbrook dam road close cars March", "county council girders corrosion diverted buses Neuweg viaduct"),
			chain("c2", "Brennholt ferry resumed crossings", "Brennholt hybrid vessel photographs"),
			chain("c3", "Ostmoor lighthouse relit restoration", "Ostmoor lamp back volunteers"),
		},
		CrossValidationPairs:   []multihop.CrossValidationPair{{ClaimAID: "c2", ClaimBID: "c3", Relationship: "both reopened on the same coast"}},
		CrossValidationQueries: []multihop.CrossValidationQuery{{QueryText: "coastal reopenings spring timetable", TargetClaimIndices: []int{1, 2}}},
		ExecutionOrder:         []string{"c1", "c2", "c3"},
	}
}

// A dishonest judge says High on each claim, citing two sources every time. Stored: Medium on
// the four copies of one wire story (the fourth copy, found by hop 2, is no independent source
// and is dropped), Medium on the AP's two domains, High on the two separate lighthouse reports.
func TestIndependenceEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.searcher = independenceCorpusSearcher(t)
	plan := voicesPlan()
	if _, violations := multihop.ValidatePlan(mustJSON(t, plan), multihop.PlanContext{Statement: voicesStatement, MaxHops: 5, Language: "en"}); len(violations) > 0 {
		t.Fatalf("the scripted plan breaks rules: %v", violations)
	}
	b.multihopModel(t, plan, map[string]judgeAnswer{
		"Karlsbrook": {verdict: pipeline.VerdictSupported, sourcesWith: "4.2 million euros"},
		"Brennholt":  {verdict: pipeline.VerdictSupported, sourcesWith: "4 May"},
		"Ostmoor":    {verdict: pipeline.VerdictSupported, sourcesWith: "1871"},
	})
	job := b.publish(t, jobs.Message{V: 1, Text: b.own(voicesStatement), Method: pipeline.MethodMultihop})
	b.runWorkers(t, 1)

	run := b.runOf(t, job)
	if run.Status != store.RunDone || run.ResultStatus != pipeline.StatusChecked {
		t.Fatalf("run: %+v", run)
	}
	claims := b.claimRows(t, job)
	if len(claims) != 3 {
		t.Fatalf("claim_results: %+v", claims)
	}
	for i, want := range []string{pipeline.ConfidenceMedium, pipeline.ConfidenceMedium, pipeline.ConfidenceHigh} {
		c := claims[i]
		if c.Verdict != pipeline.VerdictSupported || c.Confidence != want || len(c.CitationURLs) != 2 {
			t.Errorf("claim %d (%s): %s at %s citing %v, want supported at %s on two cited sources", c.Position, c.Text, c.Verdict, c.Confidence, c.CitationURLs, want)
		}
	}

	// Hop 2 of the dam chain found only the fourth copy, on a domain and under a publisher no
	// hop had used: not independent, and not kept.
	rows, err := b.store.Pool().Query(context.Background(), `
		SELECT claim_position, hop_number, query, coalesce(status, ''), excluded_domains, excluded_publishers, coalesce(search_seq, 0)
		FROM query_hops WHERE run_id = $1 ORDER BY claim_position, hop_number`, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	hops, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hopRow])
	if err != nil {
		t.Fatal(err)
	}
	dam1, dam2 := hops[0], hops[1]
	if dam1.Status != multihop.HopFound || dam2.Status != multihop.HopNoIndependentSource {
		t.Errorf("dam hops: %s then %s, want %s then %s", dam1.Status, dam2.Status, multihop.HopFound, multihop.HopNoIndependentSource)
	}
	damEvidence := b.strings1(t, `SELECT DISTINCT url FROM evidence WHERE run_id = $1 AND claim_position = 1`, run.ID)
	returned := b.strings1(t, `SELECT r->>'url' FROM search_calls s, jsonb_array_elements(s.results) r WHERE s.run_id = $1 AND s.seq = $2`, run.ID, dam2.SearchSeq)
	if len(damEvidence) != 3 || len(returned) == 0 || slices.ContainsFunc(returned, func(u string) bool { return slices.Contains(damEvidence, u) }) {
		t.Errorf("dam evidence %v; hop 2 returned %v: want three copies kept by hop 1 and hop 2's copy dropped", damEvidence, returned)
	}
	note := b.strings1(t, `SELECT coalesce(note, '') FROM query_hops WHERE run_id = $1 AND claim_position = 1 AND hop_number = 2`, run.ID)
	if len(note) != 1 || !strings.Contains(note[0], "copy") {
		t.Errorf("hop 2 note %q does not say it found a copy", note)
	}
	if !slices.Contains(run.ReviewFlags, pipeline.FlagNoIndependentSource) || slices.Contains(run.ReviewFlags, pipeline.FlagExclusionsIgnored) {
		t.Errorf("review flags %q: want %s, and not %s (no query can exclude a text)", run.ReviewFlags, pipeline.FlagNoIndependentSource, pipeline.FlagExclusionsIgnored)
	}

	// The AP's two domains carried their organisation from source_owners in what the search
	// returned, and hop 2 of the ferry chain excluded both domains.
	orgs := b.strings1(t, `SELECT DISTINCT r->>'domain' || '=' || coalesce(r->>'organisation', '') FROM search_calls s, jsonb_array_elements(s.results) r
		WHERE s.run_id = $1 AND r->>'domain' IN ('apnews.com', 'ap.org')`, run.ID)
	slices.Sort(orgs)
	if !slices.Equal(orgs, []string{"ap.org=Associated Press", "apnews.com=Associated Press"}) {
		t.Errorf("organisations of the AP's results: %v", orgs)
	}
	if ferry2 := hops[3]; !slices.Contains(ferry2.ExcludedPublisher, "Associated Press") {
		t.Errorf("ferry hop 2 excluded publishers %v, want the organisation", ferry2.ExcludedPublisher)
	}
}
