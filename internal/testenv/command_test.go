package testenv

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A script that hangs is killed at its timeout with what it printed, and so is what it put in
// the background: nothing of it is left running.
func TestCommandKillsTheWholeGroupAtItsTimeout(t *testing.T) {
	t.Parallel()
	cmd := Command(t, time.Second, "bash", "-c", "sleep 300 & echo $!; echo started; wait")
	var out bytes.Buffer
	cmd.Stdout = &out
	began := time.Now()
	err := cmd.Run()
	if err == nil {
		t.Fatal("a script that hangs ended without an error")
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the hung script ran %s past a timeout of 1s", took)
	}
	lines := strings.Fields(out.String())
	if len(lines) != 2 || lines[1] != "started" {
		t.Fatalf("the script's output was lost: %q", out.String())
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the script's background sleep (pid %d) still runs after the script was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// running reports whether pid is a live process: not gone, and not a zombie waiting to be reaped.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "123 (sleep) S ...".
	_, after, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}
