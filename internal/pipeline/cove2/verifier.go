package cove2

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// DefaultVerifierSearchLimit is the number of search results a verifier reads per query.
const DefaultVerifierSearchLimit = 5

// Verification statuses.
const (
	// VerificationAnswered: the verifier answered from retrieved sources it cited.
	VerificationAnswered = "answered"
	// VerificationUnable: the verifier answered "unable to verify" (or gave no answer).
	VerificationUnable = "unable"
	// VerificationUngrounded: the verifier answered but cited no source a search returned.
	VerificationUngrounded = "ungrounded"
	// VerificationNoEvidence: the search returned nothing to answer from; no verify call is made.
	VerificationNoEvidence = "no_evidence"
	// VerificationFailed: the search or the verify call failed.
	VerificationFailed = "failed"
)

// Verification is what one isolated verifier made of one verification query.
type Verification struct {
	Query  string
	Status string
	// Answer is the verifier's answer; empty unless Status is VerificationAnswered.
	Answer string
	// Quotes are the verifier's quoted snippets, as it wrote them (at most three).
	Quotes []string
	// Retrieved are the results the verifier read, in rank order.
	Retrieved []evidence.Retrieved
	// Sources are the retrieved results the verifier cited as grounding its answer, in its
	// citation order. A cited URL that no search returned is never among them: it is in
	// RemovedSources.
	Sources        []evidence.Retrieved
	RemovedSources []string
	// StatedConfidence is what the model said; Confidence what Calibration made of it, never
	// higher. CalibrationNote says why.
	StatedConfidence string
	Confidence       string
	CalibrationNote  string
	// Reason says why the verification did not ground an answer.
	Reason string
	// SearchErr is the search's error when the evidence could not be fetched; the caller ends
	// the run when it is permanent (IsPermanent: a refused key, a bad configuration), which no
	// claim-level "unverified" should hide.
	SearchErr error
	// Flags are the review flags of this verification (FlagQuoteNotInSource, FlagSingleSource),
	// their detail without the claim, which the caller adds.
	Flags []pipeline.ReviewFlag
	// Reply is the verifier's raw reply, "" when no call was made; Attempts the verify calls made.
	Reply    string
	Attempts int
}

// Grounded reports whether the verification answered from at least one retrieved source.
func (v Verification) Grounded() bool { return v.Status == VerificationAnswered && len(v.Sources) > 0 }

// Verifier answers verification queries from search evidence alone. Its capabilities are read
// only: a SearchRecorder to search with and the model to answer with; no other tool, no draft,
// no claim and no other query is reachable from it, by construction: it holds nothing else, and
// its methods take the query (and, for Answer, that query's evidence) and nothing else. This is
// CoVe's Factored isolation, and the least privilege CoVe 2.0 asks for, enforced by signature.
// cove2 and multihop share it.
type Verifier struct {
	model  *pipeline.Recorder
	search *pipeline.SearchRecorder
	// Language is the language of the searches; "" searches every language, because a
	// verification query is written in the language most likely to find authoritative sources,
	// which need not be the draft's.
	Language string
	// Limit is the number of results read per query; 0 means DefaultVerifierSearchLimit.
	Limit int
	// Calibration sets the answers' confidence by corroboration.
	Calibration evidence.Calibration
	// Pages reads the pages of the first results; the zero value reads none.
	Pages evidence.PageReading
	// step names the verify calls in the trace; "" means StepVerify.
	step string
}

func (v Verifier) stepName() string {
	if v.step != "" {
		return v.step
	}
	return pipeline.StepVerify
}

// newVerifier returns a verifier that calls the model through rec and searches through search.
func newVerifier(rec *pipeline.Recorder, search *pipeline.SearchRecorder, cal evidence.Calibration) Verifier {
	return Verifier{model: rec, search: search, Calibration: cal}
}

func (v Verifier) limit() int {
	if v.Limit > 0 {
		return v.Limit
	}
	return DefaultVerifierSearchLimit
}

