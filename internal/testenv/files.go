package testenv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Files from outside the repository. The specification (../shared/spec) and the public data sets
// (../shared/datasets) are not the project's: a plain clone has neither, so a test that compares
// with them runs wherever they are and otherwise skips, saying so in one line. docs/testing.md
// tells how to point the tests at them.
const (
	// SpecDirEnv names the directory that holds the specification's files (000_….txt, …).
	SpecDirEnv = "CORROBORATE_SPEC_DIR"
	// DatasetsEnv names the directory that holds the data sets (feverous-s/, factcheck-bench/).
	DatasetsEnv = "CORROBORATE_DATASETS"
)

// SpecFile returns the path of the specification's file name (e.g. "001_f62d8cd70c418801.txt"):
// in $CORROBORATE_SPEC_DIR, else in ../shared/spec beside the repository root. Where neither
// holds it, the test is skipped with one line. When $CORROBORATE_SPEC_DIR is set, the file must
// be there: a directory named on purpose that lacks it fails the test instead of skipping it.
func SpecFile(t testing.TB, name string) string {
	t.Helper()
	return external(t, "spec comparison", SpecDirEnv, "spec", name)
}

// ReadSpec returns the text of the specification's file name, located as SpecFile does.
func ReadSpec(t testing.TB, name string) string {
	t.Helper()
	raw, err := os.ReadFile(SpecFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// Dataset returns the path of relpath (e.g. "feverous-s/feverous_s_dev.json") in the data sets
// directory: $CORROBORATE_DATASETS, else ../shared/datasets beside the repository root. Where
// neither holds it, the test is skipped with one line; when $CORROBORATE_DATASETS is set, the
// file must be there.
func Dataset(t testing.TB, relpath string) string {
	t.Helper()
	return external(t, "data-set test", DatasetsEnv, "datasets", relpath)
}

// external finds rel under $env, else under ../shared/<sharedDir> beside the repository root.
func external(t testing.TB, what, env, sharedDir, rel string) string {
	t.Helper()
	if dir := os.Getenv(env); dir != "" {
		if !filepath.IsAbs(dir) {
			// Relative to the repository root, where make test is run (go test runs each
			// package in its own directory).
			root, err := RepoRoot()
			if err != nil {
				t.Fatalf("%s=%s is relative and %v", env, dir, err)
			}
			dir = filepath.Join(root, dir)
		}
		p := filepath.Join(dir, rel)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %s is set but %v", what, env, err)
		}
		return p
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.Dir(root), "shared", sharedDir, rel)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.Skipf("%s skipped: no %s (%s unset, none in ../shared/%s beside the repository); set %s to the directory that holds it",
				what, rel, env, sharedDir, env)
		}
		t.Fatal(err)
	}
	return p
}

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// RepoRoot returns the repository's root: the nearest directory at or above the working
// directory (a test's package directory) that holds go.mod.
func RepoRoot() (string, error) {
	rootOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				root = d
				return
			}
			if filepath.Dir(d) == d {
				rootErr = fmt.Errorf("no go.mod at or above %s", wd)
				return
			}
		}
	})
	return root, rootErr
}
