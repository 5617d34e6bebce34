package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how a helper ended: with a path, a skip or a failure.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

// call runs f with a recorder in a goroutine of its own (Skipf and Fatalf end it).
func call(t *testing.T, f func(tb testing.TB) string) (path string, r *recorder) {
	r = &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		path = f(r)
	}()
	<-done
	return path, r
}

// Not t.Parallel: the subtests set environment variables.
func TestExternalFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "feverous-s"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"001_x.txt", "feverous-s/dev.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Dir(filepath.Dir(mustWd(t))); root != want {
		t.Fatalf("repository root %s, want %s (two levels above internal/testenv)", root, want)
	}

	t.Run("named directory", func(t *testing.T) {
		t.Setenv(SpecDirEnv, dir)
		t.Setenv(DatasetsEnv, dir)
		if p, r := call(t, func(tb testing.TB) string { return SpecFile(tb, "001_x.txt") }); p != filepath.Join(dir, "001_x.txt") || r.skipped+r.failed != "" {
			t.Errorf("spec: %q %+v", p, r)
		}
		if p, r := call(t, func(tb testing.TB) string { return Dataset(tb, "feverous-s/dev.json") }); p != filepath.Join(dir, "feverous-s", "dev.json") || r.skipped+r.failed != "" {
			t.Errorf("dataset: %q %+v", p, r)
		}
	})
	t.Run("named directory without the file fails", func(t *testing.T) {
		t.Setenv(SpecDirEnv, dir)
		t.Setenv(DatasetsEnv, dir)
		if _, r := call(t, func(tb testing.TB) string { return SpecFile(tb, "000_missing.txt") }); r.failed == "" || r.skipped != "" {
			t.Errorf("spec: %+v", r)
		}
		if _, r := call(t, func(tb testing.TB) string { return Dataset(tb, "factcheck-bench/x.jsonl") }); r.failed == "" || r.skipped != "" {
			t.Errorf("dataset: %+v", r)
		}
	})
	t.Run("absent skips in one line", func(t *testing.T) {
		t.Setenv(SpecDirEnv, "")
		t.Setenv(DatasetsEnv, "")
		// No ../shared beside the repository holds a file of this name.
		_, r := call(t, func(tb testing.TB) string { return SpecFile(tb, "no-such-spec-file.txt") })
		if r.failed != "" || !strings.HasPrefix(r.skipped, "spec comparison skipped: ") ||
			!strings.Contains(r.skipped, "set CORROBORATE_SPEC_DIR") || strings.Contains(r.skipped, "\n") {
			t.Errorf("spec: %+v", r)
		}
		_, r = call(t, func(tb testing.TB) string { return Dataset(tb, "no-such/data.json") })
		if r.failed != "" || !strings.HasPrefix(r.skipped, "data-set test skipped: ") ||
			!strings.Contains(r.skipped, "set CORROBORATE_DATASETS") || strings.Contains(r.skipped, "\n") {
			t.Errorf("dataset: %+v", r)
		}
	})
}

func mustWd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
