package pipelinetest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// UpdateGolden (go test -update) rewrites the golden files instead of comparing with them.
var UpdateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/prompts")

// CheckGolden compares got with testdata/name of the calling package's tests, byte for byte.
func CheckGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *UpdateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -run %s -update to write it): %v", t.Name(), err)
	}
	if string(want) != got {
		t.Errorf("differs from %s\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
