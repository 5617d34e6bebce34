package evaluate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/corroborate/corroborate/internal/evaluate/datasets"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/search"
)

// corpusGold is the --corpus choice of an oracle run: every search of a claim returns that
// claim's gold evidence documents and nothing else. It measures what is left when retrieval is
// perfect (the verdicts a judge reaches with every needed document in hand), so that a run can
// tell how much of a method's unverified share retrieval and bridging could still recover and
// how much rests on the judge and the data set. Its figures are a ceiling, never the system's.
const corpusGold = "gold"

// goldSearcher answers each search with the gold documents of the claim being scored
// (withGold), those the query's exclusions allow: first the ones the corpus ranks for the query,
// in its order, then the others with their text as the snippet.
type goldSearcher struct {
	corpus pipeline.Searcher
	docs   map[string]search.Document
}

// goldSearchLimit is how many of the corpus's results for a query are read for gold documents.
const goldSearchLimit = 50

// goldSnippetRunes bounds the snippet of a gold document the query does not match.
const goldSnippetRunes = 600

func newGoldSearcher(corpus pipeline.Searcher, set *datasets.Set) goldSearcher {
	docs := make(map[string]search.Document, len(set.Docs))
	for _, d := range set.Docs {
		docs[d.URL] = d
	}
	return goldSearcher{corpus: corpus, docs: docs}
}

// goldKey is the context key of the gold documents of the claim being scored.
type goldKey struct{}

// withGold is ctx carrying the gold documents of the claim it scores, for goldSearcher.
func withGold(ctx context.Context, urls []string) context.Context {
	return context.WithValue(ctx, goldKey{}, urls)
}

func (g goldSearcher) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	gold, ok := ctx.Value(goldKey{}).([]string)
	if !ok {
		return pipeline.SearchResponse{}, pipeline.Permanent(errors.New("--corpus gold: a search outside a scored claim has no gold documents"))
	}
	ranked := q
	ranked.Limit = goldSearchLimit
	resp, err := g.corpus.Search(ctx, ranked)
	if err != nil {
		return resp, err
	}
	out := pipeline.SearchResponse{Provider: resp.Provider}
	excluded := search.ExclusionsOf(q)
	for _, r := range resp.Results {
		if slices.Contains(gold, r.URL) {
			out.Results = append(out.Results, r)
		}
	}
	for _, u := range gold {
		d, ok := g.docs[u]
		if !ok || slices.ContainsFunc(out.Results, func(r pipeline.SearchResult) bool { return r.URL == u }) {
			continue
		}
		if normalised, err := search.NormalizeURL(d.URL); err != nil || excluded.Exclude(normalised, "", d.Publisher) {
			continue
		}
		out.Results = append(out.Results, pipeline.SearchResult{URL: d.URL, Title: d.Title, Snippet: text.Truncate(d.Body, goldSnippetRunes),
			Domain: search.Domain(d.URL), Publisher: d.Publisher, PublishedAt: d.PublishedAt, Provider: resp.Provider})
	}
	for i := range out.Results {
		out.Results[i].Rank = i + 1
	}
	if limit := q.Limit; limit > 0 && len(out.Results) > limit {
		out.Results = out.Results[:limit]
	}
	return out, nil
}

// goldBanner is the line an oracle run's report opens with.
func goldBanner() string {
	return fmt.Sprintf("**--corpus %s: every search returned only the claim's gold evidence documents (an oracle): a ceiling for retrieval, not a figure of the system.**", corpusGold)
}
