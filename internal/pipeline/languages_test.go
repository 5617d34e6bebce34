package pipeline

import (
	"maps"
	"slices"
	"testing"
)

func TestLanguages(t *testing.T) {
	t.Parallel()
	if n := len(languages()); n != 184 {
		t.Errorf("%d ISO 639-1 codes, want 184", n)
	}
	for _, code := range []string{"en", "de", "bh", "zu", "nb"} {
		if !KnownLanguage(code) {
			t.Errorf("%q is not known", code)
		}
	}
	for _, code := range []string{"xx", "EN", "eng", "", "e"} {
		if KnownLanguage(code) {
			t.Errorf("%q is known", code)
		}
	}
	if got := LanguageName("fr"); got != "French" {
		t.Errorf(`LanguageName("fr") = %q`, got)
	}
}

// The table's columns hold together: a code is two lower-case letters; a searchable language
// has a configuration PostgreSQL 15 ships and a prompt name, and no other language has either.
// The searchable languages and their names are the ones multihop and the corpus used before
// the three tables became one.
func TestLanguageTableColumns(t *testing.T) {
	t.Parallel()
	pg15 := []string{"arabic", "armenian", "basque", "catalan", "danish", "dutch", "english", "finnish", "french",
		"german", "greek", "hindi", "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali",
		"norwegian", "portuguese", "romanian", "russian", "serbian", "spanish", "swedish", "tamil", "turkish", "yiddish"}
	for code, l := range languages() {
		if len(code) != 2 || code[0] < 'a' || code[0] > 'z' || code[1] < 'a' || code[1] > 'z' || l.Code != code || l.Name == "" {
			t.Errorf("row %q: %+v", code, l)
		}
		if (l.TextSearchConfig == "") != (l.PromptName == "") {
			t.Errorf("%s: a text search configuration and a prompt name go together: %+v", code, l)
		}
		if l.Searchable() && !slices.Contains(pg15, l.TextSearchConfig) {
			t.Errorf("%s: %q is not a text search configuration of PostgreSQL 15", code, l.TextSearchConfig)
		}
	}
	want := map[string][2]string{
		"ar": {"arabic", "Arabic"}, "hy": {"armenian", "Armenian"}, "eu": {"basque", "Basque"}, "ca": {"catalan", "Catalan"},
		"da": {"danish", "Danish"}, "nl": {"dutch", "Dutch"}, "en": {"english", "English"}, "fi": {"finnish", "Finnish"},
		"fr": {"french", "French"}, "de": {"german", "German"}, "el": {"greek", "Greek"}, "hi": {"hindi", "Hindi"},
		"hu": {"hungarian", "Hungarian"}, "id": {"indonesian", "Indonesian"}, "ga": {"irish", "Irish"},
		"it": {"italian", "Italian"}, "lt": {"lithuanian", "Lithuanian"}, "ne": {"nepali", "Nepali"},
		"no": {"norwegian", "Norwegian"}, "nb": {"norwegian", "Norwegian Bokmål"}, "nn": {"norwegian", "Norwegian Nynorsk"},
		"pt": {"portuguese", "Portuguese"}, "ro": {"romanian", "Romanian"}, "ru": {"russian", "Russian"},
		"sr": {"serbian", "Serbian"}, "es": {"spanish", "Spanish"}, "sv": {"swedish", "Swedish"}, "ta": {"tamil", "Tamil"},
		"tr": {"turkish", "Turkish"}, "yi": {"yiddish", "Yiddish"},
	}
	if got := SearchableLanguages(); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Errorf("SearchableLanguages() = %v", got)
	}
	for code, w := range want {
		if l, _ := LookupLanguage(code); l.TextSearchConfig != w[0] || l.PromptName != w[1] {
			t.Errorf("%s: %+v, want config %q and prompt name %q", code, l, w[0], w[1])
		}
	}
}
