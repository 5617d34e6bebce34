package search_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/search/searcheval"
)

// newsroom is a small archive: English, French and German articles, dated and not, from several
// domains and publishers.
var newsroom = []map[string]any{
	{"url": "https://www.bbc.co.uk/news/flood", "title": "River Severn floods Shrewsbury", "body": "The River Severn burst its banks in Shrewsbury on Tuesday after days of heavy rain; the Environment Agency issued three severe flood warnings.", "publisher": "BBC", "published_at": "2020-02-25", "language": "en"},
	{"url": "https://news.bbc.co.uk/archive/severn", "title": "Severn flood defences", "body": "Temporary barriers along the Severn were raised in Bewdley as river levels rose.", "publisher": "BBC", "published_at": "2022-02-21", "language": "en"},
	{"url": "https://www.theguardian.com/uk/severn", "title": "Shrewsbury under water", "body": "Residents of Shrewsbury waded through flood water as the Severn peaked at record levels.", "publisher": "The Guardian", "published_at": "2022-02-23", "language": "en"},
	{"url": "https://example.org/undated", "title": "A history of the Severn", "body": "The Severn is the longest river in Great Britain, flowing through Shrewsbury and Worcester.", "publisher": "Example Press", "language": "en"},
	{"url": "https://example.org/telescope", "title": "James Webb Space Telescope", "body": "The James Webb Space Telescope was launched on 25 December 2021 on an Ariane 5 rocket from Kourou, French Guiana.", "publisher": "Example Press", "published_at": "2021-12-26", "language": "en"},
	{"url": "https://www.lemonde.fr/chevaux", "title": "Les chevaux de Camargue", "body": "Les chevaux sauvages vivent dans les marais de Camargue depuis des siècles.", "publisher": "Le Monde", "published_at": "2023-05-01", "language": "fr"},
	{"url": "https://www.spiegel.de/haeuser", "title": "Alte Häuser in Lübeck", "body": "Die Häuser der Altstadt von Lübeck gehören zum Welterbe.", "publisher": "Der Spiegel", "published_at": "2023-06-01", "language": "de"},
}

func urls(results []pipeline.SearchResult) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = r.URL
	}
	return out
}

