package evidence

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
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
	// Relation says, in the prompt, how this source stands to the others ("not independent of
	// source 1"; "established for a claim this claim depends on"); "" for none.
	Relation string
	// Page is the attempt to read the result's page (PageReading), nil when none was made;
	// Passages are the parts of the page's text the judge is given, with their offsets.
	Page     *pipeline.Page
	Passages []pipeline.Passage
}

// pageMarker introduces, inside a source's fence, the passages read from its page.
const pageMarker = "From the page itself:"

// ShownText is the body of a source as a verifier or judge is shown it, without its title: the
// snippet, bounded, then the passages read from its page, if any; a passage is untrusted text
// like the snippet, and the fence escapes both alike.
func ShownText(e Retrieved) string {
	body := text.Truncate(e.Snippet, maxSnippetBytes)
	if len(e.Passages) == 0 {
		return body
	}
	var b strings.Builder
	b.WriteString(body)
	b.WriteString("\n\n" + pageMarker)
	for _, p := range e.Passages {
		b.WriteString("\n\n")
		b.WriteString(text.Truncate(p.Text, MaxPassageBytes))
	}
	return b.String()
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
			attrs = append(attrs, "publisher", text.Truncate(e.Publisher, maxTitleBytes))
		}
		if e.PublishedAt != nil {
			attrs = append(attrs, "published", e.PublishedAt.Format(time.DateOnly))
		}
		attrs = append(attrs, "title", text.Truncate(e.Title, maxTitleBytes))
		if e.Relation != "" {
			attrs = append(attrs, "relation", e.Relation)
		}
		parts[i] = pipeline.Fence("source", ShownText(e), attrs...)
	}
	return strings.Join(parts, "\n")
}

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
// first given source with the same document (DocumentKey). Every other citation is removed,
// and named in Removed so that the run can flag it. cove2's verifier and multihop's judge both
// cite through here.
func Ground(refs []SourceRef, given []Retrieved) Grounding {
	resolve := resolver(given)
	var out Grounding
	for _, ref := range refs {
		i, ok := resolve(ref)
		switch {
		case !ok:
			out.Removed = append(out.Removed, ref)
		case !slices.Contains(out.Cited, i):
			out.Cited = append(out.Cited, i)
		}
	}
	return out
}

// resolver returns the function that finds the given source a reference names, as Ground does.
func resolver(given []Retrieved) func(SourceRef) (int, bool) {
	byURL := map[string]int{}
	for i, e := range given {
		if _, ok := byURL[DocumentKey(e.URL)]; !ok {
			byURL[DocumentKey(e.URL)] = i
		}
	}
	return func(ref SourceRef) (int, bool) {
		if ref.URL == "" {
			return ref.Number - 1, ref.Number >= 1 && ref.Number <= len(given)
		}
		i, ok := byURL[DocumentKey(ref.URL)]
		return i, ok
	}
}

// Stances a citation takes on the claim it is cited for.
const (
	StanceSupports = "supports"
	StanceRefutes  = "refutes"
)

// Citation is one cited source as a reply names it: the source, the passage of it the verdict
// relies on, and the source's stance on the claim (StanceSupports or StanceRefutes; "" when the
// reply has none to give, as cove2's verifier, whose every source grounds its one answer).
type Citation struct {
	Ref     SourceRef
	Passage string
	Stance  string
}

// CitedSource is a citation that held: the index of its source in the given sources, the
// passage (found in that source's text) and its stance.
type CitedSource struct {
	Index   int
	Passage string
	Stance  string
}

// Attribution is what a reply's per-source citations leave standing once checked.
type Attribution struct {
	// Sources are the citations that hold, each source once, in reply order.
	Sources []CitedSource
	// Removed are the citations that name no given source.
	Removed []SourceRef
	// NotInSource are the citations of a given source whose passage is not in that source's
	// text, or that gave no passage: dropped (FlagQuoteNotInSource).
	NotInSource []Citation
	// StrayQuotes are quotes that were attributed to no source because no given source holds them.
	StrayQuotes []string
}

