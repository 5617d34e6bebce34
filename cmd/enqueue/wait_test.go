package main

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// The results table prints a model's text (a revised answer, a failure's reason) to a terminal:
// escape sequences in it must reach the terminal as plain characters, never as control codes.
func TestPrintResultsStripsControlCharacters(t *testing.T) {
	t.Parallel()
	revised := "The tower\x1b]0;owned\x07 is 330 m\x1b[2J tall.\nSecond line"
	reason := "model said \x1b[31mno\x1b[0m"
	var out strings.Builder
	printResults(&out, []publishedJob{{"a.txt", "j1"}, {"b.txt", "j2"}}, map[string]store.JobResult{
		"j1": {JobID: "j1", Status: jobs.OutcomeDone, RevisedText: &revised},
		"j2": {JobID: "j2", Status: jobs.OutcomeFailed, Reason: &reason},
	})
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Errorf("control characters reached the terminal:\n%q", out.String())
	}
	for _, want := range []string{"The tower ]0;owned is 330 m [2J tall. Second line", "model said [31mno [0m"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
