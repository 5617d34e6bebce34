package cove

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// specFile is the user's specification of the CoVe variants (testenv.SpecFile finds it).
const specFile = "001_f62d8cd70c418801.txt"

// specPrompt returns the code block under "### heading" in the named variant's section of the
// CoVe specification spec.
func specPrompt(t *testing.T, spec, variant, heading string) string {
	t.Helper()
	lines := strings.Split(spec, "\n")
	variants := map[string]bool{"Factored": true, "Joint": true, "Two-step": true, "Factor + revise": true}
	current, inHeading, inBlock := "", false, false
	var block []string
	for _, line := range lines {
		switch {
		case inBlock && line == "```":
			return strings.Join(block, "\n")
		case inBlock:
			block = append(block, line)
		case variants[line]:
			current = line
		case strings.HasPrefix(line, "### "):
			inHeading = current == variant && strings.TrimPrefix(line, "### ") == heading
		case inHeading && line == "```markdown":
			inBlock = true
		}
	}
	t.Fatalf("the specification has no prompt %q in the %s section", heading, variant)
	return ""
}

// mustache renders the specification's Handlebars-style prompt: {{name}} from vars, and
// {{#each list}}...{{/each}} blocks over items, where a tag alone on its line takes the line
// with it, as Handlebars does (a closing tag on the prompt's last line has no newline to take).
func mustache(tmpl string, vars map[string]string, lists map[string][]map[string]string) string {
	each := regexp.MustCompile(`(?s)\{\{#each (\w+)\}\}\n(.*?)\{\{/each\}\}(?:\n|$)`)
	tmpl = each.ReplaceAllStringFunc(tmpl, func(m string) string {
		parts := each.FindStringSubmatch(m)
		var b strings.Builder
		for _, item := range lists[parts[1]] {
			b.WriteString(substitute(parts[2], item))
		}
		return b.String()
	})
	return substitute(tmpl, vars)
}

func substitute(s string, vars map[string]string) string {
	return regexp.MustCompile(`\{\{(\w+)\}\}`).ReplaceAllStringFunc(s, func(m string) string {
		name := strings.Trim(m, "{}")
		if v, ok := vars[name]; ok {
			return v
		}
		return m
	})
}

// promptCase is one prompt of the specification rendered with sample values by our template and
// by the specification's own text.
type promptCase struct {
	template string
	variant  string
	heading  string
	data     any
	vars     map[string]string
	lists    map[string][]map[string]string
}

var sampleChecks = []pipeline.Check{
	{Question: "Where was Hillary Clinton born?", Answer: "Chicago"},
	{Question: "Where was Donald Trump born?", Answer: "Queens"},
}

var sampleCheckMaps = []map[string]string{
	{"question": "Where was Hillary Clinton born?", "answer": "Chicago"},
	{"question": "Where was Donald Trump born?", "answer": "Queens"},
}

const (
	sampleQuestion = "Name some politicians who were born in New York."
	sampleDraft    = "Hillary Clinton, Donald Trump, Theodore Roosevelt"
)

var factoredPromptCases = []promptCase{
	{template: "cove_draft", variant: "Factored", heading: "Draft prompt",
		data: struct{ Question string }{sampleQuestion}, vars: map[string]string{"question": sampleQuestion}},
	{template: "cove_plan_verification", variant: "Factored", heading: "Plan verification prompt",
		data: struct{ Question, Draft string }{sampleQuestion, sampleDraft},
		vars: map[string]string{"question": sampleQuestion, "draft": sampleDraft}},
	{template: "factored_verify", variant: "Factored", heading: "Verification prompt",
		data: struct{ VerificationQuestion string }{"Where was Hillary Clinton born?"},
		vars: map[string]string{"verification_question": "Where was Hillary Clinton born?"}},
	{template: "factored_revise", variant: "Factored", heading: "Revise prompt",
		data: struct {
			Question, Draft string
			Checks          []pipeline.Check
		}{sampleQuestion, sampleDraft, sampleChecks},
		vars:  map[string]string{"question": sampleQuestion, "draft": sampleDraft},
		lists: map[string][]map[string]string{"checks": sampleCheckMaps}},
}

// checkPromptCases renders every case with our template and compares it byte for byte with its
// golden file (in the repository: it always runs), then with the specification's prompt rendered
// with the same values (wherever the specification is: else skipped, in one line).
func checkPromptCases(t *testing.T, cases []promptCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.variant+"/"+c.heading, func(t *testing.T) {
			got, err := pipeline.RenderPrompt(c.template, c.data)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "prompts", c.template+".golden")
			if *pipelinetest.UpdateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			saved, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("reading golden file (run go test -run Prompts -update to write it): %v", err)
			}
			if string(saved) != got {
				t.Fatalf("prompt %s differs from %s", c.template, golden)
			}
		})
	}
	spec := testenv.ReadSpec(t, specFile)
	for _, c := range cases {
		t.Run(c.variant+"/"+c.heading+"/spec", func(t *testing.T) {
			got, err := pipeline.RenderPrompt(c.template, c.data)
			if err != nil {
				t.Fatal(err)
			}
			want := mustache(specPrompt(t, spec, c.variant, c.heading), c.vars, c.lists)
			if got != want {
				t.Fatalf("prompt %s differs from the specification\n--- ours\n%q\n--- spec\n%q", c.template, got, want)
			}
		})
	}
}

func TestFactoredPromptsMatchSpec(t *testing.T) {
	t.Parallel()
	checkPromptCases(t, factoredPromptCases)
}

