package pipeline

import "context"

// VerifiedClaims is where an open-book method looks for a claim already verified before paying
// for its verification (issue 16, item 4). internal/store implements it over the stored runs,
// one value per job: the job's freshness window, whether it may reuse at all (a re-verification
// never does) and the leases it holds are the implementation's business. A nil VerifiedClaims
// means no reuse.
type VerifiedClaims interface {
	// Verified returns a stored verification of the claim that q asks for, to reuse, or nil when
	// there is none: the caller then verifies the claim itself. When another job is verifying the
	// same claim at that moment, Verified waits for it (bounded) instead of letting both pay. An
	// error is no verdict on the claim: the caller verifies it, as with nil.
	Verified(ctx context.Context, q ClaimQuery) (*VerifiedClaim, error)
}

// ClaimQuery asks for one claim. Key and Context come from ReuseKeyOf and ReuseContext.
type ClaimQuery struct {
	// Text is the claim as the plan wrote it; Key its normalised form (the exact match).
	Text, Key string
	// Context is what else must be equal for a verification to stand for another: the method,
	// the language and the options that change what evidence counts.
	Context string
}

// VerifiedClaim is a claim verified by an earlier run: its verdict and the evidence it rests on.
type VerifiedClaim struct {
	// From is the claim it came from: the first run that verified it, not a run that reused it.
	From ClaimRef
	// Claim carries the verdict fields (Verdict, VariantVerdict, Reason, Confidence,
	// ConsistentPart, CorrectedText); the rest is the new run's own.
	Claim Claim
	// Evidence is the claim's evidence in its run's order; the cited sources carry their Quote
	// and Stance and a SourceNumber other than 0.
	Evidence []Evidence
	// Answer is the answer of the check that verified the claim (cove2's verifier), "" for none.
	Answer string
}

// ClaimRef names one claim of one stored run.
type ClaimRef struct {
	RunID    int64
	Position int
	JobID    string
}

// ClaimReuse is what a run records about a claim's reuse, in Claim.Reuse: the key under which
// the claim can be found later (empty: it cannot, being time-sensitive or unchecked) and, when
// its verdict was reused, where from.
type ClaimReuse struct {
	Key, Context string
	// From is set when the verdict and evidence were reused from an earlier run.
	From *ClaimRef
}
