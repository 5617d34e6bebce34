package pipeline

import (
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"regexp"
	"strings"
)

// MaxLineBytes bounds one parsed question or answer; a longer line is cut.
const MaxLineBytes = 2000

// StripEmphasis removes markdown emphasis or code marks that wrap the whole line.
func StripEmphasis(s string) string {
	for _, mark := range []string{"**", "__", "`"} {
		if strings.HasPrefix(s, mark) && strings.HasSuffix(s, mark) && len(s) > 2*len(mark) {
			s = strings.TrimSpace(s[len(mark) : len(s)-len(mark)])
		}
	}
	return s
}

// BulletMarker matches bullets, quote marks and headings before an item, but not numbers: the
// parsers of each method read numbers and labels themselves.
var BulletMarker = regexp.MustCompile(`^(?:#{1,6}\s+|>\s*|[-*•·+]\s+)+`)

// CleanText trims an item's text, unwraps markdown emphasis and cuts it to maxLineBytes.
func CleanText(s string) string {
	s = StripEmphasis(strings.TrimSpace(s))
	return text.Truncate(s, MaxLineBytes)
}

// Unquote removes quotes (straight, single or curly) that wrap the whole text.
func Unquote(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"‘", "’"}} {
		if len(s) > len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// IsFence reports whether a trimmed line opens or closes a markdown code fence.
func IsFence(trimmed string) bool { return strings.HasPrefix(trimmed, "```") }
