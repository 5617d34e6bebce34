package search

import (
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// SimpleConfig is the fallback text search configuration.
const SimpleConfig = "simple"

// TSConfig returns the PostgreSQL text search configuration for an ISO 639-1 language code, from
// the language table (pipeline.LookupLanguage); its region, as in "pt-BR", is ignored), or SimpleConfig for a language PostgreSQL has no
// configuration for. Whether the server has it is checked by the corpus, which falls back to
// SimpleConfig too.
func TSConfig(language string) string {
	code := strings.ToLower(strings.TrimSpace(language))
	if i := strings.IndexAny(code, "-_"); i >= 0 {
		code = code[:i]
	}
	if l, ok := pipeline.LookupLanguage(code); ok && l.Searchable() {
		return l.TextSearchConfig
	}
	return SimpleConfig
}
