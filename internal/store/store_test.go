package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

var (
	migrateOnce sync.Once
	migrateErr  error
	jobCounter  atomic.Int64
)

// setup returns a store on this package's own schema, migrated.
func setup(t *testing.T) *store.Store {
	t.Helper()
	s := store.New(testenv.Postgres(t, "store"))
	migrateOnce.Do(func() { _, migrateErr = s.Migrate(context.Background()) })
	if migrateErr != nil {
		t.Fatal(migrateErr)
	}
	return s
}

func newJobID(t *testing.T) string {
	return fmt.Sprintf("%s-%d-%d", t.Name(), time.Now().UnixNano(), jobCounter.Add(1))
}

func sampleRecord(jobID string) store.RunRecord {
	now := time.Now()
	return store.RunRecord{
		Delivery:  store.Delivery{JobID: jobID, Stream: "S", StreamSeq: uint64(jobCounter.Add(1)), Subject: "corroborate.statements.backlog", Attempt: 1, Payload: []byte(`{"v":1}`), ReceivedAt: now},
		Statement: store.Statement{ExternalID: "ext-" + jobID, Question: "Who was born in New York?", Language: "en"},
		Method:    pipeline.MethodFactored, Model: "gpt-4o-mini", Status: store.RunDone,
		Options:   json.RawMessage(`{"max_questions":3}`),
		StartedAt: now.Add(-time.Second), FinishedAt: now,
		Result: &pipeline.Result{
			Method: pipeline.MethodFactored, Status: pipeline.StatusChecked, Draft: "Hillary Clinton, Donald Trump",
			RevisedText: "Donald Trump",
			Checks: []pipeline.Check{
				{Position: 1, Question: "Where was Hillary Clinton born?", Answer: "Chicago", Status: pipeline.CheckAnswered, Attempts: 1},
				{Position: 2, Question: "Where was Donald Trump born?", Answer: "unsure", Status: pipeline.CheckFailed, Attempts: 2, Error: "HTTP 500"},
			},
			Claims: []pipeline.Claim{
				{Position: 1, Text: "Hillary Clinton was born in New York", Verdict: pipeline.VerdictRefuted, VariantVerdict: "INCONSISTENT", CheckPosition: 1},
				{Position: 2, Text: "Donald Trump was born in New York", Verdict: pipeline.VerdictUnverified, Reason: "the check was answered unsure", CheckPosition: 2},
			},
			Calls: []pipeline.ModelCall{
				{Seq: 1, Step: "draft", Prompt: "p1", Reply: "r1", Model: "gpt-4o-mini", PromptTokens: 10, CompletionTokens: 5, StartedAt: now, Latency: 20 * time.Millisecond},
				{Seq: 2, Step: "verify", Target: 1, Prompt: "p2", Reply: "Chicago", PromptTokens: 7, CompletionTokens: 1, StartedAt: now, Latency: 10 * time.Millisecond},
			},
		},
	}
}

func TestSaveRunWritesEverythingOnce(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))

	first, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if first.AlreadyStored || first.RunID == 0 {
		t.Fatalf("first save: %+v", first)
	}
	again, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !again.AlreadyStored || again.RunID != first.RunID {
		t.Fatalf("second save of the same job must write nothing: %+v", again)
	}

	var runs, checks, claims, calls int
	var tokens int64
	err = s.Pool().QueryRow(ctx, `
		SELECT (SELECT count(*) FROM runs WHERE job_id = $1),
		       (SELECT count(*) FROM checks WHERE run_id = $2),
		       (SELECT count(*) FROM claims WHERE run_id = $2),
		       (SELECT count(*) FROM model_calls WHERE run_id = $2),
		       (SELECT total_tokens FROM runs WHERE id = $2)`, rec.Delivery.JobID, first.RunID).Scan(&runs, &checks, &claims, &calls, &tokens)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 1 || checks != 2 || claims != 2 || calls != 2 || tokens != 23 {
		t.Fatalf("runs %d checks %d claims %d calls %d tokens %d", runs, checks, claims, calls, tokens)
	}

	var status jobs.Outcome
	var payload []byte
	if err := s.Pool().QueryRow(ctx, `SELECT status, payload FROM job_outcomes WHERE job_id = $1`, rec.Delivery.JobID).Scan(&status, &payload); err != nil {
		t.Fatal(err)
	}
	if status != jobs.OutcomeDone || payload != nil {
		t.Fatalf("job outcome %q, payload %q: want done without payload", status, payload)
	}
}

