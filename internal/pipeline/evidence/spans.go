package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// LocateSpan finds the words a plan quoted as a claim's source span in the statement and
// returns their byte offsets [start, end) in the statement. The match tolerates what copying
// changes without changing the words: case, runs of white space, quote marks (straight, curly,
// guillemets, or left out), dash variants, and a sentence's closing punctuation included or not.
// A span that is empty after that, or that is not in the statement, is not found: the claim has
// no span and is a hallucinated claim.
func LocateSpan(statement, span string) (start, end int, ok bool) {
	normStatement, offsets := normalizeForSpan(statement)
	normSpan, _ := normalizeForSpan(span)
	normSpan = strings.TrimRight(normSpan, ".,;:!? ")
	if normSpan == "" {
		return 0, 0, false
	}
	i := strings.Index(normStatement, normSpan)
	if i < 0 {
		return 0, 0, false
	}
	last := i + len(normSpan) - 1
	start = offsets[i]
	_, size := utf8.DecodeRuneInString(statement[offsets[last]:])
	end = offsets[last] + size
	// Quote marks are not matched, so the quotes a span opens or closes with lie outside the
	// match: take the statement's own.
	trimmed := strings.TrimRight(strings.TrimSpace(span), ".,;:!? ")
	if r, _ := utf8.DecodeRuneInString(trimmed); text.IsQuoteMark(r) {
		for start > 0 {
			q, n := utf8.DecodeLastRuneInString(statement[:start])
			if !text.IsQuoteMark(q) {
				break
			}
			start -= n
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(trimmed); text.IsQuoteMark(r) {
		for end < len(statement) {
			q, n := utf8.DecodeRuneInString(statement[end:])
			if !text.IsQuoteMark(q) {
				break
			}
			end += n
		}
	}
	return start, end, true
}

// normalizeForSpan returns s normalized for span matching and, for each byte of the result, the
// offset in s of the character it came from.
func normalizeForSpan(s string) (string, []int) {
	var b strings.Builder
	offsets := make([]int, 0, len(s))
	space := false
	for i, r := range s {
		switch {
		case text.IsQuoteMark(r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case text.IsDash(r):
			r = '-'
		default:
			r = unicode.ToLower(r)
		}
		if space {
			b.WriteByte(' ')
			offsets = append(offsets, i)
			space = false
		}
		n := b.Len()
		b.WriteRune(r)
		for range b.Len() - n {
			offsets = append(offsets, i)
		}
	}
	return b.String(), offsets
}