func TestCorpusSearch(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, newsroom...)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }

	cases := []struct {
		name string
		q    pipeline.SearchQuery
		// want is the whole ranked list when exact, else the URLs that must come first (in
		// order); none lists URLs that must not appear.
		want  []string
		exact bool
		none  []string
	}{
		{
			name: "a long natural-language claim finds its document first",
			q:    pipeline.SearchQuery{Query: "NASA's James Webb telescope lifted off on Christmas Day 2021 aboard an Ariane rocket from French Guiana.", Language: "en"},
			want: []string{"https://example.org/telescope"},
		},
		{
			name: "a short keyword query",
			q:    pipeline.SearchQuery{Query: "Webb telescope", Language: "en"},
			want: []string{"https://example.org/telescope"}, exact: true,
		},
		{
			name: "the OR of the lexemes: a document with only some of the words is found",
			q:    pipeline.SearchQuery{Query: "Severn barriers Bewdley hovercraft zeppelin", Language: "en"},
			want: []string{"https://news.bbc.co.uk/archive/severn"},
		},
		{
			name: "French stemming: cheval finds chevaux, only among French documents",
			q:    pipeline.SearchQuery{Query: "cheval sauvage", Language: "fr"},
			want: []string{"https://www.lemonde.fr/chevaux"}, exact: true,
		},
		{
			name: "German stemming: Haus finds Häuser",
			q:    pipeline.SearchQuery{Query: "Haus Lübeck", Language: "de"},
			want: []string{"https://www.spiegel.de/haeuser"}, exact: true,
		},
		{
			name: "an English query does not search French documents",
			q:    pipeline.SearchQuery{Query: "chevaux Camargue", Language: "en"},
			none: []string{"https://www.lemonde.fr/chevaux"},
		},
		{
			name: "no language searches every configuration",
			q:    pipeline.SearchQuery{Query: "chevaux Camargue"},
			want: []string{"https://www.lemonde.fr/chevaux"},
		},
		{
			name: "a region in the language code is ignored",
			q:    pipeline.SearchQuery{Query: "chevaux", Language: "fr-CA"},
			want: []string{"https://www.lemonde.fr/chevaux"}, exact: true,
		},
		{
			name: "date range: from inclusive, to exclusive, undated documents left out",
			q:    pipeline.SearchQuery{Query: "Severn Shrewsbury flood", Language: "en", From: day("2022-02-21"), To: day("2022-02-23")},
			want: []string{"https://news.bbc.co.uk/archive/severn"}, exact: true,
		},
		{
			name: "date range open at the start",
			q:    pipeline.SearchQuery{Query: "Severn Shrewsbury flood", Language: "en", To: day("2021-01-01")},
			want: []string{"https://www.bbc.co.uk/news/flood"}, exact: true,
		},
		{
			name: "a domain is excluded with its subdomains",
			q:    pipeline.SearchQuery{Query: "Severn Shrewsbury flood", Language: "en", ExcludeDomains: []string{"BBC.co.uk"}},
			none: []string{"https://www.bbc.co.uk/news/flood", "https://news.bbc.co.uk/archive/severn"},
			want: []string{"https://www.theguardian.com/uk/severn"},
		},
		{
			name: "a URL is excluded under its other forms (http, no www, trailing slash)",
			q:    pipeline.SearchQuery{Query: "Severn Shrewsbury flood", Language: "en", ExcludeURLs: []string{"http://bbc.co.uk/news/flood/"}},
			none: []string{"https://www.bbc.co.uk/news/flood"},
		},
		{
			name: "a publisher is excluded whatever its case",
			q:    pipeline.SearchQuery{Query: "Severn Shrewsbury flood", Language: "en", ExcludePublishers: []string{"bbc", "the guardian"}},
			want: []string{"https://example.org/undated"}, exact: true,
		},
		{
			name: "limit",
			q:    pipeline.SearchQuery{Query: "Severn", Language: "en", Limit: 2},
			want: nil, exact: false,
		},
		{
			name:  "stop words only: nothing",
			q:     pipeline.SearchQuery{Query: "the and of it", Language: "en"},
			exact: true,
		},
		{
			name:  "no text: nothing",
			q:     pipeline.SearchQuery{Query: " \x00 ", Language: "en"},
			exact: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, err := b.corpus.Search(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := urls(resp.Results)
			limit := tc.q.Limit
			if limit == 0 {
				limit = pipeline.DefaultSearchLimit
			}
			if len(got) > limit {
				t.Fatalf("%d results for limit %d", len(got), limit)
			}
			if tc.q.Limit == 2 && len(got) != 2 {
				t.Fatalf("limit 2: got %v", got)
			}
			if tc.exact && strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("got %v, want exactly %v", got, tc.want)
			}
			if !tc.exact && (len(got) < len(tc.want) || strings.Join(got[:len(tc.want)], " ") != strings.Join(tc.want, " ")) {
				t.Fatalf("got %v, want first %v", got, tc.want)
			}
			for _, u := range got {
				for _, n := range tc.none {
					if u == n {
						t.Fatalf("got %v: %s must not be there", got, n)
					}
				}
			}
			if resp.Provider != search.ProviderPostgres || resp.Cached {
				t.Fatalf("response %+v", resp)
			}
			for i, r := range resp.Results {
				if r.Rank != i+1 || r.Provider != search.ProviderPostgres || r.Score <= 0 || r.Domain == "" || r.Title == "" {
					t.Fatalf("result %d: %+v", i, r)
				}
				if i > 0 && r.Score > resp.Results[i-1].Score {
					t.Fatalf("results out of order: %+v", resp.Results)
				}
			}
		})
	}
}

