package jobs

import (
	_ "embed"
	"strings"
	"sync"
)

// iso6391 is the full list of ISO 639-1 codes (184 of them, "bh" included), one per line with its
// English name, so that a test can read it and a person can check it.
//
//go:embed iso639-1.txt
var iso6391 string

// languages maps each ISO 639-1 code to its English name.
var languages = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 184)
	for line := range strings.Lines(iso6391) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		code, name, _ := strings.Cut(line, "\t")
		m[code] = name
	}
	return m
})

// KnownLanguage reports whether code is an ISO 639-1 two-letter code (lower case).
func KnownLanguage(code string) bool {
	_, ok := languages()[code]
	return ok
}

// LanguageName returns the English name of an ISO 639-1 code, or "" for an unknown one.
func LanguageName(code string) string { return languages()[code] }
