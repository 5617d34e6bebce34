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
	// cited are the indices (in the evidence the judge was given) of the sources it cited,
	// in its order; quotes its quotes by the same index.
	cited  []int
	quotes map[int]string
	// removed are citation numbers the judge gave that were not among its sources.
	removed []int
}

// judge holds what every judgement of a run shares: the model to call, the job's grounding
// instruction and the calibration. It holds no statement and no claim: judgeClaim gets one
// claim's text and its evidence, and nothing else can reach its prompt.
type judge struct {
	rec         *pipeline.Recorder
	grounding   string
	calibration evidence.Calibration
}

// judgeRequest is the structured-output schema of a judgement, bounded.
var judgeRequest = sync.OnceValue(func() *pipeline.OutputSchema {
	str := func(n int) map[string]any { return map[string]any{"type": "string", "maxLength": n} }
	return &pipeline.OutputSchema{Name: "claim_judgement", Schema: map[string]any{
		"type": "object", "additionalProperties": false,
		"required": []string{"verdict", "citations", "quotes", "reason", "supported_part", "correction", "confidence"},
		"properties": map[string]any{
			"verdict":        map[string]any{"type": "string", "enum": []string{pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictPartlySupported, pipeline.VerdictUnverified}},
			"citations":      map[string]any{"type": "array", "maxItems": 10, "items": map[string]any{"type": "integer", "minimum": 1, "maximum": 100}},
			"quotes":         map[string]any{"type": "array", "maxItems": 3, "items": str(300)},
			"reason":         str(600),
			"supported_part": str(500),
			"correction":     str(500),
			"confidence":     map[string]any{"type": "string", "enum": []string{pipeline.ConfidenceHigh, pipeline.ConfidenceMedium, pipeline.ConfidenceLow}},
		},
	}}
})

// judgeReply is a judge's reply as the model writes it.
type judgeReply struct {
	Verdict       string   `json:"verdict"`
	Citations     []int    `json:"citations"`
	Quotes        []string `json:"quotes"`
	Reason        string   `json:"reason"`
	SupportedPart string   `json:"supported_part"`
	Correction    string   `json:"correction"`
	Confidence    string   `json:"confidence"`
}

// judgeClaim judges one claim from its evidence alone: the claim's text and the results its
// hops kept are all the prompt holds (with the job's grounding instruction), so neither the
// statement nor another claim can reach it. position is the claim's position, for the trace. A
// failed call is retried once. The grounding rule is enforced on the reply in code: see
// groundVerdict.
func (j judge) judgeClaim(ctx context.Context, position int, claim string, given []evidence.Retrieved) judgement {
	prompt, err := renderJudgePrompt(claim, given, j.grounding)
	if err != nil {
		return judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the judge prompt could not be rendered: " + err.Error()}
	}
	var reply string
	for attempt := 1; attempt <= 2; attempt++ {
		reply, err = j.rec.Complete(ctx, pipeline.StepJudge, position, pipeline.ModelRequest{Prompt: prompt, Schema: judgeRequest(), MaxTokens: 1024})
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the judge call failed: " + err.Error()}
	}
	return j.groundVerdict(reply, given)
}

// renderJudgePrompt renders the judge prompt: the claim fenced as untrusted data, the evidence
// as CoVe 2.0's numbered <source> elements (renderEvidence), everything escaped.
func renderJudgePrompt(claim string, given []evidence.Retrieved, grounding string) (string, error) {
	return pipeline.RenderPrompt("multihop_judge", struct{ Claim, Evidence, Grounding string }{
		pipeline.EscapeFenced(strings.TrimSpace(claim)), evidence.RenderEvidence(given), pipeline.EscapeFenced(evidence.OneLineText(grounding))})
}

