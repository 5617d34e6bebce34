package multihop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// kindDefinition pairs two of a judge's sources (their numbers in the prompt): one that defines
// a kind of thing ("An intelligence agency is a government agency responsible for the collection
// of information ...") and one that says something is such a thing ("The National Security
// Agency is a national-level intelligence agency"). Read together they state of that thing what
// the definition says of every such thing. A relay judge given both left "The National Security
// Agency is responsible for the collection of information ..." unverified: "source 1 gives a
// general definition of intelligence agencies", "source 2 only says the NSA is an intelligence
// agency".
type kindDefinition struct {
	definition, member int
}

// Bounds of the reading: a kind is one to maxKindWords words, and a member names it within
// maxMemberWords words after its verb ("is a digital optical disc data storage format").
const (
	maxKindWords   = 4
	maxMemberWords = 8
)

// copulas are the verbs with which a text says what something is: an encyclopedia entry's first
// sentence (opensWith), a definition and its members (definedKinds).
var copulas = text.WordSet("is are was were")

// definedKinds finds the definition pairs among given, in the order of the definitions. A
// definition is a source whose text opens "A <kind> is" or "An <kind> is", the kind a phrase of
// at most maxKindWords words; a member is another source that, within maxMemberWords words after
// "is", "are", "was" or "were", names the kind (a plural "agencies" names "agency"). Only the
// numbers reach the prompt: the kind is a source's words, and untrusted text stays inside
// its fence. An entity's entry ("The Ostmoor Lighthouse is a tower") defines no kind, and a
// mere mention ("Tide agencies were set up") names no member.
func definedKinds(given []evidence.Retrieved) []kindDefinition {
	words := make([][]string, len(given))
	for i, g := range given {
		words[i] = bodyWords(g)
	}
	var pairs []kindDefinition
	for d, w := range words {
		kind := definedKind(w)
		if kind == nil {
			continue
		}
		for m, other := range words {
			if m != d && namesMember(other, kind) {
				pairs = append(pairs, kindDefinition{definition: d + 1, member: m + 1})
				break
			}
		}
	}
	return pairs
}

// bodyWords are the words of a source's text as shown to the judge, without its title,
// folded and each made singular ("agencies" is "agency").
func bodyWords(g evidence.Retrieved) []string {
	ws := text.Words(text.FoldForMatch(evidence.ShownText(g)))
	for i, w := range ws {
		ws[i] = singular(w)
	}
	return ws
}

// definedKind is the kind words opens by defining ("a tide agency is ..."), or nil.
func definedKind(words []string) []string {
	if len(words) < 3 || !indefiniteArticles[words[0]] {
		return nil
	}
	for i := 2; i <= maxKindWords+1 && i < len(words); i++ {
		if copulas[words[i]] {
			kind := words[1:i]
			if text.IsAnyStopWord(kind[len(kind)-1]) {
				return nil
			}
			return kind
		}
	}
	return nil
}

// namesMember reports whether words name kind within maxMemberWords words after a copula.
func namesMember(words, kind []string) bool {
	for i, w := range words {
		if !copulas[w] {
			continue
		}
		window := words[i+1 : min(len(words), i+1+maxMemberWords)]
		for k := 0; k+len(kind) <= len(window); k++ {
			if slices.Equal(window[k:k+len(kind)], kind) {
				return true
			}
		}
	}
	return false
}

// kindsSentence is the judge prompt's sentence on the definition pairs, "" when there is none.
func kindsSentence(pairs []kindDefinition) string {
	if len(pairs) == 0 {
		return ""
	}
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		if i == 0 {
			parts[i] = fmt.Sprintf("Source %d defines a kind of thing that source %d says something is", p.definition, p.member)
		} else {
			parts[i] = fmt.Sprintf("source %d one that source %d says something is", p.definition, p.member)
		}
	}
	return strings.Join(parts, ", and ") + ": what a definition says of every such thing holds of each thing a source says is one, so the two sources together state it of that thing; cite both."
}
