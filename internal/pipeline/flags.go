package pipeline

import "fmt"

// ReviewFlag asks a person to look at a run. Code says what happened, from the Flag constants
// below: it is what reports and SQL select on (runs.review_flags holds the codes). Detail says
// where and what, for the person reading it (runs.review_flag_details); it may be empty.
type ReviewFlag struct {
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
}

// Flag is a review flag with no detail.
func Flag(code string) ReviewFlag { return ReviewFlag{Code: code} }

// Flagf is a review flag whose detail is formatted as fmt.Sprintf does.
func Flagf(code, format string, args ...any) ReviewFlag {
	return ReviewFlag{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// String is the flag as one line, "code: detail", the way flags were stored before they had a
// type.
func (f ReviewFlag) String() string {
	if f.Detail == "" {
		return f.Code
	}
	return f.Code + ": " + f.Detail
}

// Review flag codes. Each is spelled here once; the methods raise them through Flag and Flagf.
const (
	// FlagMaxHopsAbove5: a multihop job asked for more than five hops per claim.
	FlagMaxHopsAbove5 = "max_hops_above_5"
	// FlagIndependenceDropped: the last check before judgement found evidence that shares a
	// source with an earlier hop of its chain and dropped it.
	FlagIndependenceDropped = "independence_violation_dropped"
	// FlagTemporalDropped: evidence outside the temporal scope was returned by a provider and
	// dropped in code.
	FlagTemporalDropped = "out_of_scope_evidence_dropped"
	// FlagExclusionsIgnored: a provider returned results the query excluded; they were dropped.
	FlagExclusionsIgnored = "provider_ignored_exclusions"
	// FlagCitationRemoved: a verdict or the revised text cited a source it was not given; the
	// citation was removed.
	FlagCitationRemoved = "citation_removed"
	// FlagNoIndependentSource: a hop found no source independent of the earlier hops of its chain.
	FlagNoIndependentSource = "no_independent_source"
	// FlagURLRemoved: the revised text held a URL no search returned; it was removed.
	FlagURLRemoved = "url_removed"
	// FlagSourceRemoved: a verifier cited a source no search returned; the citation was removed.
	FlagSourceRemoved = "source_removed"
	// FlagNeedsVerificationOverridden: a cove2 plan said no verification was needed but held deep
	// claims, so they were verified.
	FlagNeedsVerificationOverridden = "needs_verification_overridden"
	// FlagIterated: cove2 re-verified its corrected claims and finalized again.
	FlagIterated = "iterated"
	// FlagClaimCap: more deep claims than the cap; the riskiest were verified, the others listed.
	FlagClaimCap = "claim_cap"
	// FlagFinalizeRepaired: cove2's finalize reply broke its rules and was repaired.
	FlagFinalizeRepaired = "finalize_repaired"
	// FlagCorrectionRefused: a correction broke the confidence gate and was refused.
	FlagCorrectionRefused = "correction_refused"
	// FlagShallowCorrectionRefused: the reviewer rewrote a shallow claim, which gets caveats only.
	FlagShallowCorrectionRefused = "shallow_correction_refused"
	// FlagRevisedResponseReplaced: the reviewer's revised text applied a refused correction; the
	// draft with the allowed corrections was used instead.
	FlagRevisedResponseReplaced = "revised_response_replaced"
	// FlagCorrectionNotInText: a corrected claim's text is not in the draft verbatim, so the
	// correction is only in the report's Corrections.
	FlagCorrectionNotInText = "correction_not_in_text"
	// FlagSingleSource: a verdict stands on one voice (one source, or several that are not
	// independent of one another, none authoritative), so it is at most Medium.
	FlagSingleSource = "single_source"
	// FlagQuoteNotInSource: a citation's passage is not in the text of the source it was
	// attributed to (or the citation gave none); the citation was dropped and the verdict
	// re-grounded on the citations that remain.
	FlagQuoteNotInSource = "quote_not_in_source"
	// FlagSourcesConflict: the cited sources disagree (some support the claim, some refute it):
	// the claim is partly supported or unverified, never High.
	FlagSourcesConflict = "sources_conflict"
	// FlagUnsupportedAddition: the reviewer's revised text or a correction carried a fact (a
	// number, date, name or place) that neither the draft nor the cited evidence holds; it was
	// kept out of the revised text.
	FlagUnsupportedAddition = "unsupported_addition"
	// FlagRevisedResponseReverted: the reviewer's revised text changed the draft where no
	// accepted correction allowed it; those changes are not in the revised text.
	FlagRevisedResponseReverted = "revised_response_reverted"
	// FlagRevisedResponseRefused: the reviewer's revised text dropped most of the draft; it was
	// refused, and the draft with the accepted corrections kept.
	FlagRevisedResponseRefused = "revised_response_refused"
	// FlagReviewNotGrounded: cove2's reviewer confirmed or corrected a claim whose own
	// verification does not allow it, and the other claims' results it cited (settled_by) are
	// not grounded, do not exist, or are none: the status was capped at uncertain. The claim
	// carries it too (claims.query_flags).
	FlagReviewNotGrounded = "review_not_grounded"
)