// Verify searches for query and answers it from what the search returned. target is the claim
// position the calls serve, for the trace. fresh asks the search not to use its cache (a
// re-verification). A search that fails, or finds nothing, is a verification that grounds
// nothing, with the reason; it never supports a claim, and no verify call is made for it.
func (v Verifier) Verify(ctx context.Context, target int, query string, fresh bool) Verification {
	resp, seq, err := v.search.SearchSeq(ctx, pipeline.SearchQuery{Query: query, Language: v.Language, Limit: v.limit(), NoCache: fresh})
	if err != nil {
		return Verification{Query: query, Status: VerificationFailed, Confidence: pipeline.ConfidenceLow, SearchErr: err,
			Reason: "evidence could not be fetched: " + err.Error()}
	}
	var given []evidence.Retrieved
	seen := map[string]bool{}
	for _, r := range resp.Results {
		key := evidence.DocumentKey(r.URL)
		if strings.TrimSpace(r.URL) == "" || seen[key] {
			continue
		}
		seen[key] = true
		given = append(given, evidence.Retrieved{SearchResult: r, SearchSeq: seq})
		if len(given) == v.limit() {
			break
		}
	}
	if len(given) == 0 {
		return Verification{Query: query, Status: VerificationNoEvidence, Confidence: pipeline.ConfidenceLow,
			Reason: "the search found no evidence for the verification query"}
	}
	// The verification query is what the passages are matched against: it is the claim's
	// question, checked in code, and this verifier is given nothing else.
	v.Pages.Read(ctx, given, query)
	return v.Answer(ctx, target, query, given)
}

// Answer answers query from evidence, results that a search returned for it (multihop passes
// the results of a chain's hops). A failed call is retried once, unless its error is permanent.
func (v Verifier) Answer(ctx context.Context, target int, query string, given []evidence.Retrieved) Verification {
	prompt, err := RenderVerifierPrompt(query, given)
	if err != nil {
		return Verification{Query: query, Status: VerificationFailed, Confidence: pipeline.ConfidenceLow, Retrieved: given,
			Reason: "the verifier prompt could not be rendered: " + err.Error()}
	}
	var (
		reply    string
		attempts int
	)
	for attempts = 1; attempts <= 2; attempts++ {
		reply, err = v.model.Complete(ctx, v.stepName(), target, pipeline.ModelRequest{Prompt: prompt, MaxTokens: 1024})
		if err == nil || ctx.Err() != nil || pipeline.IsPermanent(err) {
			break
		}
	}
	attempts = min(attempts, 2)
	if err != nil {
		return Verification{Query: query, Status: VerificationFailed, Confidence: pipeline.ConfidenceLow, Retrieved: given,
			Reason: "the verifier call failed: " + err.Error(), Attempts: attempts}
	}
	out := v.judge(query, given, reply)
	out.Attempts = attempts
	return out
}

// RenderVerifierPrompt renders the verifier prompt of CoVe 2.0: the specification's subagent
// template verbatim, with query inside its <untrusted_question> tags, followed by the evidence,
// each result a numbered <source> inside <evidence>. Everything interpolated is escaped by
// EscapeFenced, so no query, title, URL or snippet can close or open a fence.
func RenderVerifierPrompt(query string, given []evidence.Retrieved) (string, error) {
	return pipeline.RenderPrompt("cove2_verify", struct{ Query, Evidence string }{
		pipeline.EscapeFenced(strings.TrimSpace(query)), evidence.RenderEvidence(given)})
}

