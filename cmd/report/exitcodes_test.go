package main

import (
	"strings"
	"testing"
)

// --help of report and of each subcommand lists the variables it reads and the exit statuses;
// a database that cannot be reached is exit 1, bad usage exit 2.
func TestHelpListsTheEnvironmentAndExitCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"DATABASE_URL", "Exit status:\n  0  done\n  1  ", "\n  2  bad usage"}},
		{[]string{"summary", "--help"}, []string{"[$DATABASE_URL]", "[$CORROBORATE_REPORT_SINCE]", "Exit status:"}},
		{[]string{"export", "--help"}, []string{"[$DATABASE_URL]", "Exit status:"}},
		{[]string{"html", "--help"}, []string{"[$DATABASE_URL]", "Exit status:"}},
		{[]string{"serve", "--help"}, []string{"[$DATABASE_URL]", "Exit status:"}},
		{[]string{"changes", "--help"}, []string{"[$DATABASE_URL]", "Exit status:"}},
	} {
		code, out, errOut := runReport(t, tt.args...)
		if code != exitOK {
			t.Errorf("report %v: exit %d", tt.args, code)
		}
		for _, w := range tt.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("report %v does not say %q:\n%s", tt.args, w, out+errOut)
			}
		}
	}
	code, _, errOut := runReport(t, "summary", "--database-url", "postgres://nobody@127.0.0.1:1/x")
	if code != exitError {
		t.Errorf("summary with PostgreSQL unreachable: exit %d, want 1:\n%s", code, errOut)
	}
}
