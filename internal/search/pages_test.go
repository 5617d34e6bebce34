package search_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/search"
)

// rollerWarriors is a FEVEROUS-S document longer than a snippet: its search snippet is two
// fragments around the query's words, and a real model's judge, given that snippet, found that
// the source "says nothing about practicing at a local community center", which its third
// sentence says.
var rollerWarriors = map[string]any{"url": "https://en.wikipedia.org/wiki/Kansas_City_Roller_Warriors", "title": "Kansas City Roller Warriors",
	"publisher": "Wikipedia", "language": "en",
	"body": "KCRW is a founding member of the Women's Flat Track Derby Association (WFTDA), and the Kansas City Roller Warriors All Star travel team was the winner of the 2007 WFTDA Championships, the \"Texas Shootout\", which took place in Austin, Texas.\n" +
		"John Hernandez, a friend of the founders from college, became the team's first coach and the small contingent of team members distributed hand fliers to promote women to try out for the team.\n" +
		"By the fall of 2004 the team was practicing at a local community center, on a basketball court.\n" +
		"Along with Ami Geddon, Connie Magic, Jade Lightning, Bomb Pop, PDQ, Maiden Hell, Damsel of D'tension and Murphy's Law were the team's first coaches.\n" +
		"In 2010 the league moved its home games to Municipal Auditorium in downtown Kansas City, where the bouts drew crowds of over two thousand fans."}

// The corpus reads its own documents as pages: a long document's body, whose passages that best
// match the claim reach the judge, where the snippet chosen for the hop's query left the fact out.
func TestCorpusReadsItsDocumentsAsPages(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, rollerWarriors)
	ctx := context.Background()
	const claim = "Kansas City Roller Warriors started practicing at a local community center by the fall of 2004"

	resp, err := b.corpus.Search(ctx, pipeline.SearchQuery{Query: "Kansas City Roller Warriors first coach founders", Language: "en"})
	if err != nil || len(resp.Results) != 1 {
		t.Fatalf("search: %v, %d results", err, len(resp.Results))
	}
	if strings.Contains(resp.Results[0].Snippet, "community center") {
		t.Fatalf("the snippet holds the fact already, the test shows nothing: %q", resp.Results[0].Snippet)
	}

	var r pipeline.PageReader = b.corpus
	page := r.ReadPage(ctx, rollerWarriors["url"].(string))
	body := rollerWarriors["body"].(string)
	sum := sha256.Sum256([]byte(page.Text))
	if !page.Read() || page.Text != body || page.TextSHA256 != hex.EncodeToString(sum[:]) || page.ContentType != "text/plain" ||
		page.FinalURL != page.URL || page.FetchedAt.IsZero() || page.Cached {
		t.Errorf("page: %+v", page)
	}
	kept := []evidence.Retrieved{{SearchResult: resp.Results[0]}}
	evidence.PageReading{Reader: b.corpus}.Read(ctx, kept, claim)
	if kept[0].Page == nil || !strings.Contains(evidence.SourceText(kept[0]), "By the fall of 2004 the team was practicing at a local community center") {
		t.Errorf("the judge's text of the source lacks the passage:\n%s", evidence.SourceText(kept[0]))
	}

	missing := r.ReadPage(ctx, "https://en.wikipedia.org/wiki/Nowhere")
	if missing.Read() || missing.Failure != pipeline.PageNoText || !strings.Contains(missing.Error, "no document") {
		t.Errorf("a URL the corpus does not hold: %+v", missing)
	}
}
