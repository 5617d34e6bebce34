package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
)

// The README carries the job message's JSON Schema for other systems: it must be the one the
// worker validates with.
func TestREADMEShowsTheMessageSchema(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, bytes.TrimSpace(jobs.SchemaJSON)) {
		t.Fatal("README.md does not hold internal/jobs/job.v1.schema.json verbatim: copy it into the JSON Schema section")
	}
}

// The README's configuration table, or a page under docs/, names every variable the worker
// reads.
func TestREADMENamesEveryVariable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("../../docs/*.md")
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, page...)
	}
	for _, line := range strings.Split(describeFlags(), "\n") {
		i := strings.Index(line, "[$")
		if i < 0 {
			continue
		}
		variable := strings.TrimSuffix(line[i+2:], "]")
		if !bytes.Contains(readme, []byte("`"+variable+"`")) {
			t.Errorf("neither README.md nor docs/*.md documents $%s", variable)
		}
	}
}
