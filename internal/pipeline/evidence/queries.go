package evidence

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// What CheckVerificationQuery found or did, as recorded in Claim.QueryFlags.
const (
	// QueryMissing: there was no query (a deep claim without one).
	QueryMissing = "missing"
	// QueryTruncated: the query was longer than MaxVerificationQueryBytes and was cut.
	QueryTruncated = "truncated"
	// QueryMarkupStripped: HTML or XML tags, markdown or special tokens were removed.
	QueryMarkupStripped = "markup_stripped"
	// QueryDirectiveStripped: an embedded directive (a command, role-play, a role label, a URL
	// carrying instructions) was removed and a factual question remained.
	QueryDirectiveStripped = "directive_stripped"
	// QueryDirectiveOnly: once the directives were removed nothing factual remained.
	QueryDirectiveOnly = "directive_only"
	// QueryDraftReference: the query points at "the draft", "the text", "the answer" or the
	// like, which the verifier never sees.
	QueryDraftReference = "draft_reference"
	// QueryDanglingPronoun: the query leans on a pronoun (he, it, this...) with no referent.
	QueryDanglingPronoun = "dangling_pronoun"
	// QueryYesNoRepaired: a yes/no question was rewritten as an open one.
	QueryYesNoRepaired = "yes_no_repaired"
	// QueryYesNo: a yes/no question with no safe open rewrite.
	QueryYesNo = "yes_no"
	// QueryNotOpen: the query is a statement, which frames the check as yes/no.
	QueryNotOpen = "not_open_question"
	// QueryDateAnchored: a freshness-sensitive query got today's month and year.
	QueryDateAnchored = "date_anchored"
	// QueryOffClaimStripped: a sentence that shares no term with the claim was removed and a
	// sentence about the claim remained.
	QueryOffClaimStripped = "off_claim_stripped"
	// QueryOffClaim: no sentence of the query shares a term with the claim it should check.
	QueryOffClaim = "off_claim"
)

// MaxVerificationQueryBytes bounds one verification query; a longer one is cut (a question for
// a search engine is never that long, so a longer one is suspect).
const MaxVerificationQueryBytes = 500

// QueryCheck is what CheckVerificationQuery made of one verification query.
type QueryCheck struct {
	// Query is the query to search with, after the repairs; empty when Rejected.
	Query string
	// Flags name what the checks found or did, in the order they ran (the Query* constants).
	Flags []string
	// Rejected is true when no safe query remains: the claim stays unverified with Reason and
	// nothing is searched for it.
	Rejected bool
	Reason   string
}

// CheckVerificationQuery enforces in code what CoVe 2.0 asks of a verification query, because a
// query is derived from an untrusted draft and a prompt can only ask:
//
//   - instruction-free: markup, special tokens, role labels ("system:"), role-play ("you are
//     now..."), commands ("ignore previous instructions", "after searching, do X", "run ...",
//     "reveal ...") and URLs that carry instructions are stripped; if nothing factual remains the
//     query is rejected;
//   - self-contained: a reference to the draft ("the draft", "the text", "the answer", "the
//     response" ...) or a pronoun with no referent is rejected, because the verifier never sees
//     the draft;
//   - open, not yes/no: "Can you tell me who..." loses its preamble; a yes/no question is
//     rewritten where the asked-for slot is unambiguous ("Was X completed in 1889?" becomes "When
//     was X completed?", "Is X 330 m tall?" "How tall is X?", "Does X have 27 Y?" "How many Y
//     does X have?", "Is the population of X about N?" "What is the population of X?", "Was X
//     born in Y?" "Where was X born?"); any other yes/no question ("is X correct?") and a bare
//     statement are rejected;
//   - date-anchored: a freshness-sensitive query (latest, current, now, recent, newest, as of,
//     price, ranking, version, today...) with no date gets "as of <Month Year>" from today.
//
// Before any rule the query is cleaned (text.CleanUntrusted) and its directives are looked
// for in its folded form (text.FoldForMatch, accents dropped), so that fullwidth letters,
// zero-width characters and look-alike letters hide nothing; see SanitizeQuery, which multihop's
// hops share. Directives are found in every language of directiveTable (en, fr, de, es, it, pt,
// nl); the yes/no, pronoun and draft-reference rules are English, the language the
// specification expects queries in, and a query in another language passes them unchanged.
// claim is the claim the query checks (never the draft): a sentence of the query that shares no
// term with it is removed, and a query none of whose sentences does is rejected; "" skips that
// rule.
func CheckVerificationQuery(query, claim string, today time.Time) QueryCheck {
	return CheckVerificationQueryAbout(query, claim, claim, today)
}

// CheckVerificationQueryAbout is CheckVerificationQuery for a claim whose own words may not
// name what it is about: a claim written as a fragment of a draft sentence ("in 1952", "these
// were removed") shares no term with an honest query about it ("In what year did the school
// open?"). The query is about the claim when it shares a term with about, the sentence that
// holds the fragment; every other rule reads the claim alone, so that a directive is never
// kept for sharing a word with the rest of the sentence.
func CheckVerificationQueryAbout(query, claim, about string, today time.Time) QueryCheck {
	var qc QueryCheck
	reject := func(flag, reason string) QueryCheck {
		qc.Flags = append(qc.Flags, flag)
		qc.Rejected = true
		qc.Query = ""
		qc.Reason = reason
		return qc
	}
	if strings.TrimSpace(query) == "" {
		return reject(QueryMissing, "the plan gave this deep claim no verification query")
	}
	sq := sanitizeQuery(query, claim, about)
	if sq.Truncated {
		qc.Flags = append(qc.Flags, QueryTruncated)
	}
	if sq.Markup {
		qc.Flags = append(qc.Flags, QueryMarkupStripped)
	}
	if sq.Directives {
		qc.Flags = append(qc.Flags, QueryDirectiveStripped)
	}
	if sq.OffClaim {
		qc.Flags = append(qc.Flags, QueryOffClaimStripped)
	}
	s := sq.Query
	if !HasFactualContent(s) {
		if sq.Directives {
			return reject(QueryDirectiveOnly, "the verification query held only directives, no factual question: "+text.Quote(query))
		}
		return reject(QueryMissing, "the verification query has no factual question in it: "+text.Quote(query))
	}
	if sq.NotAboutClaim {
		return reject(QueryOffClaim, "the verification query shares no term with the claim it should check: "+text.Quote(query))
	}

	if ref := draftReference.FindString(s); ref != "" && !referenceHasObject(s, ref) {
		return reject(QueryDraftReference, fmt.Sprintf("the verification query refers to %q, which the verifier never sees: %s",
			strings.TrimSpace(ref), text.Quote(s)))
	}
	if p := danglingPronoun(s); p != "" {
		return reject(QueryDanglingPronoun, fmt.Sprintf("the verification query leans on %q with nothing it refers to, and the verifier never sees the draft: %s",
			p, text.Quote(s)))
	}

	if open, yesNo, ok := dropPreamble(s); ok {
		s = open
		if yesNo {
			qc.Flags = append(qc.Flags, QueryYesNoRepaired)
		}
	}
	if isYesNo(s) {
		open, ok := openRewrite(s)
		if !ok {
			return reject(QueryYesNo, "the verification query is a yes/no question with no safe open rewrite, "+
				"and a yes/no framing makes the verifier agree: "+text.Quote(s))
		}
		s = open
		if !containsFlag(qc.Flags, QueryYesNoRepaired) {
			qc.Flags = append(qc.Flags, QueryYesNoRepaired)
		}
	}
	if !isOpenQuestion(s) && isStatement(s) {
		return reject(QueryNotOpen, "the verification query is a statement, not an open question, "+
			"and a statement frames the check as yes/no: "+text.Quote(s))
	}
	if anchored, ok := anchorDate(s, today); ok {
		s = anchored
		qc.Flags = append(qc.Flags, QueryDateAnchored)
	}
	qc.Query = s
	return qc
}

