package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/examples"
	"github.com/corroborate/corroborate/internal/devenv"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// quickStart is the fenced block of the README's "Quick start against your own services".
func quickStart(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Quick start against your own services")
	if !ok {
		t.Fatal(`README.md has no "## Quick start against your own services"`)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the quick start has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	return strings.Split(strings.TrimSpace(block), "\n")
}

// Every command of the README's quick start, pasted as it is into bash, in the repository's root:
// `make build`, the binaries on PATH, createdb, the archive loaded, the backlog enqueued and
// waited for, the psql query. Only the services are the test's own: the database (a fresh one,
// made by the createdb line), the NATS server, and the model, a fake OpenAI server answering
// with the demo's recorded replies (the backlog holds the demo's statements). So the README
// cannot drift from what works.
func TestQuickStartAsPasted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the quick start builds every command: not with -short")
	}
	pgBin, err := devenv.PostgresBinDir()
	if err != nil {
		t.Skip("quick start: no PostgreSQL client programs (createdb, psql): ", err)
	}
	for _, tool := range []string{"bash", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("quick start: no %s on PATH", tool)
		}
	}
	base, err := url.Parse(testenv.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	db := fmt.Sprintf("quickstart_%d", rand.Uint32())
	dbURL := *base
	dbURL.Path = "/" + db
	dbURL.RawQuery = ""
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, base.String()); err == nil {
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
			conn.Close(ctx)
		}
	})

	// The fake model answers each prompt the recording holds with its recorded reply.
	var doc struct{ Rules []llm.ReplayRule }
	if err := json.Unmarshal(examples.Replay, &doc); err != nil {
		t.Fatal(err)
	}
	replies := map[string]string{}
	for _, r := range doc.Rules {
		replies[r.PromptSHA256] = r.Reply
	}
	// A prompt it did not record is refused as the request's own fault (HTTP 400), not as an
	// outage, which the worker's breaker would hold for ever: a quick start that drifts from the
	// recording fails in seconds, with the jobs' reasons in its output.
	model := llmtest.NewServer(t, llmtest.WithDefault(llmtest.Response{Status: http.StatusBadRequest,
		Body: llmtest.ErrorBody("quick start: no recorded reply for this prompt (examples/replay.json)", "invalid_request_error", "unrecorded_prompt")}))
	model.Handle(func(prompt string) (llmtest.Response, bool) {
		reply, ok := replies[llm.PromptSHA256(prompt)]
		return llmtest.Response{Text: reply}, ok
	})

	var script strings.Builder
	script.WriteString("set -e\n")
	for _, line := range quickStart(t) {
		switch {
		case strings.HasPrefix(line, "createdb "):
			line = "createdb " + db
		case strings.HasPrefix(line, "export DATABASE_URL="):
			line = "export DATABASE_URL=" + dbURL.String()
		case strings.HasPrefix(line, "export NATS_URL="):
			line = "export NATS_URL=" + testenv.NATSURL(t)
		case strings.HasPrefix(line, "export OPENAI_API_KEY="):
			line = "export OPENAI_API_KEY=test-key OPENAI_BASE_URL=" + model.URL()
		}
		script.WriteString(line + "\n")
	}
	// The worker runs in the background, as pasted; it is stopped when the commands are done.
	script.WriteString("kill $(jobs -p); wait || true\n")

	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	id := rand.Uint32()
	user := base.User.Username()
	// Bounded, and killed with its process group (the worker it put in the background too) when
	// it hangs or the test ends.
	cmd := testenv.Command(t, 6*time.Minute, "bash", "-c", script.String())
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"PATH="+os.Getenv("PATH")+string(os.PathListSeparator)+pgBin,
		"PGHOST="+base.Hostname(), "PGPORT="+base.Port(), "PGUSER="+user,
		// The test's own stream, and no fixed metrics port: other tests share the NATS server and
		// the host.
		fmt.Sprintf("CORROBORATE_STREAM=QUICKSTART%d", id), fmt.Sprintf("CORROBORATE_SUBJECTS=quickstart%d.>", id),
		fmt.Sprintf("CORROBORATE_PUBLISH_SUBJECT=quickstart%d.backlog", id), fmt.Sprintf("CORROBORATE_CONSUMER=quickstart%d", id),
		"CORROBORATE_METRICS_ADDR=127.0.0.1:0", "CORROBORATE_NO_WORKER_TIMEOUT=1m", "CORROBORATE_WAIT_TIMEOUT=2m",
		// The recorded replies answer the prompts of the day they were recorded for.
		"CORROBORATE_TODAY="+examples.Date,
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("the quick start as pasted failed: %v\n--- script\n%s--- output\n%s", err, script.String(), out.String())
	}
	got := out.String()
	for _, want := range []string{
		"3 queued, 0 duplicates, 0 invalid skipped",
		"3 done, 0 rejected, 0 failed, 0 dead",
		"The Eiffel Tower was completed in 1889 and stands in Paris.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the quick start's output lacks %q", want)
		}
	}
	// psql's table: the header names error, and each statement of the backlog is done with none.
	for _, want := range []string{`external_id\s*\|\s*status\s*\|\s*error\s*\|\s*revised_text`,
		`hubble-1\s*\|\s*done\s*\|\s*\|`, `kilimanjaro-1\s*\|\s*done\s*\|\s*\|`, `eiffel-1\s*\|\s*done\s*\|\s*\|`} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("psql's output does not match %s", want)
		}
	}
	if t.Failed() {
		t.Logf("--- script\n%s--- output\n%s", script.String(), got)
	}
}
