package pipeline

import (
	"regexp"
	"strings"
)

func WordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// maxLineBytes bounds one parsed question or answer; a longer line is cut.
const MaxLineBytes = 2000

// stripEmphasis removes markdown emphasis or code marks that wrap the whole line.
func StripEmphasis(s string) string {
	for _, mark := range []string{"**", "__", "`"} {
		if strings.HasPrefix(s, mark) && strings.HasSuffix(s, mark) && len(s) > 2*len(mark) {
			s = strings.TrimSpace(s[len(mark) : len(s)-len(mark)])
		}
	}
	return s
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

var (
	// bulletMarker matches bullets, quote marks and headings before an item, but not numbers:
	// the parsers below read numbers and labels themselves.
	BulletMarker = regexp.MustCompile(`^(?:#{1,6}\s+|>\s*|[-*•·+]\s+)+`)
	// itemNumber matches a number that lists an item ("1. ", "2) "), before a label.
	ItemNumber = regexp.MustCompile(`^\(?\d{1,3}[.)]\s+`)
	// jointLabel matches the label of a Joint line: "Q:", "A:", and what models make of them
	// ("**Q:**", "Q1:", "Question 2:", "Answer:").
	JointLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?(question|answer|q|a)(?:\s*\d{1,3})?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// claimLabel matches the label of a Factor + revise plan line: "Claim:", "Question:", and
	// their markdown, numbered or "Verification question:" forms.
	ClaimLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?(claim|(?:verification\s+)?question|q)(?:\s*\d{1,3})?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// inlineQuestion finds a "Question:" label written on the same line as its claim.
	InlineQuestion = regexp.MustCompile(`(?i)(?:^|[\s|;,(\[])(?:\*\*|__)?(?:verification\s+)?question(?:\s*\d{1,3})?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// answerNumber matches the number that starts a numbered answer: "1.", "1)", "(1)", "1:",
	// "1 -", "**1.**", "Answer 1:", "A1:". A delimiter must be followed by a space or the end of
	// the line, so that "3.14" is not answer 3.
	AnswerNumber = regexp.MustCompile(`(?i)^(?:(?:\*\*|__)?(?:answer|a)\s*#?\s*)?(?:\*\*|__)?\(?(\d{1,3})(?:[.:)]|\s+[-–—])(?:\*\*|__)?(?:\s+|$)`)
	// answerLabel matches an "A:" or "Answer:" label before an answer's text.
	AnswerLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?(?:answer|a)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// verdictLabel matches a "Verdict:" label before a cross-check verdict.
	VerdictLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?verdict(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// verdictWord matches the three verdicts of the Cross-check prompt at the start of a line.
	VerdictWord = regexp.MustCompile(`(?i)^(?:(partial(?:ly)?|partly)[\s_-]+consistent|(inconsistent)|(consistent))\b`)
	// partSeparator is what comes between PARTIALLY CONSISTENT and its part.
	PartSeparator = regexp.MustCompile("^[\\s*_`\"']*[:\\-–—]?[\\s*_`]*")
)

// cleanText trims an item's text, unwraps markdown emphasis and cuts it to maxLineBytes.
func CleanText(s string) string {
	s = StripEmphasis(strings.TrimSpace(s))
	return TruncateUTF8(s, MaxLineBytes)
}

// unquote removes quotes (straight, single or curly) that wrap the whole text.
func Unquote(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"‘", "’"}} {
		if len(s) > len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

func IsFence(trimmed string) bool { return strings.HasPrefix(trimmed, "```") }
