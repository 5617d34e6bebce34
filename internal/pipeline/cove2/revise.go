package cove2

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// The revised response obeys the review (issue 12, rule 8). The reviewer's revised text is
// checked against the draft word by word: every change must be one of the accepted
// corrections (the claim's words out, the correction's words in) or an added citation. If the
// text passes, it is used: it reads better than anything built by substitution (a paraphrased
// claim, the grammar of another language). If it makes any other change, drops most of the
// draft, or applies a refused correction, it is not used at all: the revised response is built
// in code from the draft and the accepted corrections (reviseInCode), as multihop builds its
// own, and the run is flagged with what the reviewer did. Either way nothing reaches the revised
// response that the review did not accept, and every accepted correction was itself checked for
// facts that neither the draft nor its evidence holds (newFacts).

// revised returns the revised response under the rules: the reviewer's text when every change
// it makes is an accepted correction, otherwise the draft with the accepted corrections applied
// in code; then every citation of a number no verifier used, and every URL no search returned,
// is removed.
func (r *cove2Run) revised(text string, claims []pipeline.Claim, refused []refusedCorrection, caveats map[int]string) string {
	flagged := map[pipeline.ReviewFlag]bool{}
	clean := func(text string) string {
		text, removed := evidence.FilterCitations(strings.TrimSpace(text), r.book.Has)
		flags := evidence.CitationFlags(removed)
		text, urls := evidence.StripUnknownURLs(text, r.retrievedURLs())
		for _, u := range urls {
			flags = append(flags, pipeline.Flagf(pipeline.FlagURLRemoved, "%s", u))
		}
		for _, f := range flags {
			if !flagged[f] {
				flagged[f] = true
				r.flag(f)
			}
		}
		return strings.TrimSpace(text)
	}
	text = clean(text)
	if flags := r.checkRevised(text, claims, refused, caveats); flags != nil {
		r.res.ReviewFlags = append(r.res.ReviewFlags, flags...)
		text = clean(r.reviseInCode(claims, caveats))
	}
	return text
}

// maxDiffCells bounds the word-by-word comparison of the reviewer's text with the draft (the
// product of the lengths of the parts that differ); past it the text is not checked but
// replaced, with no flag: the reviewer did nothing wrong.
const maxDiffCells = 4_000_000

