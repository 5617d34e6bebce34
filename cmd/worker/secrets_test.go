package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// syncBuffer is a log sink for concurrent workers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The API key is never logged and never stored, even when a server echoes it back in errors.
func TestAPIKeyIsNeverLoggedNorStored(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const key = "sk-test-7d1e-NEVER-IN-LOGS-0042"
	b.cfg.OpenAIAPIKey = key
	var logs syncBuffer
	b.log = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// A transient failure and a permanent one, both echoing the key, then a success.
	b.model.Fail(pipeline.MarkerPlan, 500, llmtest.ErrorBody("upstream rejected key "+key, "server_error", key)).Header("X-Echo", key).Once()
	b.model.Fail("statement that fails", 401, llmtest.ErrorBody("Incorrect API key provided: "+key, "invalid_request_error", "invalid_api_key"))
	b.factoredModel()
	good := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	bad := b.publish(t, jobs.Message{V: 1, Text: "A statement that fails " + b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)

	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done'`, good); n != 1 {
		t.Fatal("the good job did not end done")
	}
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'failed'`, bad); n != 1 {
		t.Fatal("the job refused with 401 did not end failed")
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the API key is in the logs:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "[redacted]") {
		t.Errorf("the test proves nothing unless the echoed key reached the logs redacted:\n%s", logs.String())
	}
	// Every text column of every table this run wrote.
	for _, q := range []string{
		`SELECT count(*) FROM model_calls m JOIN runs r ON r.id = m.run_id WHERE r.job_id = ANY($1) AND (m.prompt LIKE $2 OR m.reply LIKE $2 OR m.error LIKE $2)`,
		`SELECT count(*) FROM runs WHERE job_id = ANY($1) AND (error LIKE $2 OR draft LIKE $2 OR revised_text LIKE $2 OR options::text LIKE $2)`,
		`SELECT count(*) FROM messages WHERE job_id = ANY($1) AND (reason LIKE $2 OR convert_from(coalesce(payload, ''), 'UTF8') LIKE $2)`,
	} {
		if n := b.count(t, q, []string{good, bad}, fmt.Sprintf("%%%s%%", key)); n != 0 {
			t.Errorf("the API key is stored: %s", q)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM model_calls m JOIN runs r ON r.id = m.run_id WHERE r.job_id = $1 AND m.error LIKE '%[redacted]%'`, bad); n == 0 {
		t.Errorf("the failed call's error was stored without its redaction: the test proves nothing")
	}
}
