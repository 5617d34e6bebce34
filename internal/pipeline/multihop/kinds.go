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
// definition is a source whose text opens "A <kind> is", "An <kind> is" or, for a kind named
// without an article, "<Kind> is the/a/an" (definedKind), the kind a phrase of at most
// maxKindWords words; a member is another source that, within maxMemberWords words after
// "is", "are", "was" or "were" in the same sentence, names the kind (a plural "agencies" names
// "agency"; namesMember), and in that sentence names a thing the claim names (claimNames). Only the
// numbers reach the prompt: the kind is a source's words, and untrusted text stays inside
// its fence. An entity's entry ("The Ostmoor Lighthouse is a tower") defines no kind, and a
// mere mention ("Tide agencies were set up") names no member. A definition is paired only when
// it says something the claim says besides the kind (definesWhatClaimSays): in a relay run
// (EX-FEVER 1121-1360) judges cited neither source of 28 of 84 pairs named before, such as
// "Capital city" and Myanmar's page for "Mainland Southeast Asia includes Myanmar"; replayed,
// 17 prompts lost their pair and no verdict moved.
func definedKinds(claim string, given []evidence.Retrieved) []kindDefinition {
	names := claimNames(claim)
	if len(names) == 0 {
		return nil
	}
	words := make([][]string, len(given))
	sentences := make([][][]string, len(given))
	for i, g := range given {
		words[i] = bodyWords(g)
		sentences[i] = sentenceWords(g)
	}
	var pairs []kindDefinition
	for d := range words {
		kind := definedKind(evidence.ShownText(given[d]))
		if kind == nil || !definesWhatClaimSays(claim, words[d], kind) {
			continue
		}
		// A name of the kind's own words is the kind ("Rock" of "Rock music originated in ..."),
		// which the definition states alone: no member.
		members := slices.DeleteFunc(slices.Clone(names), func(n []string) bool {
			return !slices.ContainsFunc(n, func(w string) bool { return !slices.Contains(kind, w) })
		})
		for m := range words {
			if m != d && slices.ContainsFunc(sentences[m], func(s []string) bool {
				return namesMember(s, kind) && slices.ContainsFunc(members, func(n []string) bool { return text.ContainsRun(s, n) })
			}) {
				pairs = append(pairs, kindDefinition{definition: d + 1, member: m + 1})
				break
			}
		}
	}
	return pairs
}

