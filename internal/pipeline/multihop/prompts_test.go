package multihop

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// checkPromptGolden compares a rendered prompt byte for byte with testdata/prompts/<name>.golden
// (go test -run Prompts -update rewrites it).
func checkPromptGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "prompts", name+".golden")
	if *pipelinetest.UpdateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -run Prompts -update to write it): %v", err)
	}
	if string(want) != got {
		t.Errorf("prompt %s differs from %s\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// The multihop prompts are our own, written to spec 004: golden files pin them.
func TestMultihopPromptsGolden(t *testing.T) {
	t.Parallel()
	mi, err := checkMultihopInput(pipeline.Input{Text: specStatement, Today: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
		Options: pipeline.Options{TemporalScope: []byte(`{"start_date":"2023-01-01","end_date":"2024-12-31","prefer_recent":true}`)}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := renderPlanPrompt(mi)
	if err != nil {
		t.Fatal(err)
	}
	checkPromptGolden(t, "multihop_plan", plan)

	judgePrompt, err := renderJudgePrompt(apoeClaim1, []evidence.Retrieved{{SearchResult: srcNature}, {SearchResult: srcNIH}}, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	checkPromptGolden(t, "multihop_judge", judgePrompt)
}
