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
	return fmt.Sprintf("over the claim cap of %d", limit)
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
