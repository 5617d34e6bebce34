package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// bench's --help lists its exit statuses; a bad flag is exit 2, before anything starts.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "Exit status:\n  0  done") {
		t.Errorf("--help: exit %d:\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"--rpm", "many"}, &stdout, &stderr); code != 2 {
		t.Errorf("--rpm many: exit %d, want 2:\n%s", code, stderr.String())
	}
}
