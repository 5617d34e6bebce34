package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ContentWords are s's words (Words) without single letters and without the language's stop
// words (StopWords): what a query or a claim asks about. A single digit stays ("3 tenors").
func ContentWords(s, language string) []string {
	words := Words(s)
	stop := StopWords(language)
	out := words[:0]
	for _, w := range words {
		if r, size := utf8.DecodeRuneInString(w); size == len(w) && !unicode.IsDigit(r) {
			continue
		}
		if stop[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// StopWords are the function words of a language (ISO 639-1) that carry no content of their
// own; English for "" (the default language). A language without a list has none: every word
// counts. Each word is there as it is written and without its accents ("für" and "fur"), since
// some callers compare accent-free forms (DropAccents). The map is shared: do not change it.
func StopWords(language string) map[string]bool {
	switch l := strings.ToLower(language); l {
	case "":
		return stopWords["en"]
	default:
		return stopWords[l]
	}
}

// IsAnyStopWord reports whether w, in lower case, is a stop word of any language with a list:
// the test for a text whose language is not known, such as a search query a model wrote. Both
// the written and the accent-free form of a stop word count.
func IsAnyStopWord(w string) bool { return anyStopWord[w] }

// stopWordLists are the function words of the languages of the language table that the query
// rules read (en, fr, de, es, it, pt, nl), written as the language writes them. They are the one
// list of each: multihop's token overlap and relevance, the evaluation's claim matching and
// evidence's query hygiene (which words of a query name nothing) all read them.
var stopWordLists = map[string]string{
	"en": `a an the and or nor but of in on at to for from by with without about as into onto over under
		than then that this these those there here is are was were be been being am do does did done has have
		had having it its it's they them their he him his she her we us our you your i me my what which who
		whom whose when where why how whether if so such not no yes also any some all each both either neither
		very can could will would shall should may might must just only more most other same own after before
		now`,
	"fr": `le la les de du des un une et ou où en au aux ce ces cette il on ne se sa son ses leur est que qui
		quoi quand comment pourquoi dans pour avec sur par pas plus été était sont ont`,
	"de": `der die das den dem des ein eine einer eines und ist sind war waren wer wie was wann warum welche
		welcher welches mit von für auf aus bei nach über unter dass nicht auch im am an zu es er um ob`,
	"es": `el la lo los las de del en un una uno se su sus al y o quién quien cuál cual cuándo cuando cómo
		como dónde donde por para con fue era son está esta este esto`,
	"it": `il lo la gli di da in un al su se della dei delle chi cosa dove perché perche per sono stato
		questo questa`,
	"pt": `o a os as de do da dos das em no na um uma e quem qual onde com foi são sao isto`,
	"nl": `de het een en in op te is om er van wat wanneer hoe waar waarom welke met voor door zijn dit dat
		deze niet ook`,
}

var stopWords, anyStopWord = func() (map[string]map[string]bool, map[string]bool) {
	per, anyLanguage := map[string]map[string]bool{}, map[string]bool{}
	for language, list := range stopWordLists {
		set := WordSet(list)
		for w := range set {
			set[DropAccents(w)] = true
		}
		for w := range set {
			anyLanguage[w] = true
		}
		per[language] = set
	}
	return per, anyLanguage
}()
