package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// --help lists every variable the worker reads, the secrets that have no flag included, and
// its exit codes.
func TestHelpListsTheEnvironmentAndExitCodes(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--help"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("--help: exit %d\n%s", code, stderr.String())
	}
	help := stdout.String() + stderr.String()
	for _, want := range []string{"$OPENAI_API_KEY\n", "$OPENAI_API_KEY_FILE", "$BRAVE_API_KEY", "$NATS_USER", "$NATS_PASSWORD",
		"$NATS_TOKEN", "$NATS_URL", "$DATABASE_URL", "$CORROBORATE_MODEL", "Exit status:\n  0  done", "\n  1  ", "\n  2  bad usage"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
}

// A worker, or worker migrate, without a key exits 2 with one line saying what to set: what
// docker-compose.yml's migrate service prints before any worker starts. Not parallel: it clears
// the key's variables.
func TestNoKeyIsOneLineAndExit2(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_API_KEY_FILE", "")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, args := range [][]string{
		{"--database-url", "postgres://nobody@127.0.0.1:1/x", "--nats-url", "nats://127.0.0.1:1"},
		{"migrate", "--database-url", "postgres://nobody@127.0.0.1:1/x", "--nats-url", "nats://127.0.0.1:1"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], "no model: set OPENAI_API_KEY") {
			t.Errorf("worker %v: exit %d, want 2 and one line naming OPENAI_API_KEY:\n%s", args[0], code, stderr.String())
		}
	}
}

// worker migrate checks the model endpoint as a worker does at start: a refused key is exit 2
// and one line, and nothing is migrated, so that a deployment running migrate first stops there.
func TestMigrateProbesTheModel(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t)
	model.StartOutage(llmtest.Response{Status: 401, Body: llmtest.ErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key")})
	var stdout, stderr bytes.Buffer
	code := run([]string{"migrate", "--database-url", testenv.SchemaURL(t, "worker_migrate_probe"), "--nats-url", testenv.NATSURL(t),
		"--openai-base-url", model.URL(), "--log-format", "json"}, &stdout, &stderr)
	out := strings.ReplaceAll(stderr.String(), model.URL(), "URL")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != exitUsage || len(lines) != 1 || !strings.Contains(out, "worker: OPENAI_API_KEY was refused by URL") {
		t.Fatalf("migrate with a refused key: exit %d, want 2 and one line:\n%s", code, out)
	}
	if strings.Contains(stdout.String(), "migrations are up to date") {
		t.Fatalf("migrate went on after the probe failed: %s", stdout.String())
	}
}

// A service that cannot be reached is exit 1, not 2: the configuration may be right and the
// database only down, so a supervisor may restart the worker.
func TestUnreachableDatabaseIsExit1(t *testing.T) {
	t.Parallel()
	model := llmtest.NewServer(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"--database-url", "postgres://nobody@127.0.0.1:1/x", "--nats-url", testenv.NATSURL(t),
		"--openai-base-url", model.URL(), "--log-format", "json", "--metrics-addr", ""}, &stdout, &stderr)
	if code != exitFailed || !strings.Contains(stderr.String(), "worker stopped") {
		t.Fatalf("PostgreSQL unreachable: exit %d, want 1:\n%s", code, stderr.String())
	}
}