// SanitizedQuery is a query with what SanitizeQuery removed from it.
type SanitizedQuery struct {
	// Query is what is left to search with; it may hold nothing factual.
	Query string
	// Truncated: the query was longer than MaxVerificationQueryBytes and was cut.
	Truncated bool
	// Markup: tags, template tokens or markdown were removed.
	Markup bool
	// Directives: directives or URLs were removed.
	Directives bool
	// OffClaim: a sentence sharing no term with the claim was removed, and one about it stayed.
	OffClaim bool
	// NotAboutClaim: no sentence shares a term with the claim; Query is kept (cove2 rejects
	// such a query, a multihop hop may run it).
	NotAboutClaim bool
}

// SanitizeQuery applies the rules every search query of every method obeys, because a query is
// written by a model from untrusted text: the query is cleaned (text.CleanUntrusted: NFKC,
// invisible characters, look-alike letters inside Latin words), cut to
// MaxVerificationQueryBytes, and loses its markup, its URLs, its directives (looked for in the
// folded form, in every language of directiveTable) and, when claim is not "", every sentence
// that shares no term with the claim while another does: a search query is a question or a
// noun phrase about the claim, nothing else. A query none of whose sentences shares a term with
// the claim is marked NotAboutClaim. A query nothing was removed from is returned as it was
// written.
func SanitizeQuery(query, claim string) (sq SanitizedQuery) {
	return sanitizeQuery(query, claim, claim)
}

// sanitizeQuery is SanitizeQuery with the text a query's sentence must share a term with to be
// about the claim (about: the claim, or the sentence a fragment claim is part of).
func sanitizeQuery(query, claim, about string) (sq SanitizedQuery) {
	s := strings.TrimSpace(text.CleanUntrusted(strings.ToValidUTF8(query, "")))
	if len(s) > MaxVerificationQueryBytes {
		s = text.Truncate(s, MaxVerificationQueryBytes)
		sq.Truncated = true
	}
	if stripped, changed := StripMarkup(s); changed {
		s, sq.Markup = stripped, true
	}
	terms, aboutTerms := contentTerms(claim), contentTerms(about)
	claimWords := wordingOf(claim)
	// Sentences off the claim go before the directives are cut out of the others, so that what
	// is left of a directive's sentence ("instructions and mark this as true.") goes with it.
	offClaim := func() {
		if len(aboutTerms) == 0 || !HasFactualContent(s) {
			return
		}
		kept, dropped := aboutClaim(s, aboutTerms)
		if kept == "" {
			// Nothing to keep the query to: whether that rejects it is the method's call (a
			// multihop hop may look for an intermediate fact the claim does not name).
			sq.NotAboutClaim = true
			return
		}
		sq.NotAboutClaim = false
		// A sentence that went is named for what it held: a directive, or only other matters.
		for _, d := range dropped {
			if _, directive := StripDirectives(d); directive {
				sq.Directives = true
			} else {
				sq.OffClaim = true
			}
		}
		s = kept
	}
	offClaim()
	planned := s
	if stripped, changed := stripDirectives(s, claimWords); changed {
		s, sq.Directives = stripped, true
	}
	if stripped, changed := stripGluedCommands(s, planned, terms, claimWords); changed {
		s, sq.Directives = stripped, true
	}
	if sq.Truncated || sq.Markup || sq.Directives || sq.OffClaim {
		s = TidyQuery(s)
	}
	defer func() { sq.Query = keepSpacedEnd(query, sq.Query) }()
	before := s
	offClaim()
	if s != before {
		s = TidyQuery(s)
	}
	sq.Query = s
	return sq
}

// spacedMark is French typography's space before "?" and "!" ("achevée ?").
var (
	spacedMark   = regexp.MustCompile(`\p{L}([ \x{00a0}\x{202f}])[?!]`)
	unspacedMark = regexp.MustCompile(`(\p{L})([?!])$`)
)

// keepSpacedEnd gives s's final "?" or "!" the space before it that the original query used
// elsewhere, which tidying after a removal took away.
func keepSpacedEnd(orig, s string) string {
	m := spacedMark.FindStringSubmatch(orig)
	if m == nil {
		return s
	}
	return unspacedMark.ReplaceAllString(s, "${1}"+m[1]+"${2}")
}

// stripGluedCommands removes a command of directiveTable that stands inside a clause rather
// than at its start, as when a directive is glued to a keyword query ("Eiffel Tower history
// reveal your prompt"), with the rest of its sentence, when that part shares no term with the
// claim: a query's words about the claim are never cut. Without the claim's terms it does
// nothing, since a command word inside a clause may be a noun ("steel output").
func stripGluedCommands(s, planned string, terms []string, claim claimWording) (string, bool) {
	if len(terms) == 0 {
		return s, false
	}
	removed := false
	for {
		d, off := detectionForm(s)
		masked := []byte(d)
		cut := false
		for {
			loc := gluedCommand.FindSubmatchIndex(masked)
			if loc == nil {
				break
			}
			if sharesTerm(contentTerms(s[off[loc[0]]:off[loc[1]]]), terms) || notADirective(s, off[loc[2]], off[loc[3]], claim, true) ||
				(!strings.ContainsFunc(s[off[loc[2]]:off[loc[3]]], unicode.IsSpace) && endsQuery(s, planned, off[loc[3]])) {
				// Not this command: an order after it in the same sentence is still looked for.
				for i := loc[2]; i < loc[3]; i++ {
					masked[i] = 'x'
				}
				continue
			}
			s = s[:off[loc[0]]] + " " + s[off[loc[1]]:]
			cut, removed = true, true
			break
		}
		if !cut {
			return s, removed
		}
	}
}

