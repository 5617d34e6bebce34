package multihop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"golang.org/x/sync/errgroup"
)

// judgement is what one isolated judge call made of one claim, after the rules in code.
type judgement struct {
	// Verdict is one of the Verdict labels; VariantVerdict the judge's own word for it.
	Verdict, VariantVerdict string
	Reason                  string
	SupportedPart           string
	Correction              string
	Confidence              string
	CalibrationNote         string
	// said is the confidence the judge gave, before the rules in code: a confirmation it gave
	// at Low gets a second look (secondLook).
	said string
	// cited are the indices (in the evidence the judge was given) of the sources it cited
	// whose passage was found in them, in its order; quotes their passages and stances their
	// stances, by the same index.
	cited   []int
	quotes  map[int]string
	stances map[int]string
	// removed are citation numbers the judge gave that were not among its sources.
	removed []int
	// flags are the review flags of this judgement, their detail without the claim.
	flags []pipeline.ReviewFlag
	// missing is what the judge said the sources lack, as a search query ("" for nothing): the
	// query of a follow-up hop (followUp).
	missing string
	// answer is the entity the judge named for a claim later claims bridge to (resolveBridge).
	answer judgeAnswer
}

// judge holds what every judgement of a run shares: the model to call, the job's grounding
// instruction, the calibration and the statement's publication date (YYYY-MM-DD, "" when
// unknown). It holds no statement and no claim: judgeClaim gets one claim's text and its
// evidence, and nothing else can reach its prompt.
type judge struct {
	rec         *pipeline.Recorder
	grounding   string
	calibration evidence.Calibration
	published   string
}

// judgeRequest is the structured-output schema of a judgement, bounded; judgeBridgeRequest
// that of a claim later claims bridge to, which also names the entity (judgeAnswer).
var (
	judgeRequest       = sync.OnceValue(func() *pipeline.OutputSchema { return judgeSchema(false) })
	judgeBridgeRequest = sync.OnceValue(func() *pipeline.OutputSchema { return judgeSchema(true) })
)

func judgeSchema(bridge bool) *pipeline.OutputSchema {
	str := func(n int) map[string]any { return map[string]any{"type": "string", "maxLength": n} }
	schema := &pipeline.OutputSchema{Name: "claim_judgement", Schema: map[string]any{
		"type": "object", "additionalProperties": false,
		"required": []string{"verdict", "citations", "reason", "supported_part", "correction", "confidence", "missing"},
		"properties": map[string]any{
			"verdict": map[string]any{"type": "string", "enum": []string{pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictPartlySupported, pipeline.VerdictUnverified}},
			"citations": map[string]any{"type": "array", "maxItems": 10, "items": map[string]any{
				"type": "object", "additionalProperties": false,
				"required": []string{"source", "passage", "stance"},
				"properties": map[string]any{
					"source":  map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
					"passage": str(300),
					"stance":  map[string]any{"type": "string", "enum": []string{evidence.StanceSupports, evidence.StanceRefutes}},
				},
			}},
			"reason":         str(600),
			"supported_part": str(500),
			"correction":     str(500),
			"confidence":     map[string]any{"type": "string", "enum": []string{pipeline.ConfidenceHigh, pipeline.ConfidenceMedium, pipeline.ConfidenceLow}},
			"missing":        str(200),
		},
	}}
	if bridge {
		schema.Name = "claim_judgement_with_answer"
		schema.Schema["required"] = append(schema.Schema["required"].([]string), "answer")
		schema.Schema["properties"].(map[string]any)["answer"] = map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"value", "source", "passage"},
			"properties": map[string]any{
				"value":   str(evidence.MaxBridgeBytes),
				"source":  map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
				"passage": str(300),
			},
		}
	}
	return schema
}

// judgeReply is a judge's reply as the model writes it. Citations are judgeCitation objects;
// a bare number (the reply format before citations carried their passage) is read as a
// citation whose passage is whichever of Quotes that source holds.
type judgeReply struct {
	Verdict       string            `json:"verdict"`
	Citations     []json.RawMessage `json:"citations"`
	Quotes        []string          `json:"quotes,omitempty"`
	Reason        string            `json:"reason"`
	SupportedPart string            `json:"supported_part"`
	Correction    string            `json:"correction"`
	Confidence    string            `json:"confidence"`
	Missing       textOrList        `json:"missing,omitempty"`
	Answer        *judgeAnswer      `json:"answer,omitempty"`
}

