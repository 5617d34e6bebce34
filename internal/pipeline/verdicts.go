package pipeline

import (
	"fmt"
	"strings"
	"unicode"
)

// checkClaims reports the checks of the variants that have no claim-level verdict call (Factored,
// Joint, Two-step) in the shared verdict vocabulary: one Claim per check, in plan order, whose Text
// is the verification question (these methods never name the claim a question checks) and whose
// CheckPosition is the check. VariantVerdict keeps the check's status ("answered", "unsure",
// "failed").
//
// The specification fixes the call counts of these variants, so no call may be added to judge a
// claim, and the Revise call rewrites the draft as a whole without saying which check removed
// what. The mapping therefore claims only what the run shows:
//
//   - a check answered "unsure", or one that got no answer (status failed), neither confirms nor
//     contradicts: unverified, with the reason;
//   - an answered check, when the revision left the draft unchanged (sameText), stood against the
//     draft in the method's own judgement: supported;
//   - an answered check, when the revision changed the draft: unverified, because the change
//     cannot be pinned on any one check. The check, its answer and the revise call stay in the
//     trace for a reader to judge.
func checkClaims(checks []Check, draft, revised string) []Claim {
	unchanged := sameText(draft, revised)
	claims := make([]Claim, 0, len(checks))
	for _, c := range checks {
		claim := Claim{
			Position:       len(claims) + 1,
			Text:           c.Question,
			VariantVerdict: c.Status,
			CheckPosition:  c.Position,
		}
		switch {
		case c.Status == CheckFailed:
			claim.Verdict = VerdictUnverified
			claim.Reason = fmt.Sprintf("the check got no answer (%s); it was recorded as unsure", c.Error)
		case c.Status == CheckUnsure:
			claim.Verdict = VerdictUnverified
			claim.Reason = "the check was answered unsure"
		case unchanged:
			claim.Verdict = VerdictSupported
			claim.Reason = "the check was answered and the revision left the draft unchanged"
		default:
			claim.Verdict = VerdictUnverified
			claim.Reason = "the check was answered, but the revision changed the draft and this method " +
				"gives no claim-level verdict, so the change is not attributed to any one check"
		}
		claims = append(claims, claim)
	}
	return claims
}

// appendNotChecked lists texts (questions or claims the run skipped) as not_checked claims after
// claims, each with reason. They have no VariantVerdict and no CheckPosition: no check was made.
func appendNotChecked(claims []Claim, texts []string, reason string) []Claim {
	for _, text := range texts {
		claims = append(claims, Claim{
			Position: len(claims) + 1,
			Text:     text,
			Verdict:  VerdictNotChecked,
			Reason:   reason,
		})
	}
	return claims
}

func questionCapReason(limit int) string {
	return fmt.Sprintf("over the question cap of %d", limit)
}

func claimCapReason(limit int) string {
	return fmt.Sprintf("over the claim cap of %d", limit)
}

// sameText reports whether a revision left the draft standing: the two are equal once case,
// punctuation and whitespace are ignored (every run of characters that are neither letters nor
// digits counts as one space). Any changed, removed or added word makes them differ. This is
// deliberately strict: a revision that only rephrases counts as a change.
func sameText(draft, revised string) bool {
	return agreementKey(draft) == agreementKey(revised)
}

// agreementKey is the text sameText compares: lower-case words separated by single spaces.
func agreementKey(s string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(s) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte(' ')
		}
		gap = false
		b.WriteRune(r)
	}
	return b.String()
}
