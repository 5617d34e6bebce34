package main

import (
	"bytes"
	"strings"
	"testing"
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
		"$NATS_TOKEN", "$NATS_URL", "$DATABASE_URL", "$CORROBORATE_MODEL", "Exit status: 0"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
}
