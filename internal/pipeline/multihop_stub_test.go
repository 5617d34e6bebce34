package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// stubSearcher answers each query with the results of the first rule whose marker the query
// contains, and records every query. With honour set it applies the query's exclusions and dates
// as a real provider does; without, it ignores them, as some providers do.
type stubSearcher struct {
	rules  []searchRule
	honour bool

	mu      sync.Mutex
	queries []SearchQuery
}

type searchRule struct {
	contains string
	results  []SearchResult
	err      error
}

func (s *stubSearcher) Search(_ context.Context, q SearchQuery) (SearchResponse, error) {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	s.mu.Unlock()
	for _, r := range s.rules {
		if !strings.Contains(strings.ToLower(q.Query), strings.ToLower(r.contains)) {
			continue
		}
		if r.err != nil {
			return SearchResponse{Provider: "stub"}, r.err
		}
		var out []SearchResult
		for _, res := range r.results {
			if s.honour && honestlyExcluded(q, res) {
				continue
			}
			res.Rank = len(out) + 1
			res.Provider = "stub"
			out = append(out, res)
		}
		return SearchResponse{Results: out, Provider: "stub"}, nil
	}
	return SearchResponse{Provider: "stub"}, nil
}

// excluded is what an honest provider leaves out of q's results.
func honestlyExcluded(q SearchQuery, r SearchResult) bool {
	k := keysOf(r)
	for _, d := range q.ExcludeDomains {
		if k.domain == d || strings.HasSuffix(k.domain, "."+d) {
			return true
		}
	}
	if slices.ContainsFunc(q.ExcludeURLs, func(u string) bool { return normalizeURL(u) == k.url }) ||
		k.publisher != "" && slices.ContainsFunc(q.ExcludePublishers, func(p string) bool { return normalizePublisher(p) == k.publisher }) {
		return true
	}
	if r.PublishedAt == nil {
		return !q.From.IsZero() || !q.To.IsZero()
	}
	return !q.From.IsZero() && r.PublishedAt.Before(q.From) || !q.To.IsZero() && !r.PublishedAt.Before(q.To)
}

func (s *stubSearcher) sent() []SearchQuery {
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

func hit(url, publisher, snippet string, published *time.Time) SearchResult {
	domain := strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(url, "https://"), "/", 2)[0], "www.")
	return SearchResult{URL: url, Title: "Title of " + url, Snippet: snippet, Domain: domain, Publisher: publisher, PublishedAt: published}
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
func planSearcher(honour bool) *stubSearcher {
	return &stubSearcher{honour: honour, rules: []searchRule{
		{contains: "genome-wide association", results: []SearchResult{srcNature}},
		{contains: "NIH fact sheet", results: []SearchResult{srcNature, srcNIH}},
		{contains: "overall cancer incidence", results: []SearchResult{srcBMJ}},
		{contains: "breast prostate", results: []SearchResult{srcLancet}},
		{contains: "inverse comorbidity", results: []SearchResult{srcNature, srcDaily}},
	}}
}

// multihopPlanMarker and multihopJudgeMarker are in every plan and judge prompt.
const (
	multihopPlanMarker  = "You are planning the verification of a statement by multi-hop search query chains."
	multihopJudgeMarker = "Judge one claim against the numbered sources below"
)

func judgeRuleFor(claim string, reply string) stubRule {
	return stubRule{contains: "<untrusted_claim>\n" + EscapeFenced(claim) + "\n</untrusted_claim>", reply: reply}
}

func judgeJSON(verdict string, citations []int, confidence, reason, correction string, quotes ...string) string {
	b, _ := json.Marshal(judgeReply{Verdict: verdict, Citations: citations, Quotes: append([]string{}, quotes...), Reason: reason, Correction: correction, Confidence: confidence})
	return string(b)
}

// planModel answers the plan prompt with plan and each claim's judge prompt with its reply.
func planModel(t testing.TB, plan Plan, judgements map[string]string) *stubModel {
	t.Helper()
	rules := []stubRule{{contains: multihopPlanMarker, reply: planJSON(t, plan)}}
	for claim, reply := range judgements {
		rules = append(rules, judgeRuleFor(claim, reply))
	}
	// Judge rules first: a judge prompt never holds the plan marker, but keep the order obvious.
	slices.Reverse(rules)
	return &stubModel{rules: rules}
}

func findHop(res *Result, claim, number int) Hop {
	for _, h := range res.Hops {
		if h.ClaimPosition == claim && h.Number == number {
			return h
		}
	}
	panic(fmt.Sprintf("no hop %d of claim %d", number, claim))
}
