package evidence

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// SourceBook numbers the sources of one run, [1], [2], ..., in the order verifiers cited them:
// one number per document (its normalized URL), however many claims cite it. Only a source that
// a search returned and a verifier used to ground an answer gets a number, so no citation can
// point at anything else. Its zero value is empty and ready to use; it is not safe for
// concurrent use (numbers are given after the parallel verifiers finish, in claim order, so that
// they are the same on every run).
type SourceBook struct {
	numbers map[string]int
	urls    []string
}

// Number returns the number of the document at url, giving it the next one if it has none.
func (b *SourceBook) Number(url string) int {
	key := DocumentKey(url)
	if n, ok := b.numbers[key]; ok {
		return n
	}
	if b.numbers == nil {
		b.numbers = map[string]int{}
	}
	b.urls = append(b.urls, url)
	b.numbers[key] = len(b.urls)
	return len(b.urls)
}

// Has reports whether n is the number of a source.
func (b *SourceBook) Has(n int) bool { return n >= 1 && n <= len(b.urls) }

// Sources returns the numbered sources in number order.
func (b *SourceBook) Sources() []ReportSource {
	out := make([]ReportSource, len(b.urls))
	for i, u := range b.urls {
		out[i] = ReportSource{Number: i + 1, URL: u}
	}
	return out
}

// Knows reports whether url is one of the sources.
func (b *SourceBook) Knows(url string) bool {
	_, ok := b.numbers[DocumentKey(url)]
	return ok
}

// citationGroup matches an inline citation: "[1]", "[1, 2]", "[1][3]" are one or more groups,
// "[2-4]" a range. citationAt rejects one that follows a letter or digit, so that "a[0]" in code
// is no citation.
var citationGroup = regexp.MustCompile(`\[(\s*\d{1,4}(?:\s*(?:[,;]|[-–])\s*\d{1,4})*\s*)\]`)

// citations returns the [start, end) of each citation group in text, with its body.
func citations(text string) [][3]int {
	var out [][3]int
	for _, m := range citationGroup.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 {
			r, _ := utf8.DecodeLastRuneInString(text[:m[0]])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
				continue
			}
		}
		out = append(out, [3]int{m[0], m[1], m[2]})
	}
	return out
}

// FilterCitations removes from text every inline citation [n] whose number allowed rejects, and
// returns the text and the numbers removed, in order of appearance, each once. A group keeps the
// numbers allowed ("[1, 7]" becomes "[1]" when 7 is not), and a group with none left goes with
// the space before it.
func FilterCitations(text string, allowed func(int) bool) (string, []int) {
	var removed []int
	// Removing a group can join what was around it into a new one ("[[9]1]" leaves "[1]"), so
	// the pass repeats until it removes nothing; each pass removes at least one group.
	for {
		out, more := filterCitationsOnce(text, allowed)
		for _, n := range more {
			if !slices.Contains(removed, n) {
				removed = append(removed, n)
			}
		}
		// Stop only when a pass changed nothing: a pass may remove a group that names no number
		// at all ("[0-0-0]"), and what it joins must be looked at again.
		if out == text {
			return out, removed
		}
		text = out
	}
}

func filterCitationsOnce(text string, allowed func(int) bool) (string, []int) {
	var removed []int
	var b strings.Builder
	last := 0
	for _, c := range citations(text) {
		start, end := c[0], c[1]
		body := text[c[2]+0 : end-1]
		var kept []string
		for _, n := range citationNumbers(body) {
			switch {
			case allowed(n):
				if !slices.Contains(kept, strconv.Itoa(n)) {
					kept = append(kept, strconv.Itoa(n))
				}
			case !slices.Contains(removed, n):
				removed = append(removed, n)
			}
		}
		prefix := text[last:start]
		if len(kept) == 0 {
			prefix = strings.TrimRight(prefix, " ")
			b.WriteString(prefix)
		} else {
			b.WriteString(prefix + "[" + strings.Join(kept, ", ") + "]")
		}
		last = end
	}
	b.WriteString(text[last:])
	return b.String(), removed
}

