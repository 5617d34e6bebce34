package pipeline_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// renderedPrompts are the golden files of every prompt, rendered as the methods send them,
// keyed by the prompt's name (its file name without .tmpl).
func renderedPrompts(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("*", "testdata", "prompts", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	own, _ := filepath.Glob(filepath.Join("testdata", "prompts", "*.golden"))
	prompts := map[string]string{}
	for _, p := range append(paths, own...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		prompts[strings.TrimSuffix(filepath.Base(p), ".golden")] = string(b)
	}
	if len(prompts) < 18 {
		t.Fatalf("found the goldens of %d prompts, want every prompt's (18)", len(prompts))
	}
	return prompts
}

// Each marker is in the prompts it names and in no other, so that a fake that answers by marker
// answers the prompt it means; a prompt reworded out of its marker fails here.
func TestPromptMarkers(t *testing.T) {
	t.Parallel()
	prompts := renderedPrompts(t)
	for _, tt := range []struct {
		marker string
		in     []string
	}{
		{pipeline.MarkerDraft, []string{"cove_draft"}},
		{pipeline.MarkerPlan, []string{"cove_plan_verification"}},
		{pipeline.MarkerJointPlan, []string{"joint_plan_answer"}},
		{pipeline.MarkerFactorRevisePlan, []string{"factorrevise_plan"}},
		{pipeline.MarkerVerify, []string{"factored_verify", "factorrevise_verify"}},
		{pipeline.MarkerVerifyAll, []string{"twostep_verify_all"}},
		{pipeline.MarkerCrossCheck, []string{"factorrevise_cross_check"}},
		{pipeline.MarkerRevise, []string{"factored_revise", "joint_revise", "twostep_revise"}},
		{pipeline.MarkerJointRevise, []string{"joint_revise"}},
		{pipeline.MarkerTwoStepRevise, []string{"twostep_revise"}},
		{pipeline.MarkerFinalAnswer, []string{"factorrevise_revise"}},
		{pipeline.MarkerCove2Plan, []string{"cove2_plan"}},
		{pipeline.MarkerCove2Verify, []string{"cove2_verify"}},
		{pipeline.MarkerCove2Finalize, []string{"cove2_finalize"}},
		{pipeline.MarkerRepair, []string{"cove2_repair"}},
		{pipeline.MarkerMultihopPlan, []string{"multihop_plan"}},
		{pipeline.MarkerMultihopJudge, []string{"multihop_judge"}},
	} {
		var in []string
		for name, p := range prompts {
			if strings.Contains(p, tt.marker) {
				in = append(in, name)
			}
		}
		if slices.Sort(in); !slices.Equal(in, tt.in) {
			t.Errorf("marker %q is in %v, want %v", tt.marker, in, tt.in)
		}
	}
}

// The patterns find their part in the prompts that have it, and in no other.
func TestPromptPatterns(t *testing.T) {
	t.Parallel()
	prompts := renderedPrompts(t)
	for _, tt := range []struct {
		name    string
		pattern *regexp.Regexp
		prompt  string // the prompt whose first match is checked
		want    []string
		in      []string // every prompt it matches
	}{
		{"statement", pipeline.PromptStatement, "multihop_plan",
			[]string{"The same gene variant linked to increased risk of Alzheimer's also appears to reduce the risk of certain cancers, according to recent studies."},
			[]string{"multihop_plan"}},
		{"max hops", pipeline.PromptMaxHops, "multihop_plan", []string{"3"}, []string{"multihop_plan"}},
		{"claim", pipeline.PromptClaim, "multihop_judge",
			[]string{"A gene variant is linked to an increased risk of Alzheimer's disease"}, []string{"multihop_judge"}},
		{"source", pipeline.PromptSource, "multihop_judge",
			[]string{"1", "https://www.nature.com/apoe", "APOE4 is the strongest genetic risk factor for late-onset Alzheimer's disease."},
			[]string{"cove2_verify", "multihop_judge"}},
		{"draft", pipeline.PromptDraft, "factored_revise", []string{"Hillary Clinton, Donald Trump, Theodore Roosevelt"},
			[]string{"cove_plan_verification", "factored_revise", "factorrevise_plan", "joint_plan_answer", "joint_revise", "twostep_revise"}},
		{"question", pipeline.PromptQuestion, "factored_verify", []string{"Where was Hillary Clinton born?"},
			[]string{"cove_draft", "cove_plan_verification", "factored_revise", "factored_verify", "factorrevise_plan",
				"factorrevise_revise", "factorrevise_verify", "joint_plan_answer", "joint_revise", "twostep_revise"}},
		// A numbered line is in multihop's plan too: the pattern is for a prompt MarkerVerifyAll marks.
		{"numbered question", pipeline.PromptNumberedQuestion, "twostep_verify_all", []string{"1", "Where was Hillary Clinton born?"},
			[]string{"multihop_plan", "twostep_verify_all"}},
	} {
		if m := tt.pattern.FindStringSubmatch(prompts[tt.prompt]); m == nil || !slices.Equal(m[1:], tt.want) {
			t.Errorf("%s in %s: %q, want %q", tt.name, tt.prompt, m, tt.want)
		}
		var in []string
		for name, p := range prompts {
			if tt.pattern.MatchString(p) {
				in = append(in, name)
			}
		}
		if slices.Sort(in); !slices.Equal(in, tt.in) {
			t.Errorf("%s matches %v, want %v", tt.name, in, tt.in)
		}
	}
}
