package retry

import (
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 23, 30, 0, 0, time.Local)
	good, err := jobs.EncodeMessage(jobs.Message{V: 1, Text: "The Eiffel Tower is in Paris.", Method: "cove-two-step", ID: "a1"}, jobs.ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	candidates := []store.RetryCandidate{
		{JobID: "cli:1", Status: jobs.OutcomeFailed, Payload: good.Data},
		{JobID: "cli:2", Status: jobs.OutcomeDead, Payload: []byte("not json")},
	}
	todo, skipped := Plan(candidates, "", now, jobs.ValidationConfig{})
	if len(todo) != 1 || len(skipped) != 1 {
		t.Fatalf("todo %+v skipped %+v, want one of each", todo, skipped)
	}
	if todo[0].ID != "retry:cli:1:2026-12-01" {
		t.Errorf("job id %q, want retry:cli:1:2026-12-01", todo[0].ID)
	}
	m := todo[0].Message.Message
	if m.RetryOf != "cli:1" || m.Method != "cove-two-step" || m.ID != "a1" || m.Text != "The Eiffel Tower is in Paris." {
		t.Errorf("the retry's message %+v: want the original with retry_of cli:1", m)
	}
	if !strings.Contains(skipped[0].Err.Error(), "not a valid job message") {
		t.Errorf("skip reason %v", skipped[0].Err)
	}
	todo, _ = Plan(candidates[:1], "multihop", now, jobs.ValidationConfig{})
	if todo[0].Message.Message.Method != "multihop" {
		t.Errorf("--method multihop: the retry runs %s", todo[0].Message.Message.Method)
	}
}