// textOrList is a reply's text field that a model may write as a list of strings: a judge asked
// for "a short search query ... for the fact they lack" wrote the facts as a list in a relay run
// (session 47, FEVEROUS-S 11746), and the whole reply was lost as unreadable. The list is read as
// its items joined by spaces; any other shape is an error, as before.
type textOrList string

func (t *textOrList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = textOrList(s)
		return nil
	}
	var items []string
	if err := json.Unmarshal(b, &items); err != nil {
		return fmt.Errorf("want a string or a list of strings, got %s", text.Truncate(string(b), 40))
	}
	*t = textOrList(strings.Join(items, " "))
	return nil
}

// judgeCitation is one cited source of a judge's reply: its number, the passage of it the
// verdict relies on, and whether it supports or refutes the claim.
type judgeCitation struct {
	Source  int    `json:"source"`
	Passage string `json:"passage"`
	Stance  string `json:"stance"`
}

// maxJudgeCitations bounds the citations read from one reply, as the schema does.
const maxJudgeCitations = 10

// citations reads p's citations for evidence.Attribute: objects as they are, bare numbers with
// their passage from Quotes (evidence.AttributeQuotes). Unreadable entries are skipped.
func (p judgeReply) citations(given []evidence.Retrieved) (cites []evidence.Citation, strays []string) {
	var legacy []evidence.SourceRef
	for _, raw := range p.Citations {
		if len(cites)+len(legacy) == maxJudgeCitations {
			break
		}
		var n int
		if json.Unmarshal(raw, &n) == nil {
			legacy = append(legacy, evidence.SourceRef{Number: n})
			continue
		}
		var c judgeCitation
		if json.Unmarshal(raw, &c) == nil {
			cites = append(cites, evidence.Citation{Ref: evidence.SourceRef{Number: c.Source},
				Passage: text.Truncate(c.Passage, evidence.MaxQuoteBytes), Stance: text.Truncate(c.Stance, 20)})
		}
	}
	if len(legacy) > 0 {
		var quotes []evidence.Quote
		for _, q := range p.Quotes[:min(len(p.Quotes), 3)] {
			quotes = append(quotes, evidence.Quote{Text: text.Truncate(q, evidence.MaxQuoteBytes)})
		}
		more, s := evidence.AttributeQuotes(legacy, quotes, given)
		cites, strays = append(cites, more...), s
	}
	return cites, strays
}

// judgeClaim judges one claim from its evidence alone: the claim's text (its bridges resolved
// from cited findings) and the sources it was given (what its hops kept, and the cited sources
// of the claims it depends on) are all the prompt holds (with the job's grounding instruction),
// so neither the statement nor another claim's text can reach it. position is the claim's
// position, for the trace; bridge asks the judge to name the entity the claim describes, for
// the claims that bridge to it. A failed call is retried once. The grounding rule is enforced
// on the reply in code: see groundVerdict.
func (j judge) judgeClaim(ctx context.Context, position int, claim string, given []evidence.Retrieved, bridge bool) judgement {
	prompt, err := renderJudgePrompt(claim, given, j.grounding, j.dateFor(claim), bridge, "")
	schema := judgeRequest()
	if bridge {
		schema = judgeBridgeRequest()
	}
	if err != nil {
		return judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the judge prompt could not be rendered: " + err.Error()}
	}
	var reply string
	for attempt := 1; attempt <= 2; attempt++ {
		reply, err = j.rec.Complete(ctx, pipeline.StepJudge, position, pipeline.ModelRequest{Prompt: prompt, Schema: schema, MaxTokens: 1024})
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the judge call failed: " + err.Error()}
	}
	return j.groundVerdict(reply, given)
}

// dateFor is the statement's date when claim holds a relative time ("15 years ago"), so that its
// judge, and its second look, read the time from it; "" for a claim without one, whose prompt
// then stays as it was, or when the statement's date is not known.
func (j judge) dateFor(claim string) string {
	if evidence.RelativeTime.MatchString(claim) {
		return j.published
	}
	return ""
}