// judge turns a verifier's reply on query into a Verification: only sources among evidence
// count (any other is removed and named), quotes are matched to the sources they came from, and
// the confidence is calibrated, never raised.
func (v Verifier) judge(query string, given []evidence.Retrieved, reply string) Verification {
	p := ParseVerification(reply, given)
	out := Verification{Query: query, Retrieved: given, Quotes: p.Evidence, StatedConfidence: p.Confidence, Reply: reply}
	if p.Unable || p.Answer == "" {
		out.Status = VerificationUnable
		out.Confidence = pipeline.ConfidenceLow
		out.Reason = `the verifier answered "unable to verify" from the retrieved evidence`
		if !p.Unable {
			out.Reason = "the verifier's reply has no Answer"
		}
		return out
	}
	out.Answer = p.Answer

	// Support is attributed per source (evidence.AttributeQuotes, evidence.Attribute): a quote
	// marked [n] is source n's passage, an unmarked one belongs to the cited sources whose text
	// holds it, and a cited source with no passage found in its own text grounds nothing.
	cites, strays := evidence.AttributeQuotes(p.Refs, p.Passages, given)
	att := evidence.Attribute(cites, given)
	for _, s := range att.Sources {
		src := given[s.Index]
		src.Quote = s.Passage
		out.Sources = append(out.Sources, src)
	}
	for _, ref := range att.Removed {
		out.RemovedSources = append(out.RemovedSources, ref.String())
	}
	for _, c := range att.NotInSource {
		if c.Passage == "" {
			out.Flags = append(out.Flags, pipeline.Flagf(pipeline.FlagQuoteNotInSource, "the verifier cited [%d] with no passage from it; the citation was dropped", c.Ref.Number))
		} else {
			out.Flags = append(out.Flags, pipeline.Flagf(pipeline.FlagQuoteNotInSource, "the verifier quoted %q from [%d], which it does not say; the citation was dropped", text.Truncate(c.Passage, 120), c.Ref.Number))
		}
	}
	for _, q := range strays {
		out.Flags = append(out.Flags, pipeline.Flagf(pipeline.FlagQuoteNotInSource, "the verifier quoted %q, which no source says", text.Truncate(q, 120)))
	}
	if len(out.Sources) == 0 {
		out.Status = VerificationUngrounded
		out.Confidence = pipeline.ConfidenceLow
		out.Reason = "the verifier cited no source"
		switch {
		case len(att.NotInSource) > 0:
			out.Reason = fmt.Sprintf("no source the verifier cited holds the passage it relies on (%d citation(s) dropped)", len(att.NotInSource))
		case len(out.RemovedSources) > 0:
			out.Reason = "no source the verifier cited was among the retrieved results (removed: " +
				strings.Join(out.RemovedSources, ", ") + ")"
		}
		return out
	}
	cal := v.Calibration.CalibrateCited(p.Confidence, given, att.Indices())
	out.Status = VerificationAnswered
	out.Confidence = cal.Confidence
	out.CalibrationNote = cal.Note
	if len(att.NotInSource) > 0 {
		out.CalibrationNote += fmt.Sprintf("; %d citation(s) dropped: their passage is not in the source they cite", len(att.NotInSource))
	}
	if cal.OneVoice() && cal.Confidence != pipeline.ConfidenceLow {
		out.Flags = append(out.Flags, pipeline.Flagf(pipeline.FlagSingleSource, "the answer rests on one voice (%s)", evidence.HostOf(out.Sources[0].SearchResult)))
	}
	return out
}

// VerifierReply is a verifier's reply as ParseVerification read it.
type VerifierReply struct {
	Answer string
	// Evidence are the quoted snippets, at most three.
	Evidence []string
	// Passages are the same quotes with the [n] source each was marked with ("[2] \"...\"" or
	// "\"...\" [2]"), 0 when unmarked.
	Passages []evidence.Quote
	// Refs are the cited sources: URLs as written, or [n] numbers of the prompt's sources.
	Refs []evidence.SourceRef
	// Confidence is High, Medium or Low; "" when missing or unreadable.
	Confidence string
	// Unable is true when the Answer is "unable to verify" (or the whole reply is).
	Unable bool
}

// Bounds on a parsed verifier reply.
const (
	maxVerifierReplyBytes = 64 << 10
	maxQuotes             = 3
	maxSourceRefs         = 10
)

var (
	verifierLabel  = regexp.MustCompile(`(?i)^(?:[-*•+]\s*)?(?:\*\*|__)?\s*(answer|evidence|quotes?|sources?|source[\s_]urls?|urls?|confidence)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.*)$`)
	quotedText     = regexp.MustCompile(`"([^"]{1,500})"|“([^”]{1,500})”|«([^»]{1,500})»`)
	numberRef      = regexp.MustCompile(`\[(\d{1,3})\]|(?i)\bsource\s*#?\s*(\d{1,3})\b`)
	digitRun       = regexp.MustCompile(`\d{1,3}`)
	markedLine     = regexp.MustCompile(`^(?:\[(\d{1,3})\]\s*[:\-–]?\s*)?(.*?)(?:\s*\[(\d{1,3})\])?$`)
	bareNumbers    = regexp.MustCompile(`(?i)^(?:\d{1,3}(?:\s*(?:,|;|and|&)\s*|\s+)?)+$`)
	confidenceWord = regexp.MustCompile(`(?i)\b(high|medium|low)\b`)
)

