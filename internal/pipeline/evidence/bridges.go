package evidence

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Bridges (issue 23): a claim may name an entity only by what another claim's finding pins
// down. Its text or its queries then write "{c1}" for "the answer of claim c1", as ProgramFC's
// programs use a variable for the answer of an earlier question, and code substitutes the answer
// before the text reaches a search or a model. The answer is never the model's own: it is read
// with the cited source and the passage of it that holds it, and taken only when that passage is
// in that source, the source grounds the finding and the answer is in the passage
// (ResolveBridge). multihop's judges and cove2's verifiers both name answers this way; this is
// the one place that decides whether an answer may bridge.

// bridgePattern matches a placeholder for the answer of a claim: "{c1}".
var bridgePattern = regexp.MustCompile(`\{(c[0-9]{1,2})\}`)

// QueryBridgeResolved is recorded in Claim.QueryFlags when a verification query's placeholders
// were resolved from other claims' findings before its checks ran.
const QueryBridgeResolved = "bridge_resolved"

// MaxBridgeBytes bounds a bridge value: a name, not a paragraph.
const MaxBridgeBytes = 120

// BridgesIn returns the claim ids a text refers to by placeholder ("c1" for "{c1}"), each once,
// in order.
func BridgesIn(s string) []string {
	var ids []string
	for _, m := range bridgePattern.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// SubstituteBridges replaces each placeholder of s with its value, by claim id; ok is false
// (and s is returned unchanged) when one has none.
func SubstituteBridges(s string, values map[string]string) (string, bool) {
	out, all := SubstituteKnownBridges(s, values)
	if !all {
		return s, false
	}
	return out, true
}

// SubstituteKnownBridges replaces the placeholders of s that have a value, in one pass (a value
// that holds a placeholder is not read again), and keeps the others; all is false when one was
// kept.
func SubstituteKnownBridges(s string, values map[string]string) (out string, all bool) {
	all = true
	out = bridgePattern.ReplaceAllStringFunc(s, func(m string) string {
		v, found := values[bridgePattern.FindStringSubmatch(m)[1]]
		if !found || v == "" {
			all = false
			return m
		}
		return v
	})
	return out, all
}

// WithoutBridges is s with its placeholders removed, for the rules that read wording: a
// placeholder stands for a name the statement holds through the claim it refers to.
func WithoutBridges(s string) string {
	return strings.Join(strings.Fields(bridgePattern.ReplaceAllString(s, " ")), " ")
}

// BridgeAnswer is the answer a model names for a claim that later claims bridge to: the name as
// the source writes it, the source's number (1-based, as the model was given the sources) and
// the passage of it that holds the name.
type BridgeAnswer struct {
	Value   string `json:"value"`
	Source  int    `json:"source"`
	Passage string `json:"passage"`
}

// Bridge is a resolved (or refused) bridge value.
type Bridge struct {
	// Value is the name; "" when the bridge was not established.
	Value string
	// Source is the index in the given sources the value was read from.
	Source int
	// Reason says why there is no value.
	Reason string
}

// holdsWords reports whether passage holds value's words, whole and in a row, as
// text.SingularWords reads both ("Romance film" in "Romance films are ..."): a value that is part
// of a word ("Ada" in "Adam Beach") is not in the passage.
func holdsWords(passage, value string) bool {
	return text.ContainsRun(text.SingularWords(passage), text.SingularWords(value))
}

// ResolveBridge reads a bridge value from an answer, under the grounding rules, in code: the
// answer must name one of the given sources that ground the finding (grounding: their indices),
// its passage must be in THAT source's text, and the value, a name, must be in the passage as
// whole words (holdsWords).
// Anything else is no bridge, with the reason: a model cannot put a name of its own into a later
// claim. Whether the finding itself stands (a verdict, a confidence) is the method's to decide
// before asking. reader names the model that gave the answer in the reasons ("judge",
// "verifier").
func ResolveBridge(a BridgeAnswer, given []Retrieved, grounding []int, reader string) Bridge {
	value := text.OneLine(a.Value)
	finding := "verdict"
	if reader != "judge" {
		finding = "answer"
	}
	switch {
	case value == "":
		return Bridge{Reason: fmt.Sprintf("its %s named no answer", reader)}
	case len(value) > MaxBridgeBytes || strings.ContainsAny(value, "{}<>"):
		return Bridge{Reason: fmt.Sprintf("its %s's answer %q is no name", reader, text.Truncate(value, 60))}
	case a.Source < 1 || a.Source > len(given) || !slices.Contains(grounding, a.Source-1):
		return Bridge{Reason: fmt.Sprintf("its %s read the answer %q from [%d], which is not a source grounding its %s", reader, value, a.Source, finding)}
	case !PassageIn(a.Passage, SourceText(given[a.Source-1])):
		return Bridge{Reason: fmt.Sprintf("the passage its %s gave for the answer %q is not in source [%d]", reader, value, a.Source)}
	case !holdsWords(a.Passage, value) && !titleInOtherForm(value, given[a.Source-1].Title, a.Passage):
		return Bridge{Reason: fmt.Sprintf("the answer %q is not in the passage its %s cited from source [%d]", value, reader, a.Source)}
	}
	return Bridge{Value: value, Source: a.Source - 1}
}

// titleInOtherForm reports whether value is the cited source's title and its passage writes the
// title's words in a row in another form, each word of the passage beginning with the title's
// word, or the other way round, in three letters or more: a page's title names its subject, and
// its opening sentence may write it as an adjective ("Galician Jewish is a member of ..." on
// the page "Galician Jews", in a relay run, EX-FEVER 2721-2800). No other value is read so:
// another form of a word that is no page's name may be another thing ("France" is no "Franc").
func titleInOtherForm(value, title, passage string) bool {
	want := text.SingularWords(value)
	if len(want) == 0 || !slices.Equal(want, text.SingularWords(title)) {
		return false
	}
	form := func(w, p string) bool {
		return w == p || (min(len(w), len(p)) >= 3 && (strings.HasPrefix(p, w) || strings.HasPrefix(w, p)))
	}
	words := text.SingularWords(passage)
	for i := 0; i+len(want) <= len(words); i++ {
		k := 0
		for k < len(want) && form(want[k], words[i+k]) {
			k++
		}
		if k == len(want) {
			return true
		}
	}
	return false
}
