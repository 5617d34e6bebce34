// Package retryafter reads how long an HTTP answer asks its client to wait before trying again:
// Retry-After-Ms (milliseconds, as OpenAI-compatible servers send it and openai-go honours it),
// else Retry-After (seconds, or an HTTP date). It is the one parser of those headers, used by the
// model adapter (internal/llm), the search providers (internal/search) and the rate limiters
// (internal/ratelimit). It is a leaf of the ratelimit room, importing only the standard library,
// so that llm and search can use it without depending on the limiters (and through them on NATS).
package retryafter

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Max bounds every wait this package returns. Servers send nonsense ("1e308", a date in the next
// century), and a wait must neither overflow a time.Duration nor park a caller for longer than a
// day; callers that act on the wait may bound it further.
const Max = 24 * time.Hour

// Parse returns the wait the header h of an answer received at now asks for: Retry-After-Ms when
// it is a positive number, else Retry-After as seconds or as an HTTP date. It returns 0 when
// neither header asks for a wait in the future: absent, zero, negative, NaN, garbage, or a date
// already past. Waits are capped at Max.
func Parse(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return Seconds(ms / 1000)
		}
		// A bad Retry-After-Ms is ignored, not trusted: Retry-After may still say something.
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return Seconds(s)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), Max)
	}
	return 0
}

// Seconds converts a wait in seconds read from a header, without overflowing: 0 for zero,
// negative or NaN, Max for anything at or past Max (including +Inf).
func Seconds(s float64) time.Duration {
	switch {
	case s <= 0 || math.IsNaN(s):
		return 0
	case s >= Max.Seconds():
		return Max
	}
	return time.Duration(s * float64(time.Second))
}
