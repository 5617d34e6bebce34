package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/store"
)

// dishonestJudge scripts multihop's judge as a model that claims High on whatever it cites:
// for the opening (c1) it cites one unofficial source that says 1937 with a passage the source
// holds, and a second source with a passage that no source says; for the span (c2) it refutes on
// one unofficial source that says 1964, quoted honestly. Neither rests on an authoritative
// source (.gov), so nothing can reach High through that rule.
func (b *bundle) dishonestJudge(t testing.TB, plan multihop.Plan) {
	t.Helper()
	rawPlan, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	// The first two unofficial sources that hold text, in prompt order (the .gov page may come
	// first: a hop keeps the pages titled with the claim's entity first).
	unofficialWith := func(prompt, text string) []promptSourceOf {
		var unofficial []promptSourceOf
		for _, s := range sourcesIn(prompt) {
			if !strings.Contains(s.url, ".gov") {
				unofficial = append(unofficial, s)
			}
		}
		return containing(unofficial, text)
	}
	passageOf := func(s promptSourceOf) string { return strings.Join(strings.Fields(s.txt)[:6], " ") }
	b.model.Handle(func(prompt string) (llmtest.Response, bool) {
		switch {
		case strings.Contains(prompt, pipeline.MarkerMultihopPlan):
			return llmtest.Response{Text: string(rawPlan)}, true
		case strings.Contains(prompt, pipeline.MarkerMultihopJudge):
			claim := pipeline.PromptClaim.FindStringSubmatch(prompt)
			if claim == nil {
				return llmtest.Response{}, false
			}
			reply := map[string]any{"reason": "The sources settle it.", "supported_part": "", "correction": "", "confidence": "High"}
			var cites []map[string]any
			switch {
			case strings.Contains(claim[1], "opened in 1937"):
				reply["verdict"] = pipeline.VerdictSupported
				src := unofficialWith(prompt, "1937")
				if len(src) < 2 {
					return llmtest.Response{}, false
				}
				cites = []map[string]any{
					{"source": src[0].n, "passage": passageOf(src[0]), "stance": "supports"},
					{"source": src[1].n, "passage": "the bridge was painted gold for its 1937 opening", "stance": "supports"},
				}
			case strings.Contains(claim[1], "40 years"):
				reply["verdict"], reply["correction"] = pipeline.VerdictRefuted, bridgeJudge["40 years"].correction
				src := unofficialWith(prompt, "1964")
				if len(src) == 0 {
					return llmtest.Response{}, false
				}
				cites = []map[string]any{{"source": src[0].n, "passage": passageOf(src[0]), "stance": "refutes"}}
			default:
				return llmtest.Response{}, false
			}
			reply["citations"] = cites
			raw, _ := json.Marshal(reply)
			return llmtest.Response{Text: string(raw)}, true
		}
		return llmtest.Response{}, false
	})
}

// Rules 1 and 2 end to end (JetStream, the worker, the PostgreSQL corpus): a judge that claims
// High on one unofficial voice gets Medium and single_source; a cited passage that is not in its
// source is dropped with quote_not_in_source, and the verdict stands on what remains; what is
// stored per cited source is the passage the verdict relies on, found in that source's text.
func TestCorroborationEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.openBook(t)
	b.dishonestJudge(t, bridgePlan())
	job := b.publish(t, jobs.Message{V: 1, ID: "bridge-corroboration", Text: b.own(bridgeStatement), Method: pipeline.MethodMultihop})
	b.runWorkers(t, 1)

	run := b.runOf(t, job)
	if run.Status != store.RunDone || run.ResultStatus != pipeline.StatusChecked {
		t.Fatalf("run: %+v", run)
	}
	flags := strings.Join(run.ReviewFlags, "\n")
	for _, want := range []string{pipeline.FlagSingleSource + ": claim 1", pipeline.FlagQuoteNotInSource + ": claim 1", pipeline.FlagSingleSource + ": claim 2"} {
		if !strings.Contains(flags, want) {
			t.Errorf("review flags lack %q:\n%s", want, flags)
		}
	}

	claims := b.claimRows(t, job)
	if len(claims) != 2 {
		t.Fatalf("claim_results: %+v", claims)
	}
	opened, span := claims[0], claims[1]
	if opened.Verdict != pipeline.VerdictSupported || opened.Confidence != pipeline.ConfidenceMedium || len(opened.Citations) != 1 {
		t.Errorf("the opening (High claimed; one real passage, one invented): %+v", opened)
	}
	if span.Verdict != pipeline.VerdictRefuted || span.Confidence != pipeline.ConfidenceMedium || len(span.Citations) != 1 {
		t.Errorf("the span (High claimed on one unofficial source): %+v", span)
	}

	// Each cited source's evidence row holds its passage and stance, and the passage is in that
	// source's stored text; claim_results lists them per claim.
	ctx := context.Background()
	rows, err := b.store.Pool().Query(ctx, `
		SELECT c.position, c.confirmed, jsonb_array_length(c.cited_passages), e.url, coalesce(e.quote, ''), coalesce(e.stance, ''),
		       coalesce(e.title, '') || ' ' || coalesce(e.snippet, '')
		FROM claim_results c JOIN evidence e ON e.run_id = c.run_id AND e.claim_position = c.position AND e.source_number = ANY (c.citations)
		WHERE c.job_id = $1 ORDER BY c.position`, job)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var pos, passages int
		var confirmed bool
		var url, quote, stance, text string
		if err := rows.Scan(&pos, &confirmed, &passages, &url, &quote, &stance, &text); err != nil {
			t.Fatal(err)
		}
		seen++
		wantStance := map[int]string{1: "supports", 2: "refutes"}[pos]
		if quote == "" || !strings.Contains(text, quote) || stance != wantStance || passages != 1 {
			t.Errorf("claim %d cites %s with passage %q (stance %q, %d passages): want a passage of its text, stance %s", pos, url, quote, stance, passages, wantStance)
		}
		if strings.Contains(quote, "painted gold") {
			t.Errorf("the invented passage was stored: %q", quote)
		}
		if confirmed != (pos == 1) {
			t.Errorf("claim %d: confirmed %v", pos, confirmed)
		}
	}
	if seen != 2 {
		t.Errorf("%d cited evidence rows, want one per claim", seen)
	}
	if n := b.count(t, `SELECT count(*) FROM evidence WHERE run_id = $1 AND quote LIKE '%painted gold%'`, run.ID); n != 0 {
		t.Errorf("%d evidence rows keep the invented passage", n)
	}
	if n := b.count(t, `SELECT confirmed FROM statement_results WHERE run_id = $1`, run.ID); n != 1 {
		t.Errorf("statement_results.confirmed = %d, want 1", n)
	}
}