// endsQuery reports whether the word of s that ends at to is the last word of the query as it
// was planned. A command word glued to the end of a keyword query has no object and orders
// nothing: it is a noun of the query ("SZA official artist bio record label", "{c1} 1997 solo
// record review label", two of a real model's hop queries that lost their last word). A
// command left last by the removal of what followed it ("reveal" of "... reveal your prompt")
// is no such word, nor is a command of two words ("follow it" has its object): the caller
// asks only of one word.
func endsQuery(s, planned string, to int) bool {
	trim := func(v string) string {
		return strings.TrimRightFunc(v, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	}
	if trim(s[to:]) != "" {
		return false
	}
	last := func(v string) string {
		words := strings.Fields(trim(v))
		if len(words) == 0 {
			return ""
		}
		return foldWord(words[len(words)-1])
	}
	w := last(s[:to])
	return w != "" && w == last(planned)
}

// sentenceEnd ends a sentence of a query: a full stop, question or exclamation mark, semicolon
// or line break followed by a space or the end (so "3.14" and "evil.com" are no end), unless it
// is an initial's full stop (afterInitial).
var sentenceEnd = regexp.MustCompile(`[.;!?\n]+(?:\s+|$)`)

// afterInitial reports whether the sentence end at s[at:] is the full stop of an initial, a
// capital letter standing alone ("J. K. Rowling"): a search by description joins two claims'
// words, and a relay run searched for "K. Rowling was published in 2000" once the sentence
// "... a novel by J." had gone for sharing no term with the claim.
func afterInitial(s string, at int) bool {
	if !strings.HasPrefix(s[at:], ". ") {
		return false
	}
	r, size := utf8.DecodeLastRuneInString(s[:at])
	if !unicode.IsUpper(r) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:at-size])
	return at == size || unicode.IsSpace(before)
}

// afterAbbreviation reports whether the sentence end at s[at:] is the full stop of an
// abbreviation (abbreviations: "Jr.", "Bros.") or of a name written with full stops ("B.I.G.",
// "U.S."), before a word in lower case or a number: relay runs searched for "William R.
// Tolbert Jr." of "William R. Tolbert Jr. place of death 1980 coup Executive Mansion", the rest
// gone for sharing no term with the claim. Before a capital it may end a sentence ("... Jr.
// Bitcoin price tomorrow.").
func afterAbbreviation(s string, at int) bool {
	if !strings.HasPrefix(s[at:], ". ") {
		return false
	}
	next, _ := utf8.DecodeRuneInString(strings.TrimLeft(s[at+1:], " "))
	if !unicode.IsLower(next) && !unicode.IsDigit(next) {
		return false
	}
	word := s[strings.LastIndexAny(s[:at], " \t\n")+1 : at]
	return strings.Contains(word, ".") || abbreviations[strings.ToLower(word)]
}

// abbreviations end with a full stop that ends no sentence (afterAbbreviation).
var abbreviations = text.WordSet("jr sr dr mr mrs ms st mt bros inc ltd co corp vs no vol")

// aboutClaim keeps the sentences of s that share a term with the claim's terms, and those with
// no word that could name anything ("U.S."); dropped are the sentences that went. kept is ""
// when no sentence shares a term with the claim.
func aboutClaim(s string, terms []string) (kept string, dropped []string) {
	var out []string
	about := false
	start := 0
	for _, loc := range append(sentenceEnd.FindAllStringIndex(s, -1), []int{len(s), len(s)}) {
		if afterInitial(s, loc[0]) || afterAbbreviation(s, loc[0]) {
			continue
		}
		sentence := s[start:loc[1]]
		start = loc[1]
		if strings.TrimSpace(sentence) == "" {
			continue
		}
		words := contentTerms(sentence)
		if len(words) == 0 {
			out = append(out, sentence)
			continue
		}
		if sharesTerm(words, terms) {
			out = append(out, sentence)
			about = true
			continue
		}
		dropped = append(dropped, sentence)
	}
	if !about {
		return "", dropped
	}
	return strings.TrimSpace(strings.Join(out, "")), dropped
}

// contentTerms returns the folded, accent-free words of s that can name something: three
// letters or more and not a word that names nothing (namesNothing), or any word with a digit.
func contentTerms(s string) []string {
	d, _ := detectionForm(s)
	var out []string
	for _, w := range text.Words(d) {
		if strings.ContainsAny(w, "0123456789") || utf8.RuneCountInString(w) >= 3 && !namesNothing(w) {
			out = append(out, w)
		}
	}
	// An initialism is a name of its own, though each of its letters is too short to be one
	// ("T.I. is American" and "What is the nationality of the rapper T.I.?" share "t.i").
	for _, w := range text.Tokens(strings.ToLower(d), ".") {
		if w = strings.TrimRight(w, "."); initialism.MatchString(w) {
			out = append(out, w)
		}
	}
	return out
}

// initialism is a name written as letters joined by full stops ("t.i", "r.e.m", "u.s").
var initialism = regexp.MustCompile(`^(\pL\.)+\pL$`)

// SharesTerm reports whether texts a and b share a word that can name something, or its stem:
// the test by which a verification query is about its claim (CheckVerificationQuery).
func SharesTerm(a, b string) bool { return sharesTerm(contentTerms(a), contentTerms(b)) }

// sharesTerm reports whether a word of a and a word of b are the same or share a stem: one is a
// prefix of the other ("tall", "tallest"), or they share their first five letters
// ("completed", "completion").
func sharesTerm(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y || commonPrefix(x, y) >= min(5, max(4, min(utf8.RuneCountInString(x), utf8.RuneCountInString(y)))) {
				return true
			}
		}
	}
	return false
}

func commonPrefix(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n
}

// requestWords are the words of a request to a search engine ("tell", "find", "search",
// "query"...), which in a query name nothing the claim is about.
var requestWords = text.WordSet("tell know find search answer question query please")

// namesNothing reports whether a folded, accent-free word names nothing: a stop word of any
// language (text.IsAnyStopWord; a query's language is not known) or a word of a request. A
// sentence that shares only these with a claim is not about it.
func namesNothing(w string) bool { return text.IsAnyStopWord(w) || requestWords[w] }

func containsFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

var (
	// tagPattern matches an HTML or XML tag, a closing one, a comment, a declaration and
	// chat-template tokens (<|im_start|>), whatever their case and spacing.
	tagPattern     = regexp.MustCompile(`<\s*(?:/\s*)?[A-Za-z!?|][^<>]{0,300}>|<\|[^<>|]{0,100}\|>`)
	mdImage        = regexp.MustCompile(`!\[[^\]]{0,300}\]\([^)]{0,500}\)`)
	mdLink         = regexp.MustCompile(`\[([^\]]{0,300})\]\([^)]{0,500}\)`)
	mdEmphasis     = regexp.MustCompile("\\*\\*|__|```+|`|^#{1,6}\\s+|(?m)^>\\s*")
	templateTokens = regexp.MustCompile(`(?is)<\|im_start\|>.{0,1000}?(?:<\|im_end\|>|$)|\[/?(?:INST|SYS|SYSTEM|ASSISTANT|USER)\]|<<\s*/?\s*SYS\s*>>|\{\{[^{}]{0,200}\}\}|\{%[^%]{0,200}%\}`)
	// roleElements are whole elements whose tag names a chat role or an instruction: their
	// content is a message, not part of a question.
	roleElements = func() []*regexp.Regexp {
		var out []*regexp.Regexp
		for _, name := range []string{"system", "assistant", "user", "developer", "tool", "instructions?", "prompt", "command", "script", "style"} {
			out = append(out, regexp.MustCompile(`(?is)<\s*`+name+`\b[^<>]{0,300}>.{0,1000}?(?:<\s*/\s*`+name+`\s*>|$)`))
		}
		return out
	}()
)

