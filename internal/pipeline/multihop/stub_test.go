package multihop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// StubSearcher answers each query with the results of the first rule whose marker the query
// contains, and records every query. With honour set it applies the query's exclusions and dates
// as a real provider does; without, it ignores them, as some providers do.
type StubSearcher struct {
	rules  []searchRule
	honour bool

	mu      sync.Mutex
	queries []pipeline.SearchQuery
}

type searchRule struct {
	contains string
	results  []pipeline.SearchResult
	err      error
}

func (s *StubSearcher) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	for _, r := range s.rules {
		if !strings.Contains(strings.ToLower(q.Query), strings.ToLower(r.contains)) {
			continue
		}
		if r.err != nil {
			return pipeline.SearchResponse{Provider: "stub"}, r.err
		}
		var out []pipeline.SearchResult
		for _, res := range r.results {
			if s.honour && honestlyExcluded(q, res) {
				continue
			}
			res.Rank = len(out) + 1
			res.Provider = "stub"
			out = append(out, res)
		}
		return pipeline.SearchResponse{Results: out, Provider: "stub"}, nil
	}
	return pipeline.SearchResponse{Provider: "stub"}, nil
}

// excluded is what an honest provider leaves out of q's results.
func honestlyExcluded(q pipeline.SearchQuery, r pipeline.SearchResult) bool {
	k := evidence.KeysOf(r)
	for _, d := range q.ExcludeDomains {
		if k.Domain == d || strings.HasSuffix(k.Domain, "."+d) {
			return true
		}
	}
	if slices.ContainsFunc(q.ExcludeURLs, func(u string) bool { return evidence.DocumentKey(u) == k.URL }) ||
		k.Publisher != "" && slices.ContainsFunc(q.ExcludePublishers, func(p string) bool { return evidence.NormalizePublisher(p) == k.Publisher }) {
		return true
	}
	if r.PublishedAt == nil {
		return !q.From.IsZero() || !q.To.IsZero()
	}
	return !q.From.IsZero() && r.PublishedAt.Before(q.From) || !q.To.IsZero() && !r.PublishedAt.Before(q.To)
}

func (s *StubSearcher) sent() []pipeline.SearchQuery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.queries)
}

func publishedOn(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func hit(url, publisher, snippet string, published *time.Time) pipeline.SearchResult {
	domain := strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(url, "https://"), "/", 2)[0], "www.")
	return pipeline.SearchResult{URL: url, Title: "Title of " + url, Snippet: snippet, Domain: domain, Publisher: publisher, PublishedAt: published}
}

// Sources of the spec statement's plan (validPlan): one per hop, on distinct domains and
// publishers, and a cross-validation source.
var (
	srcNature = hit("https://www.nature.com/apoe", "Nature", "APOE4 is the strongest genetic risk factor for late-onset Alzheimer's disease.", publishedOn("2023-03-01"))
	srcNIH    = hit("https://nia.nih.gov/apoe4", "NIH", "Carrying APOE e4 increases the risk of Alzheimer's disease.", publishedOn("2024-05-10"))
	srcBMJ    = hit("https://bmj.com/cancer-apoe4", "BMJ", "APOE4 carriers had a lower incidence of several cancers.", publishedOn("2023-09-20"))
	srcLancet = hit("https://thelancet.com/meta", "The Lancet", "A meta-analysis found reduced breast cancer risk among APOE e4 carriers.", publishedOn("2024-02-02"))
	srcDaily  = hit("https://sciencedaily.com/inverse", "ScienceDaily", "Alzheimer's and cancer show an inverse comorbidity linked to APOE.", publishedOn("2024-08-15"))
)

