package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

var (
	migrateOnce sync.Once
	migrateErr  error
)

// bundle is one test's system: its own stream and consumer on the test NATS, the package's
// schema in the test PostgreSQL, and a fake OpenAI-compatible model.
type bundle struct {
	cfg   Config
	store *store.Store
	model *llmtest.Server
	js    jetstream.JetStream
	log   *slog.Logger
	// text is a statement of this test's own: job ids are content hashes, and the tests of the
	// package share one schema.
	text string
	// searcher is the open-book methods' evidence search; nil for the CoVe methods.
	searcher pipeline.Searcher
	// modelURL, when set, is where the workers reach the model instead of the fake server.
	modelURL string
	// pages reads the pages behind search results; nil reads none.
	pages pipeline.PageReader
}

func setup(t testing.TB) *bundle {
	t.Helper()
	st := store.New(testenv.Postgres(t, "worker"))
	migrateOnce.Do(func() { _, migrateErr = st.Migrate(context.Background()) })
	if migrateErr != nil {
		t.Fatal(migrateErr)
	}
	nc := testenv.NATS(t)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	id := randomLetters(16)
	cfg := Config{
		NATSURL: testenv.NATSURL(t), Model: "fake-model-" + id, Concurrency: 8, VerifyConcurrency: 4,
		MaxQuestions: 10, DefaultMethod: pipeline.MethodFactored, ModelTimeout: 5 * time.Second, MaxTokens: 256,
		ShutdownTimeout: 5 * time.Second, ExitWhenIdle: true, IdleAfter: 300 * time.Millisecond,
		Stream: jobs.StreamConfig{
			Stream: "T" + id, Subjects: []string{"t" + id + ".>"}, PublishSubject: "t" + id + ".backlog",
			Consumer: "w" + id, MaxDeliver: 3, BackoffBase: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
			AckWait: 5 * time.Second, MaxAge: time.Hour, DuplicateWindow: time.Minute,
		},
	}
	b := &bundle{cfg: cfg, store: st, model: llmtest.NewServer(t), js: js,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	b.text = fmt.Sprintf("The Eiffel Tower stands in Paris, says test %s number %s.", t.Name(), id)
	t.Cleanup(func() { _ = js.DeleteStream(context.Background(), cfg.Stream.Stream) })
	return b
}

// factoredModel scripts the fake model for Factored runs on statements given as text: three
// questions per draft, each answered, and a revision that names the draft.
func (b *bundle) factoredModel() *llmtest.Rule {
	return b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		switch {
		case strings.Contains(prompt, pipeline.MarkerRevise):
			return llmtest.Response{Text: "Revised: " + pipeline.PromptDraft.FindStringSubmatch(prompt)[1]}, true
		case strings.Contains(prompt, pipeline.MarkerPlan):
			return llmtest.Response{Text: "Who said it?\nWhen was it said?\nWhere was it said?"}, true
		case strings.Contains(prompt, pipeline.MarkerVerify):
			return llmtest.Response{Text: "An answer"}, true
		}
		return llmtest.Response{}, false
	})
}

// runWorkers runs n workers, each with its own NATS connection, until the backlog is drained.
func (b *bundle) runWorkers(t testing.TB, n int) {
	t.Helper()
	const limit = 2 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	b.runWorkersUntil(t, ctx, n)
	// Cancelled, the workers return without error: say so here, or the test reads a half-run
	// backlog and fails on whatever it checks first ("3 outcomes for 14 bad messages").
	if ctx.Err() != nil {
		t.Fatalf("the workers had not drained the backlog after %s (a loaded machine, or a job that never ends)", limit)
	}
}