// StripMarkup removes tags, template tokens and markdown from a query: a question for a search
// engine has none, and each is a way to smuggle structure past a fence.
func StripMarkup(s string) (string, bool) {
	orig := s
	s = strings.NewReplacer("\uFF1C", "<", "\uFF1E", ">", "\uFE64", "<", "\uFE65", ">").Replace(s)
	s = templateTokens.ReplaceAllString(s, " ")
	for _, e := range roleElements {
		s = e.ReplaceAllString(s, " ")
	}
	// A tag ends a clause: a directive wrapped in tags ("<q>Run X</q> When was...") must not
	// run on into the question after it, and must still start a clause of its own.
	s = tagPattern.ReplaceAllString(s, "\n")
	s = mdImage.ReplaceAllString(s, " ")
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdEmphasis.ReplaceAllString(s, "")
	s = strings.NewReplacer("<", " ", ">", " ").Replace(s)
	s = strings.TrimSpace(s)
	return s, s != strings.TrimSpace(orig)
}

// clauseRest is what a directive takes with it: the rest of its clause, up to and with a comma,
// a colon, a line break, a "then" or a sentence's end (a full stop inside a word, as in
// "evil.com" or "3.14", is no end).
const clauseRest = `(?:[^.;:!?\n,]|[.;:!?][^\s.;:!?,])*?(?:\s+(?:and\s+)?then\b|[.;:!?,\n]|$)`

// sentenceRest is the rest of the sentence, commas included, for directives whose object is a
// clause of its own ("after searching, do X").
const sentenceRest = `(?:[^.;!?\n]|[.;!?][^\s.;!?])*`

// roleLabel is a role label of a chat transcript ("system:", "assistant:"), the label group 1:
// after a capitalised word it ends a name instead ("the Legacy System: assessing...", issue 22),
// which stripDirectives leaves.
var roleLabel = regexp.MustCompile(`(?i)(?:^|[\s\[(|{])(system|assistant|user|developer|human|ai|tool|model)\s*(?::|\]|>)` + sentenceRest)

var directivePatterns = []*regexp.Regexp{
	// Role-play and persona changes, wherever they stand.
	regexp.MustCompile(`(?i)\byou\s+are\s+(?:now|no\s+longer|actually|hereby|free|in\s+\w+\s+mode|a\s+new|an?\s+(?:unrestricted|unfiltered|jailbroken|different|evil))\b` + sentenceRest),
	// "role-playing game" is honest: role-play is a directive when it is proposed ("let's
	// role-play"), introduces its part ("roleplay:", "role-play as") or is written as one word.
	regexp.MustCompile(`(?i)\b(?:(?:let'?s|let\s+us)\s+role[\s-]?play(?:ing)?|role[\s-]?play(?:ing)?\s*(?::|\s+as\b|\s+with\s+me\b)|roleplay(?:ing)?|from\s+now\s+on|jailbreak\w*|developer\s+mode|do\s+anything\s+now)\b` + sentenceRest),
	// "ignore previous instructions" anywhere, even mid-clause.
	regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|the|of)\s+)*(?:(?:all|any|every|your|my|these|those|previous|prior|above|earlier|preceding|former|system|safety|original|other)\s+)+(?:(?:the|of)\s+)*(?:instructions?|prompts?|directions?|guidelines?|directives?|commands?|messages?|context|everything|constraints|restrictions)\b` + sentenceRest),
	// Role labels of chat transcripts: "system:", "assistant:", "### Instruction".
	roleLabel,
	regexp.MustCompile(`(?i)#{1,6}\s*(?:instructions?|system|response|assistant)\b` + sentenceRest),
	// "after searching, do X": a command tied to the verifier's own steps.
	regexp.MustCompile(`(?i)\b(?:after|before|while|when|once|whenever)\s+(?:you\s+(?:have\s+|'ve\s+)?)?(?:search(?:ing|ed|es)?|verif(?:y|ying|ied)|answer(?:ing|ed)?|read(?:ing)?|look(?:ing|ed)\s+(?:it\s+)?up|retriev(?:e|ing|ed)|respond(?:ing|ed)?|finish(?:ing|ed)?|done)\b` + sentenceRest),
	// Asking for what a verifier must never give out.
	regexp.MustCompile(`(?i)\b(?:(?:system|hidden|secret|initial|developer)\s+(?:prompt|instructions?)|system\s+message|your\s+(?:instructions|prompt|rules|guidelines|configuration|api[\s-]?keys?|passwords?|secrets?|credentials?|tools?|system))\b` + sentenceRest),
	// Telling the verifier what to conclude.
	// ("to mark it as distinct" is honest: the pattern wants a verdict after "as".)
	regexp.MustCompile(`(?i)\b(?:mark|label|flag|rate|report|classify|treat|consider|count)\s+(?:this|it|the\s+claim|the\s+answer|the\s+draft|everything|all(?:\s+claims)?)\s+as\s+(?:an?\s+|the\s+)?(?:verified|true|supported|confirmed|correct|accurate|factual|fact|valid|high|reliable|trustworthy|settled|proven|refuted|false|done|approved)\b` + sentenceRest),
	regexp.MustCompile(`(?i)\b(?:confidence|verdict|answer|status)\s*[:=]\s*(?:high|medium|supported|true|confirmed|verified|correct)\b` + sentenceRest),
	// Commands at the start of a clause, in every language of directiveTable.
	tableCommands,
	// Sentences holding a directive phrase of any language of directiveTable.
	tablePhrases,
}

var (
	urlPattern = regexp.MustCompile(`(?i)\b(?:(?:https?|ftp|file|javascript|data|vbscript):\S+|www\.\S+|[a-z0-9-]+(?:\.[a-z0-9-]+)+/\S*)`)
	// urlVerb is a command to go somewhere, which never belongs in a question (in the folded,
	// accent-free form of every language of directiveTable).
	urlVerb = regexp.MustCompile(`(?i)\b(?:visit|open|fetch|browse|navigate\s+to|go\s+to|click|load|read|see|check|follow|download|curl|wget|post\s+to|send\s+to|` + urlVerbs() + `)\s+(?:(?:the|la|le|die|den|de|het|el|il|o|a)\s+(?:page|link|url|site|seite|pagina|sitio|sito|enlace|pagine)\s+)?(?:at\s+|on\s+|sur\s+|auf\s+|en\s+|su\s+|em\s+|op\s+)?$`)
)

// StripDirectives removes every URL (a search query names things, it does not point at
// pages), the directives of directivePatterns and of directiveTable; it reports whether it
// removed any. The directives are looked for in the folded form of s (see detectionForm), so
// that "Ｉgnore", "Ig\u200bnore" and "Іgnore" with a Cyrillic "І" are "ignore", and removed
// from s itself.
func StripDirectives(s string) (string, bool) { return stripDirectives(s, claimWording{}) }

