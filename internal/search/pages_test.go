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

// rollerWarriors is a made-up document of the shape a relay run met in FEVEROUS-S (whose text
// is never copied in), longer than a snippet: its search snippet is two fragments around the
// query's words, and a real model's judge, given such a snippet, found that the source said
// nothing of the fact its third sentence says.
var rollerWarriors = map[string]any{"url": "https://en.wikipedia.org/wiki/Harbour_City_Rollers", "title": "Harbour City Rollers",
	"publisher": "Wikipedia", "language": "en",
	"body": "HCR is a founding member of the Coastal Flat Track League, and the Harbour City Rollers travel team won the 2009 league championship, the \"Lighthouse Cup\", which took place in Port Ellis.\n" +
		"Maria Okafor, a friend of the founders from college, became the team's first coach and the small group of team members handed out fliers to invite women to try out for the team.\n" +
		"From the autumn of 2004 the team trained at a local community center, on a basketball court.\n" +
		"Along with Ada Strike, Lucy Loop, Quick Jess and Brick Lane Betty, Tom Reyes and Sam Ortiz were the team's first coaches.\n" +
		"In 2010 the league moved its home games to the Municipal Hall in downtown Harbour City, where the bouts drew crowds of over two thousand fans."}

// The corpus reads its own documents as pages: a long document's body, whose passages that best
// match the claim reach the judge, where the snippet chosen for the hop's query left the fact out.
func TestCorpusReadsItsDocumentsAsPages(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	b.load(t, rollerWarriors)
	ctx := context.Background()
	const claim = "Harbour City Rollers trained at a local community center from the autumn of 2004"

	resp, err := b.corpus.Search(ctx, pipeline.SearchQuery{Query: "Harbour City Rollers first coach founders", Language: "en"})
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
	if kept[0].Page == nil || !strings.Contains(evidence.SourceText(kept[0]), "From the autumn of 2004 the team trained at a local community center") {
		t.Errorf("the judge's text of the source lacks the passage:\n%s", evidence.SourceText(kept[0]))
	}

	missing := r.ReadPage(ctx, "https://en.wikipedia.org/wiki/Nowhere")
	if missing.Read() || missing.Failure != pipeline.PageNoText || !strings.Contains(missing.Error, "no document") {
		t.Errorf("a URL the corpus does not hold: %+v", missing)
	}
}
