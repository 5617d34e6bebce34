package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/testenv"
)

// An empty data set is a mistake of the input: exit 2 before any model call, as in every
// command (plans measured the built-in ambiguous statements alone before, and exited 0).
func TestEmptyDatasetsExit2(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		says string
	}{
		{"empty factcheck-bench", []string{"plans", "--openai-base-url", "http://127.0.0.1:1/v1", "--dataset", testenv.WriteFile(t, "fcb.jsonl", "")}, "holds no sentence with a factual gold claim"},
		{"factcheck-bench of blank lines", []string{"plans", "--openai-base-url", "http://127.0.0.1:1/v1", "--dataset", testenv.WriteFile(t, "fcb.jsonl", "\n\n")}, "holds no sentence"},
		{"empty FEVEROUS-S", []string{"retrieval", "--queries", "claims", "--feverous", testenv.WriteFile(t, "feverous.json", "")}, "is empty"},
	} {
		code, out, errOut := runEvaluate(t, tt.args...)
		if code != exitInvalid || !strings.Contains(errOut, tt.says) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s%s", tt.name, code, tt.says, out, errOut)
		}
	}
}

// --help of evaluate and of its subcommands lists every variable read, the API key's two
// included, and the exit statuses.
func TestHelpListsTheEnvironmentAndExitCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"OPENAI_API_KEY", "OPENAI_API_KEY_FILE", "CORROBORATE_DATASETS", "Exit status:\n  0  done\n"}},
		{[]string{"plans", "--help"}, []string{"$OPENAI_API_KEY\n", "$OPENAI_API_KEY_FILE\n", "[$OPENAI_BASE_URL]", "[$CORROBORATE_MODEL]", "$CORROBORATE_DATASETS\n", "Exit status:", "\n  2  bad usage"}},
		{[]string{"retrieval", "--help"}, []string{"$OPENAI_API_KEY\n", "$OPENAI_API_KEY_FILE\n", "[$DATABASE_URL]", "[$CORROBORATE_FEVEROUS]", "Exit status:"}},
	} {
		code, out, errOut := runEvaluate(t, tt.args...)
		if code != exitOK {
			t.Errorf("evaluate %v: exit %d", tt.args, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("evaluate %v does not say %q:\n%s", tt.args, w, out+errOut)
			}
		}
	}
}

// The key is read as the worker reads it: a key file that cannot be read is a configuration
// error, exit 2, naming the variable.
func TestUnreadableKeyFileExits2(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_API_KEY_FILE", filepath.Join(t.TempDir(), "no-such-key"))
	code, out, errOut := runEvaluate(t, "plans", "--openai-base-url", "http://127.0.0.1:1/v1")
	if code != exitInvalid || !strings.Contains(errOut, "OPENAI_API_KEY_FILE") {
		t.Fatalf("exit %d, want 2 naming OPENAI_API_KEY_FILE:\n%s%s", code, out, errOut)
	}
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("sk-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY_FILE", key)
	t.Setenv("OPENAI_BASE_URL", "")
	// With the key from the file, the model counts as configured: the run gets past the
	// configuration (and fails later, on the data set, not on "no model").
	code, out, errOut = runEvaluate(t, "plans", "--dataset", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != exitInvalid || strings.Contains(errOut, "no model") || !strings.Contains(errOut, "reading factcheck-bench") {
		t.Fatalf("exit %d, want the data set's error, not \"no model\":\n%s%s", code, out, errOut)
	}
}