// CitedNumbers returns the source numbers cited inline in text, in order, each once.
func CitedNumbers(text string) []int {
	var out []int
	for _, c := range citations(text) {
		for _, n := range citationNumbers(text[c[2] : c[1]-1]) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// citationNumbers reads the numbers of one citation group's body: "1, 2" or "2-4". A range is
// expanded up to 20 numbers; a longer one is read as its two ends.
func citationNumbers(body string) []int {
	var out []int
	for _, part := range strings.FieldsFunc(body, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		if lo, hi, ok := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-"); ok {
			a, err1 := strconv.Atoi(strings.TrimSpace(lo))
			b, err2 := strconv.Atoi(strings.TrimSpace(hi))
			if err1 != nil || err2 != nil {
				continue
			}
			if b >= a && b-a < 20 {
				for n := a; n <= b; n++ {
					out = append(out, n)
				}
			} else {
				out = append(out, a, b)
			}
			continue
		}
		if n, err := strconv.Atoi(part); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// markdownLinkOpen is the "[text](" of a markdown link; what follows it is its target.
var markdownLinkOpen = regexp.MustCompile(`\[([^\]\n]{0,300})\]\(`)

// StripUnknownURLs removes from text every URL that is not one of known (a markdown link keeps
// its text), and returns the text and the URLs removed: a revised response may carry the
// sources a search returned (and what else the caller knows), never a link the reviewer made
// up or an injected page slipped in. URLs are read by FindURLs, so a known URL stays whole
// whatever characters it holds, and an unknown one goes whole.
func StripUnknownURLs(text string, known []string) (string, []string) {
	var removed []string
	var b strings.Builder
	last := 0
	for _, loc := range markdownLinkOpen.FindAllStringSubmatchIndex(text, -1) {
		if loc[0] < last {
			continue
		}
		target := loc[1]
		end := -1
		var m URLMatch
		if u := urlStart.FindStringIndex(text[target:]); u != nil && u[0] == 0 {
			m = urlAt(text, target, known)
			end = m.End
		} else if i := strings.IndexAny(text[target:], ") \t\n"); i > 0 && i <= 1000 {
			// A target that is no absolute URL ("/page", "javascript:..."): never a source.
			m = URLMatch{Start: target, End: target + i, URL: text[target : target+i]}
			end = m.End
		}
		if end < 0 || end >= len(text) || text[end] != ')' || m.Known {
			continue
		}
		b.WriteString(text[last:loc[0]])
		b.WriteString(text[loc[2]:loc[3]])
		removed = append(removed, trimURL(m.URL))
		last = end + 1
	}
	b.WriteString(text[last:])
	text = b.String()

	b.Reset()
	last = 0
	for _, m := range FindURLs(text, known) {
		if m.Known {
			continue
		}
		b.WriteString(text[last:m.Start])
		removed = append(removed, m.URL)
		last = m.End
	}
	b.WriteString(text[last:])
	return b.String(), removed
}

// trimURL drops the punctuation that ends a sentence after a URL.
func trimURL(u string) string { return strings.TrimRight(u, ".,;:!?*_`'\"") }

// URLsIn returns the URLs in text as they are written there, read as StripUnknownURLs reads
// them with the same known URLs.
func URLsIn(text string, known []string) []string {
	var out []string
	for _, m := range FindURLs(text, known) {
		out = append(out, text[m.Start:m.End])
	}
	return out
}

// CitationFlags turns removed citations into review flags.
func CitationFlags(removed []int) []pipeline.ReviewFlag {
	out := make([]pipeline.ReviewFlag, len(removed))
	for i, n := range removed {
		out[i] = pipeline.Flagf(pipeline.FlagCitationRemoved, "[%d]", n)
	}
	return out
}
