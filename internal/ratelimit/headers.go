package ratelimit

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/ratelimit/retryafter"
)

// Signals is what one HTTP response said about the provider's limits. A field the response did
// not carry, or carried in a form that does not parse, is left at its zero value (or -1 for the
// remaining counts, where 0 means something): servers omit these headers, send -1 for "no
// limit", or send nonsense, and none of that may stop or mislead a worker.
type Signals struct {
	// LimitRequests and LimitTokens are x-ratelimit-limit-requests and -tokens, read as per
	// minute; 0 when absent or not a positive integer.
	LimitRequests, LimitTokens int64
	// RemainingRequests and RemainingTokens are x-ratelimit-remaining-*, -1 when absent or
	// unusable.
	RemainingRequests, RemainingTokens int64
	// ResetRequests and ResetTokens are x-ratelimit-reset-*: how long until the budget is full
	// again; 0 when absent or unusable.
	ResetRequests, ResetTokens time.Duration
	// RetryAfter is Retry-After-Ms, else Retry-After (seconds or an HTTP date), as
	// retryafter.Parse reads them; 0 when absent.
	RetryAfter time.Duration
}

// maxHeaderWait bounds every wait read from a header, so that a server asking for a day (or for
// a date in the far future) does not park a worker for longer than an operator would notice.
const maxHeaderWait = 10 * time.Minute

// maxHeaderCount bounds the counts read from headers: anything larger is treated as nonsense.
const maxHeaderCount = 1 << 40

// ParseSignals reads the rate-limit headers of a response received at now.
func ParseSignals(h http.Header, now time.Time) Signals {
	return Signals{
		LimitRequests:     positiveCount(h.Get("X-Ratelimit-Limit-Requests")),
		LimitTokens:       positiveCount(h.Get("X-Ratelimit-Limit-Tokens")),
		RemainingRequests: remainingCount(h.Get("X-Ratelimit-Remaining-Requests")),
		RemainingTokens:   remainingCount(h.Get("X-Ratelimit-Remaining-Tokens")),
		ResetRequests:     parseReset(h.Get("X-Ratelimit-Reset-Requests"), now),
		ResetTokens:       parseReset(h.Get("X-Ratelimit-Reset-Tokens"), now),
		RetryAfter:        clampWait(retryafter.Parse(h, now)),
	}
}

// positiveCount reads a limit: a positive integer, else 0 (absent, -1, garbage, absurd).
func positiveCount(v string) int64 {
	n, ok := parseCount(v)
	if !ok || n <= 0 {
		return 0
	}
	return n
}

// remainingCount reads a remaining count: 0 or more, else -1.
func remainingCount(v string) int64 {
	n, ok := parseCount(v)
	if !ok || n < 0 {
		return -1
	}
	return n
}

// parseCount reads an integer count, accepting "12", " 12 " and "12.0" (some proxies format
// numbers as floats), rejecting anything beyond maxHeaderCount.
func parseCount(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, n <= maxHeaderCount
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > maxHeaderCount || f < -maxHeaderCount {
		return 0, false
	}
	return int64(f), true
}

// parseReset reads a reset time. OpenAI sends Go-style durations ("1s", "6m0s", "12ms"); others
// send seconds ("0.5"), a Unix time in seconds, or an RFC 3339 time. Anything else, anything not
// in the future, and anything past maxHeaderWait (capped) is handled without trusting it.
func parseReset(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return clampWait(d)
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		// A number this large is a Unix time, not a wait of 30 years.
		if f > 1e9 {
			return clampWait(time.Unix(0, 0).Add(time.Duration(f * float64(time.Second))).Sub(now))
		}
		return clampWait(retryafter.Seconds(f))
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return clampWait(t.Sub(now))
	}
	return 0
}

// clampWait keeps a wait within (0, maxHeaderWait]; a wait in the past is no wait.
func clampWait(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return min(d, maxHeaderWait)
}
