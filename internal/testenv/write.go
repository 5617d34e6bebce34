package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to a file called name in a directory of the test's own (removed
// after it) and returns the file's path: the input file of a test, written where the test reads.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
