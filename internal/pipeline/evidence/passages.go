package evidence

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// MinPassageLetters is the fewest letters and digits a cited passage must have to ground a
// verdict: a passage of a word or two ("the", "in 2019") is in almost any text and shows nothing.
const MinPassageLetters = 12

// ellipsis splits a passage into the fragments it quotes: "...", "…", and either in brackets
// or parentheses, the ways a quotation marks what it left out.
var ellipsis = regexp.MustCompile(`\s*(?:\[\s*(?:\.{3}|…)\s*\]|\(\s*(?:\.{3}|…)\s*\)|\.{3,}|…)\s*`)

// PassageIn reports whether a passage a model quoted is in a source's text: after
// text.FoldForMatch of both (NFKC, case, white space, quote marks, dashes, invisible
// characters), each fragment of the passage, split at ellipses, is in the text, in order, and the
// passage has at least MinPassageLetters letters and digits. Punctuation at the ends of a
// fragment is not required to match (a quotation often ends where the sentence does not). The
// notes that say where a page's links lead (text.LinkNote) are ours, not the page's: a passage
// that leaves them out is in the text all the same.
func PassageIn(passage, source string) bool {
	if passageIn(passage, text.FoldForMatch(source)) {
		return true
	}
	shown := text.WithoutLinkNotes(source)
	return shown != source && passageIn(passage, text.FoldForMatch(shown))
}

// passageIn is PassageIn on a source already folded.
func passageIn(passage, folded string) bool {
	letters := 0
	at := 0
	found := false
	for _, fragment := range ellipsis.Split(passage, -1) {
		f := strings.TrimFunc(text.FoldForMatch(fragment), func(r rune) bool {
			return unicode.IsPunct(r) || unicode.IsSpace(r)
		})
		if f == "" {
			continue
		}
		i := strings.Index(folded[at:], f)
		if i < 0 {
			return false
		}
		at += i + len(f)
		found = true
		for _, r := range f {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				letters++
			}
		}
	}
	return found && letters >= MinPassageLetters
}