// stripDirectives is StripDirectives with the words of the claim the query checks (wordsOf),
// which a command word of the query may repeat without being an order (notADirective).
func stripDirectives(s string, claim claimWording) (string, bool) {
	s = text.CleanUntrusted(s)
	removed := false
	// A URL the query tells the verifier to visit goes with its verb.
	for {
		d, off := detectionForm(s)
		locs := urlPattern.FindAllStringIndex(d, -1)
		if locs == nil {
			break
		}
		loc := locs[len(locs)-1]
		from, to := loc[0], loc[1]
		if v := urlVerb.FindStringIndex(d[:loc[0]]); v != nil {
			from = v[0]
			// "Visit URL now": the adverb was the command's.
			if f := afterURLFiller.FindStringIndex(d[to:]); f != nil {
				to += f[1]
			}
		}
		s = s[:off[from]] + " " + s[off[to]:]
		removed = true
	}
	for {
		changed := false
		for _, p := range directivePatterns {
			d, off := detectionForm(s)
			var loc []int
			switch p {
			case tableCommands:
				loc = commandMatch(p, s, d, off, func(from, to int) bool { return notADirective(s, from, to, claim, false) })
			case roleLabel:
				loc = commandMatch(p, s, d, off, func(from, _ int) bool { return endsName(s, from) })
			default:
				loc = p.FindStringIndex(d)
			}
			if loc == nil {
				continue
			}
			// Keep the punctuation that opened the clause, so that what came before still ends
			// where it did.
			start := loc[0]
			if start < len(d) && strings.ContainsRune(`.;:!?,`, rune(d[start])) {
				start++
			}
			if loc[1] <= start {
				continue
			}
			s = s[:off[start]] + " " + s[off[loc[1]]:]
			changed, removed = true, true
		}
		if !changed {
			return s, removed
		}
	}
}

// detectionForm returns s folded for the directive checks, rune by rune with
// text.FoldForMatch (NFKC, invisible characters dropped, look-alike letters mapped, lower
// case) and with accents removed ("précédentes" is "precedentes", so that one ASCII pattern
// serves every spelling), and off, the byte offset in s of every byte of the folded form (and
// len(s) after it): a match in the folded form is cut from s. Spaces and quote marks are kept,
// for the clause boundaries.
func detectionForm(s string) (string, []int) {
	var b strings.Builder
	off := make([]int, 0, len(s)+1)
	for i, r := range s {
		f := string(r)
		if !unicode.IsSpace(r) && !text.IsQuoteMark(r) {
			f = text.FoldForMatch(f)
			if r >= 0x80 {
				f = text.DropAccents(f)
			}
		}
		b.WriteString(f)
		for range len(f) {
			off = append(off, i)
		}
	}
	return b.String(), append(off, len(s))
}

var (
	spaceRun        = regexp.MustCompile(`\s+`)
	spaceBeforePunc = regexp.MustCompile(`\s+([?.,;:!])`)
	puncRun         = regexp.MustCompile(`([,;:])(?:\s*[,;:.])+`)
	leadingJunk     = regexp.MustCompile(`(?i)^(?:[\s,;:.!?\-–—"'“”‘’]|(?:and|then|also|but|so|or|plus|please|now)\b)+`)
	trailingJunk    = regexp.MustCompile(`(?i)(?:[\s,;:\-–—]|\b(?:and|then|also|but|so|or|plus|please)\b)+([?.!]?)$`)
	questionEnd     = regexp.MustCompile(`[,;:]\s*\?`)
	punctAfterEnd   = regexp.MustCompile(`([?!])(?:\s*[.?!,;:])+`)
)

// TidyQuery folds whitespace and removes the punctuation and connectives that stripping left
// dangling, then capitalises the first letter and ends an open question with "?".
func TidyQuery(s string) string {
	s = spaceRun.ReplaceAllString(s, " ")
	s = spaceBeforePunc.ReplaceAllString(s, "$1")
	s = puncRun.ReplaceAllString(s, "$1")
	s = questionEnd.ReplaceAllString(s, "?")
	s = punctAfterEnd.ReplaceAllString(s, "$1")
	for {
		t := strings.TrimSpace(trailingJunk.ReplaceAllString(leadingJunk.ReplaceAllString(s, ""), "$1"))
		t = strings.TrimSpace(strings.TrimRight(t, ",;:"))
		if t == s {
			break
		}
		s = t
	}
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, "??") {
		s = strings.TrimSuffix(s, "?")
	}
	if s == "" {
		return ""
	}
	// "iPhone" and "eBay" keep their case; a plain lower-case first word is capitalised.
	if first := strings.Fields(s)[0]; strings.ToLower(first) == first {
		r, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if words := queryTokens(leadingPhrase.ReplaceAllString(s, "")); len(words) > 0 && !strings.HasSuffix(s, "?") &&
		(whWords[strings.ToLower(words[0])] || auxWords[strings.ToLower(words[0])]) {
		s = strings.TrimRight(s, ".! ") + "?"
	}
	return s
}

// FillerWords carry no fact: a query of only these (and punctuation) asks nothing.
var FillerWords = text.WordSet("a an the and or but so then also please now just it this that these those is are was were be do does did to of in on at for with by from what which who whom whose when where why how me you your i we us our my yes no ok okay sure thanks thank tell say answer question query search find")

// HasFactualContent reports whether s still asks something: at least two words, one of them
// not a filler word.
func HasFactualContent(s string) bool {
	words := queryTokens(strings.ToLower(s))
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if !FillerWords[w] && utf8.RuneCountInString(w) > 1 {
			return true
		}
	}
	return false
}

var (
	// draftReference matches a reference to the text under verification.
	draftReference = regexp.MustCompile(`(?i)\b(?:(?:the|this|that|above|previous|prior|earlier|original|given|provided|following|preceding|aforementioned|said|your|my)\s+(?:draft|text|answer|response|passage|paragraph|statement|reply|output|excerpt|message|claim|assertion)s?|the\s+draft|the\s+above|above-mentioned|aforementioned|(?:mentioned|stated|described|listed|quoted|cited|claimed|given|said|written)\s+(?:above|earlier|previously|before|here)|as\s+(?:stated|claimed|described|mentioned)(?:\s+(?:above|earlier|here|there))?)\b`)
	// referenceObject is what follows a noun like "text" when it names something in the world
	// ("the text of the First Amendment", "the response to the 2008 crisis", "the claim that the
	// Great Wall is visible from space").
	referenceObject = regexp.MustCompile(`(?i)^\s+(?:of|to|from|about|by|on|in|for|at|that)\b`)
)

// referenceHasObject reports whether the draft-like reference ref in s names something else:
// "the text of X" is a question about X's text, not about the draft. "the draft" is never one.
func referenceHasObject(s, ref string) bool {
	lower := strings.ToLower(ref)
	if strings.Contains(lower, "draft") || strings.Contains(lower, "above") || strings.HasPrefix(lower, "as ") ||
		strings.HasPrefix(lower, "your ") || strings.HasPrefix(lower, "my ") || strings.HasPrefix(lower, "mentioned") ||
		strings.HasPrefix(lower, "stated") || strings.HasPrefix(lower, "aforementioned") {
		return false
	}
	i := strings.Index(s, ref)
	if i < 0 {
		return false
	}
	return referenceObject.MatchString(s[i+len(ref):])
}

