package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/exitcode"
	"github.com/corroborate/corroborate/internal/testenv"
)

// Exit statuses the tests expect of the process.
const (
	exitOK      = exitcode.OK
	exitInvalid = exitcode.Usage
)

// runAsMain, set in a child's environment, makes the test binary run main with the child's
// arguments, so that the tests below see what a user sees: the process's exit status and
// output, main's wiring included.
const runAsMain = "CORROBORATE_TEST_EVALUATE_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runAsMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// runEvaluate runs the command as a process and returns its exit status, stdout and stderr.
func runEvaluate(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := testenv.Command(t, 2*time.Minute, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("evaluate %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}
