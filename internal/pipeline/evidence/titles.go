package evidence

import (
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsTitleText reports whether s reads as the title of a work or the name of something, as
// written inside quotes or italics: one to twelve words, the first capitalised (or a number),
// every other capitalised, a number, or a word title case leaves in lower case ("A Soldier and
// a Maker", "AI-based Language Learning: Challenges and Opportunities"). A phrase in lower case
// ("the law and the courts") or a sentence ("Paris is big and old") is none.
func IsTitleText(s string) bool {
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ':' || r == ';' })
	n := 0
	for _, w := range words {
		w = text.TrimToWord(w)
		if w == "" {
			continue
		}
		r, _ := utf8.DecodeRuneInString(w)
		capital := text.IsCapitalised(w) || unicode.IsDigit(r)
		if !capital && (n == 0 || !text.IsTitleMinorWord(strings.ToLower(w))) {
			return false
		}
		n++
	}
	return n >= 1 && n <= 12
}

// titleMarks are the ways a text sets a title apart: double quotes (straight, curly,
// guillemets), curly single quotes, straight single quotes that open after a space and close
// before one (not an apostrophe), and markdown italics or bold.
var titleMarks = regexp.MustCompile(`"[^"\n]{1,200}"|“[^”\n]{1,200}”|«[^»\n]{1,200}»|‘[^’\n]{1,200}’|(?:^|[\s(])'[^'\n]{1,200}'(?:$|[\s.,;:!?)])|\*\*[^*\n]{1,200}\*\*|\*[^*\n]{1,200}\*|\b_[^_\n]{1,200}_\b`)

// TitleSpans returns the byte ranges [start, end) of the titles s sets apart with quotes or
// italics (titleMarks) whose words read as a title (IsTitleText), marks included.
func TitleSpans(s string) [][2]int {
	var out [][2]int
	for _, loc := range titleMarks.FindAllStringIndex(s, -1) {
		start, end := loc[0], loc[1]
		inner := strings.TrimFunc(s[start:end], func(r rune) bool {
			return unicode.IsSpace(r) || r == '(' || r == ')' || r == '*' || r == '_' || strings.ContainsRune(`"“”«»‘’'.,;:!?`, r)
		})
		if IsTitleText(inner) {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}
