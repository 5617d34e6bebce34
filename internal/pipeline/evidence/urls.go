package evidence

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// URLMatch is one URL that FindURLs found in a text.
type URLMatch struct {
	// Start and End are the bytes of the text the URL is written in.
	Start, End int
	// URL is the retrieved URL the text names when Known; otherwise the text read as a URL,
	// HTML entities decoded.
	URL   string
	Known bool
}

// urlStart is where a URL begins in prose or in a reply's Sources line.
var urlStart = regexp.MustCompile(`(?i)\b(?:https?://|www\.)`)

// maxURLBytes bounds what one URL of a reply may span.
const maxURLBytes = 4096

// FindURLs returns the URLs written in text, in order. Where a URL starts, the longest of the
// known URLs (the sources a search returned) that the text holds there is the URL, whatever
// characters it holds: parentheses, apostrophes, commas, a full stop at its end, non-ASCII
// letters, and in any spelling that names the same bytes (percent-encoding in either case, an
// IRI written in Unicode, "&amp;" for "&", http for https, "www." or not, a trailing slash or a
// #fragment). A known URL counts only when the text does not go on with more of a URL after it
// (readURL's reading ends at or before it), so "https://a.example/x.evil.example" never passes
// for https://a.example/x. Where no known URL fits, the URL is read by readURL, as a reader
// would: to the first space, quote or angle bracket, with sentence punctuation and an
// unbalanced closing parenthesis left outside it.
//
// This is the one URL reader of the open-book methods: cove2's verifier reads its Sources with
// it, and StripUnknownURLs the revised texts. Guessing where a URL ends from its characters
// alone cut real titles ("I'm_Not_a_Vampire", "Fergie_song)") and removed good citations.
func FindURLs(text string, known []string) []URLMatch {
	var out []URLMatch
	pos := 0
	for pos < len(text) {
		loc := urlStart.FindStringIndex(text[pos:])
		if loc == nil {
			break
		}
		m := urlAt(text, pos+loc[0], known)
		if m.End <= m.Start+loc[1]-loc[0] {
			// "https://" alone names nothing.
			pos += loc[1]
			continue
		}
		out = append(out, m)
		pos = m.End
	}
	return out
}

// urlAt reads the URL that starts at start, as FindURLs does.
func urlAt(text string, start int, known []string) URLMatch {
	end := readURL(text, start)
	m := URLMatch{Start: start, End: end, URL: html.UnescapeString(text[start:end])}
	best := -1
	for _, k := range known {
		n := knownAt(text[start:min(len(text), start+maxURLBytes)], k)
		if n < 0 || n <= best {
			continue
		}
		if start+n < end && !listGoesOn(text[start+n:end]) {
			continue // the text names a longer URL, of which k is only the beginning
		}
		best = n
		m = URLMatch{Start: start, End: start + n, URL: k, Known: true}
	}
	return m
}

// listGoesOn reports whether rest, what follows a known URL inside a reading of the text, is
// the next URL of a list written without spaces ("https://a.example/1,https://b.example/2").
func listGoesOn(rest string) bool {
	if rest == "" || !strings.ContainsRune(",;|", rune(rest[0])) {
		return false
	}
	loc := urlStart.FindStringIndex(rest[1:])
	return loc != nil && loc[0] == 0
}

// readURL returns where the URL that starts at start ends, read from its characters alone: it
// runs to a space, a control character, a quote mark, an angle bracket or a square bracket (a
// markdown link's text), and loses the punctuation that ends a sentence after it and any
// closing parenthesis it did not open ("(see https://a.example/Foo_(film))." is
// https://a.example/Foo_(film)).
func readURL(text string, start int) int {
	end := start
	for end < len(text) && end-start < maxURLBytes {
		r, size := utf8.DecodeRuneInString(text[end:])
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("<>\"`[]{}|\\^", r) ||
			r >= 0x80 && (unicode.In(r, unicode.Pi, unicode.Pf, unicode.Ps, unicode.Pe) || unicode.Is(unicode.Po, r)) {
			break
		}
		end += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(text[start:end])
		u := text[start:end]
		switch {
		case strings.ContainsRune(".,;:!?*_'", r):
		case r == ')' && strings.Count(u, ")") > strings.Count(u, "("):
		default:
			return end
		}
		end -= size
	}
	return end
}

// knownAt returns how many bytes of text, from its start, spell the URL k (as FindURLs
// describes), or -1 when text does not start with it.
func knownAt(text, k string) int {
	ti := schemeEnd(text)
	ki := schemeEnd(k)
	if ti < 0 || ki < 0 {
		return -1
	}
	inHost := true
	for ki < len(k) {
		if ti >= len(text) {
			// A trailing slash of k is not needed.
			if k[ki:] == "/" {
				return ti
			}
			return -1
		}
		tb, tn := urlByte(text, ti)
		kb, kn := urlByte(k, ki)
		if inHost && (kb == '/' || kb == '?' || kb == '#') {
			inHost = false
		}
		if inHost {
			tb, kb = lowerASCII(tb), lowerASCII(kb)
		}
		if tb != kb {
			if k[ki:] == "/" {
				return ti
			}
			return -1
		}
		ti += tn
		ki += kn
	}
	// What the text may add to the same document: a trailing slash, a fragment.
	if ti < len(text) && text[ti] == '/' && !strings.HasSuffix(k, "/") {
		ti++
	}
	if ti < len(text) && text[ti] == '#' && !strings.Contains(k, "#") {
		ti = readURL(text, ti)
	}
	return ti
}

// schemeEnd returns where the part of a URL after "http(s)://" and "www." starts, or -1 when
// s does not start as a URL does.
func schemeEnd(s string) int {
	i := 0
	switch {
	case len(s) >= 8 && strings.EqualFold(s[:8], "https://"):
		i = 8
	case len(s) >= 7 && strings.EqualFold(s[:7], "http://"):
		i = 7
	case len(s) >= 4 && strings.EqualFold(s[:4], "www."):
	default:
		return -1
	}
	if len(s) >= i+4 && strings.EqualFold(s[i:i+4], "www.") {
		i += 4
	}
	return i
}

// urlByte returns the byte that s spells at i and how many bytes spell it: "%27" is "'", and
// "&amp;" is "&" (a reply written as HTML).
func urlByte(s string, i int) (byte, int) {
	if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
		return unhex(s[i+1])<<4 | unhex(s[i+2]), 3
	}
	if s[i] == '&' && strings.HasPrefix(s[i:], "&amp;") {
		return '&', 5
	}
	return s[i], 1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
