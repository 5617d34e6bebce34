package cove2

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// A claim can be settled by other claims' findings (issue 22, case 5). "Eatza Pizza and Your Pie
// were not founded in the same state" has a verifier of its own, which may find nothing that
// names both states; the claims "Eatza Pizza was founded in Arizona" and "Your Pie was founded
// in Georgia", verified on their own, do settle it. The reviewer sees every result, so it may
// confirm or correct such a claim from them, naming them in settled_by. Code checks what it
// names: each must be ANOTHER deep claim's verification result that is grounded (an answer from
// retrieved sources it cited, each passage found in its source) at High or Medium confidence.
// A review that names anything else (a result that grounds nothing, the claim's own, a claim
// that does not exist, a shallow claim) or names nothing gets the cap it had before, uncertain,
// and the flag review_not_grounded. A settled claim cites only the settling results' sources,
// is never more confident than the least of them, and stores the passages it rests on as its
// own evidence rows, marked with the claim that found them.

// settleable reports whether the review may settle c from other claims' results: a deep claim
// that was verified, whose own result allows no confirmation or correction (it grounds nothing,
// or only at Low confidence), or a shallow claim, which has no result of its own. A claim
// skipped by the cap or never verified is not: it stays what it is, listed. A shallow claim may
// only be confirmed so, never corrected (spec 000: shallow claims get caveats only); what it
// says (logic, a cause, a consequence) is often what another claim's source states: "improves
// scalability" beside "distributes query workload ... to front-end systems" (a relay run,
// FEVEROUS-S "Other" 441-480, left three true statements of 40 unverified on such a claim).
func (r *cove2Run) settleable(c pipeline.Claim) bool {
	switch {
	case c.Verdict != "":
		return false
	case c.Tier == pipeline.TierShallow:
		return true
	case c.Tier != pipeline.TierDeep:
		return false
	}
	v, ok := r.verified[c.Position]
	return ok && !strongEnough(v)
}

// opinionWord is the first word of a shallow claim that makes it an opinion, a superlative or
// a word of praise or blame ("one of the best", "his most memorable roles", "a famous
// singer"), or "" when it has none. A source may say such a thing ("one of the best schools in
// Mandera county"), but what it says is its own opinion, not a fact that settles the claim: a
// relay run's reviewer confirmed "The primary schools is one of the best" on that page. Spec
// 000 tiers subjective opinion shallow, caveats only; multihop's plan marks it not verifiable.
func opinionWord(claim string) string {
	words := text.Words(claim)
	for i, w := range words {
		if praiseWords[w] {
			return w
		}
		if (w == "most" || w == "least") && i+1 < len(words) && praiseForms(words[i+1]) {
			return w + " " + words[i+1]
		}
	}
	return ""
}

// praiseWords mark an opinion: superlatives of judgement and words of praise or blame. A
// superlative of measure ("the largest", "the earliest") is a fact a source may settle.
var praiseWords = text.WordSet(`best worst greatest finest favourite favorite famous popular memorable iconic renowned
acclaimed legendary outstanding excellent remarkable impressive beautiful wonderful amazing terrible awful brilliant
prestigious influential notable underrated overrated`)