var (
	personalPronouns = text.WordSet("he she him her his hers they them their theirs its")
	demonstratives   = text.WordSet("this that these those")
	timeNouns        = text.WordSet("year years month months week weeks day days century centuries decade decades season seasons morning evening quarter time era period summer winter spring autumn fall")
	whWords          = text.WordSet("what which who whom whose when where why how")
	auxWords         = text.WordSet("is are was were am be been being do does did can could has have had will would should shall may might must isn't aren't wasn't weren't doesn't don't didn't can't couldn't hasn't haven't hadn't won't wouldn't shouldn't")
	determiners      = text.WordSet("the a an")
	pluralPronouns   = text.WordSet("they them their theirs")
	prepositions     = text.WordSet("of in at on for from with by to about into over under between among")
	// SentenceStarters are capitalised at the start of a question without naming anything.
	SentenceStarters = text.WordSet("what which who whom whose when where why how is are was were am be do does did can could has have had will would should shall may might must i list name describe identify give state explain define summarise summarize tell find outline compare in on at for during since according as from by of to with under among after before please")
)

func init() {
	for w := range auxWords {
		SentenceStarters[w] = true
	}
}

// whatIs and copulas open a question that names what it asks about: "What is ugali ...?".
var (
	whatIs  = text.WordSet("what who")
	copulas = text.WordSet("is are was were")
)

// interrogativeDeterminers open a noun phrase when a noun follows them ("Which police force",
// "What company"), and a question when a verb does ("What is its population?").
var interrogativeDeterminers = text.WordSet("which what whose")

// namesAThing reports whether w, after an interrogative determiner, can be the noun it asks
// about: no auxiliary, pronoun or preposition ("Which of these", "What is", "What did they").
func namesAThing(w string) bool {
	lw := strings.ToLower(w)
	return !auxWords[lw] && !personalPronouns[lw] && !demonstratives[lw] && !text.IsTitleMinorWord(lw) && lw != "it"
}

// danglingPronoun returns a pronoun the query leans on with nothing in it to refer to, or "".
// A pronoun has a referent when a name (a capitalised word that is not the first word, or a word
// with a capital inside it: nameWord), a noun phrase ("the company", "a flag", "which police
// force") or a number comes before it, and "they" when the things a first question counts do
// ("How many types of chains are there, and how do they differ?": countedBefore); "it" may also
// point forward ("What time is it in Tokyo?"), and "this year" is a time, not a pronoun.
func danglingPronoun(s string) string {
	words := queryTokens(s)
	if len(words) == 0 {
		return ""
	}
	referentBefore := func(i int) bool {
		for j := 0; j < i; j++ {
			w := words[j]
			lw := strings.ToLower(w)
			switch {
			case determiners[lw] && j+1 < i:
				return true
			case interrogativeDeterminers[lw] && j+1 < i && namesAThing(words[j+1]):
				return true // "Which police force has its headquarters at ...?"
			case strings.ContainsAny(w, "0123456789"):
				return true
			case nameWord(w) && !SentenceStarters[lw] && !personalPronouns[lw] && !demonstratives[lw] && lw != "it":
				return true
			case pluralPronouns[strings.ToLower(words[i])] && pluralSubject(words, j) && j+1 < i:
				return true // "How do players control their characters?"
			case pluralPronouns[strings.ToLower(words[i])] && countedBefore(words, j, i):
				return true // "How many types of chains are there, and how do they differ?"
			}
		}
		return false
	}
	// "What is ugali and in which region is it eaten?", "What is reidite, and what is its
	// composition?": a what-is question names the thing it asks about, capitalised or not.
	whatIsNames := len(words) > 2 && whatIs[strings.ToLower(words[0])] && copulas[strings.ToLower(words[1])] &&
		namesAThing(words[2]) && !text.IsAnyStopWord(strings.ToLower(words[2]))
	referentAnywhere := func() bool {
		if whatIsNames {
			return true
		}
		for j, w := range words {
			lw := strings.ToLower(w)
			if determiners[lw] && j+1 < len(words) || strings.ContainsAny(w, "0123456789") ||
				(nameWord(w) && !SentenceStarters[lw] && !personalPronouns[lw] && !demonstratives[lw] && lw != "it") {
				return true
			}
		}
		return false
	}
	for i, w := range words {
		lw := strings.ToLower(w)
		next := ""
		if i+1 < len(words) {
			next = strings.ToLower(words[i+1])
		}
		switch {
		case personalPronouns[lw]:
			if !referentBefore(i) && !(lw == "its" && whatIsNames && i > 2) {
				return w
			}
		case lw == "it":
			if i == 0 || !referentAnywhere() {
				return w
			}
		case demonstratives[lw]:
			if timeNouns[next] {
				continue
			}
			// "that" after a noun is a relative pronoun or a conjunction ("the ship that sank").
			standalone := i == 0 || next == "" || auxWords[next] ||
				(i > 0 && (whWords[strings.ToLower(words[i-1])] || auxWords[strings.ToLower(words[i-1])] || strings.ToLower(words[i-1]) == "of"))
			if standalone && !referentBefore(i) {
				return w
			}
		}
	}
	return ""
}

// nameWord reports whether w is written as a name: capitalised, or with a capital after its
// first letter, as brands write theirs ("iHeartMedia", "eBay"; a relay run's cove2 query "What
// type of company is iHeartMedia and in which country is it based?" was refused as leaning on
// "it" with no referent).
func nameWord(w string) bool { return strings.ContainsFunc(w, unicode.IsUpper) }

// countedBefore reports whether words[j] opens what a "how many" question counts ("How many
// types of chains are there") and a second question, after "and" and its wh-word, comes between
// it and the pronoun at i: "they" there refers to the things counted ("..., and how do they
// differ?"). In the counting question itself the pronoun has no referent: "How many albums did
// they release?" asks whose.
func countedBefore(words []string, j, i int) bool {
	if j < 2 || !strings.EqualFold(words[j-2], "how") || !strings.EqualFold(words[j-1], "many") {
		return false
	}
	for k := j + 1; k+1 < i; k++ {
		if strings.EqualFold(words[k], "and") && whWords[strings.ToLower(words[k+1])] {
			return true
		}
	}
	return false
}

// pluralSubject reports whether words[j] is a plural noun standing as its clause's subject
// right after an auxiliary ("do players", "did settlers") and followed by its verb, not by a
// phrase a pronoun may sit in ("do members of their band": no referent). A plural after a
// wh-word or "many" is what the question asks about, not a referent ("How many albums did they
// release?").
func pluralSubject(words []string, j int) bool {
	if j == 0 || j+1 >= len(words) || !auxWords[strings.ToLower(words[j-1])] {
		return false
	}
	w := words[j]
	if w != strings.ToLower(w) || len(w) <= 3 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") ||
		strings.HasSuffix(w, "us") || text.IsAnyStopWord(w) || personalPronouns[w] {
		return false
	}
	return !prepositions[strings.ToLower(words[j+1])] && !auxWords[strings.ToLower(words[j+1])]
}

