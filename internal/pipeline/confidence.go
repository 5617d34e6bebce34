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
