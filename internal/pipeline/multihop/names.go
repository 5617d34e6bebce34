package multihop

import (
	"slices"
	"unicode/utf8"
)

// sameName reports whether two lower-case words name the same thing: the same word, one the
// plural of the other ("cups", "cup"), or one the adjective or the people of the country or
// place the other names ("indian", "india"; "french", "france"). Regular forms are read from
// their endings, after a shared stem of at least four letters ("india"+"n", "ital"+"y"/"ian",
// "chin"+"a"/"ese"); the irregular ones are listed.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if b == a+"s" || b == a+"es" {
		return true
	}
	if irregularDemonyms[a] == b || irregularDemonyms[b] == a {
		return true
	}
	stem := 0
	for stem < len(a) && a[stem] == b[stem] {
		stem++
	}
	if utf8.RuneCountInString(a[:stem]) < 4 {
		return false
	}
	ra, rb := a[stem:], b[stem:]
	return ra != rb && slices.Contains(placeEndings, ra) && slices.Contains(demonymEndings, rb) ||
		slices.Contains(placeEndings, rb) && slices.Contains(demonymEndings, ra)
}

// placeEndings end a place's name after the stem its adjective shares; demonymEndings end the
// adjective ("india"/"indian", "italy"/"italian", "china"/"chinese", "sweden"/"swedish",
// "iraq"/"iraqi", "mexico"/"mexican", "iceland"/"icelandic", "turkey"/"turkish").
var (
	placeEndings   = []string{"", "a", "y", "o", "e", "ia", "en", "ey", "um"}
	demonymEndings = []string{"n", "an", "ian", "ese", "ish", "i", "ic", "ean", "ans", "ians"}
)

// irregularDemonyms are the adjectives of countries and peoples whose form the endings do not
// give, to their place.
var irregularDemonyms = map[string]string{
	"french": "france", "british": "britain", "dutch": "netherlands", "spanish": "spain", "danish": "denmark",
	"polish": "poland", "norwegian": "norway", "greek": "greece", "welsh": "wales", "irish": "ireland",
	"scottish": "scotland", "scots": "scotland", "english": "england", "swiss": "switzerland", "finnish": "finland",
	"portuguese": "portugal", "peruvian": "peru", "filipino": "philippines", "thai": "thailand", "czech": "czechia",
	"argentine": "argentina", "vietnamese": "vietnam", "lebanese": "lebanon", "cypriot": "cyprus", "maltese": "malta",
	"flemish": "flanders", "bavarian": "bavaria", "parisian": "paris", "roman": "rome", "venetian": "venice",
}
