package evidence

import (
	"fmt"
	"slices"
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

// String is the citation as a reader would name it: "[n]" for a number, else the URL.
func (r SourceRef) String() string {
	if r.URL == "" {
		return fmt.Sprintf("[%d]", r.Number)
	}
	return r.URL
}

// Grounding is what a reply's citations leave standing once checked against the sources the
// model was given.
type Grounding struct {
	// Cited are the indices, in the given sources, of the sources cited, each once, in the
	// order the reply first cited them.
	Cited []int
	// Removed are the citations that name no given source, in reply order.
	Removed []SourceRef
}

// Ground applies the grounding rule of every open-book method: a citation counts only when it
// names one of the sources the model was given. A number n names given[n-1]; a URL names the
// first given source with the same document (CanonicalURL). Every other citation is removed,
// and named in Removed so that the run can flag it. cove2's verifier and multihop's judge both
// cite through here.
func Ground(refs []SourceRef, given []Retrieved) Grounding {
	byURL := map[string]int{}
	for i, e := range given {
		if _, ok := byURL[CanonicalURL(e.URL)]; !ok {
			byURL[CanonicalURL(e.URL)] = i
		}
	}
	var out Grounding
	cite := func(i int) {
		if !slices.Contains(out.Cited, i) {
			out.Cited = append(out.Cited, i)
		}
	}
	for _, ref := range refs {
		if ref.URL == "" {
			if ref.Number >= 1 && ref.Number <= len(given) {
				cite(ref.Number - 1)
			} else {
				out.Removed = append(out.Removed, ref)
			}
			continue
		}
		if i, ok := byURL[CanonicalURL(ref.URL)]; ok {
			cite(i)
		} else {
			out.Removed = append(out.Removed, ref)
		}
	}
	return out
}

// CalibrateCited calibrates stated over the cited sources of given (indices as in
// Grounding.Cited): the one place an open-book method's confidence is set.
func (c Calibration) CalibrateCited(stated string, given []Retrieved, cited []int) Calibrated {
	grounding := make([]pipeline.SearchResult, len(cited))
	for i, idx := range cited {
		grounding[i] = given[idx].SearchResult
	}
	return c.Calibrate(stated, grounding)
}
