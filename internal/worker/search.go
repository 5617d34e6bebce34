package worker

import (
	"context"
	"slices"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// searcherFor returns the job's searcher: in a re-verification (options.reverify), a query whose
// answer drifts with time asks for fresh results (SearchQuery.NoCache), so that what the night
// re-checks is the world now, not a cached answer.
func searcherFor(s pipeline.Searcher, o jobs.MessageOptions) pipeline.Searcher {
	if s == nil || o.Reverify == nil || !*o.Reverify {
		return s
	}
	return freshSearcher{s}
}

// freshSearcher sets NoCache on the queries whose answer drifts with time: those cove2's claim
// signals read as freshness-sensitive (evidence.FreshnessWords: latest, current, now, prices,
// rankings, ...), read from the query's own words.
type freshSearcher struct{ pipeline.Searcher }

func (s freshSearcher) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	if slices.Contains(cove2.ClaimSignals(q.Query), cove2.SignalFreshness) {
		q.NoCache = true
	}
	return s.Searcher.Search(ctx, q)
}

// freshPages is a page reader that can read past its cache (pagefetch.Fetcher).
type freshPages interface {
	Fresh() pipeline.PageReader
}

// pagesFor returns the job's page reading: in a re-verification (options.reverify), pages are
// read anew, not from the page cache, as its searches are.
func pagesFor(p evidence.PageReading, o jobs.MessageOptions) evidence.PageReading {
	if o.Reverify == nil || !*o.Reverify {
		return p
	}
	if r, ok := p.Reader.(freshPages); ok {
		p.Reader = r.Fresh()
	}
	return p
}