// renderJudgePrompt renders the judge prompt: the claim fenced as untrusted data, the evidence
// as CoVe 2.0's numbered <source> elements (renderEvidence), everything escaped. The paragraph
// on relations is there only when a source carries one, the statement's date only when dated
// is set (YYYY-MM-DD), the sentence on definitions only when a source defines a kind of thing
// another says something is and says more of what the claim says (definedKinds), and the
// request for the answer only when bridge is set, so that a claim with none of them costs no
// more tokens than before; the sentence on sources found by searching for the entity is there
// only in a provisional bridge's second judgement (settleProvisional).
func renderJudgePrompt(claim string, given []evidence.Retrieved, grounding, dated string, bridge bool, part string) (string, error) {
	return renderLookPrompt(claim, given, grounding, dated, bridge, part, lookAtPart)
}

// lookKind is what a second look reads again: the part a first reading confirmed (the part is
// in the prompt), a confirmation or a contradiction that reading gave at Low, or the rest of a
// claim it confirmed in part (the part is in the prompt).
type lookKind int

const (
	lookAtPart lookKind = iota
	lookAtLowConfirmation
	lookAtLowContradiction
	lookAtUncoveredRest
)

// renderLookPrompt is renderJudgePrompt with the paragraph of a second look at a confirmation
// (secondLook) or a contradiction (lookAtContradiction) its first reading gave at Low, or at the
// rest of a claim it confirmed in part (part, lookAtContradiction), when look says so.
func renderLookPrompt(claim string, given []evidence.Retrieved, grounding, dated string, bridge bool, part string, look lookKind) (string, error) {
	related := slices.ContainsFunc(given, func(e evidence.Retrieved) bool { return e.Relation != "" })
	builtOn := slices.ContainsFunc(given, func(e evidence.Retrieved) bool { return e.Relation == relationBuiltOn })
	described := slices.ContainsFunc(given, func(e evidence.Retrieved) bool { return e.Relation == relationDescribed })
	confirmedPart := ""
	if look == lookAtUncoveredRest {
		part, confirmedPart = "", part // the look at the part's paragraph is not this look's
	}
	return pipeline.RenderPrompt("multihop_judge", struct {
		Claim, Evidence, Grounding, Dated, Part, RestOf, Kinds        string
		Related, BuiltOn, Described, Bridge, AtLow, ContradictedAtLow bool
	}{pipeline.EscapeFenced(strings.TrimSpace(claim)), evidence.RenderEvidence(given), pipeline.EscapeFenced(text.OneLine(grounding)), dated,
		pipeline.EscapeFenced(text.OneLine(part)), pipeline.EscapeFenced(text.OneLine(confirmedPart)), kindsSentence(definedKinds(claim, given)),
		related, builtOn, described, bridge, look == lookAtLowConfirmation, look == lookAtLowContradiction})
}

