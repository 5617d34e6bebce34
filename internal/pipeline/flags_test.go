package pipeline

import "testing"

// A flag's one-line form is the "code: detail" string flags were stored as before they had a
// type (and what migration 00007 splits back into code and detail).
func TestReviewFlagString(t *testing.T) {
	for _, tt := range []struct {
		flag ReviewFlag
		want string
	}{
		{Flag(FlagMaxHopsAbove5), "max_hops_above_5"},
		{Flagf(FlagCitationRemoved, "[%d]", 3), "citation_removed: [3]"},
		{Flagf(FlagCorrectionRefused, "claim %d: %s", 1, "Low confidence"), "correction_refused: claim 1: Low confidence"},
	} {
		if got := tt.flag.String(); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.flag, got, tt.want)
		}
	}
}