func TestViewsShowTheLatestRun(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	old := sampleRecord(newJobID(t))
	if _, err := s.SaveRun(ctx, old); err != nil {
		t.Fatal(err)
	}
	newer := sampleRecord(newJobID(t))
	newer.Statement = old.Statement
	newer.Reverify = true
	newer.StartedAt, newer.FinishedAt = old.FinishedAt.Add(time.Hour), old.FinishedAt.Add(2*time.Hour)
	newer.Result.Claims = []pipeline.Claim{
		{Position: 1, Text: "Hillary Clinton was born in New York", Verdict: pipeline.VerdictRefuted, VariantVerdict: "INCONSISTENT", CheckPosition: 1},
		{Position: 2, Text: "Donald Trump was born in New York", Verdict: pipeline.VerdictSupported, VariantVerdict: "CONSISTENT", CheckPosition: 2},
	}
	saved, err := s.SaveRun(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}

	var runID int64
	var method, status, revised string
	var checked, supported, refuted int
	err = s.Pool().QueryRow(ctx, `
		SELECT run_id, method, status, revised_text, checked, supported, refuted
		FROM statement_results WHERE external_id = $1`, old.Statement.ExternalID).Scan(&runID, &method, &status, &revised, &checked, &supported, &refuted)
	if err != nil {
		t.Fatal(err)
	}
	if runID != saved.RunID || method != pipeline.MethodFactored || status != store.RunDone || revised != "Donald Trump" || checked != 2 || supported != 1 || refuted != 1 {
		t.Fatalf("statement_results: run %d method %s status %s revised %q checked %d supported %d refuted %d", runID, method, status, revised, checked, supported, refuted)
	}

	var question, answer string
	if err := s.Pool().QueryRow(ctx, `SELECT check_question, check_answer FROM claim_results WHERE run_id = $1 AND verdict = 'refuted'`, saved.RunID).Scan(&question, &answer); err != nil {
		t.Fatal(err)
	}
	if question != "Where was Hillary Clinton born?" || answer != "Chicago" {
		t.Fatalf("a refuted claim traces to its check: %q %q", question, answer)
	}

	var oldVerdict, newVerdict string
	if err := s.Pool().QueryRow(ctx, `SELECT old_verdict, new_verdict FROM verdict_changes WHERE external_id = $1`, old.Statement.ExternalID).Scan(&oldVerdict, &newVerdict); err != nil {
		t.Fatal(err)
	}
	if oldVerdict != pipeline.VerdictUnverified || newVerdict != pipeline.VerdictSupported {
		t.Fatalf("verdict_changes: %s -> %s", oldVerdict, newVerdict)
	}
}

func TestRecordOutcomeKeepsOneRowPerMessage(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	d := store.Delivery{JobID: newJobID(t), StreamSeq: uint64(jobCounter.Add(1)), Subject: "corroborate.statements.backlog", Attempt: 1, Payload: []byte("not json")}

	for attempt, status := range []jobs.Outcome{jobs.OutcomeRetry, jobs.OutcomeRetry, jobs.OutcomeDead, jobs.OutcomeRetry} {
		d.Attempt = attempt + 1
		if err := s.RecordOutcome(ctx, store.MessageOutcome{Delivery: d, Status: status, Reason: "model unavailable"}); err != nil {
			t.Fatal(err)
		}
	}
	var rows, attempts int
	var status jobs.Outcome
	var payload []byte
	if err := s.Pool().QueryRow(ctx, `SELECT count(*), max(status), max(attempts), (array_agg(payload))[1] FROM job_outcomes WHERE job_id = $1`, d.JobID).Scan(&rows, &status, &attempts, &payload); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || status != jobs.OutcomeDead || attempts != 3 || string(payload) != "not json" {
		t.Fatalf("rows %d status %s attempts %d payload %q: want one dead row that a late pending did not overwrite", rows, status, attempts, payload)
	}
}

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	setup(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = store.New(testenv.Postgres(t, "store")).Migrate(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("concurrent migrate: %v", err)
		}
	}
}

func TestStoredRun(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	if _, found, err := s.StoredRun(ctx, rec.Delivery.JobID); err != nil || found {
		t.Fatalf("before saving: found %v err %v", found, err)
	}
	saved, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	id, found, err := s.StoredRun(ctx, rec.Delivery.JobID)
	if err != nil || !found || id != saved.RunID {
		t.Fatalf("after saving: id %d found %v err %v", id, found, err)
	}
}

func TestJobResults(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	done := sampleRecord(newJobID(t))
	if _, err := s.SaveRun(ctx, done); err != nil {
		t.Fatal(err)
	}
	rejected := store.Delivery{JobID: newJobID(t), StreamSeq: uint64(jobCounter.Add(1)), Subject: "s", Payload: []byte("{")}
	if err := s.RecordOutcome(ctx, store.MessageOutcome{Delivery: rejected, Status: jobs.OutcomeRejected, Reason: "not JSON"}); err != nil {
		t.Fatal(err)
	}
	results, err := s.JobResults(ctx, []string{done.Delivery.JobID, rejected.JobID, "never-seen"})
	if err != nil {
		t.Fatal(err)
	}
	d, r := results[done.Delivery.JobID], results[rejected.JobID]
	if len(results) != 2 || d.Status != jobs.OutcomeDone || *d.RevisedText != "Donald Trump" || *d.Checked != 2 || !d.Final() {
		t.Fatalf("done job: %+v (of %d results)", d, len(results))
	}
	if r.Status != jobs.OutcomeRejected || *r.Reason != "not JSON" || r.Method != nil {
		t.Fatalf("rejected job: %+v", r)
	}
}