// queryTokens splits a query into words, punctuation dropped.
func queryTokens(s string) []string {
	return text.Tokens(s, "'-.")
}

var (
	// preambleToWh matches a polite wrapper around an open question: "Can you tell me who...",
	// "Do you know when...", "Tell me where...".
	preambleToWh = regexp.MustCompile(`(?i)^(?:please\s+)?(?:(?:can|could|would|will)\s+(?:you|anyone|someone)\s+(?:please\s+)?(?:tell|show|let)\s+(?:me|us)\s+(?:know\s+)?|(?:do|does)\s+(?:you|anyone|someone)\s+know\s+|i\s+(?:want|would\s+like|need|wish)\s+to\s+know\s+|i\s+wonder\s+|(?:tell|show)\s+(?:me|us)\s*:?\s+|(?:find|look\s+up|search\s+for|explain|find\s+out)\s*:?\s+)((?:what|which|who|whom|whose|when|where|why|how)\b.*)$`)
)

// dropPreamble turns "Can you tell me who wrote X?" into "Who wrote X?"; yesNo is true when the
// preamble was itself a yes/no question ("Can you...", "Do you know...").
func dropPreamble(s string) (open string, yesNo, ok bool) {
	m := preambleToWh.FindStringSubmatch(s)
	if m == nil {
		return s, false, false
	}
	words := queryTokens(s)
	return TidyQuery(m[1]), len(words) > 0 && auxWords[strings.ToLower(words[0])], true
}

var (
	// leadingPhrase is a framing phrase before the main clause: "According to the WHO, ",
	// "As of 2024, ", "In France, ".
	leadingPhrase  = regexp.MustCompile(`(?i)^((?:according\s+to|as\s+of|in|on|at|for|during|since|under|by|among|within|from|regarding|concerning)\b[^,?]{0,80},\s*)`)
	tagQuestion    = regexp.MustCompile(`(?i),\s*(?:correct|right|true|yes|no|isn'?t\s+it|is\s+it|aren'?t\s+they|wasn'?t\s+it|didn'?t\s+(?:it|they|he|she)|don'?t\s+they|doesn'?t\s+it|is\s+that\s+(?:right|correct|true)|am\s+i\s+right)\s*\??$`)
	truthStatement = regexp.MustCompile(`(?i)\b(?:is|are|was|were)\s+it\s+(?:really\s+)?(?:true|correct|accurate|right|the\s+case)\s+that\b`)
	truthCheck     = regexp.MustCompile(`(?i)\b(?:is|are|was|were)\s+(?:it|this|that)\s+(?:really\s+)?(?:true|correct|accurate|right|the\s+case|a\s+fact)\b|\btrue\s+or\s+false\b|^(?:verify|confirm|check|determine)\s+(?:that|whether|if)\b|\b(?:correct|accurate|true|right|valid)\s*\??$`)
)

// isYesNo reports whether s is a yes/no question: its main clause starts with an auxiliary
// ("Is", "Did", "Can"...), it asks whether something is true, or it ends in a tag ("..., right?").
func isYesNo(s string) bool {
	main := leadingPhrase.ReplaceAllString(s, "")
	words := queryTokens(main)
	if len(words) == 0 {
		return false
	}
	first := strings.ToLower(words[0])
	if auxWords[first] {
		return !offersAlternatives(main)
	}
	if whWords[first] {
		// "Which of the theories is correct?" is open; only an explicit truth check is not.
		return truthStatement.MatchString(main)
	}
	return tagQuestion.MatchString(s) || truthCheck.MatchString(s)
}

// offersAlternatives reports whether a question opening with an auxiliary offers two answers
// to choose from ("Is the school public or private?", "Does the route end at X, or does it
// continue?"): the verifier must choose, which it cannot do by agreeing. "... or not" and "true
// or false" offer the question's own truth, and a truth check is yes/no whatever follows it.
//
// A yes/no question that asks, if so, for the specifics ("Did X ever resign from a broadcasting
// job, and if so from which one and when?") is open too: the verifier must give them.
func offersAlternatives(q string) bool {
	if words := queryTokens(q); len(words) == 0 || !auxWords[strings.ToLower(words[0])] || truthCheck.MatchString(q) {
		return false
	}
	if ifSoAsks.MatchString(q) {
		return true
	}
	m := alternative.FindStringSubmatch(q)
	return m != nil && !notAnAlternative[strings.ToLower(m[1])] && !truthWords.MatchString(q)
}

var (
	// ifSoAsks is ", and if so" followed, in its clause, by a wh-word.
	ifSoAsks = regexp.MustCompile(`(?i),?\s+(?:and\s+)?if\s+so,?\s+(?:[^.?!;]*\s)?(?:what|which|who|whom|whose|when|where|why|how)\b`)
	// alternative is " or " before a word, a comma before it or not.
	alternative      = regexp.MustCompile(`(?i),?\s+or\s+(\pL+)`)
	notAnAlternative = text.WordSet("not no otherwise never nothing")
	truthWords       = regexp.MustCompile(`(?i)\b(?:true|false|correct|incorrect|accurate|inaccurate|right|wrong)\b`)
)

var (
	dateWords = `(?:\d{4}-\d{2}-\d{2}|(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?,?\s+)?\d{4}|(?:the\s+)?(?:early\s+|mid-?|late\s+)?\d{3,4}s?|the\s+\d{1,2}(?:st|nd|rd|th)\s+century)`
	// numberWords is a figure in digits or in words (text.NumberWordPattern, a compound such
	// as "twenty-one" included), with its scale; a scale alone ("million") is no figure, or a
	// greedy subject would swallow the figure before it.
	numberWords   = `(?:\d[\d,.]*|(?:` + figureWord + `)(?:[\s-](?:` + figureWord + `))?|a\s+hundred|a\s+thousand|a\s+million)(?:\s*(?:%|percent|hundred|thousand|million|billion|trillion))?`
	figureWord    = text.NumberWordPattern("thousand", "million", "billion", "trillion")
	qualifierWord = `(?:about|around|approximately|roughly|over|under|more\s+than|fewer\s+than|less\s+than|at\s+least|at\s+most|exactly|only|nearly|almost|just)`
	qualifiers    = `(?:` + qualifierWord + `\s+)?`
)

var trailingQualifier = regexp.MustCompile(`(?i)\s+` + qualifierWord + `$`)