// ParseVerification reads a verifier's reply in the specification's Return format ("Answer:",
// "Evidence:", "Sources:", "Confidence:" lines, each possibly followed by bullet lines), as real
// models write it: bullets, bold labels, quotes, extra blank lines. An Answer that is, or starts
// with, "unable to verify" (any case, quotes and punctuation aside) marks the reply Unable, and
// so does a reply that is only that. A confidence line that names more than one level (the
// template echoed: "High | Medium | Low") is unreadable and left empty, which counts as Low.
// given are the sources the verifier was given: a cited URL is read as the longest of their
// URLs the reply names (evidence.FindURLs), whatever characters it holds, and a quoted passage
// that holds quote marks of its own is read whole when a source holds it (quotedPassages), its
// quote marks written as JSON escapes (\") read as the marks.
func ParseVerification(reply string, given []evidence.Retrieved) VerifierReply {
	known := make([]string, len(given))
	sourceTexts := make([]string, len(given))
	for i, g := range given {
		known[i] = g.URL
		sourceTexts[i] = evidence.SourceText(g)
	}
	reply = strings.ToValidUTF8(text.Truncate(reply, maxVerifierReplyBytes), "")
	var out VerifierReply
	fields := map[string][]string{}
	current := ""
	for _, line := range strings.Split(reply, "\n") {
		trimmed := strings.TrimSpace(line)
		if m := verifierLabel.FindStringSubmatch(trimmed); m != nil {
			current = fieldOf(m[1])
			if _, dup := fields[current]; dup && current == "answer" {
				current = "" // a second Answer is not read: the first one stands
				continue
			}
			fields[current] = append(fields[current], m[2])
			continue
		}
		if current != "" && trimmed != "" && !pipeline.IsFence(trimmed) {
			fields[current] = append(fields[current], trimmed)
		}
	}

	answer := pipeline.CleanText(pipeline.Unquote(strings.Join(nonEmpty(fields["answer"]), " ")))
	out.Answer = answer
	out.Unable = isUnableToVerify(answer) || (answer == "" && isUnableToVerify(firstLine(reply)))
	if out.Unable {
		out.Answer = ""
	}
	for _, line := range fields["evidence"] {
		if len(out.Evidence) == maxQuotes {
			break
		}
		line = strings.TrimSpace(pipeline.BulletMarker.ReplaceAllString(strings.TrimSpace(line), ""))
		// A passage's inner quote marks written as JSON escapes ("\"Time After Time\" is a 1983
		// song") are the quote marks they stand for; left in, the passage was in no source.
		line = strings.ReplaceAll(line, `\"`, `"`)
		found, outside := quotedPassages(line, sourceTexts)
		mark := 0
		if len(found) > 0 {
			if m := numberRef.FindStringSubmatch(outside); m != nil {
				mark, _ = strconv.Atoi(m[1] + m[2])
			}
		} else if line != "" {
			if m := markedLine.FindStringSubmatch(line); m != nil {
				mark, _ = strconv.Atoi(m[1] + m[3])
				line = strings.TrimSpace(m[2])
			}
			found = []string{line}
		}
		for _, q := range found {
			q = strings.TrimSpace(q)
			if q != "" && len(out.Evidence) < maxQuotes {
				q = text.Truncate(q, evidence.MaxQuoteBytes)
				out.Evidence = append(out.Evidence, q)
				out.Passages = append(out.Passages, evidence.Quote{Text: q, Source: mark})
			}
		}
	}
	for _, line := range fields["sources"] {
		if urls := evidence.FindURLs(line, known); len(urls) > 0 {
			for _, u := range urls {
				if len(out.Refs) < maxSourceRefs {
					out.Refs = append(out.Refs, evidence.SourceRef{URL: u.URL})
				}
			}
			continue
		}
		line = strings.TrimSpace(pipeline.BulletMarker.ReplaceAllString(strings.TrimSpace(line), ""))
		var numbers []string
		if bareNumbers.MatchString(line) {
			numbers = digitRun.FindAllString(line, -1)
		} else {
			for _, m := range numberRef.FindAllStringSubmatch(line, -1) {
				numbers = append(numbers, m[1]+m[2])
			}
		}
		for _, num := range numbers {
			n, err := strconv.Atoi(num)
			if err == nil && n > 0 && len(out.Refs) < maxSourceRefs {
				out.Refs = append(out.Refs, evidence.SourceRef{Number: n})
			}
		}
	}
	levels := map[string]bool{}
	for _, line := range fields["confidence"] {
		for _, w := range confidenceWord.FindAllString(line, -1) {
			levels[strings.ToLower(w)] = true
		}
	}
	if len(levels) == 1 {
		for w := range levels {
			out.Confidence = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return out
}

// maxInnerQuotes bounds the quote marks of one Evidence line that quotedPassages tries as the
// end of a passage.
const maxInnerQuotes = 16

// quotedPassages returns the quoted passages of one Evidence line, and the line without them
// (where its [n] mark is). A passage may hold quote marks of its own ("The single "Run" was
// released in 1999"): from each opening '"', the longest reading up to a later '"' that one of
// sources holds is the passage; where no source holds any, the quote ends at the next quote
// mark, as written. Reading to the first inner quote cut honest passages, which then failed the
// source check as quote_not_in_source (issue 22); a passage no source holds is still read, and
// still fails it.
func quotedPassages(line string, sources []string) (passages []string, outside string) {
	var rest strings.Builder
	pos := 0
	for pos < len(line) {
		loc := quotedText.FindStringSubmatchIndex(line[pos:])
		if loc == nil {
			break
		}
		open, end := pos+loc[0], pos+loc[1]
		var q string
		for i := 2; i+1 < len(loc); i += 2 {
			if loc[i] >= 0 {
				q = line[pos+loc[i] : pos+loc[i+1]]
			}
		}
		if o := strings.IndexByte(line[pos:], '"'); o >= 0 && pos+o <= open && len(sources) > 0 {
			// The passage opens at the first '"' (a passage may open with a quoted title), and
			// its inner quote marks come in pairs.
			first := pos + o
			var closes []int
			for i := first + 2; i < len(line) && len(closes) < maxInnerQuotes; i++ {
				if line[i] == '"' {
					closes = append(closes, i)
				}
			}
			for k := len(closes) - 1; k >= 0; k-- {
				inner := strings.TrimSpace(line[first+1 : closes[k]])
				if closes[k] < end || quoteMarks(inner)%2 != 0 || len(inner) > evidence.MaxQuoteBytes {
					continue
				}
				if slices.ContainsFunc(sources, func(text string) bool { return evidence.PassageIn(inner, text) }) {
					open, q, end = first, inner, closes[k]+1
					break
				}
			}
		}
		rest.WriteString(line[pos:open])
		passages = append(passages, q)
		pos = end
	}
	rest.WriteString(line[pos:])
	return passages, rest.String()
}

// quoteMarks counts the quote marks of s that may open or close a quote: the '"' that ends a
// figure in feet and inches, or minutes and seconds ("5' 8"", "12' 30""), is a mark of its
// own, which comes alone. A quote may end after a figure ("since 2022""): only the pair of
// marks makes an inch.
func quoteMarks(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '"' && !feetAndInches.MatchString(s[:i]) {
			n++
		}
	}
	return n
}

// feetAndInches matches text ending in a figure of feet and inches before its '"' ("5' 8").
var feetAndInches = regexp.MustCompile(`\d['′]\s?\d{1,2}$`)

func fieldOf(label string) string {
	l := strings.ToLower(label)
	switch {
	case l == "answer":
		return "answer"
	case l == "evidence" || strings.HasPrefix(l, "quote"):
		return "evidence"
	case l == "confidence":
		return "confidence"
	default:
		return "sources"
	}
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isUnableToVerify reports whether an answer is "unable to verify", alone or leading its reason
// ("Unable to verify: the sources conflict"), whatever its case, quotes and emphasis.
func isUnableToVerify(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimLeft(s, " \t\"'`*_“‘<([-")
	const phrase = "unable to verify"
	if !strings.HasPrefix(s, phrase) {
		return false
	}
	rest := s[len(phrase):]
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r)
}