// runWorkersUntil runs n workers, each with its own NATS connection, until the backlog is drained
// (with ExitWhenIdle) or ctx ends.
func (b *bundle) runWorkersUntil(t testing.TB, ctx context.Context, n int) {
	t.Helper()
	baseURL := b.model.URL()
	if b.modelURL != "" {
		baseURL = b.modelURL
	}
	model, err := llm.New(llm.Config{APIKey: b.cfg.OpenAIAPIKey, BaseURL: baseURL, Model: b.cfg.Model, Timeout: b.cfg.ModelTimeout})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		s := b.services(t, model)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = consume(ctx, b.cfg, b.log.With("worker", i), s, newMetrics(), "")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// services are one worker's: the bundle's store, searcher and NATS, on a connection of its own
// that the test closes, and model.
func (b *bundle) services(t testing.TB, model pipeline.Model) *services {
	t.Helper()
	nc, err := nats.Connect(b.cfg.NATSURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return &services{store: b.store, nc: nc, js: js, model: model, searcher: b.searcher, pages: b.pages, natsURL: b.cfg.NATSURL}
}

func (b *bundle) publish(t testing.TB, m jobs.Message) string {
	t.Helper()
	if _, _, err := jobs.Setup(context.Background(), b.js, b.cfg.Stream); err != nil {
		t.Fatal(err)
	}
	res, err := jobs.Publish(context.Background(), b.js, b.cfg.Stream.PublishSubject, m, "")
	if err != nil {
		t.Fatal(err)
	}
	return res.JobID
}

func (b *bundle) publishRaw(t *testing.T, data string) {
	t.Helper()
	if _, _, err := jobs.Setup(context.Background(), b.js, b.cfg.Stream); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.PublishRaw(context.Background(), b.js, b.cfg.Stream.PublishSubject, []byte(data), ""); err != nil {
		t.Fatal(err)
	}
}

// count runs a counting query over this test's jobs (those on its subject).
func (b *bundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := b.store.Pool().QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// countsBy runs a query of (key, count) rows and returns the counts by key.
func (b *bundle) countsBy(t *testing.T, query string, args ...any) map[string]int {
	t.Helper()
	rows, err := b.store.Pool().Query(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		counts[key] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return counts
}

// Done when: publishing 200 statements and running two workers with --exit-when-idle against the
// fake model leaves 200 done runs, each with its checks and model calls, and no duplicate runs.
func TestTwoWorkersDrain200Statements(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	for i := range 200 {
		b.publish(t, jobs.Message{V: 1, ID: fmt.Sprintf("stmt-%d", i), Text: fmt.Sprintf("Statement number %d was said in Paris in 1999.", i), Method: pipeline.MethodFactored})
	}
	b.runWorkers(t, 2)

	subject := b.cfg.Stream.PublishSubject
	if n := b.count(t, `SELECT count(*) FROM runs WHERE subject = $1 AND status = 'done'`, subject); n != 200 {
		t.Fatalf("done runs: %d, want 200", n)
	}
	if n := b.count(t, `SELECT count(*) FROM (SELECT statement_id FROM runs WHERE subject = $1 GROUP BY statement_id HAVING count(*) > 1) d`, subject); n != 0 {
		t.Fatalf("%d statements have more than one run", n)
	}
	if n := b.count(t, `SELECT count(*) FROM runs r WHERE subject = $1
		AND (SELECT count(*) FROM checks c WHERE c.run_id = r.id) = 3
		AND (SELECT count(*) FROM model_calls m WHERE m.run_id = r.id) = 5`, subject); n != 200 {
		t.Fatalf("runs with 3 checks and 5 model calls (plan, 3 verify, revise): %d, want 200", n)
	}
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE subject = $1 AND status = 'done'`, subject); n != 200 {
		t.Fatalf("done outcomes: %d, want 200", n)
	}
	if n := b.count(t, `SELECT count(*) FROM statement_results WHERE external_id LIKE 'stmt-%' AND revised_text LIKE 'Revised: Statement number %' AND job_id IN (SELECT job_id FROM runs WHERE subject = $1)`, subject); n != 200 {
		t.Fatalf("statement_results rows with the revision: %d, want 200", n)
	}
}

// Done when: a message that is not JSON, or misses text and question, published straight onto
// the subject, ends as one rejected row in job_outcomes with a reason, and the worker keeps working.
func TestBadMessagesAreRejectedAndTheWorkerGoesOn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	b.publishRaw(t, "this is not JSON")
	b.publishRaw(t, `{"v":1,"method":"cove-factored"}`)
	b.publishRaw(t, `{"v":1,"text":"A fine statement about Paris.","method":"no-such-method"}`)
	good := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)

	rows, err := b.store.Pool().Query(context.Background(), `SELECT status, reason FROM job_outcomes WHERE subject = $1 AND job_id <> $2 ORDER BY stream_seq`, b.cfg.Stream.PublishSubject, good)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var status, reason string
		if err := rows.Scan(&status, &reason); err != nil {
			t.Fatal(err)
		}
		got = append(got, status+": "+reason)
	}
	want := []string{"not valid JSON", "needs text, question, or both", "method"}
	if len(got) != len(want) {
		t.Fatalf("outcomes of the bad messages: %q", got)
	}
	for i, g := range got {
		if !strings.HasPrefix(g, "rejected: ") || !strings.Contains(g, want[i]) {
			t.Errorf("outcome %d: %q, want rejected with %q", i+1, g, want[i])
		}
	}
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done'`, good); n != 1 {
		t.Fatalf("the good job after the bad ones: %d done rows, want 1", n)
	}
}

func TestTransientModelErrorIsRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.model.Fail(pipeline.MarkerPlan, 503, "").Once()
	b.factoredModel()
	job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done' AND attempts = 2`, job); n != 1 {
		t.Fatalf("want one done outcome after 2 attempts")
	}
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1 AND attempt = 2`, job); n != 1 {
		t.Fatalf("want one run, from attempt 2")
	}
}

func TestPermanentModelErrorFailsTheRunWithItsTrace(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.model.Fail("", 404, llmtest.ErrorBody("model 'fake-model' not found", "not_found_error", "model_not_found"))
	job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	var status, reason string
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT status, reason FROM job_outcomes WHERE job_id = $1`, job).Scan(&status, &reason); err != nil {
		t.Fatal(err)
	}
	if status != string(jobs.OutcomeFailed) || !strings.Contains(reason, "not found") {
		t.Fatalf("outcome %s: %s", status, reason)
	}
	if n := b.count(t, `SELECT count(*) FROM runs r JOIN model_calls m ON m.run_id = r.id WHERE r.job_id = $1 AND r.status = 'failed' AND m.error IS NOT NULL`, job); n != 1 {
		t.Fatalf("the failed run keeps its failed model call: %d", n)
	}
}

