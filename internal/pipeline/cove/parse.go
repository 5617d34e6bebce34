package cove

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// The labels and numbers of the CoVe variants' line-format replies.
var (
	// itemNumber matches a number that lists an item ("1. ", "2) "), before a label.
	itemNumber = regexp.MustCompile(`^\(?\d{1,3}[.)]\s+`)
	// jointLabel matches the label of a Joint line: "Q:", "A:", and what models make of them
	// ("**Q:**", "Q1:", "Question 2:", "Answer:").
	jointLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?(question|answer|q|a)(?:\s*\d{1,3})?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// claimLabel matches the label of a Factor + revise plan line: "Claim:", "Question:", and
	// their markdown, numbered or "Verification question:" forms.
	claimLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?(claim|(?:verification\s+)?question|q)(?:\s*\d{1,3})?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// inlineQuestion finds a "Question:" label written on the same line as its claim.
	inlineQuestion = regexp.MustCompile(`(?i)(?:^|[\s|;,(\[])(?:\*\*|__)?(?:verification\s+)?question(?:\s*\d{1,3})?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// answerNumber matches the number that starts a numbered answer: "1.", "1)", "(1)", "1:",
	// "1 -", "**1.**", "Answer 1:", "A1:". A delimiter must be followed by a space or the end of
	// the line, so that "3.14" is not answer 3.
	answerNumber = regexp.MustCompile(`(?i)^(?:(?:\*\*|__)?(?:answer|a)\s*#?\s*)?(?:\*\*|__)?\(?(\d{1,3})(?:[.:)]|\s+[-–—])(?:\*\*|__)?(?:\s+|$)`)
	// answerLabel matches an "A:" or "Answer:" label before an answer's text.
	answerLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?(?:answer|a)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// verdictLabel matches a "Verdict:" label before a cross-check verdict.
	verdictLabel = regexp.MustCompile(`(?i)^(?:\*\*|__)?verdict(?:\*\*|__)?\s*:(?:\*\*|__)?\s*`)
	// verdictWord matches the three verdicts of the Cross-check prompt at the start of a line.
	verdictWord = regexp.MustCompile(`(?i)^(?:(partial(?:ly)?|partly)[\s_-]+consistent|(inconsistent)|(consistent))\b`)
	// partSeparator is what comes between PARTIALLY CONSISTENT and its part.
	partSeparator = regexp.MustCompile("^[\\s*_`\"']*[:\\-–—]?[\\s*_`]*")
)

// maxParsedItems bounds what a parser returns from one reply, whatever the model wrote: caps are
// applied later, but no reply may make a parser's output grow without bound.
const maxParsedItems = 200

var (
	// listMarker matches what models put before list items: "1.", "1)", "(1)", "Q1:", "-", "*",
	// "•", markdown headings and quote marks.
	listMarker = regexp.MustCompile(`^(?:#{1,6}\s+|>\s*|[-*•·+]\s+|\(?\d{1,3}[.):]\s*|[Qq]\d{1,3}[.):]\s*)+`)
	// preface matches a line that introduces the list instead of being part of it.
	preface = regexp.MustCompile(`(?i)^(?:sure|okay|ok|certainly|here\b|below\b|the following\b|these are\b|verification questions?\b|questions?\b)[^?]*:\s*$`)
)

// cleanLine strips list markers, markdown emphasis and stray whitespace from one line.
func cleanLine(line string) string {
	s := pipeline.StripEmphasis(strings.TrimSpace(line))
	s = strings.TrimSpace(listMarker.ReplaceAllString(s, ""))
	s = pipeline.StripEmphasis(s)
	if len(s) > pipeline.MaxLineBytes {
		s = text.Truncate(s, pipeline.MaxLineBytes)
	}
	return s
}

// ParseQuestionLines reads a plan written as one verification question per line. It tolerates
// what real models add (numbering, bullets, blank lines, a preface line, markdown fences and
// emphasis) and drops exact repeats, keeping plan order.
func ParseQuestionLines(reply string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "```") || preface.MatchString(trimmed) {
			continue
		}
		q := cleanLine(trimmed)
		if q == "" || seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, q)
		if len(out) == maxParsedItems {
			break
		}
	}
	return out
}

// labelledLine splits a line into its label (lower case, as label matched it) and the cleaned
// text after it; ok is false when the line has no label. Markdown emphasis around the whole line,
// bullets and an item number before the label are tolerated.
func labelledLine(line string, label *regexp.Regexp) (name, text string, ok bool) {
	s := pipeline.StripEmphasis(strings.TrimSpace(line))
	s = pipeline.BulletMarker.ReplaceAllString(s, "")
	s = itemNumber.ReplaceAllString(s, "")
	m := label.FindStringSubmatchIndex(s)
	if m == nil {
		return "", "", false
	}
	return strings.ToLower(s[m[2]:m[3]]), pipeline.CleanText(s[m[1]:]), true
}