// praiseForms are the endings of the adjectives "most" and "least" make a judgement of ("most
// memorable", "least successful"); "most of", "most people" count something.
func praiseForms(w string) bool {
	for _, suffix := range []string{"able", "ible", "ful", "ous", "ive", "ent", "ant", "ing", "ed", "al", "ic"} {
		if len(w) > len(suffix)+2 && strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return false
}

// strongEnough reports whether a verification allows a confirmation or a correction: grounded,
// at High or Medium confidence (the confidence gate).
func strongEnough(v Verification) bool {
	return v.Grounded() && pipeline.ConfidenceRank(v.Confidence) >= pipeline.ConfidenceRank(pipeline.ConfidenceMedium)
}

// settlers are the positions of the claims whose results could settle c: every other deep
// claim whose verification is strong enough, in claim order. The finalize prompt lists them in
// c's settle_from attribute.
func (r *cove2Run) settlers(c pipeline.Claim) []int {
	if !r.settleable(c) {
		return nil
	}
	var out []int
	for _, o := range r.planned {
		if o.Position != c.Position && o.Tier == pipeline.TierDeep && o.Verdict == "" && strongEnough(r.verified[o.Position]) {
			out = append(out, o.Position)
		}
	}
	return out
}

// settlement is a review's settlement of a claim from other claims' results, as code checked it.
type settlement struct {
	// from are the positions of the claims whose results settle it, each once, in review order.
	from []int
	// results are their verifications, in the same order.
	results []Verification
	// confidence is the least of theirs.
	confidence string
	// refused says why the settlement does not stand; "" when it does.
	refused string
}

// settle checks the results d.SettledBy names for c: all must be other claims' strong results.
func (r *cove2Run) settle(c pipeline.Claim, d ClaimReview) settlement {
	var s settlement
	if len(d.SettledBy) == 0 {
		s.refused = "it cites no other claim's result (settled_by is empty)"
		return s
	}
	s.confidence = pipeline.ConfidenceHigh
	for _, id := range d.SettledBy {
		if slices.Contains(s.from, id) {
			continue
		}
		v, verified := r.verified[id]
		switch {
		case id == c.Position:
			s.refused = "it cites its own result, which does not settle it"
		case id < 1 || id > len(r.planned):
			s.refused = fmt.Sprintf("it cites the result of claim %d, but there is no claim %d", id, id)
		case r.planned[id-1].Tier != pipeline.TierDeep || r.planned[id-1].Verdict != "" || !verified:
			s.refused = fmt.Sprintf("it cites the result of claim %d, but claim %d was not verified (%s)", id, id, notVerifiedWhy(r.planned[id-1]))
		case !v.Grounded():
			s.refused = fmt.Sprintf("it cites the result of claim %d, but claim %d's result is not grounded (%s)", id, id, v.Reason)
		case !strongEnough(v):
			s.refused = fmt.Sprintf("it cites the result of claim %d, but claim %d's result is Low-confidence (%s)", id, id, v.CalibrationNote)
		}
		if s.refused != "" {
			return settlement{refused: s.refused}
		}
		s.from = append(s.from, id)
		s.results = append(s.results, v)
		if pipeline.ConfidenceRank(v.Confidence) < pipeline.ConfidenceRank(s.confidence) {
			s.confidence = v.Confidence
		}
	}
	return s
}

func notVerifiedWhy(c pipeline.Claim) string {
	switch {
	case c.Tier != pipeline.TierDeep:
		return "a shallow claim, reviewed closed-book"
	case c.Verdict == pipeline.VerdictNotChecked:
		return "skipped by the claim cap"
	case c.Reason != "":
		return c.Reason
	}
	return "no verification"
}

// sources are the source numbers of the settling results, each once, in their order.
func (r *cove2Run) settlingSources(s settlement) []int {
	var out []int
	for _, v := range s.results {
		for _, n := range r.sourceNumbers(v) {
			if !containsInt(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// applySettled applies a settled review of c: confirmed or corrected on the settling results,
// under the rules of a claim's own (a correction that adds a fact neither the draft nor those
// results' sources hold is refused).
func (r *cove2Run) applySettled(c *pipeline.Claim, d ClaimReview, s settlement, own Verification, caveat string, refused *[]refusedCorrection) {
	basis := r.basis(c.Position, d.Basis, r.settlingSources(s))
	c.Confidence = s.confidence
	names := claimList(s.from)
	weak := own.Reason
	if own.Grounded() {
		weak = "Low confidence: " + own.CalibrationNote
	}
	known := wordSet(r.in.Text)
	for _, v := range s.results {
		for w := range evidenceWords(v) {
			known[w] = true
		}
	}
	switch {
	case d.Status == ReviewConfirmed:
		c.Verdict, c.VariantVerdict, c.Citations = pipeline.VerdictSupported, ReviewConfirmed, basis
		c.Reason = fmt.Sprintf("confirmed by the verification results of %s, cited in the review (its own verification did not settle it: %s)", names, weak)
	case strings.TrimSpace(d.Corrected) == "" || pipeline.SameText(d.Corrected, c.Text):
		c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
		c.Reason = "the reviewer marked it corrected but gave no different corrected text" + caveat
	case len(newFacts(d.Corrected, known)) > 0:
		added := strings.Join(newFacts(d.Corrected, known), ", ")
		c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
		c.Reason = fmt.Sprintf("the results of %s contradict it, but the reviewer's correction adds %s, which neither the draft nor their sources hold: the original is kept%s", names, added, caveat)
		*refused = append(*refused, refusedCorrection{c.Position, strings.TrimSpace(d.Corrected)})
		r.flag(pipeline.Flagf(pipeline.FlagUnsupportedAddition, "claim %d: the correction %q adds %s, which neither the draft nor the sources of %s hold; refused", c.Position, text.OneLine(d.Corrected), added, names))
		return
	default:
		c.Verdict, c.VariantVerdict, c.Citations = pipeline.VerdictRefuted, ReviewCorrected, basis
		c.CorrectedText = text.OneLine(d.Corrected)
		c.Reason = fmt.Sprintf("contradicted by the verification results of %s, cited in the review (its own verification did not settle it: %s)", names, weak)
	}
	if c.Verdict == pipeline.VerdictSupported || c.Verdict == pipeline.VerdictRefuted {
		r.settledFrom[c.Position] = s.from
	}
}

// notGrounded flags a claim whose review tried to settle it on results that do not ground it:
// on the claim (claims.query_flags) and on the run, with the reason.
func (r *cove2Run) notGrounded(c *pipeline.Claim, status, why string) {
	if !slices.Contains(c.QueryFlags, pipeline.FlagReviewNotGrounded) {
		c.QueryFlags = append(slices.Clip(c.QueryFlags), pipeline.FlagReviewNotGrounded)
	}
	r.flag(pipeline.Flagf(pipeline.FlagReviewNotGrounded, "claim %d: the reviewer said %s, but its own result does not allow it and %s; capped at uncertain", c.Position, status, why))
}

// addSettledEvidence stores, for each settled claim, the sources it cites as its own evidence
// rows, copied from the rows of the claims that found them (FromClaimPosition), so that a
// claim's cited passages are found under the claim.
func (r *cove2Run) addSettledEvidence(claims []pipeline.Claim) {
	n := len(r.res.Evidence)
	for _, c := range claims {
		from := r.settledFrom[c.Position]
		if len(from) == 0 {
			continue
		}
		for _, number := range c.Citations {
			k := slices.IndexFunc(r.res.Evidence[:n], func(e pipeline.Evidence) bool {
				return e.SourceNumber == number && slices.Contains(from, e.ClaimPosition) && e.FromClaimPosition == 0
			})
			if k < 0 {
				continue
			}
			e := r.res.Evidence[k]
			e.ID, e.FromClaimPosition, e.ClaimPosition = len(r.res.Evidence)+1, e.ClaimPosition, c.Position
			r.res.Evidence = append(r.res.Evidence, e)
		}
	}
}

// claimList names claims as a sentence does: "claim 1", "claims 1 and 2", "claims 1, 2 and 4".
func claimList(positions []int) string {
	parts := make([]string, len(positions))
	for i, p := range positions {
		parts[i] = strconv.Itoa(p)
	}
	if len(parts) == 1 {
		return "claim " + parts[0]
	}
	return "claims " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