// claimNames are the names claim writes, each as sentenceWords reads a text: its runs of
// capitalised words (capitalisedRuns) without an opening article ("The Ostmoor Institute" is
// "ostmoor institute"; "A" alone is none). A member of a definition pair is a thing the claim
// names, in the sentence that says it is of the kind: another thing of the kind is no member of
// the claim's, and a claim that names nothing is about the kind itself, which the definition
// states alone. Helpers told to cite both reported such pairs in relay runs (EX-FEVER
// 3681-3840): another comedy film's page beside the comedy film's definition for "The genre of
// Ishq Vishk emphasizes humor", a race stage's definition beside a time trial's for "Heats of
// the 2016 Tour de France are sometimes held as ...", new wave's beside synth-pop's for "A
// subgenre of new wave music is characterized by the use of synthesizers".
func claimNames(claim string) [][]string {
	var out [][]string
	for _, run := range capitalisedRuns(claim) {
		if indefiniteArticles[strings.ToLower(run[0])] || strings.EqualFold(run[0], "the") {
			run = run[1:]
		}
		if words := text.SingularWords(strings.Join(run, " ")); len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

// definesWhatClaimSays reports whether a definition of kind, its words (bodyWords), says after
// its verb something claim says, the kind's own words aside: "A tide agency is a government
// agency responsible for the collection of tide records" for "The Ostmoor Institute is
// responsible for the collection of tide records", not "A capital city is the municipality
// holding primary status in a country" for "Mainland Southeast Asia includes Myanmar".
func definesWhatClaimSays(claim string, definition, kind []string) bool {
	verb := slices.IndexFunc(definition, func(w string) bool { return copulas[w] })
	if verb < 0 {
		return false
	}
	besides := func(words []string) string {
		return strings.Join(slices.DeleteFunc(slices.Clone(words), func(w string) bool { return slices.Contains(kind, w) }), " ")
	}
	return evidence.SharesTerm(besides(definition[verb+1:]), besides(text.SingularWords(claim)))
}

// bodyWords are the words of a source's text as shown to the judge, without its title,
// folded and each made singular ("agencies" is "agency").
func bodyWords(g evidence.Retrieved) []string {
	return text.SingularWords(evidence.ShownText(g))
}

// sentenceWords are the sentences of a source's shown text, each as bodyWords reads it: a
// copula's window ends with its sentence ("The compact disc is a digital optical disc. An album
// is ..." says nothing is an album; a relay run paired it with the album's definition). A full
// stop after an abbreviation ends a sentence here too, which only shortens a window
// (text.Sentences).
func sentenceWords(g evidence.Retrieved) [][]string {
	var out [][]string
	for _, s := range text.Sentences(evidence.ShownText(g)) {
		out = append(out, text.SingularWords(s))
	}
	return out
}

// definedKind is the kind s opens by defining, or nil: after an indefinite article ("A tide
// agency is ..."), or without one, as a kind that is a mass noun is defined ("Fleet management
// is the management of ...", "Stop motion is an animated filmmaking technique"). Without an
// article the kind is two words or more, the first capitalised as a sentence opens and the
// others in lower case, as a common noun is written and a name is not ("Baylor University is a
// university"), and an article follows the copula, or the subject is plural ("... colleges
// are undergraduate institutions"); a one-word subject ("Radiohead is a band") could be either,
// and is read as a name. The kind comes folded, each word made singular.
//
// A definition may open by setting itself in its field, as encyclopedias write one ("In
// criminal law, kidnapping is the unlawful confinement of a person ...", "In media, a spin-off
// is ..."; withoutField): the kind follows the field, and a subject in lower case there is a
// kind even as one word, since a name would be capitalised. What brackets hold between the
// kind and its copula is read past ("An acropolis (Ancient Greek: ...) was ...",
// withoutBrackets).
func definedKind(s string) []string {
	s, inField := withoutField(withoutBrackets(s))
	tokens := text.Tokens(s, "")
	tokens = tokens[:min(len(tokens), maxKindWords+3)]
	words := make([]string, len(tokens))
	for i, tok := range tokens {
		words[i] = text.Singular(text.FoldForMatch(tok))
	}
	if len(words) < 3 {
		return nil
	}
	start := 1
	if !indefiniteArticles[words[0]] {
		if text.IsCapitalised(tokens[0]) == inField || text.IsAnyStopWord(words[0]) {
			return nil
		}
		start = 0
	}
	for i := start + 1; i <= start+maxKindWords && i < len(words); i++ {
		if !copulas[words[i]] {
			continue
		}
		kind := words[start:i]
		if text.IsAnyStopWord(kind[len(kind)-1]) || start == 1 && titleCased(tokens[1:i]) {
			return nil
		}
		// Without an article the subject is its words and single spaces alone: "Kellogg's is a
		// food manufacturing company" is a name with its possessive, not a kind "kellogg s". A
		// plural subject defines its kind with or without an article after "are" ("Liberal arts
		// colleges are undergraduate institutions of higher education", in the EX-FEVER corpus).
		plural := words[i] == "are" && words[i-1] != text.FoldForMatch(tokens[i-1]) // made singular
		definer := i+1 < len(words) && kindDefiners[words[i+1]]
		// One word in a field is a kind only with an article after the verb: "In the UK,
		// businesses are encouraged to sign ..." defines nothing.
		if start == 0 && (len(kind) < 2 && (!inField || !definer) || i+1 == len(words) || !definer && !plural ||
			!strings.HasPrefix(strings.TrimSpace(s), strings.Join(tokens[:i], " ")+" ") ||
			slices.ContainsFunc(tokens[1:i], func(tok string) bool { return text.IsCapitalised(tok) || text.IsAnyStopWord(strings.ToLower(tok)) })) {
			return nil
		}
		return kind
	}
	return nil
}

// maxFieldWords bounds the field a definition may open with: "In criminal law, ".
const maxFieldWords = 4

// withoutField is s without an opening phrase that names the field of a definition ("In
// criminal law, ", "In film and television, "): "In", at most maxFieldWords words without a
// digit (a date is no field: "In 1871, a school was founded"), and a comma. It reports whether
// there was one; s comes back as it was otherwise.
func withoutField(s string) (string, bool) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, "In ")
	if !ok {
		return s, false
	}
	field, after, ok := strings.Cut(rest, ", ")
	if !ok || strings.TrimSpace(after) == "" || strings.ContainsAny(field, "0123456789.;:!?") {
		return s, false
	}
	if n := len(strings.Fields(field)); n == 0 || n > maxFieldWords {
		return s, false
	}
	return strings.TrimSpace(after), true
}