// checkRevised returns the flags of everything the reviewer's revised text does that the review
// did not accept, or nil when it does nothing else. A text that is not used is always flagged,
// except when it is too long to check (then an empty, non-nil slice).
func (r *cove2Run) checkRevised(text string, claims []pipeline.Claim, refused []refusedCorrection, caveats map[int]string) []pipeline.ReviewFlag {
	for _, f := range refused {
		if appliesCorrection(text, r.in.Text, r.planned[f.position-1].Text, f.corrected) {
			return []pipeline.ReviewFlag{pipeline.Flagf(pipeline.FlagRevisedResponseReplaced, "it applied the refused correction of claim %d; "+
				"the draft with the allowed corrections is used instead", f.position)}
		}
	}
	draft, revised := factTokens(stripCitations(r.in.Text, r.retrievedURLs())), factTokens(stripCitations(text, r.retrievedURLs()))
	hunks, kept, ok := diffTokens(draft, revised)
	if !ok {
		return []pipeline.ReviewFlag{}
	}

	// The accepted corrections: each claim's words may go, its correction's words may come.
	type change struct{ out, in map[string]bool }
	var accepted []change
	corrected := map[string]bool{}
	for _, c := range claims {
		if c.Verdict == pipeline.VerdictRefuted && c.CorrectedText != "" {
			ch := change{wordSet(c.Text), wordSet(c.CorrectedText)}
			accepted = append(accepted, ch)
			for w := range ch.out {
				corrected[w] = true
			}
		}
	}

	// Most of the draft dropped: the words of corrected claims aside, less than half kept.
	total, keptOther := 0, 0
	for i, t := range draft {
		if !corrected[t.word] {
			total++
			if kept[i] {
				keptOther++
			}
		}
	}
	if total > 0 && 2*keptOther < total {
		return []pipeline.ReviewFlag{pipeline.Flagf(pipeline.FlagRevisedResponseRefused,
			"the reviewer's revised text keeps %d of the draft's %d words outside the corrected claims; the draft with the accepted corrections is kept", keptOther, total)}
	}

	known := wordSet(r.in.Text)
	for _, e := range r.res.Evidence {
		if e.SourceNumber > 0 {
			for w := range wordSet(e.Title + " " + e.Snippet + " " + e.Quote) {
				known[w] = true
			}
		}
	}
	knownForms := formsOf(known)
	// The caveats of uncertain claims may be added, as long as they state nothing new.
	var caveatWords []map[string]bool
	for _, cv := range caveats {
		caveatWords = append(caveatWords, wordSet(cv))
	}
	var added []string
	var changed []string
	for _, h := range hunks {
		if coveredBy(h, func(out, in map[string]bool) bool {
			for _, ch := range accepted {
				if subset(out, ch.out) && subset(in, ch.in) {
					return true
				}
			}
			for _, cw := range caveatWords {
				if len(out) == 0 && subset(in, cw) && len(factsNotIn(joinAll(h.in), knownForms)) == 0 {
					return true
				}
			}
			return false
		}) {
			continue
		}
		facts := 0
		for _, t := range h.in {
			if t.fact && !knownForms.holds(t.word) {
				added = appendOnce(added, t.text)
				facts++
			}
		}
		if facts == 0 && len(changed) < 3 {
			changed = append(changed, fmt.Sprintf("%q → %q", joinTokens(h.out), joinTokens(h.in)))
		}
	}
	var flags []pipeline.ReviewFlag
	if len(added) > 0 {
		flags = append(flags, pipeline.Flagf(pipeline.FlagUnsupportedAddition,
			"the reviewer's revised text adds %s, which neither the draft nor the cited evidence holds; the draft with the accepted corrections is used instead",
			strings.Join(added, ", ")))
	}
	if len(changed) > 0 {
		flags = append(flags, pipeline.Flagf(pipeline.FlagRevisedResponseReverted,
			"the reviewer's revised text changes %s, which no accepted correction covers; the draft with the accepted corrections is used instead",
			strings.Join(changed, "; ")))
	}
	return flags
}

// caveatsOf returns the reviewer's caveat of each claim the review left uncertain, by claim
// position: the spec's "keep the original statement, add a caveat".
func caveatsOf(review Review, claims []pipeline.Claim) map[int]string {
	byID := map[int]string{}
	for _, d := range review.Claims {
		if _, dup := byID[d.ID]; !dup {
			byID[d.ID] = text.OneLine(d.Caveat)
		}
	}
	out := map[int]string{}
	for _, c := range claims {
		if cv := byID[c.Position]; cv != "" && c.VariantVerdict == ReviewUncertain && c.Verdict != pipeline.VerdictNotChecked {
			out[c.Position] = cv
		}
	}
	return out
}

func joinAll(ts []token) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.text
	}
	return strings.Join(parts, " ")
}

// coveredBy reports whether a hunk is allowed: pure citations and punctuation are (they are not
// tokens), and so is a change that one accepted correction covers.
func coveredBy(h hunk, allowed func(out, in map[string]bool) bool) bool {
	out, in := map[string]bool{}, map[string]bool{}
	for _, t := range h.out {
		out[t.word] = true
	}
	for _, t := range h.in {
		in[t.word] = true
	}
	return allowed(out, in)
}

