package llm_test

import (
	"context"
	"testing"

	"github.com/corroborate/corroborate/examples"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove"
)

func TestReplayRunsTheBundledExample(t *testing.T) {
	t.Parallel()
	replay, err := llm.NewReplay(examples.Replay)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cove.Factored{Model: replay}.Run(context.Background(), pipeline.Input{
		Text: "The Eiffel Tower was completed in 1887 and stands in Lyon.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.RevisedText != "The Eiffel Tower was completed in 1889 and stands in Paris." || len(res.Checks) != 2 || res.Checks[0].Answer != "1889" {
		t.Fatalf("revised %q checks %+v", res.RevisedText, res.Checks)
	}
	if res.Calls[0].Model != llm.ReplayModel {
		t.Fatalf("replayed calls must say so: model %q", res.Calls[0].Model)
	}
}

func TestReplayUnknownStatementIsLeftUnchanged(t *testing.T) {
	t.Parallel()
	replay, err := llm.NewReplay([]byte(`{"rules":[{"step":"plan","contains":"<draft>Unknown","reply":"Where is X?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cove.Factored{Model: replay}.Run(context.Background(), pipeline.Input{Text: "Unknown statement here."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checks[0].Status != pipeline.CheckUnsure || res.RevisedText != "Unknown statement here." {
		t.Fatalf("check %+v revised %q", res.Checks[0], res.RevisedText)
	}
	if _, err := (cove.Factored{Model: replay}).Run(context.Background(), pipeline.Input{Text: "Another one entirely."}); !pipeline.IsPermanent(err) {
		t.Fatalf("a prompt with no recording and no safe answer is a permanent error, got %v", err)
	}
}