func TestSaveRunStoresEvidenceSearchesAndHops(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	published := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	yes, score := true, 0.8
	rec.Result.PlanJSON = []byte(`{"claims":[{"text":"x"}]}`)
	rec.Result.PlanViolations = []string{"claims[0]: no span"}
	rec.Result.PlanRepaired = true
	rec.Result.ReviewFlags = []pipeline.ReviewFlag{pipeline.Flag(pipeline.FlagMaxHopsAbove5), pipeline.Flagf(pipeline.FlagCitationRemoved, "[3] (basis of claim 1: not one of its sources)")}
	rec.Result.Claims = []pipeline.Claim{{
		Position: 1, Key: "c1", Text: "The tower is 330 m tall", SpanStart: 4, SpanEnd: 27, SpanText: "tower is 330 m tall",
		Entities: []string{"Eiffel Tower"}, Verifiable: &yes, Tier: "deep", VerificationQuery: "How tall is the Eiffel Tower?",
		QueryFlags: []string{"date_anchored"}, SubQueries: []string{"Eiffel Tower height"}, SourceIndependenceScore: &score,
		Verdict: pipeline.VerdictSupported, Confidence: "High", Citations: []int{1, 2},
	}}
	rec.Result.Searches = []pipeline.SearchCall{{Seq: 1, Provider: "postgres", Query: "Eiffel Tower height", StartedAt: time.Now(), Latency: time.Millisecond,
		Results: []pipeline.SearchResult{{URL: "https://a.example/eiffel", Title: "Eiffel", Domain: "a.example", Rank: 1}}}}
	rec.Result.Evidence = []pipeline.Evidence{
		{ID: 1, SourceNumber: 1, ClaimPosition: 1, HopNumber: 1, SearchSeq: 1, URL: "https://a.example/eiffel", Domain: "a.example", Quote: "330 m", PublishedAt: &published},
		{ID: 2, SourceNumber: 2, ClaimPosition: 1, HopNumber: 2, SearchSeq: 1, URL: "https://b.example/tower", Domain: "b.example", Quote: "330 metres"},
	}
	rec.Result.Hops = []pipeline.Hop{{ClaimPosition: 1, Number: 1, Query: "Eiffel Tower height", Status: "found", SearchSeq: 1},
		{ClaimPosition: 1, Number: 2, Query: "Eiffel Tower metres", ExcludedDomains: []string{"a.example"}, Status: "found", SearchSeq: 1}}
	rec.Result.CrossChecks = []pipeline.CrossValidation{{Position: 1, Query: "tower height and year", ClaimPositions: []int{1, 2}, Verdict: pipeline.VerdictUnverified, Reason: "no evidence"}}
	saved, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	var searches int
	if err := s.Pool().QueryRow(ctx, `SELECT citation_urls, (SELECT search_calls FROM runs WHERE id = $1) FROM claim_results WHERE run_id = $1`, saved.RunID).Scan(&urls, &searches); err != nil {
		t.Fatal(err)
	}
	if len(urls) != 2 || urls[0] != "https://a.example/eiffel" || urls[1] != "https://b.example/tower" || searches != 1 {
		t.Fatalf("citations resolve to stored evidence: %q, searches %d", urls, searches)
	}
	if n := countRows(t, s, `SELECT count(*) FROM query_hops WHERE run_id = $1 AND 'a.example' = ANY (excluded_domains)`, saved.RunID); n != 1 {
		t.Fatalf("hops with their exclusions: %d", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM runs WHERE id = $1 AND plan_repaired AND plan ? 'claims' AND 'max_hops_above_5' = ANY (review_flags)`, saved.RunID); n != 1 {
		t.Fatalf("plan and review flags: %d", n)
	}
	// Every flag's code is in review_flags, with or without a detail, so that one ANY finds a kind.
	var details string
	if err := s.Pool().QueryRow(ctx, `SELECT review_flag_details::text FROM statement_results
		WHERE run_id = $1 AND review_flags = '{max_hops_above_5,citation_removed}' AND 'citation_removed' = ANY (review_flags)`, saved.RunID).Scan(&details); err != nil {
		t.Fatalf("review flags by code: %v", err)
	}
	if want := `[{"code": "max_hops_above_5"}, {"code": "citation_removed", "detail": "[3] (basis of claim 1: not one of its sources)"}]`; details != want {
		t.Fatalf("review_flag_details %s, want %s", details, want)
	}
	if n := countRows(t, s, `SELECT count(*) FROM cross_validations WHERE run_id = $1 AND claim_positions = '{1,2}'`, saved.RunID); n != 1 {
		t.Fatalf("cross validations: %d", n)
	}
}

func countRows(t *testing.T, s *store.Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.Pool().QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