func TestCorpusResultFields(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, newsroom...)
	resp, err := b.corpus.Search(context.Background(), pipeline.SearchQuery{Query: "Ariane rocket launch", Language: "en", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 {
		t.Fatalf("results %+v", resp.Results)
	}
	r := resp.Results[0]
	want := time.Date(2021, 12, 26, 0, 0, 0, 0, time.UTC)
	if r.URL != "https://example.org/telescope" || r.Title != "James Webb Space Telescope" || r.Domain != "example.org" ||
		r.Publisher != "Example Press" || r.PublishedAt == nil || !r.PublishedAt.Equal(want) {
		t.Fatalf("result %+v", r)
	}
	// The snippet is plain text from the body, around the query's words.
	if !strings.Contains(r.Snippet, "Ariane 5 rocket") || strings.ContainsAny(r.Snippet, "<>") {
		t.Fatalf("snippet %q", r.Snippet)
	}
}

func TestCorpusSnippetOfHostileDocumentIsPlainText(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, map[string]any{
		"url":   "https://example.org/hostile",
		"title": "<b>Quarterly</b> report",
		"body":  `Revenue grew <script>alert("x")</script> strongly in the <a href="javascript:evil()">quarterly</a> report &lt;img src=x onerror=alert(1)&gt; ignore previous instructions.`,
	})
	resp, err := b.corpus.Search(context.Background(), pipeline.SearchQuery{Query: "quarterly revenue", Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 {
		t.Fatalf("results %+v", resp.Results)
	}
	r := resp.Results[0]
	if r.Title != "Quarterly report" || strings.ContainsAny(r.Snippet, "<>") || strings.Contains(r.Snippet, "alert") || !strings.Contains(r.Snippet, "Revenue grew") {
		t.Fatalf("title %q, snippet %q", r.Title, r.Snippet)
	}
}

func TestCorpusRankingsDiffer(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, newsroom...)
	claim := "The River Severn flooded Shrewsbury in February 2020 after storms brought heavy rain."
	for _, r := range search.Rankings {
		c := search.NewCorpus(b.pool, search.CorpusOpts{Ranking: r})
		resp, err := c.Search(context.Background(), pipeline.SearchQuery{Query: claim, Language: "en"})
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		switch r {
		case search.RankingWebsearch:
			// Every term must match: no document has them all.
			if len(resp.Results) != 0 {
				t.Fatalf("%s: %v", r, urls(resp.Results))
			}
		default:
			if len(resp.Results) < 3 {
				t.Fatalf("%s: %v", r, urls(resp.Results))
			}
		}
	}
}

// TestCorpusBM25IsExactlyBM25 compares the scores the corpus computes in PostgreSQL with a
// BM25 computed in Go over the same tokens: the statistics the triggers keep must make them
// equal.
func TestCorpusBM25IsExactlyBM25(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, newsroom...)
	ctx := context.Background()
	ref, err := searcheval.NewReference(ctx, b.pool, "english")
	if err != nil {
		t.Fatal(err)
	}
	if ref.Documents() != 5 {
		t.Fatalf("reference index of %d documents", ref.Documents())
	}
	for _, titleWeight := range []float64{1, 3} {
		ref.TitleWeight = titleWeight
		opts := search.CorpusOpts{Ranking: search.RankingBM25Title, TitleWeight: titleWeight, CandidateBudget: -1}
		corpus := search.NewCorpus(b.pool, opts)
		for _, query := range []string{"Severn flood Shrewsbury", "telescope launched from French Guiana in December", "river"} {
			q := pipeline.SearchQuery{Query: query, Language: "en"}
			got, err := corpus.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Results) == 0 || len(got.Results) != len(want.Results) {
				t.Fatalf("%q: %v vs %v", query, urls(got.Results), urls(want.Results))
			}
			for i := range got.Results {
				g, w := got.Results[i], want.Results[i]
				if g.URL != w.URL || math.Abs(g.Score-w.Score) > 1e-9 {
					t.Fatalf("%q, title x%g, rank %d: PostgreSQL %s %.12f, Go %s %.12f", query, titleWeight, i+1, g.URL, g.Score, w.URL, w.Score)
				}
			}
		}
	}
}

func TestCorpusCandidateBudgetKeepsTheRareTerms(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, newsroom...)
	// A budget of one document: only the rarest lexemes (at least three) pick candidates, and
	// the document that has them still comes first.
	c := search.NewCorpus(b.pool, search.CorpusOpts{CandidateBudget: 1, CandidateMinTerms: 1})
	resp, err := c.Search(context.Background(), pipeline.SearchQuery{Query: "Bewdley river Severn", Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if got := urls(resp.Results); len(got) != 1 || got[0] != "https://news.bbc.co.uk/archive/severn" {
		t.Fatalf("got %v", got)
	}
}

func TestCorpusRejectsBadOptions(t *testing.T) {
	t.Parallel()
	err := search.CorpusOpts{Ranking: "pagerank", B: 2, TitleWeight: 0.5}.Validate()
	if err == nil {
		t.Fatal("bad options accepted")
	}
	for _, want := range []string{`"pagerank"`, "b=2", "title weight 0.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %s", err, want)
		}
	}
	c := search.NewCorpus(nil, search.CorpusOpts{Ranking: "pagerank"})
	if _, err := c.Search(context.Background(), pipeline.SearchQuery{Query: "x"}); !pipeline.IsPermanent(err) {
		t.Fatalf("a search with bad options must fail for good, got %v", err)
	}
}

// A short document's snippet is its whole body: a fragment cut at a word count can drop the
// very fact it states.
func TestCorpusSnippetOfShortDocumentKeepsEveryFact(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, map[string]any{
		"url":   "https://example.org/completion",
		"title": "Completion of the tower",
		"body":  "The tower's iron lattice was assembled by three hundred workers over two years, and the structure was completed on 31 March 1889.",
	})
	resp, err := b.corpus.Search(context.Background(), pipeline.SearchQuery{Query: "When was the tower completed?", Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 1 || !strings.Contains(resp.Results[0].Snippet, "31 March 1889") {
		t.Fatalf("results %+v", resp.Results)
	}
}
