// Package corroborate_test holds the tests of the module as a whole, not of one package.
package corroborate_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/layout.md is where a contributor looks for a package's one job, so it names every package
// under internal/ and cmd/ by its full path, in backticks, and nothing that is gone. A package
// added without its line, or moved or removed without its line changing, fails here rather than
// leaving the page to drift (it had missed five when this test came).
func TestLayoutNamesEveryPackage(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("docs/layout.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:internal|cmd)/[a-z0-9_/]+?)/?`").FindAllStringSubmatch(string(page), -1) {
		named[m[1]] = true
	}

	var packages []string
	for _, root := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			// The go tool's own rule: testdata and names starting with . or _ hold no package.
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if hasGoFiles(t, path) {
				packages = append(packages, filepath.ToSlash(path))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(packages) < 10 {
		t.Fatalf("found only %d packages under internal/ and cmd/ (%v): is the test running in the module root?", len(packages), packages)
	}

	for _, p := range packages {
		if !named[p] {
			t.Errorf("docs/layout.md does not name `%s`: add its line to the table, with its one job", p)
		}
	}
	for p := range named {
		if !slices.Contains(packages, p) {
			t.Errorf("docs/layout.md names `%s`, which is no package: correct or remove its line", p)
		}
	}
}

// hasGoFiles reports whether dir holds a .go file of its own.
func hasGoFiles(t *testing.T, dir string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
		return !e.IsDir() && strings.HasSuffix(e.Name(), ".go")
	})
}