func subset(a, b map[string]bool) bool {
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

func appendOnce(xs []string, x string) []string {
	for _, v := range xs {
		if v == x {
			return xs
		}
	}
	return append(xs, x)
}

// newFacts returns the facts of text (numbers, dates, and capitalised names and places) that
// neither the draft nor the evidence holds, each once, as text writes them. A known word in
// another form (wordForm) is known.
func newFacts(text string, known map[string]bool) []string {
	return factsNotIn(text, formsOf(known))
}

// factsNotIn is newFacts with the known words' forms made once (formsOf), for a caller that
// reads many texts against them.
func factsNotIn(text string, known knownForms) []string {
	var out []string
	for _, t := range factTokens(text) {
		if t.fact && !known.holds(t.word) {
			out = appendOnce(out, t.text)
		}
	}
	return out
}

// wordForm is a folded word without its possessive and in the singular: "Ryder's" is "ryder"
// and "Oscars" "oscar", so that a reviewer writing a name the draft or its sources hold in
// another form adds no fact. In a relay run (EX-FEVER 2241-2320) two Medium contradictions were
// refused for "Ryder's" (the sources: "Ryder") and "Oscar" (the draft: "Oscars"). A number keeps
// its form: "1990s" is no "1990" (text.Singular).
func wordForm(word string) string {
	word = strings.TrimSuffix(strings.TrimSuffix(word, "'s"), "'")
	return text.Singular(word)
}

// knownForms are the forms (wordForm) of the words a text may use without adding a fact.
type knownForms map[string]bool

// formsOf is the forms of words, and of the words each hyphenated one joins: a source's
// "(818-830)" holds the 818 and the 830 of "from 818 to 830".
func formsOf(words map[string]bool) knownForms {
	forms := make(knownForms, len(words))
	for w := range words {
		forms[wordForm(w)] = true
		if strings.Contains(w, "-") {
			for _, part := range strings.Split(w, "-") {
				forms[wordForm(part)] = true
			}
		}
	}
	return forms
}

// holds reports whether word is known, as written or in another form: a known word's form is
// its own. A hyphenated word is known when every word it joins is: "Taliban-fanned" adds nothing
// to a source's "Taliban fanned" (a relay run's correction was refused so).
func (k knownForms) holds(word string) bool {
	if k[wordForm(word)] {
		return true
	}
	parts := strings.Split(word, "-")
	if len(parts) < 2 {
		return false
	}
	for _, part := range parts {
		if part == "" || !k[wordForm(part)] {
			return false
		}
	}
	return true
}

// evidenceWords are the words of what a verification's cited sources say: their titles, the
// text the verifier was shown of them (the snippet and the passages read from the page: a relay
// run's correction from a passage, "the 1977 U.S. tour", was refused when only the snippet was
// read here) and its quotes.
func evidenceWords(v Verification) map[string]bool {
	set := map[string]bool{}
	for _, s := range v.Sources {
		for w := range wordSet(s.Title + " " + evidence.ShownText(s) + " " + s.Quote) {
			set[w] = true
		}
	}
	return set
}

// token is one word of a text: folded for comparison, as written, and whether it states a fact
// of its own (a number, or a capitalised word that does not start a sentence: a name or place).
type token struct {
	word, text string
	fact       bool
}

// tokenPattern is a word: letters and digits, a number keeping its separators ("7,300", "3.5").
var tokenPattern = regexp.MustCompile(`[\p{L}\p{M}\p{N}]+(?:[.,'’][\p{N}]+)*(?:['’\-][\p{L}\p{M}\p{N}]+)*`)

func factTokens(s string) []token {
	s = text.CleanUntrusted(s)
	var out []token
	for _, m := range tokenPattern.FindAllStringIndex(s, -1) {
		written := s[m[0]:m[1]]
		first, _ := utf8.DecodeRuneInString(written)
		before := strings.TrimRightFunc(s[:m[0]], func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("\"'“”‘’«»([", r) })
		startsSentence := before == "" || strings.ContainsAny(before[len(before)-1:], ".!?:;")
		word := text.FoldForMatch(written)
		word = strings.NewReplacer(",", "", "’", "'").Replace(word)
		fact := strings.ContainsFunc(written, unicode.IsDigit) || unicode.IsUpper(first) && !startsSentence && !evidence.FillerWords[word]
		out = append(out, token{word: word, text: written, fact: fact})
	}
	return out
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range factTokens(s) {
		set[t.word] = true
	}
	return set
}

