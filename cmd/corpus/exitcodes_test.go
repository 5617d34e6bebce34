package main

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/testenv"
)

// An empty input is a mistake of the input: exit 2 and nothing loaded, as in every command.
func TestEmptyInputsExit2(t *testing.T) {
	t.Parallel()
	db := testenv.SchemaURL(t, "corpus_cmd_empty")
	for _, tt := range []struct {
		name string
		args []string
		says string
	}{
		{"empty file", []string{"load", "--database-url", db, writeFile(t, "empty.jsonl", "")}, "holds no documents (the input is empty): nothing was loaded"},
		{"blank lines", []string{"load", "--database-url", db, writeFile(t, "blank.jsonl", "\n  \n\n")}, "holds no documents"},
		{"empty FEVEROUS-S", []string{"eval-feverous", "--database-url", db, "--dataset", writeFile(t, "feverous.json", "")}, "is empty"},
		{"FEVEROUS-S without claims", []string{"eval-feverous", "--database-url", db, "--dataset", writeFile(t, "feverous.json", "[]")}, "holds no claim"},
	} {
		code, out, errOut := corpusRun(t, tt.args...)
		if code != exitInvalid || !strings.Contains(errOut, tt.says) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s%s", tt.name, code, tt.says, out, errOut)
		}
	}
}

// --help of corpus and of each subcommand lists the variables it reads and the exit statuses.
func TestHelpListsTheEnvironmentAndExitCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"DATABASE_URL", "CORROBORATE_DATASETS", "Exit status:\n  0  done\n  1  ", "\n  2  bad usage"}},
		{[]string{"load", "--help"}, []string{"[$DATABASE_URL]", "[$CORROBORATE_CORPUS_LANGUAGE]", "Exit status:", "\n  2  bad usage"}},
		{[]string{"search", "--help"}, []string{"[$DATABASE_URL]", "Exit status:"}},
		{[]string{"eval-feverous", "--help"}, []string{"[$CORROBORATE_FEVEROUS]", "$CORROBORATE_DATASETS\n", "Exit status:"}},
		{[]string{"owners", "list", "--help"}, []string{"[$DATABASE_URL]", "Exit status:"}},
	} {
		code, out, errOut := corpusRun(t, tt.args...)
		if code != exitOK {
			t.Errorf("corpus %v: exit %d", tt.args, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("corpus %v does not say %q:\n%s", tt.args, w, out+errOut)
			}
		}
	}
}