// Indices are the given-source indices of a.Sources, in order.
func (a Attribution) Indices() []int {
	out := make([]int, len(a.Sources))
	for i, s := range a.Sources {
		out[i] = s.Index
	}
	return out
}

// SourceText is the text of a source that a verifier or judge was shown (title, snippet and the
// passages read from its page, as RenderEvidence bounds them): the only text a passage cited
// from it may come from.
func SourceText(e Retrieved) string {
	return text.Truncate(e.Title, maxTitleBytes) + "\n" + ShownText(e)
}

// Attribute applies the rule of per-source support: a citation counts only when it names a
// given source (as Ground) AND its passage is in THAT source's text (PassageIn against
// SourceText). A citation whose passage is elsewhere, or missing, is dropped into NotInSource;
// a source cited twice keeps its first citation that holds. multihop's judge and cove2's
// verifier both attribute through here.
func Attribute(cites []Citation, given []Retrieved) Attribution {
	resolve := resolver(given)
	var out Attribution
	held := map[int]bool{}
	for _, c := range cites {
		i, ok := resolve(c.Ref)
		if !ok {
			out.Removed = append(out.Removed, c.Ref)
			continue
		}
		if held[i] {
			continue
		}
		passage := text.Truncate(strings.TrimSpace(c.Passage), MaxQuoteBytes)
		if passage == "" || !PassageIn(passage, SourceText(given[i])) {
			if !slices.ContainsFunc(out.NotInSource, func(d Citation) bool { return d.Ref.Number == i+1 }) {
				out.NotInSource = append(out.NotInSource, Citation{Ref: SourceRef{Number: i + 1}, Passage: passage, Stance: c.Stance})
			}
			continue
		}
		held[i] = true
		out.Sources = append(out.Sources, CitedSource{Index: i, Passage: passage, Stance: normalStance(c.Stance)})
	}
	// A source first cited with a bad passage and then with a good one is not "not in source".
	out.NotInSource = slices.DeleteFunc(out.NotInSource, func(c Citation) bool { return held[c.Ref.Number-1] })
	return out
}

func normalStance(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case StanceSupports, "support", "supported":
		return StanceSupports
	case StanceRefutes, "refute", "refuted", "contradicts":
		return StanceRefutes
	}
	return ""
}

// Quote is a passage a reply quotes apart from its citations (the specification's "Evidence:"
// lines): Source is the [n] it was marked with, 0 when unmarked.
type Quote struct {
	Text   string
	Source int
}

// AttributeQuotes turns a reply that cites sources and quotes passages in separate lists
// (cove2's verifier, whose reply format is the specification's) into per-source citations for
// Attribute: a quote marked [n] is source n's passage, and cites n; an unmarked quote is the
// passage of every cited source whose text holds it. A cited source that no quote is found in
// gets an empty passage, which Attribute drops. Unmarked quotes that no given source holds are
// returned as strays, for the flag.
func AttributeQuotes(refs []SourceRef, quotes []Quote, given []Retrieved) (cites []Citation, strays []string) {
	resolve := resolver(given)
	passage := map[int]string{}
	var order []SourceRef
	for _, q := range quotes {
		if q.Source == 0 {
			continue
		}
		ref := SourceRef{Number: q.Source}
		if i, ok := resolve(ref); ok {
			if _, seen := passage[i]; !seen {
				passage[i] = q.Text
				order = append(order, ref)
			}
			continue
		}
		cites = append(cites, Citation{Ref: ref, Passage: q.Text})
	}
	for _, q := range quotes {
		if q.Source != 0 {
			continue
		}
		in := false
		for i, g := range given {
			if PassageIn(q.Text, SourceText(g)) {
				in = true
				if _, seen := passage[i]; !seen {
					passage[i] = q.Text
				}
			}
		}
		if !in {
			strays = append(strays, q.Text)
		}
	}
	for _, ref := range slices.Concat(refs, order) {
		i, ok := resolve(ref)
		if !ok {
			cites = append(cites, Citation{Ref: ref})
			continue
		}
		cites = append(cites, Citation{Ref: ref, Passage: passage[i]})
	}
	return cites, strays
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
