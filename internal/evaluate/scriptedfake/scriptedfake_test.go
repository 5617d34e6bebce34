package scriptedfake

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
)

// judgePrompt is a judge prompt as far as the fake reads it: the marker, the claim, the sources.
func judgePrompt(claim string, sources ...string) string {
	var sb strings.Builder
	sb.WriteString(pipeline.MarkerMultihopJudge + ".\n<untrusted_claim>\n" + claim + "\n</untrusted_claim>\n")
	for i, s := range sources {
		sb.WriteString("<source n=\"" + string(rune('1'+i)) + "\" url=\"https://example.org/\">\n" + s + "\n</source>\n")
	}
	return sb.String()
}

// The judge's rule: the share of the claim's content words in its best source, at least 0.75
// supported, at least 0.4 refuted (citing that source), else unverified.
func TestAnswerJudges(t *testing.T) {
	t.Parallel()
	const claim = "The Harbour Bridge opened in 1932 in Sydney"
	for _, tt := range []struct {
		name    string
		sources []string
		verdict string
		cites   int
	}{
		{"every word in a source", []string{"Unrelated text about gardens.", "In Sydney the Harbour Bridge opened in 1932."}, pipeline.VerdictSupported, 2},
		{"half the words", []string{"The Harbour Bridge in Melbourne."}, pipeline.VerdictRefuted, 1},
		{"no source", nil, pipeline.VerdictUnverified, 0},
		{"no word in common", []string{"Gardens and parks of Vienna."}, pipeline.VerdictUnverified, 0},
	} {
		text, err := Answer(judgePrompt(claim, tt.sources...))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var reply struct {
			Verdict   string `json:"verdict"`
			Citations []struct {
				Source int `json:"source"`
			} `json:"citations"`
		}
		if err := json.Unmarshal([]byte(text), &reply); err != nil {
			t.Fatalf("%s: %v: %s", tt.name, err, text)
		}
		if reply.Verdict != tt.verdict || (tt.cites > 0 && (len(reply.Citations) != 1 || reply.Citations[0].Source != tt.cites)) || (tt.cites == 0 && len(reply.Citations) != 0) {
			t.Errorf("%s: %s, want %s citing source %d", tt.name, text, tt.verdict, tt.cites)
		}
	}
}

// A multihop plan splits the statement at its clause joins, each claim its own span, and passes
// multihop's validation; the hops respect the prompt's maximum.
func TestAnswerPlans(t *testing.T) {
	t.Parallel()
	const statement = "The Eiffel Tower was completed in 1889, and it stands in Paris; Gustave Eiffel designed it"
	prompt := pipeline.MarkerMultihopPlan + "\nMaximum hops per query chain: 2.\n<untrusted_statement lang=\"en\">\n" + statement + "\n</untrusted_statement>\n"
	text, err := Answer(prompt)
	if err != nil {
		t.Fatal(err)
	}
	var plan multihop.Plan
	if err := json.Unmarshal([]byte(text), &plan); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	if len(plan.Claims) != 3 {
		t.Fatalf("%d claims, want one per clause: %s", len(plan.Claims), text)
	}
	for _, c := range plan.Claims {
		if !strings.Contains(statement, c.SourceSpan) {
			t.Errorf("claim %s: span %q is not in the statement", c.ClaimID, c.SourceSpan)
		}
	}
	for _, ch := range plan.QueryChains {
		if len(ch.Hops) == 0 || len(ch.Hops) > 2 {
			t.Errorf("chain of %s: %d hops, want 1 or 2", ch.ClaimID, len(ch.Hops))
		}
	}
}

// The CoVe prompts get their expected shapes, decided by the text alone; a prompt the fake has
// no script for, or a marker without what it must read, is an error, never a made-up answer.
func TestAnswerCoVe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, prompt, want string
	}{
		{"plan: one question per clause", pipeline.MarkerPlan + "\n<draft>Paris is in France, and Rome is in Italy.</draft>", "Is it true that Paris is in France?\nIs it true that Rome is in Italy?"},
		{"cross-check", pipeline.MarkerCrossCheck, "CONSISTENT"},
		{"final answer", pipeline.MarkerFinalAnswer, "Final answer from the consistent claims."},
		{"a verification question without its question", pipeline.MarkerVerify, "unsure"},
	} {
		got, err := Answer(tt.prompt)
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, prompt := range []string{"Write a poem.", pipeline.MarkerMultihopPlan + " (no statement)", pipeline.MarkerMultihopJudge + " (no claim)", pipeline.MarkerRevise + " (no draft)"} {
		if got, err := Answer(prompt); err == nil {
			t.Errorf("Answer(%q) = %q, want an error", prompt, got)
		}
	}
}

// Two-step's verify-all prompt, as the method renders it, gets one numbered answer per question:
// the questions are numbered lines, not the "Q:" lines of the revisions.
func TestAnswerTwoStepVerifyAll(t *testing.T) {
	t.Parallel()
	type question struct {
		Number int
		Text   string
	}
	prompt, err := pipeline.RenderPrompt("twostep_verify_all", struct{ Questions []question }{
		[]question{{1, "Where was Hillary Clinton born?"}, {2, "Where was Donald Trump born?"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Answer(prompt)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "1. ") || !strings.HasPrefix(lines[1], "2. ") {
		t.Errorf("Answer(verify all) = %q, want two numbered answers", got)
	}
}
