package testenv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Command is exec.Command for a test, bounded: the process runs in a process group of its own,
// and the whole group (a shell's background jobs included) is killed when timeout passes, so that
// a hung child fails its test within timeout, with whatever it printed, instead of holding the
// package until go test's -timeout; and again when the test ends, on failure too, so that
// nothing the process started outlives the test (a `worker &` of a script, a server a test
// forgot to stop).
func Command(t testing.TB, timeout time.Duration, name string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	// A grandchild holding the output pipes must not keep Wait waiting once the group is killed.
	cmd.WaitDelay = 5 * time.Second
	t.Cleanup(func() {
		cancel()
		if err := killGroup(cmd); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("killing the processes of %s: %v", name, err)
		}
	})
	return cmd
}

// killGroup kills the process group cmd leads, if it started and anything of the group is left.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
