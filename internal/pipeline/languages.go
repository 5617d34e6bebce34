package pipeline

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// languageTable is the one language table (languages.txt): every ISO 639-1 code with its
// English name, and for the languages PostgreSQL can stem, its text search configuration and the
// name a prompt uses. A file, so that a person can check it and a test can read it.
//
//go:embed languages.txt
var languageTable string

// DefaultLanguage is the language of a job, a document or a query that names none.
const DefaultLanguage = "en"

// Language is one row of the language table.
type Language struct {
	// Code is the ISO 639-1 two-letter code, lower case ("en").
	Code string
	// Name is the English name ISO 639-1 gives it ("Greek, Modern (1453-)").
	Name string
	// TextSearchConfig is the PostgreSQL 15 text search configuration for the language
	// ("greek"); "" when PostgreSQL ships none, and the corpus searches it with "simple".
	TextSearchConfig string
	// PromptName is the name a prompt gives the language ("Greek"); set exactly when
	// TextSearchConfig is, because only those languages are written in queries.
	PromptName string
}

// Searchable reports whether the corpus can search the language with stemming and stop words,
// which is what multihop requires of the language it writes queries in.
func (l Language) Searchable() bool { return l.TextSearchConfig != "" }

var languages = sync.OnceValue(func() map[string]Language {
	m := make(map[string]Language, 184)
	for line := range strings.Lines(languageTable) {
		line = strings.TrimRight(line, "\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 2 && len(f) != 4 {
			panic(fmt.Sprintf("pipeline: languages.txt: %q has %d columns, want 2 or 4", line, len(f)))
		}
		l := Language{Code: f[0], Name: f[1]}
		if len(f) == 4 {
			l.TextSearchConfig, l.PromptName = f[2], f[3]
		}
		m[l.Code] = l
	}
	return m
})

// LookupLanguage returns the row of an ISO 639-1 code (lower case), and whether it is one.
func LookupLanguage(code string) (Language, bool) {
	l, ok := languages()[code]
	return l, ok
}

// KnownLanguage reports whether code is an ISO 639-1 two-letter code (lower case).
func KnownLanguage(code string) bool {
	_, ok := languages()[code]
	return ok
}

// LanguageName returns the English name of an ISO 639-1 code, or "" for an unknown one.
func LanguageName(code string) string { return languages()[code].Name }

// SearchableLanguages returns the codes of the searchable languages (Language.Searchable), sorted.
func SearchableLanguages() []string {
	var codes []string
	for code, l := range languages() {
		if l.Searchable() {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	return codes
}
