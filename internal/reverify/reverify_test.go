package reverify

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

func TestJobIDNamesTheNightOfTheCutoff(t *testing.T) {
	t.Parallel()
	// Run at 01:00 on the 4th with --older-than 24h, the night is the cutoff's: the 3rd.
	afterMidnight := time.Date(2026, 11, 4, 1, 0, 0, 0, time.Local)
	if got, want := JobID(42, Cutoff(afterMidnight, 24*time.Hour)), "reverify:42:2026-11-03"; got != want {
		t.Errorf("JobID = %q, want %q", got, want)
	}
	if got, want := JobID(42, Cutoff(afterMidnight, time.Hour)), "reverify:42:2026-11-04"; got != want {
		t.Errorf("JobID with --older-than 1h = %q, want %q", got, want)
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	cutoff := time.Date(2026, 11, 3, 2, 0, 0, 0, time.Local)
	good := store.ReverifyCandidate{StatementID: 1, ExternalID: "a1", Text: "The Eiffel Tower is in Paris.", Language: "fr",
		RunID: 10, RequestedMethod: "cove-joint", Method: "cove-joint", Options: json.RawMessage(`{"max_hops": 2, "temporal_scope": null}`)}
	noRequest := store.ReverifyCandidate{StatementID: 2, Text: "Water boils at 100 degrees.", Language: "en", RunID: 11, Method: "multihop"}
	badOptions := store.ReverifyCandidate{StatementID: 3, Text: "Water boils at 100 degrees.", Language: "en", RunID: 12, Method: "multihop", Options: json.RawMessage(`{"max_hops": "two"}`)}
	oneWord := store.ReverifyCandidate{StatementID: 4, Text: "Paris", Language: "en", RunID: 13, Method: "multihop"}

	todo, skipped := Plan([]store.ReverifyCandidate{good, noRequest, badOptions, oneWord}, cutoff, jobs.ValidationConfig{})
	if len(todo) != 2 || len(skipped) != 2 {
		t.Fatalf("todo %+v skipped %+v, want 2 and 2", todo, skipped)
	}
	if skipped[0].Candidate.StatementID != 3 || !strings.Contains(skipped[0].Err.Error(), "options of run 12") {
		t.Errorf("skipped[0] = %d: %v, want statement 3 with unreadable options", skipped[0].Candidate.StatementID, skipped[0].Err)
	}
	if skipped[1].Candidate.StatementID != 4 || !strings.Contains(skipped[1].Err.Error(), "two words") {
		t.Errorf("skipped[1] = %d: %v, want statement 4 failing validation", skipped[1].Candidate.StatementID, skipped[1].Err)
	}
	for i, want := range []struct {
		id, method, language string
	}{{"reverify:1:2026-11-03", "cove-joint", "fr"}, {"reverify:2:2026-11-03", "multihop", "en"}} {
		j := todo[i]
		if j.ID != want.id {
			t.Errorf("job %d: id %q, want %q", i, j.ID, want.id)
		}
		// What is published is what the worker reads: decode the bytes as it will.
		m, err := jobs.Decode(j.Message.Data, jobs.ValidationConfig{DefaultMethod: "cove-factored"})
		if err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		if m.Method != want.method || m.Language != want.language || m.Options.Reverify == nil || !*m.Options.Reverify {
			t.Errorf("job %d: published %s, want method %s, language %s and options.reverify", i, j.Message.Data, want.method, want.language)
		}
	}
	if m := todo[0].Message.Message; m.ID != "a1" || m.Options.MaxHops == nil || *m.Options.MaxHops != 2 || m.Options.TemporalScope != nil {
		t.Errorf("the latest job's options and id are not carried over: %+v", m)
	}
}