// QAPair is one verification question and its answer as the Joint reply wrote them.
type QAPair struct {
	Question string
	Answer   string
}

// ParseJointPairs reads the Joint variant's Plan and answer reply strictly as alternating "Q:" and
// "A:" lines: an "A:" line answers the "Q:" line before it. A question whose next labelled line is
// another "Q:" (or the end of the reply), or whose "A:" line is empty, has no answer: it is
// returned in unanswered, not paired. An "A:" line with no question before it is ignored, and so
// are lines with neither label (a preface, blank lines, fences), and a "Q:" line with no text
// starts no question. A question and its answer on one line are not split: that line is a
// question with no answer.
//
// What is tolerated is only how a label is written ("**Q:**", "Q1:", "Question:", "- A:",
// "1. Q:"), never the order. Both lists hold at most maxParsedItems items of at most
// maxLineBytes each.
func ParseJointPairs(reply string) (pairs []QAPair, unanswered []string) {
	pending, hasPending := "", false
	drop := func() {
		if hasPending && pending != "" && len(unanswered) < maxParsedItems {
			unanswered = append(unanswered, pending)
		}
		pending, hasPending = "", false
	}
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || pipeline.IsFence(trimmed) {
			continue
		}
		label, text, ok := labelledLine(trimmed, jointLabel)
		if !ok {
			continue
		}
		switch label {
		case "q", "question":
			drop()
			pending, hasPending = text, text != ""
		default: // "a", "answer"
			if !hasPending {
				continue
			}
			if text == "" {
				drop()
				continue
			}
			pairs = append(pairs, QAPair{Question: pending, Answer: text})
			pending, hasPending = "", false
			if len(pairs) == maxParsedItems {
				return pairs, unanswered
			}
		}
	}
	drop()
	return pairs, unanswered
}

// ClaimQuestion is one claim of a draft with the question that checks it, from the Factor +
// revise plan.
type ClaimQuestion struct {
	Claim    string
	Question string
}

// ParseClaimQuestionPairs reads the Factor + revise Plan claims and checks reply into pairs: each
// "Claim:" line with the "Question:" line after it. It tolerates numbering, bullets, blank lines,
// a preface, markdown labels ("**Claim 1:**"), a label alone on its line with its text on the next
// one, the question written on the claim's own line ("Claim: ... Question: ..."), and quotes
// around the claim. A claim with no question before the next claim (or the end) is returned in
// unpaired; a question with no claim before it is ignored. Both lists hold at most maxParsedItems
// items of at most maxLineBytes each.
func ParseClaimQuestionPairs(reply string) (pairs []ClaimQuestion, unpaired []string) {
	claim := ""
	awaiting := "" // the label whose text is on the next line: "claim" or "question"
	dropClaim := func() {
		if claim != "" && len(unpaired) < maxParsedItems {
			unpaired = append(unpaired, claim)
		}
		claim = ""
	}
	addQuestion := func(q string) bool {
		if claim == "" || q == "" {
			return false
		}
		pairs = append(pairs, ClaimQuestion{Claim: claim, Question: q})
		claim = ""
		return len(pairs) == maxParsedItems
	}
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || pipeline.IsFence(trimmed) {
			continue
		}
		label, text, ok := labelledLine(trimmed, claimLabel)
		if !ok {
			if awaiting == "" {
				continue
			}
			text = cleanLine(trimmed)
			label, awaiting = awaiting, ""
		} else {
			awaiting = ""
		}
		if label == "claim" {
			dropClaim()
			question := ""
			if m := inlineQuestion.FindStringIndex(text); m != nil && m[0] > 0 {
				text, question = strings.TrimRight(text[:m[0]], " \t|;,-–—([*_"), pipeline.CleanText(text[m[1]:])
			}
			claim = pipeline.Unquote(pipeline.CleanText(text))
			if claim == "" {
				awaiting = "claim"
				continue
			}
			if question != "" && addQuestion(question) {
				return pairs, unpaired
			}
			continue
		}
		// A question label.
		if text == "" {
			if claim != "" {
				awaiting = "question"
			}
			continue
		}
		if addQuestion(text) {
			return pairs, unpaired
		}
	}
	dropClaim()
	return pairs, unpaired
}

