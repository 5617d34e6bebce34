package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// An empty input file is exit 2 with nothing published, in every format, with --skip-invalid
// too (which exited 0 having published nothing); NATS unreachable is exit 1.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	unreachable := []string{"--nats-url", "nats://127.0.0.1:1"}
	for _, tt := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"empty jsonl", append(unreachable, writeFile(t, "empty.jsonl", "")), exitInvalid, "holds no statements (the input is empty)"},
		{"empty csv", append(unreachable, writeFile(t, "empty.csv", "")), exitInvalid, "holds no statements"},
		{"empty txt", append(unreachable, writeFile(t, "empty.txt", "\n\n")), exitInvalid, "holds no statements"},
		{"empty with --skip-invalid", append(unreachable, "--skip-invalid", writeFile(t, "empty.txt", "")), exitInvalid, "nothing was published"},
		{"retry with an empty --ids file", []string{"retry", "--dry-run", "--database-url", "postgres://nobody@127.0.0.1:1/x", "--ids", writeFile(t, "ids.txt", "")}, exitInvalid, "lists no job id"},
		{"NATS unreachable", append(unreachable, "--text", "The Eiffel Tower was completed in 1889."), exitError, "cannot connect to NATS"},
		{"no input", unreachable, exitInvalid, "nothing to enqueue"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.says) {
			t.Errorf("%s: exit %d, want %d saying %q:\n%s%s", tt.name, code, tt.code, tt.says, stdout.String(), stderr.String())
		}
	}
}

// --help of enqueue and of its subcommands lists the NATS secrets and the exit statuses.
func TestHelpListsTheEnvironmentAndExitCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"[$NATS_URL]", "[$DATABASE_URL]", "$NATS_USER\n", "$NATS_PASSWORD\n", "$NATS_TOKEN\n", "Exit status:\n  0  done", "\n  3  --wait: some job ended failed, dead or rejected"}},
		{[]string{"retry", "--help"}, []string{"[$NATS_URL]", "$NATS_TOKEN\n", "Exit status:", "\n  2  bad usage"}},
		{[]string{"reverify", "--help"}, []string{"[$NATS_URL]", "$NATS_TOKEN\n", "Exit status:", "\n  2  bad usage"}},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Errorf("enqueue %v: exit %d", tt.args, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout.String()+stderr.String(), w) {
				t.Errorf("enqueue %v does not say %q:\n%s", tt.args, w, stderr.String())
			}
		}
	}
}
