package store_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// reportSeed writes one run of statement st, finished at finished, with the given claims; each
// claim citing [n] gets evidence n with the URL https://<prefix>.example/<n>.
type reportSeed struct {
	st       store.Statement
	method   string
	model    string
	status   string
	finished time.Time
	reverify bool
	claims   []pipeline.Claim
	urls     map[int]string
	tokens   [2]int64
}

func seedReport(t *testing.T, s *store.Store, r reportSeed) store.Saved {
	t.Helper()
	rec := sampleRecord(newJobID(t))
	rec.Statement = r.st
	rec.Method, rec.RequestedMethod = cmp.Or(r.method, pipeline.MethodMultihop), ""
	rec.Model = cmp.Or(r.model, "gpt-4o-mini")
	rec.Status = cmp.Or(r.status, store.RunDone)
	if rec.Status == store.RunFailed {
		rec.Error = "the model said no"
	}
	rec.Reverify = r.reverify
	rec.StartedAt, rec.FinishedAt = r.finished.Add(-time.Second), r.finished
	rec.Result.Claims = r.claims
	rec.Result.Checks = nil
	rec.Result.Evidence = nil
	for n, url := range r.urls {
		rec.Result.Evidence = append(rec.Result.Evidence, pipeline.Evidence{ID: n, SourceNumber: n, ClaimPosition: 1, URL: url, Title: "Source " + fmt.Sprint(n), Domain: "example.org"})
	}
	slices.SortFunc(rec.Result.Evidence, func(a, b pipeline.Evidence) int { return a.ID - b.ID })
	rec.Result.Searches = []pipeline.SearchCall{{Seq: 1, Provider: "postgres", Query: "what the claim says", StartedAt: r.finished, Latency: time.Millisecond,
		Results: []pipeline.SearchResult{{URL: "https://example.org/1", Title: "One", Rank: 1}}}}
	if r.tokens != [2]int64{} {
		rec.Result.Calls = []pipeline.ModelCall{{Seq: 1, Step: "plan", Prompt: "the plan prompt", Reply: "the plan reply", PromptTokens: r.tokens[0], CompletionTokens: r.tokens[1], StartedAt: r.finished, Latency: time.Millisecond}}
	}
	saved, err := s.SaveRun(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

func claim(pos int, text, verdict, reason, confidence string, citations ...int) pipeline.Claim {
	return pipeline.Claim{Position: pos, Text: text, Verdict: verdict, Reason: reason, Confidence: confidence, Citations: citations}
}

// A claim's verdict that differs from the one it had in the previous done run of its statement
// is a verdict change, with both verdicts, when, and why; a failed run in between is skipped
// and an unchanged claim is not a change.
func TestVerdictChangesBetweenTwoRuns(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	prefix := newJobID(t) + "/"
	st := store.Statement{ExternalID: prefix + "a", Text: "The Eiffel Tower is 300 m tall and stands in Paris.", Language: "en"}
	now := time.Now()
	first := seedReport(t, s, reportSeed{st: st, finished: now.Add(-48 * time.Hour), claims: []pipeline.Claim{
		claim(1, "The Eiffel Tower is 300 m tall", pipeline.VerdictRefuted, "the archive says 330 m", "Medium", 1),
		claim(2, "The Eiffel Tower stands in Paris", pipeline.VerdictSupported, "", "High"),
	}, urls: map[int]string{1: "https://old.example/height"}})
	seedReport(t, s, reportSeed{st: st, status: store.RunFailed, finished: now.Add(-30 * time.Hour)})
	second := seedReport(t, s, reportSeed{st: st, reverify: true, finished: now.Add(-time.Hour), claims: []pipeline.Claim{
		claim(1, " the eiffel tower is 300 m tall", pipeline.VerdictSupported, "the 1889 height without antennas was 300 m", "High", 1),
		claim(2, "The Eiffel Tower stands in Paris", pipeline.VerdictSupported, "", "High"),
	}, urls: map[int]string{1: "https://new.example/1889"}})

	changes, err := s.VerdictChanges(ctx, store.ReportFilter{Since: now.Add(-24 * time.Hour), ExternalIDPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 {
		t.Fatalf("want one change, got %+v", changes)
	}
	c := changes[0]
	if c.OldVerdict != pipeline.VerdictRefuted || c.NewVerdict != pipeline.VerdictSupported || c.OldRunID != first.RunID || c.NewRunID != second.RunID ||
		c.OldReason != "the archive says 330 m" || c.NewReason != "the 1889 height without antennas was 300 m" || !c.Reverify ||
		c.OldConfidence != "Medium" || c.NewConfidence != "High" || c.NewPosition != 1 || c.ExternalID != st.ExternalID ||
		!slices.Equal(c.OldCitationURLs, []string{"https://old.example/height"}) || !slices.Equal(c.NewCitationURLs, []string{"https://new.example/1889"}) ||
		math.Abs(c.ChangedAt.Sub(now.Add(-time.Hour)).Seconds()) > 1 || math.Abs(c.OldFinishedAt.Sub(now.Add(-48*time.Hour)).Seconds()) > 1 {
		t.Fatalf("change: %+v", c)
	}

	// The view's first columns are those of migration 00001, in their order.
	var oldVerdict, newVerdict, oldReason, newReason string
	var oldRun, newRun int64
	err = s.Pool().QueryRow(ctx, `SELECT old_verdict, new_verdict, old_run_id, new_run_id, old_reason, new_reason
		FROM verdict_changes WHERE external_id = $1`, st.ExternalID).Scan(&oldVerdict, &newVerdict, &oldRun, &newRun, &oldReason, &newReason)
	if err != nil || oldVerdict != "refuted" || newVerdict != "supported" || oldRun != first.RunID || newRun != second.RunID {
		t.Fatalf("view: %s -> %s (%d -> %d), %v", oldVerdict, newVerdict, oldRun, newRun, err)
	}
	if later, err := s.VerdictChanges(ctx, store.ReportFilter{Since: now, ExternalIDPrefix: prefix}); err != nil || len(later) != 0 {
		t.Fatalf("nothing changed since now: %+v %v", later, err)
	}

	// The statement's page lists what its latest run changed, and every run.
	page, err := s.Statement(ctx, c.StatementID)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Changes) != 1 || page.Changes[0].OldVerdict != pipeline.VerdictRefuted || len(page.Runs) != 3 || page.Runs[0].RunID != second.RunID || page.Runs[1].Status != store.RunFailed {
		t.Fatalf("page changes %+v runs %+v", page.Changes, page.Runs)
	}
}

func TestUsagePerDayPricesTheModelsInThePriceTable(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	priced, unpriced := "priced-"+newJobID(t), "unpriced-"+newJobID(t)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO model_prices (model, prompt_per_million, completion_per_million, currency) VALUES ($1, 0.15, 0.60, 'USD')`, priced); err != nil {
		t.Fatal(err)
	}
	finished := time.Now().Add(-time.Minute)
	st := store.Statement{ExternalID: newJobID(t), Text: "A statement to price.", Language: "en"}
	seedReport(t, s, reportSeed{st: st, model: priced, finished: finished, tokens: [2]int64{1_000_000, 500_000}})
	seedReport(t, s, reportSeed{st: st, model: priced, finished: finished, reverify: true, tokens: [2]int64{1_000_000, 500_000}})
	seedReport(t, s, reportSeed{st: st, model: unpriced, finished: finished, tokens: [2]int64{10, 5}})

	days, err := s.UsagePerDay(ctx, finished.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var day time.Time
	if err := s.Pool().QueryRow(ctx, `SELECT $1::timestamptz::date`, finished).Scan(&day); err != nil {
		t.Fatal(err)
	}
	byModel := map[string]store.UsageDay{}
	for _, d := range days {
		if d.Model == priced || d.Model == unpriced {
			byModel[d.Model] = d
		}
	}
	p, u := byModel[priced], byModel[unpriced]
	if !p.Day.Equal(day) || p.Method != pipeline.MethodMultihop || p.Runs != 2 || p.ReverifyRuns != 1 || p.ModelCalls != 2 || p.PromptTokens != 2_000_000 ||
		p.CompletionTokens != 1_000_000 || p.TotalTokens != 3_000_000 || p.Searches != 2 || p.Cost == nil || math.Abs(*p.Cost-0.90) > 1e-9 || p.Currency != "USD" {
		t.Fatalf("priced model: %+v (cost %v), day %s", p, p.Cost, day)
	}
	if u.Runs != 1 || u.Cost != nil || u.Currency != "" {
		t.Fatalf("a model without a price has no cost estimate: %+v", u)
	}
}

// reportFixture seeds three statements under one prefix: a multihop one with a refuted and a
// supported claim (and sources), a factored one with a supported claim, and a failed one.
func reportFixture(t *testing.T, s *store.Store) (prefix string, now time.Time) {
	t.Helper()
	prefix, now = newJobID(t)+"/", time.Now()
	seedReport(t, s, reportSeed{st: store.Statement{ExternalID: prefix + "1", Text: "The Eiffel Tower was finished in 1887 in Lyon.", Language: "en"},
		finished: now.Add(-2 * time.Hour), claims: []pipeline.Claim{
			claim(1, "The Eiffel Tower was finished in 1887", pipeline.VerdictRefuted, "it was finished in 1889", "High", 1, 2),
			claim(2, "The Eiffel Tower is in Lyon", pipeline.VerdictRefuted, "it is in Paris", "High"),
			claim(3, "The Eiffel Tower is a tower", pipeline.VerdictSupported, "", "High"),
		}, urls: map[int]string{1: "https://a.example/eiffel", 2: "https://b.example/tower", 3: "https://c.example/uncited"}})
	seedReport(t, s, reportSeed{st: store.Statement{ExternalID: prefix + "2", Text: "Water boils at 100 degrees at sea level.", Language: "en"},
		method: pipeline.MethodFactored, finished: now.Add(-30 * time.Hour), claims: []pipeline.Claim{
			claim(1, "Where does water boil?", pipeline.VerdictSupported, "", ""),
		}})
	seedReport(t, s, reportSeed{st: store.Statement{ExternalID: prefix + "3", Text: "A statement whose run failed.", Language: "en"},
		status: store.RunFailed, finished: now.Add(-time.Hour)})
	return prefix, now
}

func TestReportFiltersSelectStatementsClaimsAndEvidence(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	prefix, now := reportFixture(t, s)
	cases := []struct {
		name                       string
		f                          store.ReportFilter
		statements, claims, evidce int
	}{
		{"prefix alone", store.ReportFilter{}, 3, 4, 3},
		{"since", store.ReportFilter{Since: now.Add(-24 * time.Hour)}, 2, 3, 3},
		{"until", store.ReportFilter{Until: now.Add(-24 * time.Hour)}, 1, 1, 0},
		{"status failed", store.ReportFilter{Status: store.RunFailed}, 1, 0, 0},
		{"verdict refuted", store.ReportFilter{Verdict: pipeline.VerdictRefuted}, 1, 2, 3},
		{"verdict supported", store.ReportFilter{Verdict: pipeline.VerdictSupported}, 2, 2, 0},
		{"method", store.ReportFilter{Method: pipeline.MethodFactored}, 1, 1, 0},
		{"text, any case", store.ReportFilter{Text: "eiffel TOWER"}, 1, 3, 3},
		{"text not found", store.ReportFilter{Text: "no such text"}, 0, 0, 0},
		{"a longer prefix", store.ReportFilter{ExternalIDPrefix: prefix + "2"}, 1, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := c.f
			f.ExternalIDPrefix = cmp.Or(f.ExternalIDPrefix, prefix)
			if err := f.Validate(); err != nil {
				t.Fatal(err)
			}
			n, err := s.CountStatements(ctx, f)
			if err != nil || n != c.statements {
				t.Errorf("statements: %d, want %d (%v)", n, c.statements, err)
			}
			rows, err := s.Statements(ctx, f)
			if err != nil || len(rows) != c.statements {
				t.Errorf("statement rows: %d, want %d (%v)", len(rows), c.statements, err)
			}
			if n, err = s.CountClaims(ctx, f); err != nil || n != c.claims {
				t.Errorf("claims: %d, want %d (%v)", n, c.claims, err)
			}
			var claims []store.ClaimRow
			if err := s.EachClaim(ctx, f, func(r store.ClaimRow) error { claims = append(claims, r); return nil }); err != nil || len(claims) != c.claims {
				t.Errorf("claim rows: %d, want %d (%v)", len(claims), c.claims, err)
			}
			if n, err = s.CountEvidence(ctx, f); err != nil || n != c.evidce {
				t.Errorf("evidence: %d, want %d (%v)", n, c.evidce, err)
			}
		})
	}

	// Rows carry what the views say, newest first, claims in order with their sources.
	rows, err := s.Statements(ctx, store.ReportFilter{ExternalIDPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].ExternalID != prefix+"3" || rows[0].Status != store.RunFailed || rows[0].Error != "the model said no" ||
		rows[1].ExternalID != prefix+"1" || rows[1].Refuted != 2 || rows[1].Supported != 1 || rows[1].Claims != 3 || rows[1].SearchCalls != 1 {
		t.Fatalf("statement rows: %+v", rows)
	}
	var claims []store.ClaimRow
	if err := s.EachClaim(ctx, store.ReportFilter{ExternalIDPrefix: prefix + "1"}, func(r store.ClaimRow) error { claims = append(claims, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(claims) != 3 || claims[0].Position != 1 || !slices.Equal(claims[0].Citations, []int{1, 2}) ||
		!slices.Equal(claims[0].CitationURLs, []string{"https://a.example/eiffel", "https://b.example/tower"}) || claims[1].Reason != "it is in Paris" {
		t.Fatalf("claim rows: %+v", claims)
	}
	var evidence []store.EvidenceRow
	if err := s.EachEvidence(ctx, store.ReportFilter{ExternalIDPrefix: prefix + "1"}, func(r store.EvidenceRow) error { evidence = append(evidence, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(evidence) != 3 || !evidence[0].Cited || evidence[2].Cited || *evidence[0].SourceNumber != 1 || evidence[0].ClaimVerdict != pipeline.VerdictRefuted || evidence[2].URL != "https://c.example/uncited" {
		t.Fatalf("evidence rows: %+v", evidence)
	}

	// An error from the callback stops the read and comes back as it is.
	stop := errors.New("stop")
	if err := s.EachClaim(ctx, store.ReportFilter{ExternalIDPrefix: prefix}, func(store.ClaimRow) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error: %v", err)
	}
	// Pages.
	page, err := s.Statements(ctx, store.ReportFilter{ExternalIDPrefix: prefix, Limit: 1, Offset: 1})
	if err != nil || len(page) != 1 || page[0].ExternalID != prefix+"1" {
		t.Fatalf("second page of one: %+v %v", page, err)
	}
}

func TestReportFilterValidate(t *testing.T) {
	t.Parallel()
	now := time.Now()
	err := store.ReportFilter{Status: "pending", Verdict: "true", Since: now, Until: now.Add(-time.Hour), Limit: -1}.Validate()
	if err == nil {
		t.Fatal("a bad filter passed")
	}
	for _, want := range []string{`status "pending"`, `verdict "true"`, "is not before until", "must not be negative"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := (store.ReportFilter{Status: store.RunDone, Verdict: pipeline.VerdictNotChecked}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSummaryCountsABatch(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	prefix, _ := reportFixture(t, s)
	sum, err := s.Summary(ctx, store.ReportFilter{ExternalIDPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Statements != 3 || !slices.Equal(sum.ByStatus, []store.Count{{Key: "done", N: 2}, {Key: "failed", N: 1}}) {
		t.Fatalf("by status: %d %+v", sum.Statements, sum.ByStatus)
	}
	if !slices.Equal(sum.ByMethod, []store.MethodCount{{Method: pipeline.MethodMultihop, Statements: 2, Done: 1, Failed: 1}, {Method: pipeline.MethodFactored, Statements: 1, Done: 1}}) {
		t.Fatalf("by method: %+v", sum.ByMethod)
	}
	want := []store.Count{{Key: "supported", N: 2}, {Key: "refuted", N: 2}, {Key: "partly_supported"}, {Key: "unverified"}, {Key: "not_checked"}}
	if !slices.Equal(sum.ByVerdict, want) {
		t.Fatalf("by verdict: %+v", sum.ByVerdict)
	}
	if len(sum.Usage) != 1 || sum.Usage[0].Runs != 3 || sum.Usage[0].Model != "gpt-4o-mini" || sum.Usage[0].Searches != 3 {
		t.Fatalf("usage: %+v", sum.Usage)
	}
	if len(sum.Outcomes) == 0 {
		t.Fatal("no job outcomes counted")
	}
}

func TestStatementPageAndTrace(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	prefix, _ := reportFixture(t, s)
	rows, err := s.Statements(ctx, store.ReportFilter{ExternalIDPrefix: prefix + "1"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%+v %v", rows, err)
	}
	page, err := s.Statement(ctx, rows[0].StatementID)
	if err != nil {
		t.Fatal(err)
	}
	if page.Statement.RunID != rows[0].RunID || len(page.Claims) != 3 || len(page.Evidence) != 3 || len(page.Runs) != 1 || page.Draft == "" {
		t.Fatalf("page: %+v", page)
	}
	trace, err := s.Trace(ctx, rows[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if trace.StatementID != rows[0].StatementID || len(trace.Calls) != 2 || trace.Calls[0].Prompt != "p1" || len(trace.Searches) != 1 ||
		trace.Searches[0].Results[0].URL != "https://example.org/1" || len(trace.Searches[0].Options) == 0 {
		t.Fatalf("trace: %+v", trace)
	}
	if _, err := s.Statement(ctx, -1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown statement: %v", err)
	}
	if _, err := s.Trace(ctx, -1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown run: %v", err)
	}
}

func TestReverifyCandidates(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	prefix, now := reportFixture(t, s)
	cutoff := now.Add(-90 * time.Minute)
	cases := []struct {
		name string
		sel  store.ReverifySelection
		want []string
	}{
		{"older than the cutoff, oldest first", store.ReverifySelection{}, []string{"2", "1"}},
		{"refuted only", store.ReverifySelection{Verdict: pipeline.VerdictRefuted}, []string{"1"}},
		{"by method", store.ReverifySelection{Method: pipeline.MethodFactored}, []string{"2"}},
		{"limit", store.ReverifySelection{Limit: 1}, []string{"2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sel := c.sel
			sel.Before, sel.ExternalIDPrefix = cutoff, prefix
			got, err := s.ReverifyCandidates(ctx, sel)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ExternalID[len(prefix):])
				if g.Text == "" || g.Language != "en" || g.RequestedMethod == "" || len(g.Options) == 0 || !g.FinishedAt.Before(cutoff) {
					t.Errorf("candidate %+v", g)
				}
			}
			if !slices.Equal(ids, c.want) {
				t.Fatalf("selected %v, want %v", ids, c.want)
			}
		})
	}
	if _, err := s.ReverifyCandidates(ctx, store.ReverifySelection{}); err == nil {
		t.Fatal("no cutoff must be an error")
	}
}