func TestAttemptsExhaustedIsDeadWithPayload(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.model.Fail("", 500, "")
	job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	var status, reason string
	var handled int
	var payload []byte
	// handled_attempts, not attempts (the highest delivery count): a delivery lost on its way
	// counts in the latter and costs the job nothing.
	if err := b.store.Pool().QueryRow(context.Background(), `SELECT status, reason, handled_attempts, payload FROM job_outcomes WHERE job_id = $1`, job).Scan(&status, &reason, &handled, &payload); err != nil {
		t.Fatal(err)
	}
	if status != string(jobs.OutcomeDead) || handled != 3 || !strings.Contains(string(payload), "Eiffel") || !strings.Contains(reason, "500") {
		t.Fatalf("outcome %s after %d handled attempts (%s), payload %q", status, handled, reason, payload)
	}
	// Each attempt keeps its own reason: two retries, then the last attempt that made it dead.
	rows, err := b.store.Pool().Query(context.Background(), `SELECT outcome || ': ' || coalesce(reason, '') FROM message_attempts WHERE job_id = $1 ORDER BY attempt`, job)
	if err != nil {
		t.Fatal(err)
	}
	tried, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(tried) != 3 || !strings.HasPrefix(tried[0], "retry: attempt 1 failed") || !strings.HasPrefix(tried[1], "retry: attempt 2 failed") ||
		!strings.HasPrefix(tried[2], "dead: the last of 3 attempts failed") || !strings.Contains(tried[0], "500") {
		t.Fatalf("attempts %q: want two retries and the dead one, each with its reason", tried)
	}
}

func TestRedeliveredStoredJobIsNotRunAgain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	m := jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored}
	job := b.publish(t, m)
	b.runWorkers(t, 1)
	calls := b.model.Count()
	// The same job again, as a producer might send it after the dedupe window.
	if _, err := jobs.Publish(context.Background(), b.js, b.cfg.Stream.PublishSubject, m, job+"-again"); err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf(`{"v":1,"text":%q,"method":"cove-factored"}`, b.text)
	if _, err := jobs.PublishRaw(context.Background(), b.js, b.cfg.Stream.PublishSubject, []byte(raw), job); err != nil {
		t.Fatal(err)
	}
	if err := b.js.DeleteStream(context.Background(), b.cfg.Stream.Stream); err != nil {
		t.Fatal(err)
	}
	// A fresh stream has no dedupe memory: the same job id arrives again.
	if _, err := jobs.PublishRaw(context.Background(), b.js, b.cfg.Stream.PublishSubject, []byte(raw), ""); err == nil {
		t.Fatal("publishing to a deleted stream must fail")
	}
	b.publish(t, m)
	b.runWorkers(t, 1)
	if b.model.Count() != calls {
		t.Fatalf("a job with a stored run ran again: %d model calls, want %d", b.model.Count(), calls)
	}
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1`, job); n != 1 {
		t.Fatalf("runs of the job: %d, want 1", n)
	}
	// The copy was acked, not left for redelivery: a work-queue stream keeps a message until it
	// is acked (what a killed nats-server 2.9 left behind comes back this way, see
	// docs/reliability.md#nats-server-versions).
	stream, err := b.js.Stream(context.Background(), b.cfg.Stream.Stream)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := stream.CachedInfo().State.Msgs; msgs != 0 {
		t.Fatalf("%d message(s) left in the stream: a copy of a stored job must be acked", msgs)
	}
}

func TestHelpNamesEveryVariable(t *testing.T) {
	t.Parallel()
	help := describeFlags()
	for _, v := range []string{"DATABASE_URL", "NATS_URL", "CORROBORATE_MODEL", "OPENAI_BASE_URL", "CORROBORATE_CONCURRENCY", "CORROBORATE_STREAM", "CORROBORATE_EXIT_WHEN_IDLE", "CORROBORATE_METRICS_ADDR"} {
		if !strings.Contains(help, "$"+v) {
			t.Errorf("--help does not name $%s", v)
		}
	}
}

// randomLetters is a random run of n lower-case letters: a bundle's id, unique to each test. It
// has no digit, since it ends up in the statements' text ("(ref T...)") and in what the worker
// stores from them, where a run of digits could hold a number a test asserts is absent (one run
// held "324", the figure an invented correction must not bring in).
func randomLetters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rand.IntN(26))
	}
	return string(b)
}