// groundVerdict turns a judge's reply into a judgement under the grounding rule, in code:
//
//   - a citation of a number that is not one of the judge's sources is removed (and named);
//   - a verdict other than unverified with no valid citation left is unverified, with the reason;
//   - an unreadable reply, or a verdict outside the vocabulary, is unverified, with the reason;
//   - the confidence is calibrated by corroboration over the cited sources (Calibration),
//     never raised above what the judge said;
//   - below Medium confidence nothing is corrected (CoVe 2.0's confidence gate): a refuted
//     claim is kept, unverified, with the reason; a partly supported one loses its correction.
func (j judge) groundVerdict(reply string, given []evidence.Retrieved) judgement {
	var p judgeReply
	if err := json.Unmarshal(pipeline.ReplyJSONObject(reply), &p); err != nil {
		return judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: "the judge's reply could not be read: " + pipeline.OneLine(err)}
	}
	out := judgement{VariantVerdict: pipeline.TruncateUTF8(strings.TrimSpace(p.Verdict), 60), quotes: map[int]string{}}
	out.Reason = evidence.OneLineText(pipeline.TruncateUTF8(p.Reason, 600))
	refs := make([]evidence.SourceRef, len(p.Citations))
	for i, n := range p.Citations {
		refs[i] = evidence.SourceRef{Number: n}
	}
	g := evidence.Ground(refs, given)
	out.cited = g.Cited
	for _, ref := range g.Removed {
		if !slices.Contains(out.removed, ref.Number) {
			out.removed = append(out.removed, ref.Number)
		}
	}
	var quotes []string
	for _, q := range p.Quotes {
		quotes = append(quotes, pipeline.TruncateUTF8(q, evidence.MaxQuoteBytes))
	}
	for _, i := range out.cited {
		out.quotes[i] = evidence.QuoteIn(quotes, given[i].SearchResult)
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
	if len(out.cited) == 0 {
		out.Verdict, out.Confidence = pipeline.VerdictUnverified, pipeline.ConfidenceLow
		out.Reason = fmt.Sprintf("the judge said %s but cited no source it was given, and a claim without a valid citation is unverified", verdict)
		return out
	}
	cal := j.calibration.CalibrateCited(strings.TrimSpace(p.Confidence), given, out.cited)
	out.Verdict, out.Confidence, out.CalibrationNote = verdict, cal.Confidence, cal.Note
	out.SupportedPart = evidence.OneLineText(pipeline.TruncateUTF8(p.SupportedPart, 500))
	out.Correction = evidence.OneLineText(pipeline.TruncateUTF8(p.Correction, 500))
	if verdict == pipeline.VerdictSupported {
		out.SupportedPart, out.Correction = "", ""
	}
	if pipeline.ConfidenceRank(out.Confidence) < pipeline.ConfidenceRank(pipeline.ConfidenceMedium) {
		// CoVe 2.0's confidence gate: a Low-confidence contradiction is no ground for a
		// correction; the claim is kept and counts as uncertain.
		if verdict == pipeline.VerdictRefuted {
			out.Verdict = pipeline.VerdictUnverified
			out.Reason = strings.TrimSpace("the evidence contradicts the claim only at Low confidence, which is no ground for a correction: the claim is kept. " + out.Reason)
		}
		out.Correction = ""
	}
	if out.Verdict == pipeline.VerdictRefuted && out.Reason == "" {
		out.Reason = "the cited sources contradict the claim"
	}
	return out
}

// judgeAll judges every checked claim in parallel under Options.Concurrency. A claim whose hops
// kept no evidence is unverified with the reason, and costs no call.
func (r *multihopRun) judgeAll(ctx context.Context) {
	j := judge{rec: r.rec, grounding: r.in.grounding, calibration: r.calibration}
	var targets []*chainState
	for _, st := range r.claims {
		if st.checked {
			targets = append(targets, st)
		}
	}
	var g errgroup.Group
	g.SetLimit(max(r.opts.Concurrency, 1))
	for i := range targets {
		g.Go(func() error {
			st := targets[i]
			if len(st.evidence) == 0 {
				st.verdict = judgement{Verdict: pipeline.VerdictUnverified, Confidence: pipeline.ConfidenceLow, Reason: r.noEvidenceReason(st)}
				return nil
			}
			given := make([]evidence.Retrieved, len(st.evidence))
			for k, e := range st.evidence {
				given[k] = e.Retrieved
			}
			st.verdict = j.judgeClaim(ctx, st.index+1, st.claim.ClaimText, given)
			return nil
		})
	}
	_ = g.Wait() // no call returns an error: each records its own failure
	for _, st := range targets {
		v := st.verdict
		for _, n := range v.removed {
			r.flag(pipeline.Flagf(pipeline.FlagCitationRemoved, "claim %d cited [%d], which is not among its sources", st.index+1, n))
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
