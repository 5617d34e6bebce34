package text

// Folding: the forms in which two texts are compared, so that a disguise (fullwidth letters,
// invisible characters, look-alike letters, accents) hides no word from a check.

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FoldForMatch returns s in the form in which two texts are compared for the same words: Unicode
// NFKC (fullwidth "Ｉgnore" is "Ignore", ligatures and compatibility forms split), invisible
// characters removed (zero-width and bidirectional controls, soft hyphens), the Cyrillic and Greek
// letters that look like Latin ones mapped to those, quote marks removed, dashes made '-', lower
// case, and every run of white space one space. Both sides of a comparison are folded the same
// way, so mapping look-alikes can only make two different texts equal when they look the same to
// a reader, which is what a check of quoted text or of a directive must see.
func FoldForMatch(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case IsInvisible(r), IsQuoteMark(r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case IsDash(r):
			r = '-'
		default:
			if l, ok := latinLookalike[r]; ok {
				r = l
			}
			r = unicode.ToLower(r)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CleanUntrusted returns untrusted text (a statement, a query the model wrote) without the tricks
// that hide words from a check while a reader or a model still sees them: it applies NFKC,
// removes invisible characters, and maps look-alike letters to Latin inside words that mix them
// with Latin letters ("іgnore" with a Cyrillic "і"). Words wholly in another script keep their
// letters, so Greek or Russian text is not damaged. Case and spacing are kept: the result is
// stored and shown.
func CleanUntrusted(s string) string {
	s = norm.NFKC.String(s)
	s = strings.Map(func(r rune) rune {
		if IsInvisible(r) {
			return -1
		}
		return r
	}, s)
	if !strings.ContainsFunc(s, func(r rune) bool { _, ok := latinLookalike[r]; return ok }) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	word := []rune{}
	flush := func() {
		latin := false
		for _, r := range word {
			if r < 0x250 && unicode.IsLetter(r) {
				latin = true
				break
			}
		}
		for _, r := range word {
			if l, ok := latinLookalike[r]; ok && latin {
				if unicode.IsUpper(r) {
					l = unicode.ToUpper(l)
				}
				r = l
			}
			b.WriteRune(r)
		}
		word = word[:0]
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsMark(r) {
			word = append(word, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// IsInvisible reports whether r is drawn as nothing: zero-width characters, bidirectional
// controls, soft hyphens and other format characters (Unicode category Cf), and the tag block.
// They can split a word so that a check does not see it while a model still reads it.
func IsInvisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || r == '\u034f' || (r >= 0xe0000 && r <= 0xe007f)
}

// latinLookalike maps the Cyrillic and Greek letters that are drawn like a Latin letter to that
// letter (lower case; FoldForMatch lowers the rest). Upper-case forms map to the lower-case
// Latin letter and are raised again where case is kept.
var latinLookalike = map[rune]rune{
	// Cyrillic
	'а': 'a', 'А': 'a', 'в': 'b', 'В': 'b', 'с': 'c', 'С': 'c', 'е': 'e', 'Е': 'e', 'ё': 'e',
	'һ': 'h', 'Н': 'h', 'і': 'i', 'І': 'i', 'ї': 'i', 'ј': 'j', 'Ј': 'j', 'к': 'k', 'К': 'k',
	'М': 'm', 'о': 'o', 'О': 'o', 'р': 'p', 'Р': 'p', 'ԛ': 'q', 'ѕ': 's', 'Ѕ': 's', 'Т': 't',
	'ѵ': 'v', 'ԝ': 'w', 'х': 'x', 'Х': 'x', 'у': 'y', 'У': 'y',
	// Greek
	'α': 'a', 'Α': 'a', 'Β': 'b', 'ϲ': 'c', 'ε': 'e', 'Ε': 'e', 'Η': 'h', 'ι': 'i', 'Ι': 'i',
	'Κ': 'k', 'κ': 'k', 'Μ': 'm', 'Ν': 'n', 'ο': 'o', 'Ο': 'o', 'ρ': 'p', 'Ρ': 'p', 'Τ': 't',
	'υ': 'u', 'ν': 'v', 'Χ': 'x', 'χ': 'x', 'Υ': 'y', 'Ζ': 'z',
}

// IsQuoteMark reports whether r is a quotation mark or prime in any of the styles that copying a
// quotation changes (straight, curly, low, guillemets).
func IsQuoteMark(r rune) bool {
	switch r {
	case '"', '\'', '`', '‘', '’', '‚', '‛', '“', '”', '„', '‟', '«', '»', '‹', '›', '′', '″':
		return true
	}
	return false
}

// IsDash reports whether r is a hyphen, dash or minus sign.
func IsDash(r rune) bool {
	switch r {
	case '-', '‐', '‑', '‒', '–', '—', '―', '−':
		return true
	}
	return false
}

// DropAccents removes the combining marks of s's canonical decomposition: "précédentes" is
// "precedentes", so that one ASCII pattern or word list serves every spelling of a word.
func DropAccents(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(s))
}
