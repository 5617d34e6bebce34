package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/testenv"
)

// runAsMain, set in a child's environment, makes the test binary run main with the child's
// arguments, so that the test below sees what a user sees: the process's exit status and output.
const runAsMain = "CORROBORATE_TEST_BENCH_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// bench's --help lists its exit statuses; a bad flag is exit 2, before anything starts.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--help"}, 0, "Exit status:\n  0  done"},
		{[]string{"--rpm", "many"}, 2, "--rpm"},
		{[]string{"reuse", "--help"}, 0, "Usage: go run ./cmd/bench reuse"},
	} {
		cmd := testenv.Command(t, 2*time.Minute, os.Args[0], tt.args...)
		cmd.Env = append(os.Environ(), runAsMain+"=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("bench %v: %v", tt.args, err)
		}
		if code := cmd.ProcessState.ExitCode(); code != tt.code || !strings.Contains(stderr.String(), tt.says) {
			t.Errorf("bench %v: exit %d, want %d saying %q:\n%s", tt.args, code, tt.code, tt.says, stderr.String())
		}
	}
}
