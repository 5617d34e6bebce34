package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

var (
	migrateOnce sync.Once
	migrateErr  error
	counter     atomic.Int64
)

// setup returns a store on this package's own schema, migrated, and the URL of that schema.
func setup(t *testing.T) (*store.Store, string) {
	t.Helper()
	st := store.New(testenv.Postgres(t, "report"))
	migrateOnce.Do(func() { _, migrateErr = st.Migrate(context.Background()) })
	if migrateErr != nil {
		t.Fatal(migrateErr)
	}
	return st, testenv.SchemaURL(t, "report")
}

// Hostile content: statements and model output are untrusted, and must come out as text.
const (
	hostileStatement = `<script>alert(1)</script> is what this statement says`
	hostileClaim     = `<img src=x onerror=alert(1)> was claimed`
	hostileReply     = `</pre><script>alert(2)</script><b>bold</b>`
	hostileURL       = `javascript:alert(3)`
)

// batch is what seedBatch wrote: one prefix for its external ids, and its statements.
type batch struct {
	prefix                 string
	eiffel, hostile, faild int64 // statement ids
	eiffelRun, earlierRun  int64 // run ids of the Eiffel statement: latest and the one before
}

// seedBatch writes a small batch under a prefix of its own:
//   - the Eiffel statement: a multihop run two days ago, then a re-verification an hour ago
//     that turned a claim from refuted to supported, with sources, model calls and searches;
//   - a hostile statement whose text, claim, reply and citation URL try to inject markup;
//   - a cove-factored statement whose run failed.
func seedBatch(t *testing.T, st *store.Store) batch {
	t.Helper()
	ctx := context.Background()
	b := batch{prefix: fmt.Sprintf("report-%s-%d/", strings.ToLower(strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())), counter.Add(1))}
	now := time.Now()
	save := func(rec store.RunRecord) store.Saved {
		t.Helper()
		rec.Delivery = store.Delivery{JobID: fmt.Sprintf("%s-job-%d", b.prefix, counter.Add(1)), StreamSeq: uint64(counter.Add(1)), Subject: "corroborate.statements.backlog", Attempt: 1, ReceivedAt: rec.StartedAt}
		rec.Model = "gpt-4o-mini"
		saved, err := st.SaveRun(ctx, rec)
		if err != nil {
			t.Fatal(err)
		}
		return saved
	}
	eiffel := store.Statement{ExternalID: b.prefix + "eiffel", Text: "The Eiffel Tower was completed in 1889 and is 300 metres tall.", Language: "en"}
	result := func(heightVerdict, heightReason string, heightURL string) *pipeline.Result {
		return &pipeline.Result{
			Method: pipeline.MethodMultihop, Status: pipeline.StatusChecked, Draft: eiffel.Text,
			RevisedText: "The Eiffel Tower was completed in 1889 and is 330 metres tall.",
			Claims: []pipeline.Claim{
				{Position: 1, Key: "c1", Text: "The Eiffel Tower was completed in 1889", Verdict: pipeline.VerdictSupported, Confidence: "High", Reason: "the archive dates the opening to March 1889", Citations: []int{1}},
				{Position: 2, Key: "c2", Text: "The Eiffel Tower is 300 metres tall", Verdict: heightVerdict, Confidence: "Medium", Reason: heightReason, CorrectedText: "is 330 metres tall", Citations: []int{2}},
			},
			Evidence: []pipeline.Evidence{
				{ID: 1, SourceNumber: 1, ClaimPosition: 1, SearchSeq: 1, URL: "https://archive.example/eiffel-1889", Title: "The tower opens, 31 March 1889", Domain: "archive.example", Quote: "opened on 31 March 1889"},
				{ID: 2, SourceNumber: 2, ClaimPosition: 2, SearchSeq: 2, URL: heightURL, Title: "How tall is the tower?", Domain: "facts.example", Quote: "330 metres with antennas"},
			},
			Calls: []pipeline.ModelCall{
				{Seq: 1, Step: "plan", Prompt: "Decompose the statement into claims: " + eiffel.Text, Reply: `{"claims":[...]}`, PromptTokens: 120, CompletionTokens: 40, StartedAt: now, Latency: 900 * time.Millisecond},
				{Seq: 2, Step: "verify", Target: 2, Prompt: "Is the Eiffel Tower 300 metres tall?", Reply: "No: 330 metres with antennas [2]", PromptTokens: 80, CompletionTokens: 12, StartedAt: now, Latency: 400 * time.Millisecond},
			},
			Searches: []pipeline.SearchCall{
				{Seq: 1, Provider: "postgres", Query: "Eiffel Tower completed", StartedAt: now, Latency: 3 * time.Millisecond, Results: []pipeline.SearchResult{{URL: "https://archive.example/eiffel-1889", Title: "The tower opens", Rank: 1}}},
				{Seq: 2, Provider: "postgres", Query: "Eiffel Tower height metres", StartedAt: now, Latency: 4 * time.Millisecond, Results: []pipeline.SearchResult{{URL: heightURL, Title: "How tall", Rank: 1}}},
			},
		}
	}
	earlier := save(store.RunRecord{Statement: eiffel, Method: pipeline.MethodMultihop, Status: store.RunDone,
		StartedAt: now.Add(-49 * time.Hour), FinishedAt: now.Add(-48 * time.Hour),
		Result: result(pipeline.VerdictSupported, "an old guide says 300 metres", "https://old.example/guide")})
	latest := save(store.RunRecord{Statement: eiffel, Method: pipeline.MethodMultihop, Status: store.RunDone, Reverify: true,
		StartedAt: now.Add(-61 * time.Minute), FinishedAt: now.Add(-time.Hour),
		Result: result(pipeline.VerdictRefuted, "the tower is 330 metres tall with its antennas", "https://facts.example/eiffel-height")})
	b.eiffelRun, b.earlierRun = latest.RunID, earlier.RunID

	hostile := store.Statement{ExternalID: b.prefix + "hostile", Text: hostileStatement, Language: "en"}
	save(store.RunRecord{Statement: hostile, Method: pipeline.MethodMultihop, Status: store.RunDone,
		StartedAt: now.Add(-31 * time.Minute), FinishedAt: now.Add(-30 * time.Minute),
		Result: &pipeline.Result{Status: pipeline.StatusChecked, RevisedText: hostileReply,
			Claims:   []pipeline.Claim{{Position: 1, Text: hostileClaim, Verdict: pipeline.VerdictUnverified, Reason: `"><script>alert(4)</script>`, Citations: []int{1}}},
			Evidence: []pipeline.Evidence{{ID: 1, SourceNumber: 1, ClaimPosition: 1, URL: hostileURL, Title: "=HYPERLINK(\"http://evil.example\")"}},
			Calls:    []pipeline.ModelCall{{Seq: 1, Step: "plan", Prompt: hostileStatement, Reply: hostileReply, StartedAt: now, Latency: time.Millisecond}},
		}})
	save(store.RunRecord{Statement: store.Statement{ExternalID: b.prefix + "failed", Text: "A statement whose model refused the key.", Language: "en"},
		Method: pipeline.MethodFactored, Status: store.RunFailed, Error: "permanent: the API key was refused (HTTP 401)",
		StartedAt: now.Add(-21 * time.Minute), FinishedAt: now.Add(-20 * time.Minute), Result: &pipeline.Result{}})

	rows, err := st.Statements(ctx, store.ReportFilter{ExternalIDPrefix: b.prefix})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		switch strings.TrimPrefix(r.ExternalID, b.prefix) {
		case "eiffel":
			b.eiffel = r.StatementID
		case "hostile":
			b.hostile = r.StatementID
		case "failed":
			b.faild = r.StatementID
		}
	}
	if b.eiffel == 0 || b.hostile == 0 || b.faild == 0 {
		t.Fatalf("seeded statements: %+v", rows)
	}
	return b
}

