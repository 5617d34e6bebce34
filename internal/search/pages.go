package search

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// ReadPage reads a corpus document as the page behind its search result: the corpus is its own
// pipeline.PageReader. A result's snippet is the document's whole body only up to
// wholeBodySnippet characters; a longer one gets two ts_headline fragments around the words of
// the hop's query, not of the claim, and can leave out the very sentence that decides the claim
// (a real model's judge, given the snippet of a FEVEROUS-S document: it "says nothing about
// practicing at a local community center", which the document's third sentence says). Read as a
// page, the body's passages that best match the claim reach the judge, as a web page's do.
// Nothing leaves the database: no HTTP, no robots.txt, no cache.
//
// The page's FetchedAt is when the document was loaded, so that a replay of the same corpus
// reads the same page at the same time. A URL the corpus does not hold (deleted since the
// search) is PageNoText; a database error is PageNetworkError, with what happened.
func (c *Corpus) ReadPage(ctx context.Context, url string) pipeline.Page {
	page := pipeline.Page{URL: url, FinalURL: url}
	var body string
	var loaded time.Time
	err := c.pool.QueryRow(ctx, `SELECT body, loaded_at FROM documents WHERE url = $1`, url).Scan(&body, &loaded)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		page.Failure, page.Error = pipeline.PageNoText, "the corpus holds no document at this URL"
		return page
	case err != nil:
		page.Failure, page.Error = pipeline.PageNetworkError, fmt.Sprintf("reading the document from the corpus: %v", err)
		return page
	case body == "":
		page.Failure, page.Error = pipeline.PageNoText, "the corpus document has no body"
		return page
	}
	sum := sha256.Sum256([]byte(body))
	page.ContentType, page.FetchedAt = "text/plain", loaded.UTC()
	page.Text, page.TextSHA256 = body, hex.EncodeToString(sum[:])
	return page
}
