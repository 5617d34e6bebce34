package pipeline

// Confidence levels of an evidence-grounded verdict, lowest first.
const (
	ConfidenceLow    = "Low"
	ConfidenceMedium = "Medium"
	ConfidenceHigh   = "High"
)

// ConfidenceRank orders the levels; anything else ranks as Low, so that a missing or unreadable
// confidence can never raise a verdict.
func ConfidenceRank(c string) int {
	switch c {
	case ConfidenceHigh:
		return 3
	case ConfidenceMedium:
		return 2
	default:
		return 1
	}
}

// MinConfidence returns the lower of two levels.
func MinConfidence(a, b string) string {
	if ConfidenceRank(a) <= ConfidenceRank(b) {
		return NormalConfidence(a)
	}
	return NormalConfidence(b)
}

// NormalConfidence returns c when it is High or Medium, else Low: what an unreadable level counts as.
func NormalConfidence(c string) string {
	switch c {
	case ConfidenceHigh, ConfidenceMedium:
		return c
	default:
		return ConfidenceLow
	}
}
