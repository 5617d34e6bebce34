package cove

import (
	"fmt"

	"github.com/corroborate/corroborate/internal/pipeline"
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
func checkClaims(checks []pipeline.Check, draft, revised string) []pipeline.Claim {
	unchanged := pipeline.SameText(draft, revised)
	claims := make([]pipeline.Claim, 0, len(checks))
	for _, c := range checks {
		claim := pipeline.Claim{
			Position:       len(claims) + 1,
			Text:           c.Question,
			VariantVerdict: c.Status,
			CheckPosition:  c.Position,
		}
		switch {
		case c.Status == pipeline.CheckFailed:
			claim.Verdict = pipeline.VerdictUnverified
			claim.Reason = fmt.Sprintf("the check got no answer (%s); it was recorded as unsure", c.Error)
		case c.Status == pipeline.CheckUnsure:
			claim.Verdict = pipeline.VerdictUnverified
			claim.Reason = "the check was answered unsure"
		case unchanged:
			claim.Verdict = pipeline.VerdictSupported
			claim.Reason = "the check was answered and the revision left the draft unchanged"
		default:
			claim.Verdict = pipeline.VerdictUnverified
			claim.Reason = "the check was answered, but the revision changed the draft and this method " +
				"gives no claim-level verdict, so the change is not attributed to any one check"
		}
		claims = append(claims, claim)
	}
	return claims
}

// appendNotChecked lists texts (questions or claims the run skipped) as not_checked claims after
// claims, each with reason. They have no VariantVerdict and no CheckPosition: no check was made.
func appendNotChecked(claims []pipeline.Claim, texts []string, reason string) []pipeline.Claim {
	for _, text := range texts {
		claims = append(claims, pipeline.Claim{
			Position: len(claims) + 1,
			Text:     text,
			Verdict:  pipeline.VerdictNotChecked,
			Reason:   reason,
		})
	}
	return claims
}

func questionCapReason(limit int) string {
	return fmt.Sprintf("over the question cap of %d", limit)
}