// sampleCheckPairs is how renderCheckPairs must render sampleChecks for {{checks}}: written out
// here, not computed, so that the test pins the rendering.
const sampleCheckPairs = "\nQ: Where was Hillary Clinton born?\nA: Chicago\nQ: Where was Donald Trump born?\nA: Queens\n"

// sharedPromptCases are the Draft and Plan verification prompts as the named variant's section of
// the specification writes them: every variant that uses them must have the same text, which our
// one template for each proves.
func sharedPromptCases(variant string, plan bool) []promptCase {
	cases := []promptCase{{template: "cove_draft", variant: variant, heading: "Draft prompt",
		data: struct{ Question string }{sampleQuestion}, vars: map[string]string{"question": sampleQuestion}}}
	if plan {
		cases = append(cases, promptCase{template: "cove_plan_verification", variant: variant, heading: "Plan verification prompt",
			data: struct{ Question, Draft string }{sampleQuestion, sampleDraft},
			vars: map[string]string{"question": sampleQuestion, "draft": sampleDraft}})
	}
	return cases
}

var jointPromptCases = append(sharedPromptCases("Joint", false),
	promptCase{template: "joint_plan_answer", variant: "Joint", heading: "Plan and answer prompt",
		data: struct{ Question, Draft string }{sampleQuestion, sampleDraft},
		vars: map[string]string{"question": sampleQuestion, "draft": sampleDraft}},
	promptCase{template: "joint_revise", variant: "Joint", heading: "Revise prompt",
		data: struct{ Question, Draft, Checks string }{sampleQuestion, sampleDraft, renderCheckPairs(sampleChecks)},
		vars: map[string]string{"question": sampleQuestion, "draft": sampleDraft, "checks": sampleCheckPairs}},
)

var twoStepPromptCases = append(sharedPromptCases("Two-step", true),
	promptCase{template: "twostep_verify_all", variant: "Two-step", heading: "Answer all checks prompt",
		data: struct{ Questions []numberedQuestion }{[]numberedQuestion{
			{1, "Where was Hillary Clinton born?"}, {2, "Where was Donald Trump born?"}}},
		lists: map[string][]map[string]string{"questions": {
			{"number": "1", "text": "Where was Hillary Clinton born?"},
			{"number": "2", "text": "Where was Donald Trump born?"}}}},
	promptCase{template: "twostep_revise", variant: "Two-step", heading: "Revise prompt",
		data: struct{ Question, Draft, Checks string }{sampleQuestion, sampleDraft, renderCheckPairs(sampleChecks)},
		vars: map[string]string{"question": sampleQuestion, "draft": sampleDraft, "checks": sampleCheckPairs}},
)

const (
	sampleClaim       = "Donald Trump was born in Queens in 1948"
	sampleClaimCheck  = "When and where was Donald Trump born?"
	sampleClaimAnswer = "Queens, New York, on June 14, 1946"
)

var factorRevisePromptCases = append(sharedPromptCases("Factor + revise", false),
	promptCase{template: "factorrevise_plan", variant: "Factor + revise", heading: "Plan claims and checks prompt",
		data: struct{ Question, Draft string }{sampleQuestion, sampleDraft},
		vars: map[string]string{"question": sampleQuestion, "draft": sampleDraft}},
	promptCase{template: "factorrevise_verify", variant: "Factor + revise", heading: "Verification prompt",
		data: struct{ VerificationQuestion string }{sampleClaimCheck},
		vars: map[string]string{"verification_question": sampleClaimCheck}},
	promptCase{template: "factorrevise_cross_check", variant: "Factor + revise", heading: "Cross-check prompt",
		data: struct{ Claim, VerificationQuestion, VerificationAnswer string }{sampleClaim, sampleClaimCheck, sampleClaimAnswer},
		vars: map[string]string{"claim": sampleClaim, "verification_question": sampleClaimCheck, "verification_answer": sampleClaimAnswer}},
	promptCase{template: "factorrevise_revise", variant: "Factor + revise", heading: "Revise prompt",
		data: struct{ Question, ClaimsWithVerdicts string }{sampleQuestion, renderClaimVerdicts([]pipeline.Claim{
			{Text: "Hillary Clinton was born in New York", VariantVerdict: CrossCheckInconsistent},
			{Text: sampleClaim, VariantVerdict: CrossCheckPartial, ConsistentPart: "Donald Trump was born in Queens"},
			{Text: "Theodore Roosevelt was born in Manhattan", VariantVerdict: CrossCheckConsistent},
		})},
		vars: map[string]string{"question": sampleQuestion, "claims_with_verdicts": "\n" +
			"Claim: Hillary Clinton was born in New York\nVerdict: INCONSISTENT\n" +
			"Claim: Donald Trump was born in Queens in 1948\nVerdict: PARTIALLY CONSISTENT: Donald Trump was born in Queens\n" +
			"Claim: Theodore Roosevelt was born in Manhattan\nVerdict: CONSISTENT\n"}},
)

func TestJointPromptsMatchSpec(t *testing.T) {
	t.Parallel()
	checkPromptCases(t, jointPromptCases)
}

func TestTwoStepPromptsMatchSpec(t *testing.T) {
	t.Parallel()
	checkPromptCases(t, twoStepPromptCases)
}

func TestFactorRevisePromptsMatchSpec(t *testing.T) {
	t.Parallel()
	checkPromptCases(t, factorRevisePromptCases)
}
