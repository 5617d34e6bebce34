package pipeline

import (
	"fmt"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Claim tiers of CoVe 2.0.
const (
	TierDeep    = "deep"
	TierShallow = "shallow"
)

// ClaimCapReason is the reason of a claim left not_checked by the claim cap.
func ClaimCapReason(limit int) string {
	return fmt.Sprintf(claimCapReasonPrefix+"%d", limit)
}

const claimCapReasonPrefix = "over the claim cap of "

// SkippedByCap reports whether c is a claim the claim cap left not_checked (ClaimCapReason): a
// claim of the statement nobody checked, unlike one the plan found not verifiable.
func SkippedByCap(c Claim) bool {
	return c.Verdict == VerdictNotChecked && strings.HasPrefix(c.Reason, claimCapReasonPrefix)
}

// SameText reports whether a revision left the draft standing: the two are equal once case,
// punctuation and whitespace are ignored (every run of characters that are neither letters nor
// digits counts as one space). Any changed, removed or added word makes them differ. This is
// deliberately strict: a revision that only rephrases counts as a change.
func SameText(draft, revised string) bool {
	return AgreementKey(draft) == AgreementKey(revised)
}

// AgreementKey is the text sameText compares: lower-case words separated by single spaces.
func AgreementKey(s string) string {
	return strings.Join(text.Words(s), " ")
}
