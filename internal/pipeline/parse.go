package pipeline

import (
	"regexp"
	"strings"
)

// maxParsedItems bounds what a parser returns from one reply, whatever the model wrote: caps are
// applied later, but no reply may make a parser's output grow without bound.
const maxParsedItems = 200

// maxLineBytes bounds one parsed question or answer; a longer line is cut.
const maxLineBytes = 2000

var (
	// listMarker matches what models put before list items: "1.", "1)", "(1)", "Q1:", "-", "*",
	// "•", markdown headings and quote marks.
	listMarker = regexp.MustCompile(`^(?:#{1,6}\s+|>\s*|[-*•·+]\s+|\(?\d{1,3}[.):]\s*|[Qq]\d{1,3}[.):]\s*)+`)
	// preface matches a line that introduces the list instead of being part of it.
	preface = regexp.MustCompile(`(?i)^(?:sure|okay|ok|certainly|here\b|below\b|the following\b|these are\b|verification questions?\b|questions?\b)[^?]*:\s*$`)
)

// cleanLine strips list markers, markdown emphasis and stray whitespace from one line.
func cleanLine(line string) string {
	s := stripEmphasis(strings.TrimSpace(line))
	s = strings.TrimSpace(listMarker.ReplaceAllString(s, ""))
	s = stripEmphasis(s)
	if len(s) > maxLineBytes {
		s = truncateUTF8(s, maxLineBytes)
	}
	return s
}

// stripEmphasis removes markdown emphasis or code marks that wrap the whole line.
func stripEmphasis(s string) string {
	for _, mark := range []string{"**", "__", "`"} {
		if strings.HasPrefix(s, mark) && strings.HasSuffix(s, mark) && len(s) > 2*len(mark) {
			s = strings.TrimSpace(s[len(mark) : len(s)-len(mark)])
		}
	}
	return s
}

// ParseQuestionLines reads a plan written as one verification question per line. It tolerates
// what real models add (numbering, bullets, blank lines, a preface line, markdown fences and
// emphasis) and drops exact repeats, keeping plan order.
func ParseQuestionLines(reply string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "```") || preface.MatchString(trimmed) {
			continue
		}
		q := cleanLine(trimmed)
		if q == "" || seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, q)
		if len(out) == maxParsedItems {
			break
		}
	}
	return out
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
