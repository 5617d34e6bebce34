package cove

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

func TestSameText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		draft, revised string
		want           bool
	}{
		{"Hillary Clinton, Donald Trump.", "hillary clinton donald trump", true},
		{"A was born in X.", "  A was born in X!\n", true},
		{"A — born 1,000 years ago", "A: born 1 000 years ago", true},
		{"Hillary Clinton, Donald Trump", "Donald Trump", false},
		{"A was born in X.", "A was born in Y.", false},
		{"A was born in X.", "A was born in X in 1901.", false},
		{"A was born in X.", "X is where A was born.", false},
	}
	for _, c := range cases {
		if got := pipeline.SameText(c.draft, c.revised); got != c.want {
			t.Errorf("sameText(%q, %q) = %v, want %v", c.draft, c.revised, got, c.want)
		}
	}
}

func TestCheckClaimsMapping(t *testing.T) {
	t.Parallel()
	checks := []pipeline.Check{
		{Position: 1, Question: "q1?", Answer: "a", Status: pipeline.CheckAnswered},
		{Position: 2, Question: "q2?", Answer: "unsure", Status: pipeline.CheckUnsure},
		{Position: 3, Question: "q3?", Answer: "unsure", Status: pipeline.CheckFailed, Error: "verify: HTTP 500"},
	}
	cases := []struct {
		name, revised string
		want          []string
	}{
		{"draft unchanged", "The Draft.", []string{pipeline.VerdictSupported, pipeline.VerdictUnverified, pipeline.VerdictUnverified}},
		{"draft changed", "Another text.", []string{pipeline.VerdictUnverified, pipeline.VerdictUnverified, pipeline.VerdictUnverified}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			claims := checkClaims(checks, "the draft", c.revised)
			if len(claims) != len(checks) {
				t.Fatalf("claims: %+v", claims)
			}
			for i, claim := range claims {
				if claim.Verdict != c.want[i] || claim.Position != i+1 || claim.CheckPosition != checks[i].Position ||
					claim.Text != checks[i].Question || claim.VariantVerdict != checks[i].Status || claim.Reason == "" {
					t.Errorf("claim %d: %+v, want verdict %s", i+1, claim, c.want[i])
				}
			}
			if !strings.Contains(claims[2].Reason, "HTTP 500") {
				t.Errorf("a failed check's reason carries its error: %q", claims[2].Reason)
			}
		})
	}
}
