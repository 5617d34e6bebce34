package search

import "strings"

// tsConfigs maps ISO 639-1 codes to the text search configurations PostgreSQL 15 ships
// (SELECT cfgname FROM pg_ts_config). A language not here is indexed and searched with "simple":
// lower-cased words, no stemming, no stop words.
var tsConfigs = map[string]string{
	"ar": "arabic",
	"hy": "armenian",
	"eu": "basque",
	"ca": "catalan",
	"da": "danish",
	"nl": "dutch",
	"en": "english",
	"fi": "finnish",
	"fr": "french",
	"de": "german",
	"el": "greek",
	"hi": "hindi",
	"hu": "hungarian",
	"id": "indonesian",
	"ga": "irish",
	"it": "italian",
	"lt": "lithuanian",
	"ne": "nepali",
	"no": "norwegian",
	"nb": "norwegian",
	"nn": "norwegian",
	"pt": "portuguese",
	"ro": "romanian",
	"ru": "russian",
	"sr": "serbian",
	"es": "spanish",
	"sv": "swedish",
	"ta": "tamil",
	"tr": "turkish",
	"yi": "yiddish",
}

// SimpleConfig is the fallback text search configuration.
const SimpleConfig = "simple"

// TSConfig returns the PostgreSQL text search configuration for an ISO 639-1 language code (its
// region, as in "pt-BR", is ignored), or SimpleConfig for a language PostgreSQL has no
// configuration for. Whether the server has it is checked by the corpus, which falls back to
// SimpleConfig too.
func TSConfig(language string) string {
	code := strings.ToLower(strings.TrimSpace(language))
	if i := strings.IndexAny(code, "-_"); i >= 0 {
		code = code[:i]
	}
	if cfg, ok := tsConfigs[code]; ok {
		return cfg
	}
	return SimpleConfig
}