// planSearcher is the corpus of validPlan's queries: hop 2 of claim c1 also gets hop 1's source
// back first, as a provider that ignores exclusions would return it.
func planSearcher(honour bool) *StubSearcher {
	return &StubSearcher{honour: honour, rules: []searchRule{
		{contains: "genome-wide association", results: []pipeline.SearchResult{srcNature}},
		{contains: "NIH fact sheet", results: []pipeline.SearchResult{srcNature, srcNIH}},
		{contains: "overall cancer incidence", results: []pipeline.SearchResult{srcBMJ}},
		{contains: "breast prostate", results: []pipeline.SearchResult{srcLancet}},
		{contains: "inverse comorbidity", results: []pipeline.SearchResult{srcNature, srcDaily}},
	}}
}

// stubSource is r as a judge prompt lists it when StubSearcher found it first (provider "stub",
// rank 1), with relation, how it stands to the claim's other sources ("" for none).
func stubSource(r pipeline.SearchResult, relation string) evidence.Retrieved {
	out := evidence.Retrieved{SearchResult: r, Relation: relation}
	out.Provider, out.Rank = "stub", 1
	return out
}

// judgePromptsOf are the judge prompts model was sent for claim, in the order sent.
func judgePromptsOf(model *pipelinetest.StubModel, claim string) []string {
	var out []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, "<untrusted_claim>\n"+claim) {
			out = append(out, p)
		}
	}
	return out
}

// checkJudgeSawNone fails t for each of never that prompt, a judge prompt of claim n, holds: spec
// 001's isolation (no other claim's text, no statement).
func checkJudgeSawNone(t *testing.T, n int, prompt string, never ...string) {
	t.Helper()
	for _, s := range never {
		if strings.Contains(prompt, s) {
			t.Errorf("claim %d's judge saw %q:\n%s", n, s, prompt)
		}
	}
}

// flaggedOnClaim reports whether res carries a review flag with code whose detail names claim n.
func flaggedOnClaim(res *pipeline.Result, code string, n int) bool {
	return slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
		return f.Code == code && strings.Contains(f.Detail, fmt.Sprintf("claim %d", n))
	})
}

func judgeRuleFor(claim string, reply string) pipelinetest.StubRule {
	return pipelinetest.StubRule{Contains: "<untrusted_claim>\n" + pipeline.EscapeFenced(claim) + "\n</untrusted_claim>", Reply: reply}
}

func judgeJSON(verdict string, citations []int, confidence, reason, correction string, quotes ...string) string {
	raw := []json.RawMessage{}
	for _, n := range citations {
		b, _ := json.Marshal(n)
		raw = append(raw, b)
	}
	b, _ := json.Marshal(judgeReply{Verdict: verdict, Citations: raw, Quotes: append([]string{}, quotes...), Reason: reason, Correction: correction, Confidence: confidence})
	return string(b)
}

// judgeCites is a judge's reply in the reply format, each citation with its passage and stance.
func judgeCites(verdict, confidence, reason, correction string, cites ...judgeCitation) string {
	raw := []json.RawMessage{}
	for _, c := range cites {
		b, _ := json.Marshal(c)
		raw = append(raw, b)
	}
	b, _ := json.Marshal(judgeReply{Verdict: verdict, Citations: raw, Reason: reason, Correction: correction, Confidence: confidence})
	return string(b)
}

// planModel answers the plan prompt with plan and each claim's judge prompt with its reply.
func planModel(t testing.TB, plan Plan, judgements map[string]string) *pipelinetest.StubModel {
	t.Helper()
	rules := []pipelinetest.StubRule{{Contains: pipeline.MarkerMultihopPlan, Reply: planJSON(t, plan)}}
	for claim, reply := range judgements {
		rules = append(rules, judgeRuleFor(claim, reply))
	}
	// Judge rules first: a judge prompt never holds the plan marker, but keep the order obvious.
	slices.Reverse(rules)
	return &pipelinetest.StubModel{Rules: rules}
}

func findHop(res *pipeline.Result, claim, number int) pipeline.Hop {
	for _, h := range res.Hops {
		if h.ClaimPosition == claim && h.Number == number {
			return h
		}
	}
	panic(fmt.Sprintf("no hop %d of claim %d", number, claim))
}