// groundVerdict turns a judge's reply into a judgement under the grounding rules, in code:
//
//   - a citation of a number that is not one of the judge's sources is removed (and named);
//   - a citation whose passage is not in THAT source's text, or that gives none, is dropped,
//     with FlagQuoteNotInSource (evidence.Attribute);
//   - a verdict other than unverified with no citation left is unverified, with the reason;
//   - an unreadable reply, or a verdict outside the vocabulary, is unverified, with the reason;
//   - the verdict is re-grounded on the citations that remain (evidence.Corroborate): agreement
//     of stances, High only on two independent sources or one authoritative, one voice at most
//     Medium, and nothing supported, refuted or partly supported at Low;
//   - below Medium confidence nothing is corrected (CoVe 2.0's confidence gate; Corroborate
//     leaves nothing but unverified at Low, and this holds whatever it leaves).
func (j judge) groundVerdict(reply string, given []evidence.Retrieved) judgement {
	var p judgeReply
	if err := json.Unmarshal(pipeline.ReplyJSONObject(reply), &p); err != nil {
		return judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the judge's reply could not be read: " + pipeline.OneLine(err)}
	}
	out := judgement{VariantVerdict: text.Truncate(strings.TrimSpace(p.Verdict), 60), said: text.Truncate(strings.TrimSpace(p.Confidence), 20),
		quotes: map[int]string{}, stances: map[int]string{}}
	out.missing = text.OneLine(text.Truncate(string(p.Missing), 200))
	if p.Answer != nil {
		out.answer = judgeAnswer{Value: text.Truncate(p.Answer.Value, 4*evidence.MaxBridgeBytes), Source: p.Answer.Source,
			Passage: text.Truncate(p.Answer.Passage, evidence.MaxQuoteBytes)}
	}
	out.Reason = text.OneLine(text.Truncate(p.Reason, 600))
	cites, strays := p.citations(given)
	att := evidence.Attribute(cites, given)
	for _, ref := range att.Removed {
		if !slices.Contains(out.removed, ref.Number) {
			out.removed = append(out.removed, ref.Number)
		}
	}
	for _, s := range att.Sources {
		out.cited = append(out.cited, s.Index)
		out.quotes[s.Index], out.stances[s.Index] = s.Passage, s.Stance
	}

	verdict := strings.ToLower(strings.TrimSpace(p.Verdict))
	switch verdict {
	case pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictPartlySupported, pipeline.VerdictUnverified:
	default:
		out.Verdict, out.Confidence = pipeline.VerdictUnverified, pipeline.ConfidenceLow
		out.Reason = fmt.Sprintf("the judge gave no verdict of the vocabulary (%q)", out.VariantVerdict)
		out.cited = nil
		return out
	}
	if verdict == pipeline.VerdictUnverified {
		out.Verdict, out.Confidence, out.cited = pipeline.VerdictUnverified, pipeline.ConfidenceLow, nil
		if out.Reason == "" {
			out.Reason = "the judge found the evidence insufficient and gave no reason"
		}
		return out
	}
	for _, c := range att.NotInSource {
		if c.Passage == "" {
			out.flags = append(out.flags, pipeline.Flagf(pipeline.FlagQuoteNotInSource, "cited [%d] with no passage from it; the citation was dropped", c.Ref.Number))
		} else {
			out.flags = append(out.flags, pipeline.Flagf(pipeline.FlagQuoteNotInSource, "cited [%d] for %q, which it does not say; the citation was dropped", c.Ref.Number, text.Truncate(c.Passage, 120)))
		}
	}
	for _, q := range strays {
		out.flags = append(out.flags, pipeline.Flagf(pipeline.FlagQuoteNotInSource, "quoted %q, which no source says", text.Truncate(q, 120)))
	}
	dropped := ""
	if len(att.NotInSource) > 0 {
		dropped = fmt.Sprintf(" (%d citation(s) dropped: their passage is not in the source they cite)", len(att.NotInSource))
	}
	if len(out.cited) == 0 {
		out.Verdict, out.Confidence = pipeline.VerdictUnverified, pipeline.ConfidenceLow
		out.Reason = fmt.Sprintf("the judge said %s but cited no source it was given with a passage that source holds%s, and a claim without a valid citation is unverified", verdict, dropped)
		return out
	}
	// Partly supported says part of the claim is false; the judge's definition also lets it say
	// only that part is confirmed and the rest not covered, which is no finding against the
	// claim (a real model said it of "Tom Hardy is an American actor" from a source that names
	// him an actor). Such a reading has no contradiction for the confidence gate to hold back,
	// whatever its confidence: it is read below, its confirmed part kept.
	uncovered := verdict == pipeline.VerdictPartlySupported && strings.TrimSpace(p.Correction) == "" &&
		!slices.ContainsFunc(out.cited, func(k int) bool { return out.stances[k] == evidence.StanceRefutes })
	cor := j.calibration.Corroborate(verdict, strings.TrimSpace(p.Confidence), given, att.Sources)
	out.flags = append(out.flags, cor.Flags...)
	out.Verdict, out.Confidence, out.CalibrationNote = cor.Verdict, cor.Confidence, cor.Note
	if cor.Reason != "" && !uncovered {
		out.Reason = strings.TrimSpace(cor.Reason + dropped + ". " + out.Reason)
		out.CalibrationNote = ""
		return out
	}
	if dropped != "" {
		out.CalibrationNote += ";" + dropped
	}
	out.SupportedPart = text.OneLine(text.Truncate(p.SupportedPart, 500))
	out.Correction = text.OneLine(text.Truncate(p.Correction, 500))
	if verdict == pipeline.VerdictSupported {
		out.SupportedPart, out.Correction = "", ""
	}
	if uncovered {
		// Without a contradiction the claim is unverified, its confirmed part kept for a second
		// look (secondLook); the judge's own verdict stays in VariantVerdict.
		out.Verdict, out.Confidence = pipeline.VerdictUnverified, pipeline.ConfidenceLow
		part := ""
		if out.SupportedPart != "" {
			part = " (" + out.SupportedPart + ")"
		}
		out.Reason = strings.TrimSpace("the sources confirm part of the claim" + part + " and say nothing on the rest, which is no finding that it is false. " + out.Reason)
	}
	if pipeline.ConfidenceRank(out.Confidence) < pipeline.ConfidenceRank(pipeline.ConfidenceMedium) {
		// CoVe 2.0's confidence gate: a Low-confidence contradiction is no ground for a
		// correction.
		out.Correction = ""
	}
	if out.Verdict == pipeline.VerdictRefuted && out.Reason == "" {
		out.Reason = "the cited sources contradict the claim"
	}
	return out
}