// ParseNumberedAnswers reads the Two-step Answer all checks reply into answers keyed by their
// number. It tolerates "1.", "1)", "(1)", "1:", "1 -", "**1.**", "Answer 1:", bullets before the
// number, an "A:" label after it, blank lines, fences and a preface (lines without a number are
// ignored). A numbered line with no text, or whose text is a question (the model repeated the
// question), is provisional: it takes its answer from the next line without a number, or gives
// way to a later line with the same number (a model that lists the questions before answering
// them). Otherwise the first answer given a number keeps it. At most maxParsedItems answers of at
// most maxLineBytes each are returned; an answer may be empty when the model wrote only a number.
func ParseNumberedAnswers(reply string) map[int]string {
	answers := map[int]string{}
	provisional := map[int]bool{}
	awaiting := 0 // the number whose answer may be on the next unnumbered line
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || pipeline.IsFence(trimmed) {
			continue
		}
		s := pipeline.BulletMarker.ReplaceAllString(pipeline.StripEmphasis(trimmed), "")
		m := answerNumber.FindStringSubmatchIndex(s)
		if m == nil {
			if awaiting != 0 && !preface.MatchString(s) && !strings.HasSuffix(s, ":") {
				if text := cleanAnswer(s); text != "" {
					answers[awaiting], provisional[awaiting] = text, false
					awaiting = 0
				}
			}
			continue
		}
		awaiting = 0
		n, err := strconv.Atoi(s[m[2]:m[3]])
		if err != nil || n < 1 {
			continue
		}
		if _, seen := answers[n]; seen && !provisional[n] {
			continue
		}
		if _, seen := answers[n]; !seen && len(answers) == maxParsedItems {
			continue
		}
		text := cleanAnswer(s[m[1]:])
		answers[n] = text
		provisional[n] = text == "" || strings.HasSuffix(text, "?")
		if provisional[n] {
			awaiting = n
		}
	}
	return answers
}

// cleanAnswer removes an "A:" label and markdown from an answer and cuts it to maxLineBytes.
func cleanAnswer(s string) string {
	s = pipeline.StripEmphasis(strings.TrimSpace(s))
	s = answerLabel.ReplaceAllString(s, "")
	return pipeline.CleanText(s)
}

// Cross-check verdicts, the Factor + revise variant's own words.
const (
	CrossCheckConsistent   = "CONSISTENT"
	CrossCheckInconsistent = "INCONSISTENT"
	CrossCheckPartial      = "PARTIALLY CONSISTENT"
)

// CrossCheckVerdict is a parsed Cross-check reply.
type CrossCheckVerdict struct {
	// Verdict is CrossCheckConsistent, CrossCheckInconsistent or CrossCheckPartial.
	Verdict string
	// ConsistentPart is the part of the claim the evidence supports, for CrossCheckPartial.
	ConsistentPart string
	// Recognized is false when the reply started with none of the three verdicts; Verdict is then
	// CrossCheckInconsistent, as the specification requires.
	Recognized bool
}

// Line is the verdict line the Revise prompt gets for the claim: the verdict, and for a partial
// one "PARTIALLY CONSISTENT: " plus the consistent part.
func (v CrossCheckVerdict) Line() string {
	if v.Verdict == CrossCheckPartial {
		return CrossCheckPartial + ": " + v.ConsistentPart
	}
	return v.Verdict
}

// ParseCrossCheckVerdict reads a Cross-check reply. Its first line that is not blank or a fence
// must start with CONSISTENT, INCONSISTENT or PARTIALLY CONSISTENT (any case; markdown, bullets,
// quotes, leading whitespace and a "Verdict:" label are tolerated, and so are "PARTLY" and a
// hyphen for PARTIALLY). A partial verdict takes its part from the rest of the line after a
// colon or dash, or from the next line; a partial verdict with no part does not meet the prompt's
// format. A reply that starts with none of the verdicts, or a partial one with no part, is
// INCONSISTENT with Recognized false.
func ParseCrossCheckVerdict(reply string) CrossCheckVerdict {
	unrecognized := CrossCheckVerdict{Verdict: CrossCheckInconsistent}
	lines := strings.Split(reply, "\n")
	first := -1
	for i, line := range lines {
		if t := strings.TrimSpace(line); t != "" && !pipeline.IsFence(t) {
			first = i
			break
		}
	}
	if first < 0 {
		return unrecognized
	}
	s := pipeline.BulletMarker.ReplaceAllString(strings.TrimSpace(lines[first]), "")
	s = strings.TrimLeft(s, "*_`\"' \t")
	s = verdictLabel.ReplaceAllString(s, "")
	s = strings.TrimLeft(s, "*_`\"' \t")
	m := verdictWord.FindStringSubmatchIndex(s)
	switch {
	case m == nil:
		return unrecognized
	case m[4] >= 0:
		return CrossCheckVerdict{Verdict: CrossCheckInconsistent, Recognized: true}
	case m[6] >= 0:
		return CrossCheckVerdict{Verdict: CrossCheckConsistent, Recognized: true}
	}
	part := consistentPart(s[m[1]:])
	for _, next := range lines[first+1:] {
		if part != "" {
			break
		}
		if t := strings.TrimSpace(next); t != "" && !pipeline.IsFence(t) {
			part = consistentPart(cleanLine(t))
			break
		}
	}
	if part == "" {
		return unrecognized
	}
	return CrossCheckVerdict{Verdict: CrossCheckPartial, ConsistentPart: part, Recognized: true}
}

// consistentPart cleans the text after PARTIALLY CONSISTENT: separator, markdown and quotes.
func consistentPart(s string) string {
	s = partSeparator.ReplaceAllString(s, "")
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), "*_`"))
	return pipeline.CleanText(pipeline.Unquote(s))
}
