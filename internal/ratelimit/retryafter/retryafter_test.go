package retryafter_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/ratelimit/retryafter"
)

// TestParse is the one table of what a Retry-After-Ms or Retry-After header means, for every
// caller: the model adapter, the search providers and the limiters.
func TestParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"no header", nil, 0},
		{"Retry-After-Ms", map[string]string{"Retry-After-Ms": "1500"}, 1500 * time.Millisecond},
		{"Retry-After-Ms with a fraction", map[string]string{"Retry-After-Ms": "0.5"}, 500 * time.Microsecond},
		{"Retry-After-Ms wins over Retry-After", map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond},
		{"negative Retry-After-Ms falls back to Retry-After", map[string]string{"Retry-After-Ms": "-5", "Retry-After": "1"}, time.Second},
		{"zero Retry-After-Ms falls back to Retry-After", map[string]string{"Retry-After-Ms": "0", "Retry-After": "2"}, 2 * time.Second},
		{"garbage Retry-After-Ms falls back to Retry-After", map[string]string{"Retry-After-Ms": "soon", "Retry-After": "2"}, 2 * time.Second},
		{"NaN Retry-After-Ms falls back to Retry-After", map[string]string{"Retry-After-Ms": "NaN", "Retry-After": "2"}, 2 * time.Second},
		{"bad Retry-After-Ms alone is no wait", map[string]string{"Retry-After-Ms": "-5"}, 0},
		{"Retry-After in seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"Retry-After in fractional seconds", map[string]string{"Retry-After": "0.25"}, 250 * time.Millisecond},
		{"spaces around the value", map[string]string{"Retry-After": " 7 "}, 7 * time.Second},
		{"Retry-After zero is no wait", map[string]string{"Retry-After": "0"}, 0},
		{"negative Retry-After is no wait", map[string]string{"Retry-After": "-3"}, 0},
		{"NaN Retry-After is no wait", map[string]string{"Retry-After": "NaN"}, 0},
		{"garbage Retry-After is no wait", map[string]string{"Retry-After": "later"}, 0},
		{"Retry-After as an HTTP date", map[string]string{"Retry-After": "Sat, 01 Mar 2025 12:00:10 GMT"}, 10 * time.Second},
		{"Retry-After as an HTTP date in the past is no wait", map[string]string{"Retry-After": "Sat, 01 Mar 2025 11:59:00 GMT"}, 0},
		{"Retry-After as an HTTP date far ahead is capped", map[string]string{"Retry-After": "Fri, 01 Mar 2125 12:00:00 GMT"}, retryafter.Max},
		{"huge Retry-After is capped", map[string]string{"Retry-After": "1e308"}, retryafter.Max},
		{"infinite Retry-After is capped", map[string]string{"Retry-After": "+Inf"}, retryafter.Max},
		{"Retry-After of exactly the cap", map[string]string{"Retry-After": "86400"}, retryafter.Max},
		{"huge Retry-After-Ms is capped", map[string]string{"Retry-After-Ms": "99999999999999999999"}, retryafter.Max},
		{"header names are case-insensitive", map[string]string{"retry-after-ms": "80"}, 80 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryafter.Parse(h, now); got != tt.want {
				t.Errorf("Parse(%v) = %s, want %s", tt.header, got, tt.want)
			}
		})
	}
}

// FuzzParse checks that no header value makes Parse panic or return a wait outside [0, Max].
func FuzzParse(f *testing.F) {
	for _, seed := range []string{"1", "0.5", "-1", "NaN", "+Inf", "1e308", "9223372036854775807", "Sat, 01 Mar 2025 12:00:10 GMT", ""} {
		f.Add(seed, seed)
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, s string) {
		h := http.Header{"Retry-After-Ms": {ms}, "Retry-After": {s}}
		if d := retryafter.Parse(h, now); d < 0 || d > retryafter.Max {
			t.Errorf("Parse(Retry-After-Ms %q, Retry-After %q) = %s, out of [0, %s]", ms, s, d, retryafter.Max)
		}
	})
}