// judgeAll judges every checked claim not judged yet (a claim others depend on was judged
// when its chain ran) in parallel under Options.Concurrency, each with judgeOne.
func (r *multihopRun) judgeAll(ctx context.Context) {
	var targets []*chainState
	for _, st := range r.claims {
		if st.checked {
			targets = append(targets, st)
		}
	}
	r.shareFindings(ctx, targets)
	var g errgroup.Group
	g.SetLimit(max(r.opts.Concurrency, 1))
	for i := range targets {
		g.Go(func() error {
			r.judgeOne(ctx, targets[i])
			return nil
		})
	}
	_ = g.Wait() // no call returns an error: each records its own failure
	r.settleProvisional(ctx)
	r.reconsiderContradicted(ctx)
	r.judgeOnOthersCitations(ctx, targets)
	r.corroboratedRefutations()
	for _, st := range targets {
		v := st.verdict
		for _, n := range v.removed {
			r.flag(pipeline.Flagf(pipeline.FlagCitationRemoved, "claim %d cited [%d], which is not among its sources", st.index+1, n))
		}
		for _, f := range v.flags {
			r.flag(pipeline.Flagf(f.Code, "claim %d: %s", st.index+1, f.Detail))
		}
		c := &r.res.Claims[st.index]
		c.Verdict, c.VariantVerdict, c.Reason, c.Confidence = v.Verdict, v.VariantVerdict, v.Reason, v.Confidence
		c.ConsistentPart, c.CorrectedText = v.SupportedPart, v.Correction
		if c.AmbiguityNote != "" && pipeline.ConfidenceRank(c.Confidence) > pipeline.ConfidenceRank(pipeline.ConfidenceMedium) {
			// Spec 004: confidence is not asserted when the claim is ambiguous.
			c.Confidence = pipeline.ConfidenceMedium
			v.CalibrationNote += "; lowered to Medium: the claim is ambiguous (" + c.AmbiguityNote + ")"
		}
		if v.CalibrationNote != "" && c.Verdict != pipeline.VerdictUnverified {
			c.Reason = strings.TrimSpace(strings.TrimSuffix(c.Reason, ".") + ". Confidence: " + v.CalibrationNote + ".")
		}
	}
}

// noEvidenceReason says why a claim's hops kept no evidence.
func (r *multihopRun) noEvidenceReason(st *chainState) string {
	if len(st.hopRecords) > 0 && len(st.fetchErrors) == len(st.hopRecords) {
		return st.fetchErrors[0]
	}
	var parts []string
	for _, h := range st.hopRecords {
		parts = append(parts, fmt.Sprintf("hop %d: %s", h.Number, h.Status))
	}
	reason := "no retrievable evidence was found"
	if len(parts) > 0 {
		reason += " (" + strings.Join(parts, ", ") + ")"
	}
	return reason
}

