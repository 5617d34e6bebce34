package main

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// cove2's revised text obeys the review (issue 12, rule 8), end to end: JetStream, the worker,
// the fake model over HTTP as a dishonest reviewer, the PostgreSQL corpus, and what is read back
// is the stored revised_text, the run's flags and the claims' stored verdicts.
func TestCove2RevisedTextObeysTheReviewEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.openBook(t)

	// Each job's draft names its case; the reviewer reads it in the finalize prompt and lies
	// accordingly. tail is the rest of the draft after towerDraft (its case and reference),
	// which every reviewer but "x" copies.
	type reviewer struct {
		revised    func(h, c, tail string) string
		correction string
	}
	cases := map[string]reviewer{
		"honest": {revised: func(h, c, tail string) string {
			return fmt.Sprintf("The Eiffel Tower is 330 metres tall %s and was completed in 1889 %s. %s.%s", h, c, towerVisitors, tail)
		}},
		// Rewrites the completion, which its review confirmed, and the shallow claim.
		"rewrite": {revised: func(h, c, tail string) string {
			return fmt.Sprintf("The Eiffel Tower is 330 metres tall %s and was finished long ago %s. Being in Paris, it draws few visitors.%s", h, c, tail)
		}},
		// Adds a figure that no source of the corpus has.
		"number": {revised: func(h, c, tail string) string {
			return fmt.Sprintf("The Eiffel Tower is 330 metres tall %s, weighs 7,300 tonnes, and was completed in 1889 %s. %s.%s", h, c, towerVisitors, tail)
		}},
		// Replaces the whole statement.
		"x": {revised: func(string, string, string) string { return "x" }},
		// Corrects to a height no source gives.
		"invented": {revised: func(h, c, tail string) string {
			return fmt.Sprintf("The Eiffel Tower is 324 metres tall %s and was completed in 1889 %s. %s.%s", h, c, towerVisitors, tail)
		}, correction: "The Eiffel Tower is 324 metres tall"},
	}
	drafts := map[string]string{}
	for name := range cases {
		drafts[name] = b.own(towerDraft + " Case " + name + ".")
	}
	// The finalize reply, by the case named in the prompt's draft; registered before the
	// script's rules, which answer the plan and the verifiers.
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		if !strings.Contains(prompt, pipeline.MarkerCove2Finalize) {
			return llmtest.Response{}, false
		}
		name := ""
		for n := range cases {
			if strings.Contains(prompt, "Case "+n+".") {
				name = n
			}
		}
		r, ok := cases[name]
		if !ok {
			return llmtest.Response{}, false
		}
		sources := finalizeSources(prompt)
		review := cove2.Review{
			Claims: []cove2.ClaimReview{
				{ID: 1, Status: cove2.ReviewCorrected, Corrected: cmp.Or(r.correction, "The Eiffel Tower is 330 metres tall"), Basis: sources[1]},
				{ID: 2, Status: cove2.ReviewConfirmed, Basis: sources[2]},
				{ID: 3, Status: cove2.ReviewConfirmed},
			},
			RevisedResponse: r.revised(citation(sources[1]), citation(sources[2]), strings.TrimPrefix(drafts[name], towerDraft)),
		}
		return llmtest.Response{Text: mustJSON(t, review)}, true
	})
	b.cove2Model(t, towerScript(towerDraft, "How tall is the Eiffel Tower?", "When was the Eiffel Tower completed?"))

	jobsByCase := map[string]string{}
	for name := range cases {
		jobsByCase[name] = b.publish(t, jobs.Message{V: 1, ID: "finalize-" + name, Text: drafts[name], Method: pipeline.MethodCove2})
	}
	b.runWorkers(t, 1)
	template, err := pipelinetest.ReportTemplate(testenv.ReadSpec(t, "000_062d78d26b120756.txt"))
	if err != nil {
		t.Fatal(err)
	}

	type stored struct {
		revised            string
		flags              []string
		supported, refuted int
		unverified, claims int
	}
	read := func(name string) (stored, []claimRow) {
		t.Helper()
		var s stored
		job := jobsByCase[name]
		run := b.runOf(t, job)
		if run.Status != store.RunDone || run.ResultStatus != pipeline.StatusChecked {
			t.Fatalf("%s: run %+v", name, run)
		}
		s.flags = run.ReviewFlags
		if err := b.store.Pool().QueryRow(context.Background(), `
			SELECT coalesce(revised_text, ''), supported, refuted, unverified, claims FROM statement_results WHERE job_id = $1`, job).
			Scan(&s.revised, &s.supported, &s.refuted, &s.unverified, &s.claims); err != nil {
			t.Fatal(err)
		}
		return s, b.claimRows(t, job)
	}
	hasFlag := func(s stored, code string) bool {
		return slices.ContainsFunc(s.flags, func(f string) bool { return strings.HasPrefix(f, code+":") || f == code })
	}
	// The draft with the accepted correction and the confirmation's citations: what the honest
	// reviewer wrote, and what the code builds when a reviewer's text is refused.
	want := func(name string, claims []claimRow) string {
		cite := func(c claimRow) string {
			parts := make([]int, len(c.Citations))
			for i, n := range c.Citations {
				parts[i] = int(n)
			}
			return citation(parts)
		}
		return strings.Replace(strings.Replace(drafts[name], towerHeight, "The Eiffel Tower is 330 metres tall "+cite(claims[0]), 1),
			"completed in 1889.", "completed in 1889 "+cite(claims[1])+".", 1)
	}

	for _, name := range []string{"honest", "rewrite", "number", "x"} {
		s, claims := read(name)
		if len(claims) != 3 {
			t.Fatalf("%s: claims %+v", name, claims)
		}
		h, c, sh := claims[0], claims[1], claims[2]
		if h.Verdict != pipeline.VerdictRefuted || h.CorrectedTxt != "The Eiffel Tower is 330 metres tall" || len(h.Citations) == 0 {
			t.Errorf("%s: the corrected claim: %+v", name, h)
		}
		if c.Verdict != pipeline.VerdictSupported || len(c.Citations) == 0 {
			t.Errorf("%s: the confirmed claim: %+v", name, c)
		}
		if sh.Verdict == pipeline.VerdictSupported || len(sh.Citations) != 0 {
			t.Errorf("%s: the shallow claim is closed-book, never supported: %+v", name, sh)
		}
		if s.supported != 1 || s.refuted != 1 || s.unverified != 1 {
			t.Errorf("%s: statement_results counts supported %d refuted %d unverified %d, want 1, 1, 1", name, s.supported, s.refuted, s.unverified)
		}
		if s.revised != want(name, claims) {
			t.Errorf("%s: stored revised_text\n got %q\nwant %q", name, s.revised, want(name, claims))
		}
		// Every stored report follows spec 000's template text.
		for _, p := range pipelinetest.CheckReportFormat(template, b.runOf(t, jobsByCase[name]).Report, false) {
			t.Errorf("%s: the stored report: %s", name, p)
		}
		switch name {
		case "honest":
			for _, code := range []string{pipeline.FlagRevisedResponseReverted, pipeline.FlagRevisedResponseRefused, pipeline.FlagUnsupportedAddition} {
				if hasFlag(s, code) {
					t.Errorf("honest: flagged %s: %v", code, s.flags)
				}
			}
		case "rewrite":
			// Whole words: the statement's random reference ("(ref T...)") may hold "few" (a CI
			// run's was "Tskxrbmndwwlgzfew").
			if !hasFlag(s, pipeline.FlagRevisedResponseReverted) || rewrittenWords.MatchString(s.revised) {
				t.Errorf("rewrite: flags %v, revised %q", s.flags, s.revised)
			}
		case "number":
			if !hasFlag(s, pipeline.FlagUnsupportedAddition) || strings.Contains(s.revised, "7,300") {
				t.Errorf("number: flags %v, revised %q", s.flags, s.revised)
			}
		case "x":
			if !hasFlag(s, pipeline.FlagRevisedResponseRefused) {
				t.Errorf("x: flags %v", s.flags)
			}
		}
	}

	// The invented correction is refused whole: the original height stays, and nothing of 324
	// is stored.
	s, claims := read("invented")
	if h := claims[0]; h.Verdict == pipeline.VerdictRefuted || h.CorrectedTxt != "" || !strings.Contains(h.Reason, "324") {
		t.Errorf("invented: the correction is refused: %+v", h)
	}
	if !hasFlag(s, pipeline.FlagUnsupportedAddition) || strings.Contains(s.revised, "324") || !strings.Contains(s.revised, towerHeight) {
		t.Errorf("invented: flags %v, revised %q", s.flags, s.revised)
	}
	if report := b.runOf(t, jobsByCase["invented"]).Report; strings.Contains(report, "324") {
		t.Errorf("invented: the report carries the invented figure:\n%s", report)
	}
}

// rewrittenWords are the words the "rewrite" reviewer puts in place of the draft's, which no
// accepted correction covers.
var rewrittenWords = regexp.MustCompile(`\b(?:finished|few)\b`)
