package ratelimit

import (
	"net/http"
	"testing"
	"time"
)

func TestParseSignals(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	none := Signals{RemainingRequests: -1, RemainingTokens: -1}
	tests := []struct {
		name   string
		header map[string]string
		want   Signals
	}{
		{"no headers", nil, none},
		{"OpenAI's headers", map[string]string{
			"x-ratelimit-limit-requests": "500", "x-ratelimit-limit-tokens": "200000",
			"x-ratelimit-remaining-requests": "499", "x-ratelimit-remaining-tokens": "199000",
			"x-ratelimit-reset-requests": "120ms", "x-ratelimit-reset-tokens": "6m0s",
		}, Signals{LimitRequests: 500, LimitTokens: 200000, RemainingRequests: 499, RemainingTokens: 199000,
			ResetRequests: 120 * time.Millisecond, ResetTokens: 6 * time.Minute}},
		{"remaining zero is kept: it means something", map[string]string{
			"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1s",
		}, Signals{RemainingRequests: 0, RemainingTokens: -1, ResetRequests: time.Second}},
		{"-1 means no limit", map[string]string{
			"x-ratelimit-limit-requests": "-1", "x-ratelimit-remaining-requests": "-1", "x-ratelimit-reset-requests": "-1",
		}, none},
		{"garbage", map[string]string{
			"x-ratelimit-limit-requests": "lots", "x-ratelimit-limit-tokens": "NaN",
			"x-ratelimit-remaining-requests": "1e999", "x-ratelimit-remaining-tokens": "",
			"x-ratelimit-reset-requests": "soon", "x-ratelimit-reset-tokens": "Inf",
			"retry-after": "later",
		}, none},
		{"absurdly large counts", map[string]string{
			"x-ratelimit-limit-requests": "99999999999999999999", "x-ratelimit-limit-tokens": "1e300",
		}, none},
		{"numbers with spaces and float formatting", map[string]string{
			"x-ratelimit-limit-requests": " 60 ", "x-ratelimit-remaining-tokens": "1500.0",
			"x-ratelimit-reset-requests": "0.5",
		}, Signals{LimitRequests: 60, RemainingRequests: -1, RemainingTokens: 1500, ResetRequests: 500 * time.Millisecond}},
		{"reset as a Unix time and as RFC 3339", map[string]string{
			"x-ratelimit-reset-requests": "1740830430", // now + 30s
			"x-ratelimit-reset-tokens":   "2025-03-01T12:00:05Z",
		}, Signals{RemainingRequests: -1, RemainingTokens: -1, ResetRequests: 30 * time.Second, ResetTokens: 5 * time.Second}},
		{"reset in the past is no wait", map[string]string{
			"x-ratelimit-reset-requests": "-3s", "x-ratelimit-reset-tokens": "2025-03-01T11:00:00Z",
		}, none},
		{"waits are capped", map[string]string{
			"x-ratelimit-reset-requests": "72h", "retry-after": "86400",
		}, Signals{RemainingRequests: -1, RemainingTokens: -1, ResetRequests: maxHeaderWait, RetryAfter: maxHeaderWait}},
		{"Retry-After-Ms wins over Retry-After", map[string]string{
			"retry-after-ms": "250", "retry-after": "3",
		}, Signals{RemainingRequests: -1, RemainingTokens: -1, RetryAfter: 250 * time.Millisecond}},
		{"Retry-After in seconds", map[string]string{"retry-after": "2"},
			Signals{RemainingRequests: -1, RemainingTokens: -1, RetryAfter: 2 * time.Second}},
		{"Retry-After as an HTTP date", map[string]string{"retry-after": "Sat, 01 Mar 2025 12:00:10 GMT"},
			Signals{RemainingRequests: -1, RemainingTokens: -1, RetryAfter: 10 * time.Second}},
		{"bad Retry-After-Ms falls back to Retry-After", map[string]string{"retry-after-ms": "-5", "retry-after": "1"},
			Signals{RemainingRequests: -1, RemainingTokens: -1, RetryAfter: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := ParseSignals(h, now); got != tt.want {
				t.Errorf("ParseSignals =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseSignals checks that no header value makes the parser panic or return a wait it
// should not: negative, or past the cap.
func FuzzParseSignals(f *testing.F) {
	for _, seed := range []string{"1s", "6m0s", "-1", "NaN", "1e308", "9223372036854775807", "Sat, 01 Mar 2025 12:00:10 GMT", ""} {
		f.Add(seed)
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{}
		for _, k := range []string{"x-ratelimit-limit-requests", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-requests", "retry-after", "retry-after-ms"} {
			h.Set(k, v)
		}
		s := ParseSignals(h, now)
		for _, d := range []time.Duration{s.ResetRequests, s.RetryAfter} {
			if d < 0 || d > maxHeaderWait {
				t.Errorf("wait %s out of [0, %s] for %q", d, maxHeaderWait, v)
			}
		}
		if s.LimitRequests < 0 || s.RemainingTokens < -1 {
			t.Errorf("counts %d, %d for %q", s.LimitRequests, s.RemainingTokens, v)
		}
	})
}