// runReport runs the command and returns its exit status and output.
func runReport(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestSummaryPrintsTheBatch(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	code, out, errOut := runReport(t, "summary", "--database-url", dbURL, "--since", "24h", "--external-id-prefix", b.prefix)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Batch: statements with latest run finished since",
		"Statements: 3 (done 2, failed 1)",
		"multihop", "cove-factored",
		"Claims by verdict (3 claims):",
		"refuted", " 33.3%",
		"Job outcomes of the messages received in the window (all of them: only the time window applies to messages):",
		"gpt-4o-mini", "no price for gpt-4o-mini",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary does not say %q:\n%s", want, out)
		}
	}
	code, out, _ = runReport(t, "summary", "--database-url", dbURL, "--since", "24h", "--external-id-prefix", b.prefix, "--status", "failed", "--method", "cove-factored")
	if code != exitOK || !strings.Contains(out, "Statements: 1 (failed 1)") {
		t.Fatalf("filtered summary: exit %d\n%s", code, out)
	}
}

func TestChangesPrintsVerdictChanges(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	code, out, errOut := runReport(t, "changes", "--database-url", dbURL, "--since", "24h", "--external-id-prefix", b.prefix)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"1 verdict change(s) since",
		"supported -> refuted  (re-verification, run " + fmt.Sprint(b.earlierRun) + " -> " + fmt.Sprint(b.eiffelRun) + ")",
		"claim:    The Eiffel Tower is 300 metres tall",
		"why now:  the tower is 330 metres tall with its antennas",
		"before:   an old guide says 300 metres",
		"sources:  https://facts.example/eiffel-height",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("changes do not say %q:\n%s", want, out)
		}
	}
	if code, out, _ := runReport(t, "changes", "--database-url", dbURL, "--since", "30m", "--external-id-prefix", b.prefix); code != exitOK || !strings.Contains(out, "0 verdict change(s)") {
		t.Fatalf("nothing changed in the last 30 minutes: exit %d\n%s", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: report COMMAND"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"summary", "--since", "yesterday", "--database-url", "postgres://x"}, `--since: "yesterday" is neither a duration`},
		{[]string{"summary", "--verdict", "true", "--database-url", "postgres://x"}, `verdict "true" is not a verdict`},
		{[]string{"summary", "--method", "magic", "--database-url", "postgres://x"}, `--method "magic" is not a method`},
		// An empty flag wins over a DATABASE_URL the test environment may have set.
		{[]string{"summary", "--database-url="}, "no database"},
		{[]string{"export", "--format", "xml", "--database-url", "postgres://x"}, `--format "xml": use one of csv, jsonl`},
		{[]string{"export", "--what", "runs", "--database-url", "postgres://x"}, `--what "runs": use one of statements, claims, evidence`},
		{[]string{"html", "--database-url", "postgres://x"}, "--out DIR"},
		{[]string{"changes", "--status", "done", "--database-url", "postgres://x"}, "do not apply to verdict changes"},
		{[]string{"serve", "--page-size", "0", "--database-url", "postgres://x"}, "--page-size 0"},
		{[]string{"summary", "extra", "--database-url", "postgres://x"}, "unexpected arguments"},
	} {
		code, _, errOut := runReport(t, tt.args...)
		if code != exitInvalid || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to say %q", tt.args, code, errOut, tt.want)
		}
	}
}