func joinTokens(ts []token) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.text
	}
	return text.Truncate(strings.Join(parts, " "), 80)
}

var citationMark = regexp.MustCompile(`\[\s*\d{1,4}(?:\s*(?:[,;]|[-–])\s*\d{1,4})*\s*\]`)

// stripCitations removes citations and URLs, which the check of the revised text leaves to
// FilterCitations and StripUnknownURLs.
func stripCitations(s string, known []string) string {
	s = citationMark.ReplaceAllString(s, " ")
	for _, u := range evidence.URLsIn(s, known) {
		s = strings.ReplaceAll(s, u, " ")
	}
	return s
}

// retrievedURLs are the URLs of every source the run's searches returned: the only URLs a
// revised response may hold.
func (r *cove2Run) retrievedURLs() []string {
	urls := make([]string, len(r.res.Evidence))
	for i, e := range r.res.Evidence {
		urls[i] = e.URL
	}
	return urls
}

// hunk is one change between two token lists: out removed, in added, in place.
type hunk struct{ out, in []token }

// diffTokens compares a with b by their longest common subsequence of words and returns the
// changes, and which tokens of a are kept. ok is false when the parts that differ are too long
// to compare (maxDiffCells).
func diffTokens(a, b []token) (hunks []hunk, kept []bool, ok bool) {
	kept = make([]bool, len(a))
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre].word == b[pre].word {
		kept[pre] = true
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf].word == b[len(b)-1-suf].word {
		kept[len(a)-1-suf] = true
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		return nil, kept, false
	}
	// lcs[i][j] is the length of the longest common subsequence of ma[i:] and mb[j:].
	lcs := make([][]int32, len(ma)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(mb)+1)
	}
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			switch {
			case ma[i].word == mb[j].word:
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	var cur hunk
	flush := func() {
		if len(cur.out)+len(cur.in) > 0 {
			hunks = append(hunks, cur)
		}
		cur = hunk{}
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i].word == mb[j].word:
			flush()
			kept[pre+i] = true
			i++
			j++
		case j < len(mb) && (i == len(ma) || lcs[i][j+1] >= lcs[i+1][j]):
			cur.in = append(cur.in, mb[j])
			j++
		default:
			cur.out = append(cur.out, ma[i])
			i++
		}
	}
	flush()
	return hunks, kept, true
}

