package search_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/store"
)

// fixedSearcher answers every query with its results and remembers the last query.
type fixedSearcher struct {
	results []pipeline.SearchResult
	last    pipeline.SearchQuery
}

func (f *fixedSearcher) Search(_ context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	f.last = q
	return pipeline.SearchResponse{Results: slices.Clone(f.results), Provider: "fixed"}, nil
}

// Web results get their organisation from the owners table by registrable domain, keep their own
// publisher, and an excluded organisation takes its domains and its results with it.
func TestWithOrganisations(t *testing.T) {
	t.Parallel()
	inner := &fixedSearcher{results: []pipeline.SearchResult{
		{URL: "https://apnews.com/article/x", Domain: "apnews.com", Publisher: "AP News", Rank: 1},
		{URL: "https://www.ap.org/press/y", Domain: "ap.org", Rank: 2},
		{URL: "https://news.bbc.co.uk/z", Domain: "news.bbc.co.uk", Publisher: "BBC News", Rank: 3},
		{URL: "https://blog.example/w", Domain: "blog.example", Rank: 4},
	}}
	var reads atomic.Int32
	table := map[string]string{"apnews.com": "Associated Press", "ap.org": "Associated Press", "bbc.co.uk": "BBC"}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := search.WithOrganisations(inner, func(context.Context) (map[string]string, error) {
		reads.Add(1)
		return table, nil
	}, search.OrganisationsOpts{Now: func() time.Time { return now }})
	ctx := context.Background()

	resp, err := s.Search(ctx, pipeline.SearchQuery{Query: "bridge"})
	if err != nil {
		t.Fatal(err)
	}
	var orgs []string
	for _, r := range resp.Results {
		orgs = append(orgs, r.Organisation)
	}
	if !slices.Equal(orgs, []string{"Associated Press", "Associated Press", "BBC", ""}) || resp.Results[0].Publisher != "AP News" {
		t.Errorf("organisations %q, results %+v", orgs, resp.Results)
	}

	caller := []string{"example.org"}
	resp, err = s.Search(ctx, pipeline.SearchQuery{Query: "bridge", ExcludeDomains: caller, ExcludePublishers: []string{"associated  press"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(inner.last.ExcludeDomains, []string{"example.org", "ap.org", "apnews.com"}) || !slices.Equal(caller, []string{"example.org"}) {
		t.Errorf("excluded domains sent %v (caller's %v), want the organisation's domains added", inner.last.ExcludeDomains, caller)
	}
	if len(resp.Results) != 2 || resp.Results[0].Domain != "news.bbc.co.uk" || resp.Results[0].Rank != 1 || resp.Results[1].Rank != 2 {
		t.Errorf("results %+v, want the organisation's left out and the rest ranked from 1", resp.Results)
	}

	// The table is read once a minute: an editor's addition arrives after at most that.
	table = map[string]string{"apnews.com": "Associated Press", "ap.org": "Associated Press", "bbc.co.uk": "BBC", "blog.example": "Example Blogs"}
	now = now.Add(30 * time.Second)
	resp, _ = s.Search(ctx, pipeline.SearchQuery{Query: "bridge"})
	if resp.Results[3].Organisation != "" || reads.Load() != 1 {
		t.Errorf("read %d times within the minute; blog organisation %q", reads.Load(), resp.Results[3].Organisation)
	}
	now = now.Add(31 * time.Second)
	resp, _ = s.Search(ctx, pipeline.SearchQuery{Query: "bridge"})
	if resp.Results[3].Organisation != "Example Blogs" || reads.Load() != 2 {
		t.Errorf("read %d times after the minute; blog organisation %q", reads.Load(), resp.Results[3].Organisation)
	}
}

// A table that cannot be read fails the search until one was read, then the last one is used.
func TestWithOrganisationsTableUnreadable(t *testing.T) {
	t.Parallel()
	inner := &fixedSearcher{results: []pipeline.SearchResult{{URL: "https://apnews.com/a", Domain: "apnews.com"}}}
	fail := true
	now := time.Now()
	s := search.WithOrganisations(inner, func(context.Context) (map[string]string, error) {
		if fail {
			return nil, errors.New("connection refused")
		}
		return map[string]string{"apnews.com": "Associated Press"}, nil
	}, search.OrganisationsOpts{Now: func() time.Time { return now }})
	if _, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q"}); err == nil {
		t.Fatal("searched without the owners table")
	}
	fail = false
	if resp, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q"}); err != nil || resp.Results[0].Organisation != "Associated Press" {
		t.Fatalf("%+v, %v", resp, err)
	}
	fail, now = true, now.Add(2*time.Minute)
	if resp, err := s.Search(context.Background(), pipeline.SearchQuery{Query: "q"}); err != nil || resp.Results[0].Organisation != "Associated Press" {
		t.Errorf("a failed refresh: %+v, %v; want the last table", resp, err)
	}
}

// The corpus gets its documents' organisations the same way, from source_owners in PostgreSQL:
// the seed list's apnews.com and ap.org are one organisation, and an editor's addition counts.
func TestCorpusOrganisationsFromSourceOwners(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t,
		map[string]any{"url": "https://apnews.com/article/bridge", "title": "Elm Street bridge closes", "body": "The Elm Street bridge closes to cars in March.", "publisher": "AP News"},
		map[string]any{"url": "https://www.ap.org/press/bridge", "title": "Elm Street bridge statement", "body": "A statement on the Elm Street bridge."},
		map[string]any{"url": "https://herald.example/bridge", "title": "Elm Street bridge", "body": "The herald on the Elm Street bridge."},
	)
	st := store.New(b.pool)
	ctx := context.Background()
	if _, err := st.AddSourceOwner(ctx, "herald.example", "Herald Group", "test"); err != nil {
		t.Fatal(err)
	}
	s := search.WithOrganisations(b.corpus, st.SourceOwnerMap, search.OrganisationsOpts{})
	resp, err := s.Search(ctx, pipeline.SearchQuery{Query: "Elm Street bridge"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range resp.Results {
		got[r.Domain] = r.Organisation
	}
	if got["apnews.com"] != "Associated Press" || got["ap.org"] != "Associated Press" || got["herald.example"] != "Herald Group" {
		t.Errorf("organisations %v", got)
	}
	resp, err = s.Search(ctx, pipeline.SearchQuery{Query: "Elm Street bridge", ExcludePublishers: []string{"Associated Press"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 || resp.Results[0].Domain != "herald.example" {
		t.Errorf("excluding the Associated Press left %v", urls(resp.Results))
	}
}
