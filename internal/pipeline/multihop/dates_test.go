package multihop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// A claim with a relative time ("137 years ago") is judged from the date its statement was
// published: its judge is told that date, and only its judge; without a date, nothing is
// added (the judge cannot place "137 years ago", and says so). Such a claim is never reused: the
// same words published on another day say another thing. A real model's judge left "219 species
// ... were described 15 years ago" unverified: "the sources give no reference date".
func TestJudgeReadsRelativeTimesFromThePublicationDate(t *testing.T) {
	t.Parallel()
	const (
		relative  = "The Eiffel Tower was completed 137 years ago"
		statement = "The Eiffel Tower, completed 137 years ago, was the tallest structure in the world for 41 years."
	)
	plan := examplePlan()
	plan.Claims[0].ClaimText, plan.Claims[0].SourceSpan, plan.Claims[0].Entities = relative, "The Eiffel Tower, completed 137 years ago", []string{"Eiffel Tower"}
	published := time.Date(2026, 3, 31, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		published *time.Time
		dateLine  string
	}{{&published, "published on 2026-03-31"}, {nil, ""}} {
		model := planModel(t, plan, map[string]string{
			relative:                 judgeJSON("supported", []int{1}, "Medium", "ok", "", "completed on 31 March 1889"),
			plan.Claims[1].ClaimText: judgeJSON("supported", []int{1}, "Medium", "ok", "", "tallest structure in the world until 1930"),
		})
		searcher := &StubSearcher{honour: true, rules: []searchRule{
			{contains: "completed", results: []pipeline.SearchResult{hit("https://a.org/eiffel", "A", "The Eiffel Tower was completed on 31 March 1889.", nil)}},
			{contains: "tallest", results: []pipeline.SearchResult{hit("https://b.org/record", "B", "The Eiffel Tower was the tallest structure in the world until 1930.", nil)}},
		}}
		res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement, Published: tc.published})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range model.Sent(pipeline.StepJudge) {
			dated := strings.Contains(p, "The claim comes from a statement published on")
			switch {
			case strings.Contains(p, "<untrusted_claim>\n"+relative):
				if tc.dateLine != "" && !strings.Contains(p, tc.dateLine) || tc.dateLine == "" && dated {
					t.Errorf("published %v: the relative claim's judge prompt:\n%s", tc.published, p)
				}
			case dated:
				t.Errorf("a claim with no relative time was told the date:\n%s", p)
			}
		}
		if c := res.Claims[0]; c.Reuse.Key != "" {
			t.Errorf("the relative claim can be reused: %+v", c.Reuse)
		}
		if c := res.Claims[1]; c.Reuse.Key == "" {
			t.Errorf("the other claim lost its reuse key: %+v", c.Reuse)
		}
	}
}

// The second look at a partial confirmation of a claim with a relative time is told the date
// too: without it the second reading cannot place "137 years ago" and leaves the claim as the
// first left it, whatever its sources say.
func TestSecondLookReadsRelativeTimesFromThePublicationDate(t *testing.T) {
	t.Parallel()
	const (
		relative  = "The Eiffel Tower was completed 137 years ago"
		statement = "The Eiffel Tower, completed 137 years ago, was the tallest structure in the world for 41 years."
		completed = "The Eiffel Tower was completed on 31 March 1889"
	)
	plan := examplePlan()
	plan.Claims[0].ClaimText, plan.Claims[0].SourceSpan, plan.Claims[0].Entities = relative, "The Eiffel Tower, completed 137 years ago", []string{"Eiffel Tower"}
	sup := evidence.StanceSupports
	first := judgeReplyJSON(t, "partly_supported", "Medium", "", nil, judgeCitation{1, completed, sup})
	first = strings.Replace(first, `"supported_part":""`, `"supported_part":"The Eiffel Tower was completed in 1889."`, 1)
	model := planModel(t, plan, map[string]string{
		relative:                 first,
		plan.Claims[1].ClaimText: judgeJSON("supported", []int{1}, "Medium", "ok", "", "tallest structure in the world until 1930"),
	})
	model.Rules = append([]pipelinetest.StubRule{{Contains: secondLookMarker, Reply: judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, completed, sup})}}, model.Rules...)
	searcher := &StubSearcher{honour: true, rules: []searchRule{
		{contains: "completed", results: []pipeline.SearchResult{hit("https://a.org/eiffel", "A", completed+".", nil)}},
		{contains: "tallest", results: []pipeline.SearchResult{hit("https://b.org/record", "B", "The Eiffel Tower was the tallest structure in the world until 1930.", nil)}},
	}}
	published := time.Date(2026, 3, 31, 9, 30, 0, 0, time.UTC)
	res, err := Multihop{Model: model, Searcher: searcher}.Run(context.Background(), pipeline.Input{Text: statement, Published: &published})
	if err != nil {
		t.Fatal(err)
	}
	looks := 0
	for _, p := range model.Sent(pipeline.StepJudge) {
		if !strings.Contains(p, secondLookMarker) {
			continue
		}
		looks++
		if !strings.Contains(p, "published on 2026-03-31") {
			t.Errorf("the second look at the relative claim is not told the date:\n%s", p)
		}
	}
	if c := res.Claims[0]; looks != 1 || c.Verdict != pipeline.VerdictSupported {
		t.Errorf("%d second looks; claim 1: %+v", looks, c)
	}
}