// reviseInCode applies the accepted corrections to the draft, each followed by its citations,
// and cites each confirmed claim, and changes nothing else:
//
//   - a claim whose text is in the draft verbatim (and overlaps no other edit) is replaced by
//     its correction, or followed by its citations;
//   - otherwise the claim is placed in the draft's sentence that shares most of its words (at
//     least half of them), and its correction follows that sentence as "(corrected: ...)",
//     before the sentence's final punctuation, with its citations;
//   - an uncertain claim's caveat follows it the same way, "(caveat: ...)", unless it states a
//     fact the draft does not hold;
//   - a correction that finds no place is left to the report's Corrections, and flagged.
func (r *cove2Run) reviseInCode(claims []pipeline.Claim, caveats map[int]string) string {
	draft := r.in.Text
	type edit struct {
		start, end int
		text       string
		order      int
	}
	var edits []edit
	overlaps := func(start, end int) bool {
		for _, e := range edits {
			if e.end > e.start && start < e.end && e.start < end {
				return true
			}
		}
		return false
	}
	sentences := sentenceSpans(draft)
	known := wordSet(draft)
	for k, c := range claims {
		correction := c.Verdict == pipeline.VerdictRefuted && c.CorrectedText != ""
		confirmed := c.Verdict == pipeline.VerdictSupported && len(c.Citations) > 0
		caveat := caveats[c.Position]
		if facts := newFacts(caveat, known); len(facts) > 0 {
			r.flag(pipeline.Flagf(pipeline.FlagUnsupportedAddition, "claim %d: the caveat %q adds %s, which the draft does not hold; left out of the revised text",
				c.Position, text.Truncate(caveat, 120), strings.Join(facts, ", ")))
			caveat = ""
		}
		if !correction && !confirmed && caveat == "" {
			continue
		}
		cites := ""
		if len(c.Citations) > 0 {
			cites = " " + inlineCitation(c.Citations)
		}
		if caveat != "" {
			// The original statement is kept, and the caveat follows it.
			cites = " (caveat: " + strings.TrimRight(caveat, " .") + ")"
		}
		if start := strings.Index(draft, c.Text); c.Text != "" && start >= 0 && !overlaps(start, start+len(c.Text)) {
			end := start + len(c.Text)
			if correction {
				edits = append(edits, edit{start, end, strings.TrimRight(c.CorrectedText, " .!?") + cites, k})
			} else {
				edits = append(edits, edit{end, end, cites, k})
			}
			continue
		}
		at, found := bestSentenceEnd(draft, sentences, c.Text)
		switch {
		case !found && correction:
			r.flag(pipeline.Flagf(pipeline.FlagCorrectionNotInText, "claim %d's text is not in the draft; see Corrections", c.Position))
		case !found:
		case correction:
			edits = append(edits, edit{at, at, " (corrected: " + strings.TrimRight(c.CorrectedText, " .!?") + ")" + cites, k})
		default:
			edits = append(edits, edit{at, at, cites, k})
		}
	}
	// Apply from the end, so that earlier offsets stay valid; insertions at one place keep
	// claim order.
	sort.SliceStable(edits, func(a, b int) bool {
		if edits[a].start != edits[b].start {
			return edits[a].start > edits[b].start
		}
		return edits[a].order > edits[b].order
	})
	text := draft
	for _, e := range edits {
		text = text[:e.start] + e.text + text[e.end:]
	}
	return strings.TrimSpace(text)
}

// sentenceSpans splits text into sentences: each ends after a run of ".!?" followed by
// whitespace or the end of the text.
func sentenceSpans(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); i++ {
		if !strings.ContainsRune(".!?", rune(text[i])) {
			continue
		}
		j := i
		for j < len(text) && strings.ContainsRune(".!?", rune(text[j])) {
			j++
		}
		if j == len(text) || text[j] == ' ' || text[j] == '\n' || text[j] == '\t' || text[j] == '\r' {
			out = append(out, [2]int{start, j})
			start = j
		}
		i = j - 1
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// bestSentenceEnd returns where, in the draft's sentence sharing most of the claim's content
// words (at least half of them), an insertion goes: before the sentence's final punctuation.
func bestSentenceEnd(draft string, sentences [][2]int, claim string) (int, bool) {
	var content []string
	for w := range wordSet(claim) {
		if !evidence.FillerWords[w] {
			content = append(content, w)
		}
	}
	best, bestShared := -1, 0
	for k, s := range sentences {
		words := wordSet(draft[s[0]:s[1]])
		shared := 0
		for _, w := range content {
			if words[w] {
				shared++
			}
		}
		if shared > bestShared {
			best, bestShared = k, shared
		}
	}
	if best < 0 || 2*bestShared < len(content) {
		return 0, false
	}
	s := sentences[best]
	at := s[0] + len(strings.TrimRightFunc(draft[s[0]:s[1]], unicode.IsSpace))
	for at > s[0] && strings.ContainsRune(".!?", rune(draft[at-1])) {
		at--
	}
	return at, true
}
