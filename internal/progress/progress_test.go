package progress

import (
	"bytes"
	"strings"
	"testing"
)

// Off a terminal, progress is plain lines: one when the total is reached, none repeated.
func TestPlainLinesOffATerminal(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	b := New("claims", 3, &out)
	b.Add(1)
	b.Add(1)
	b.Set(3)
	b.Done()
	if got := out.String(); got != "progress: 3 of 3 claims\n" {
		t.Fatalf("got %q", got)
	}
	out.Reset()
	b = New("jobs have an outcome", 5, &out)
	b.Set(2)
	b.Done()
	if got := out.String(); !strings.HasSuffix(got, "progress: 2 of 5 jobs have an outcome\n") || strings.Count(got, "\n") != 1 {
		t.Fatalf("an unfinished wait ends with one line saying where it stopped: %q", got)
	}
}