// titleCased reports whether every word of tokens but the small words of a title is
// capitalised: "A Nightmare on Elm Street is a 1984 ... film" opens with a name, not a kind (a
// relay run read it as defining one that the 2010 film's page named), while "An American
// football player is ..." defines one.
func titleCased(tokens []string) bool {
	for _, tok := range tokens {
		if !text.IsCapitalised(tok) && !text.IsTitleMinorWord(strings.ToLower(tok)) {
			return false
		}
	}
	return true
}

// kindDefiners are the articles a definition of a kind named without one goes on with ("is the
// management of", "is an animated technique").
var kindDefiners = text.WordSet("a an the")

// namesMember reports whether words name kind within maxMemberWords words after a copula, and
// not after a possessive: "<an actor> is an American actor known for his method acting" says
// what the actor does, not that he is a method acting (a relay run paired it with the
// definition of method acting, and the judge was told to cite both).
func namesMember(words, kind []string) bool {
	for i, w := range words {
		if !copulas[w] {
			continue
		}
		window := words[i+1 : min(len(words), i+1+maxMemberWords)]
		for k := 0; k+len(kind) <= len(window); k++ {
			if slices.Equal(window[k:k+len(kind)], kind) && (k == 0 || !possessives[window[k-1]]) {
				return true
			}
		}
	}
	return false
}

// possessives before a kind make it something its subject has or does, not what it is.
var possessives = text.WordSet("his her its their my our your whose")

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

// definitionQuery is the query of a follow-up hop that looks for a definition of what the claim
// says of its entity, or "" when there is no call for one. There is when a source is the
// entity's entry and says what kind of thing it is ("Ostmoor Hall is a guild school"), states
// at most half of the claim's predicate words ("trains apprentices through paid work under a
// master craftsman"), and no source defines a kind in those words (definesPredicate). The query
// is the claim's predicate words in the claim's order, without a name: a definition names none
// of the claim's entities, and a query with the entity's name ranks the entity's own pages
// first. In a relay run the judge of "Howard Robard Hughes Jr. achieved immense wealth", given
// his entry ("an American business magnate"), asked for "Howard Hughes wealth fortune", which
// found his page again, while the corpus defines a business magnate as a person "who has
// achieved immense wealth through the ownership of multiple lines of enterprise". The words
// are the claim's own: no source text reaches a search.
//
// Only a claim about a named entity calls for one: a claim that opens with "a" or "an" describes
// an entity no source has named yet ("An automotive and clean energy company produces the Tesla
// Model S"), and the entry its sources hold is another entity's, whose maker the judge's own query
// asks for; unless its judge named the entity (named, a bridge's answer) and the entry is that
// entity's: "An undergraduate institution of higher education is located in Ripon", judged on
// "Ripon College is a private liberal arts college in Ripon" and partly supported naming Ripon
// College in a relay run, where the corpus says "Liberal arts colleges are undergraduate
// institutions of higher education".
func definitionQuery(claim PlanClaim, language string, given []evidence.Retrieved, named string) string {
	topic := newHopTopic(language, "", claim)
	first := text.Words(text.FoldForMatch(claim.ClaimText))
	if len(topic.predicate) < minDefinitionWords || len(first) == 0 {
		return ""
	}
	// The entry sought is the claim's entity's, or, for a claim describing an entity its judge
	// named, that entity's: its names tell it.
	entryOf := topic
	if indefiniteArticles[first[0]] {
		if named == "" {
			return ""
		}
		entryOf = newHopTopic(language, "", PlanClaim{Entities: []string{named}})
	}
	entry := false
	for _, g := range given {
		body := evidence.ShownText(g)
		if topic.definesPredicate(body) {
			return ""
		}
		if (entryOf.titled(g.Title) || entryOf.opensWith(body)) && classifies(body) && 2*topic.predicateShared(body) <= len(topic.predicate) {
			entry = true
		}
	}
	if !entry {
		return ""
	}
	var words []string
	seen := map[string]bool{}
	for _, tok := range text.Tokens(claim.ClaimText, "") {
		w := text.Singular(text.FoldForMatch(tok))
		if topic.predicate[w] && !seen[w] {
			seen[w] = true
			words = append(words, tok)
		}
	}
	return strings.Join(words, " ")
}

// maxClassifyingWords bounds where an entry says what kind of thing its subject is: its first
// sentence's verb and article ("Howard Robard Hughes Jr. was an American business magnate").
const maxClassifyingWords = 12

// classifies reports whether body opens by saying what kind of thing its subject is: a copula
// followed by "a" or "an" within its first maxClassifyingWords words.
func classifies(body string) bool {
	words := text.SingularWords(body)
	for i := 0; i+1 < min(len(words), maxClassifyingWords); i++ {
		if copulas[words[i]] && indefiniteArticles[words[i+1]] {
			return true
		}
	}
	return false
}
