package datasets

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"

	"github.com/corroborate/corroborate/internal/testenv"
)

// A JSONL of one's own: labels in any of their spellings, the id defaulting to the line, hops to
// the number of distinct evidence documents, documents shared between claims loaded once, and
// the classes those present.
func TestReadJSONL(t *testing.T) {
	t.Parallel()
	path := testenv.WriteFile(t, "mine.jsonl", `{"id": "a", "text": " The Alden Bridge opened in 1901. ", "label": "SUPPORTS", "evidence": [{"url": "https://example.org/alden", "title": "Alden", "body": "It opened in 1901."}, {"url": "https://example.org/alden#history", "body": "again"}]}

{"text": "The Alden Bridge opened in 1903.", "label": "NOT_SUPPORTED", "hops": 3, "evidence": [{"url": "https://example.org/alden"}]}
{"id": "c", "text": "The Alden Bridge is blue.", "label": "NEI"}
`)
	set, err := Read(path, path)
	if err != nil {
		t.Fatal(err)
	}
	if set.Name != "mine.jsonl" || len(set.Items) != 3 || len(set.Docs) != 1 {
		t.Fatalf("set %s: %d items, %d documents; want mine.jsonl, 3 items, 1 document", set.Name, len(set.Items), len(set.Docs))
	}
	for i, want := range []struct {
		id, text, label string
		hops            int
	}{
		{"a", "The Alden Bridge opened in 1901.", pipeline.VerdictSupported, 1},
		{"3", "The Alden Bridge opened in 1903.", pipeline.VerdictRefuted, 3},
		{"c", "The Alden Bridge is blue.", pipeline.VerdictUnverified, 0},
	} {
		it := set.Items[i]
		if it.Probe.ID != want.id || it.Probe.Text != want.text || it.Gold.Label != want.label || it.Gold.Hops != want.hops {
			t.Errorf("item %d: %+v, want id %s, text %q, label %s, %d hops", i, it, want.id, want.text, want.label, want.hops)
		}
	}
	if !slices.Equal(set.Classes, []string{pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictUnverified}) {
		t.Errorf("classes %v", set.Classes)
	}
}

// A mistake in a labelled file names the file and the line.
func TestReadJSONLMistakes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, content, says string
	}{
		{"not JSON", "{\"text\": \"a\", \"label\": \"true\"}\nnot json\n", ":2: not a labelled claim"},
		{"no text", `{"text": "  ", "label": "true"}`, `:1: "text" is empty`},
		{"an unknown label", `{"text": "a", "label": "mostly true"}`, `:1: label "mostly true" is none of`},
		{"a bad evidence URL", `{"text": "a", "label": "true", "evidence": [{"url": "not a url"}]}`, `:1: evidence url "not a url"`},
	} {
		path := testenv.WriteFile(t, "bad.jsonl", tt.content)
		if _, err := Read(path, path); err == nil || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "bad.jsonl") {
			t.Errorf("%s: %v, want an error naming bad.jsonl and saying %q", tt.name, err, tt.says)
		}
	}
	if _, err := Read("missing", filepath.Join(t.TempDir(), "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "reading the data set") {
		t.Errorf("a missing file: %v", err)
	}
}

// --dataset: a known name resolves in $CORROBORATE_DATASETS, anything else is a path.
func TestPath(t *testing.T) {
	t.Setenv("CORROBORATE_DATASETS", "/data")
	for _, tt := range []struct{ name, want string }{
		{FactcheckBench, "/data/" + FactcheckBenchFile},
		{ExFever, "/data/" + ExFeverFile},
		{"my/claims.jsonl", "my/claims.jsonl"},
	} {
		if got, err := Path(tt.name); err != nil || got != tt.want {
			t.Errorf("Path(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	t.Setenv("CORROBORATE_DATASETS", "")
	if _, err := Path(ExFever); err == nil || !strings.Contains(err.Error(), "CORROBORATE_DATASETS") {
		t.Errorf("a known name without CORROBORATE_DATASETS: %v", err)
	}
	if got, err := Path("claims.jsonl"); err != nil || got != "claims.jsonl" {
		t.Errorf("a path without CORROBORATE_DATASETS: %q, %v", got, err)
	}
}