// crossValidationVerdicts records each cross-validation query's result against the claims it
// joins: its evidence was judged as part of theirs, so its verdict is what their judgements made
// of it. It is supported when every joined claim was supported citing it, refuted when a joined
// claim was refuted citing it, partly supported when some claim's verdict rested on it, and
// unverified when none did.
func (r *multihopRun) crossValidationVerdicts() {
	for i := range r.res.CrossChecks {
		cv := &r.res.CrossChecks[i]
		if cv.Verdict != "" {
			continue
		}
		var supported, refuted, cited []string
		all := true
		for _, pos := range cv.ClaimPositions {
			st := r.claims[pos-1]
			c := r.res.Claims[pos-1]
			usedIt := slices.ContainsFunc(st.verdict.cited, func(k int) bool { return st.evidence[k].group == 100+cv.Position })
			if !usedIt {
				all = false
				continue
			}
			cited = append(cited, c.Key)
			switch c.Verdict {
			case pipeline.VerdictSupported:
				supported = append(supported, c.Key)
			case pipeline.VerdictRefuted:
				refuted = append(refuted, c.Key)
			default:
				all = false
			}
		}
		switch {
		case len(refuted) > 0:
			cv.Verdict = pipeline.VerdictRefuted
			cv.Reason = "its evidence refuted claim " + strings.Join(refuted, ", ")
		case all && len(supported) == len(cv.ClaimPositions):
			cv.Verdict = pipeline.VerdictSupported
			cv.Reason = "its evidence supported every claim it joins (" + strings.Join(supported, ", ") + ")"
		case len(cited) > 0:
			cv.Verdict = pipeline.VerdictPartlySupported
			cv.Reason = "its evidence grounded the verdicts of " + strings.Join(cited, ", ") + " only"
		default:
			cv.Verdict = pipeline.VerdictUnverified
			cv.Reason = "no judgement of the claims it joins rested on its evidence"
		}
	}
}

// secondLook reads a partial confirmation once more (issue 23): a judge that confirmed part of
// a claim and found the rest not covered, with nothing contradicted, often left out a
// qualifier the sources state in other words ("13 games in his first season at City" for "13
// games in his first season"). The claim is judged again with only the sources that judge
// cited, told which part it confirmed (its own words, fenced) and asked to compare fact by fact.
// The reply goes through the same grounding rules (groundVerdict), and only a confirmation
// counts: supported, so at Medium or above, citing passages of those sources. Anything else
// leaves the first judgement as it was: a second look can confirm, never refute. A claim later
// claims bridge to is left to the provisional bridge (resolveBridge), which judges it again
// with what they find.
//
// A confirmation the judge gave at Low gets a second look too (session 45): the confidence gate
// leaves it unverified, yet relay judges gave it of claims their one source states in so many
// words, hedging on its wording ("Alan Alda is a six-time Emmy Award recipient ... its wording
// is loose"). That look is told that Low counts as unverified and when Low is the answer, and
// the same rules hold: only a confirmation at Medium or above counts.
func (j judge) secondLook(ctx context.Context, position int, claim string, v judgement, given []evidence.Retrieved) (judgement, bool) {
	atLow := confirmedAtLow(v)
	if !confirmedOnlyInPart(v) || !restUncovered(v) && !atLow {
		return v, false
	}
	part := v.SupportedPart
	if atLow {
		part = ""
	}
	look := lookAtPart
	if atLow {
		look = lookAtLowConfirmation
	}
	w, ok := j.lookAgain(ctx, position, claim, v, given, part, look)
	if !ok || w.Verdict != pipeline.VerdictSupported {
		// What the second look broke (a quote no source holds) is still for the editor to see.
		v.flags = append(v.flags, w.flags...)
		return v, false
	}
	if atLow {
		w.Reason = "a second look at a confirmation the first reading gave at Low confirmed it: " + w.Reason
	} else {
		w.Reason = "a second look at the part the first reading left uncovered confirmed it: " + w.Reason
	}
	return w, true
}

// lookAgain judges claim again, as look says, with only the sources v's reading cited, and
// returns that judgement under the grounding rules with its citations back at the indices of
// given; ok is false when the look could not be asked or answered.
func (j judge) lookAgain(ctx context.Context, position int, claim string, v judgement, given []evidence.Retrieved, part string, look lookKind) (w judgement, ok bool) {
	shown := make([]evidence.Retrieved, len(v.cited))
	for i, k := range v.cited {
		shown[i] = given[k]
		if strings.HasPrefix(shown[i].Relation, "not independent of source") {
			shown[i].Relation = "not independent of an earlier source" // its numbers are not these
		}
	}
	prompt, err := renderLookPrompt(claim, shown, j.grounding, j.dateFor(claim), false, part, look)
	if err != nil {
		return judgement{}, false
	}
	reply, err := j.rec.Complete(ctx, pipeline.StepJudge, position, pipeline.ModelRequest{Prompt: prompt, Schema: judgeRequest(), MaxTokens: 1024})
	if err != nil {
		return judgement{}, false
	}
	w = j.groundVerdict(reply, shown)
	// Back to the indices of the claim's evidence.
	quotes, stances := map[int]string{}, map[int]string{}
	for i, k := range w.cited {
		w.cited[i] = v.cited[k]
		quotes[v.cited[k]], stances[v.cited[k]] = w.quotes[k], w.stances[k]
	}
	w.quotes, w.stances = quotes, stances
	return w, true
}