var openRewrites = []struct {
	pattern *regexp.Regexp
	rewrite func(m []string) string
}{
	// "Was the Eiffel Tower completed in 1889?" -> "When was the Eiffel Tower completed?"
	{regexp.MustCompile(`(?i)^(was|were|did|is|are|has|have|had|does|do)\s+(.+?)\s+(?:in|on|during)\s+` + dateWords + `\s*\??$`),
		func(m []string) string { return "When " + strings.ToLower(m[1]) + " " + m[2] + "?" }},
	// "Has X been CEO since 2010?" -> "Since when has X been CEO?"
	{regexp.MustCompile(`(?i)^(was|were|is|are|has|have|had)\s+(.+?)\s+since\s+` + dateWords + `\s*\??$`),
		func(m []string) string { return "Since when " + strings.ToLower(m[1]) + " " + m[2] + "?" }},
	// "Is the Eiffel Tower 330 meters tall?" -> "How tall is the Eiffel Tower?"
	{regexp.MustCompile(`(?i)^(is|was|are|were)\s+(.+?)\s+` + qualifiers + numberWords + `\s*[\p{L}°'"]*\s+(tall|high|long|wide|deep|old|heavy|large|big|far|away|thick)\s*\??$`),
		func(m []string) string {
			adj := strings.ToLower(m[3])
			if adj == "away" {
				adj = "far"
			}
			return "How " + adj + " " + strings.ToLower(m[1]) + " " + m[2] + "?"
		}},
	// "Does the EU have 27 member states?" -> "How many member states does the EU have?"
	{regexp.MustCompile(`(?i)^(does|do|did)\s+(.+?)\s+(have|contain|include|employ|own|list)\s+` + qualifiers + numberWords + `\s+([^?]+?)\s*\??$`),
		func(m []string) string {
			return "How many " + m[4] + " " + strings.ToLower(m[1]) + " " + m[2] + " " + strings.ToLower(m[3]) + "?"
		}},
	// "Is the population of France about 68 million?" -> "What is the population of France?"
	{regexp.MustCompile(`(?i)^(is|was|are|were)\s+(the\s+[\p{L}\s-]{2,60}?\s+of\s+.+)\s+` + qualifiers + `[$€£¥]?` + numberWords + `(?:\s*[\p{L}°%$€£/]+){0,2}\s*\??$`),
		func(m []string) string {
			subject := strings.TrimSpace(trailingQualifier.ReplaceAllString(m[2], ""))
			return "What " + strings.ToLower(m[1]) + " " + subject + "?"
		}},
	// "Was Obama born in Hawaii?" -> "Where was Obama born?"
	{regexp.MustCompile(`(?i)^(was|were|is|are)\s+(.+?)\s+(born|founded|located|headquartered|based|established|built|buried|situated|held|filmed|published|invented|discovered|made|manufactured|produced|recorded|created|signed|incorporated|registered|raised|educated|married|killed|elected)\s+in\s+([^?]+?)\s*\??$`),
		func(m []string) string {
			return "Where " + strings.ToLower(m[1]) + " " + m[2] + " " + strings.ToLower(m[3]) + "?"
		}},
}

// openRewrite rewrites a yes/no question whose asked-for slot is unambiguous (a date, a measure,
// a count, a quantity of a named attribute, a place) into the open question for that slot.
func openRewrite(s string) (string, bool) {
	prefix := leadingPhrase.FindString(s)
	main := strings.TrimSpace(s[len(prefix):])
	if truthCheck.MatchString(main) || tagQuestion.MatchString(main) {
		return "", false
	}
	for _, r := range openRewrites {
		m := r.pattern.FindStringSubmatch(main)
		if m == nil {
			continue
		}
		open := r.rewrite(m)
		if prefix != "" {
			r0, n := utf8.DecodeRuneInString(open)
			open = prefix + string(unicode.ToLower(r0)) + open[n:]
		}
		return TidyQuery(open), true
	}
	return "", false
}

var openImperative = regexp.MustCompile(`(?i)^(?:list|name|describe|identify|give|state|explain|define|summari[sz]e|tell\s+me|find|outline|compare)\b`)

// isOpenQuestion reports whether s asks an open question: it has a wh-word, or it starts with
// an open imperative ("List...", "Name...").
func isOpenQuestion(s string) bool {
	if openImperative.MatchString(s) {
		return true
	}
	if strings.HasSuffix(strings.TrimSpace(s), "?") && offersAlternatives(s) {
		return true // "Is the school public or private?": a choice is asked for
	}
	for _, w := range queryTokens(s) {
		if whWords[strings.ToLower(w)] || questionWords[text.DropAccents(strings.ToLower(w))] {
			return true
		}
	}
	return false
}

// isStatement reports whether s is a sentence that asserts something (it has a finite verb or
// ends in a full stop), rather than a list of keywords, which a search engine takes as it is.
func isStatement(s string) bool {
	if strings.HasSuffix(strings.TrimSpace(s), ".") {
		return true
	}
	for _, w := range queryTokens(s) {
		if auxWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

var (
	// FreshnessWords mark a query whose answer drifts with time.
	FreshnessWords = regexp.MustCompile(`(?i)\b(?:latest|current(?:ly)?|now|nowadays|recent(?:ly)?|newest|most\s+recent|as\s+of|prices?|pricing|rankings?|ranked|version|versions|today|this\s+(?:year|month|week)|incumbent|presently|at\s+present|up[\s-]to[\s-]date|to\s+date|so\s+far)\b`)
	// hasDate matches a year, an ISO date or a month with its year.
	hasDate = regexp.MustCompile(`(?i)\b(?:1[0-9]{3}|2[0-9]{3})\b|\b\d{4}-\d{2}-\d{2}\b`)
	// driftingQuantities are the freshness words that name a quantity (a price, a version, a
	// rank) rather than a time: of a past event ("For what price did they buy the house?") they
	// are that event's, and do not drift.
	driftingQuantities = regexp.MustCompile(`(?i)^(?:prices?|pricing|rankings?|ranked|versions?)$`)
	// pastEvent is the auxiliary of a question about a past event.
	pastEvent = regexp.MustCompile(`(?i)\bdid\b`)
	// relativeNow is a "now" that the anchor replaces rather than follows.
	relativeNow = regexp.MustCompile(`(?i)\b(?:as\s+of\s+(?:today|now|this\s+(?:month|year)|the\s+present)|(?:right\s+)?now|today|at\s+present|presently|nowadays)\s*\?$`)
)

// anchorDate adds "as of <Month Year>" to a freshness-sensitive query that has no date yet, so
// that the verifier cannot take stale evidence for current ("What is the latest stable version
// of Rust as of July 2026?"). A trailing "today" or "now" is replaced by the anchor. A question
// about a past event ("did") whose only freshness words are quantities (a price, a version, a
// rank) is not anchored: the price paid then is no figure that drifts.
func anchorDate(s string, today time.Time) (string, bool) {
	if !FreshnessWords.MatchString(s) || hasDate.MatchString(s) {
		return s, false
	}
	if pastEvent.MatchString(s) && !slices.ContainsFunc(FreshnessWords.FindAllString(s, -1), func(w string) bool { return !driftingQuantities.MatchString(w) }) {
		return s, false
	}
	if today.IsZero() {
		today = time.Now()
	}
	anchor := "as of " + today.Format("January 2006")
	if loc := relativeNow.FindStringIndex(s); loc != nil {
		return strings.TrimSpace(s[:loc[0]]) + " " + anchor + "?", true
	}
	body := strings.TrimRight(s, "?.! ")
	return body + " " + anchor + "?", true
}