func TestParseTimeBound(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 2, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"", time.Time{}, false},
		{"24h", now.Add(-24 * time.Hour), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"7d", now.AddDate(0, 0, -7), false},
		{"2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, time.Local), false},
		{"2026-11-01T02:00:00Z", time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), false},
		{"-1h", time.Time{}, true},
		{"last night", time.Time{}, true},
	} {
		got, err := parseTimeBound(tt.in, now)
		if (err != nil) != tt.err || !got.Equal(tt.want) {
			t.Errorf("parseTimeBound(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// The configuration table of docs/operations.md names every variable report reads, like the
// worker's.
func TestDocsNameEveryReportVariable(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	var f filterFlags
	var e exportConfig
	var h htmlConfig
	var s serveConfig
	sets := []*envflag.Set{summaryFlags(&f), exportFlags(&e), htmlFlags(&h), serveFlags(&s), changesFlags(&f)}
	seen := map[string]bool{}
	for _, fs := range sets {
		var help bytes.Buffer
		fs.SetOutput(&help)
		fs.Usage()
		for _, line := range strings.Split(help.String(), "\n") {
			i := strings.Index(line, "[$")
			if i < 0 {
				continue
			}
			variable := strings.TrimSuffix(line[i+2:], "]")
			if seen[variable] {
				continue
			}
			seen[variable] = true
			if !bytes.Contains(page, []byte("`"+variable+"`")) {
				t.Errorf("docs/operations.md does not document $%s", variable)
			}
		}
	}
	if len(seen) < 12 {
		t.Fatalf("found only %d variables: %v", len(seen), seen)
	}
}