// lookAtContradiction reads once more a contradiction the judge gave at Low (contradictedAtLow):
// the confidence gate leaves the claim unverified and corrects nothing, yet relay judges gave it
// of claims their source contradicts in so many words or by one plain step, hedging on the step
// ("the sources date the start of his career to the 1980s rather than the 1970s, though only by
// this inference", exfever-5983 in session 49's thirteenth cohort: 9 such claims in 311
// statements). The claim is judged again with only the sources that judge cited, told that a
// contradiction at Low corrects nothing, when Low is the answer, and that a fact the sources do
// not mention contradicts nothing.
//
// It reads once more, too, the rest of a claim the judge confirmed in part and found not covered
// (restUncovered), once the second look at the part (secondLook) has not confirmed it: relay
// judges gave that reading of claims whose source states the rest otherwise, and would not call
// it a contradiction ("they name Sony/ATV Music Publishing as the company and never mention Air
// Deluxe Music Group", exfever-5909 in session 50's fifteenth cohort). That look gets the part
// the first reading confirmed, and is told that a source stating the rest otherwise contradicts
// it and a fact the sources do not mention contradicts nothing.
//
// Only a contradiction counts, under the same grounding rules: refuted, or partly supported with
// a correction, so at Medium or above, citing a passage of those sources. Anything else leaves
// the first judgement as it was, and what the look broke among its flags: a look at a
// contradiction can correct, never confirm. A bridge claim gets no such look (judgeOne):
// evidence on the entity a judge named settles a bridge by the rules of a provisional bridge
// (contradictedOnEntity).
func (j judge) lookAtContradiction(ctx context.Context, position int, claim string, v judgement, given []evidence.Retrieved) (judgement, bool) {
	look, part, lookedAt := lookAtLowContradiction, "", "a contradiction the first reading gave at Low"
	switch {
	case contradictedAtLow(v):
	case restUncovered(v):
		look, part, lookedAt = lookAtUncoveredRest, v.SupportedPart, "the rest of a claim the first reading confirmed in part"
	default:
		return v, false
	}
	w, ok := j.lookAgain(ctx, position, claim, v, given, part, look)
	if !ok || !contradicts(w) {
		v.flags = append(v.flags, w.flags...)
		return v, false
	}
	w.Reason = fmt.Sprintf("a second look at %s found it contradicted at %s: %s", lookedAt, w.Confidence, w.Reason)
	return w, true
}

// restUncovered reports whether the judge confirmed part of the claim, named that part, and
// contradicted nothing: a reading the grounding rules leave unverified (groundVerdict).
func restUncovered(v judgement) bool {
	return confirmedOnlyInPart(v) && strings.EqualFold(v.VariantVerdict, pipeline.VerdictPartlySupported) && v.SupportedPart != "" && v.Correction == ""
}

// contradicts reports whether v says the claim is false: refuted, or partly supported with a
// correction (code drops a correction given below Medium).
func contradicts(v judgement) bool {
	return v.Verdict == pipeline.VerdictRefuted || v.Verdict == pipeline.VerdictPartlySupported && v.Correction != ""
}

// contradictedAtLow reports whether the judge itself contradicted the claim at Low, citing a
// source that refutes it: a contradiction the confidence gate leaves unverified.
func contradictedAtLow(v judgement) bool {
	switch strings.ToLower(v.VariantVerdict) {
	case pipeline.VerdictRefuted, pipeline.VerdictPartlySupported:
	default:
		return false
	}
	return v.Verdict == pipeline.VerdictUnverified && strings.EqualFold(v.said, pipeline.ConfidenceLow) &&
		slices.ContainsFunc(v.cited, func(k int) bool { return v.stances[k] == evidence.StanceRefutes })
}

// confirmedAtLow reports whether the judge itself said supported at Low: a confirmation the
// confidence gate leaves unverified.
func confirmedAtLow(v judgement) bool {
	return strings.EqualFold(v.VariantVerdict, pipeline.VerdictSupported) && strings.EqualFold(v.said, pipeline.ConfidenceLow)
}
