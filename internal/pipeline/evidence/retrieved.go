package evidence

import (
	"strconv"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Bounds on what one source brings into a verifier prompt.
const (
	maxSnippetBytes = 1200
	maxTitleBytes   = 300
)

// Retrieved is one search result as a verifier read it: the result, the search call that
// returned it (SearchRecorder's sequence number) and the verifier's quote from it, if any.
type Retrieved struct {
	pipeline.SearchResult
	SearchSeq int
	// Quote is the first of the verifier's quotes found in this result's title or snippet.
	Quote string
}

// RenderEvidence renders the sources of a verifier prompt, numbered from 1 in the given order.
func RenderEvidence(evidence []Retrieved) string {
	if len(evidence) == 0 {
		return "(no results)"
	}
	parts := make([]string, len(evidence))
	for i, e := range evidence {
		attrs := []string{"n", strconv.Itoa(i + 1), "url", e.URL, "domain", HostOf(e.SearchResult)}
		if e.Publisher != "" {
			attrs = append(attrs, "publisher", pipeline.TruncateUTF8(e.Publisher, maxTitleBytes))
		}
		if e.PublishedAt != nil {
			attrs = append(attrs, "published", e.PublishedAt.Format(time.DateOnly))
		}
		attrs = append(attrs, "title", pipeline.TruncateUTF8(e.Title, maxTitleBytes))
		parts[i] = pipeline.Fence("source", pipeline.TruncateUTF8(e.Snippet, maxSnippetBytes), attrs...)
	}
	return strings.Join(parts, "\n")
}

// QuoteIn returns the first quote found in r's title or snippet, whitespace and case aside.
func QuoteIn(quotes []string, r pipeline.SearchResult) string {
	text := foldSpace(strings.ToLower(r.Title + " " + r.Snippet))
	for _, q := range quotes {
		if k := foldSpace(strings.ToLower(strings.Trim(q, ` "'“”‘’.…`))); k != "" && strings.Contains(text, k) {
			return q
		}
	}
	return ""
}

func foldSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// SourceRef is one cited source: a URL, or the number n of a <source n="..."> in the prompt.
type SourceRef struct {
	URL    string
	Number int
}

// MaxQuoteBytes bounds one quote a verifier or judge gives from a source.
const MaxQuoteBytes = 500
