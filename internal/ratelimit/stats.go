package ratelimit

import (
	"math"
	"time"
)

// Stats are a Limiter's counters and its current pace, for metrics. Counters only grow.
type Stats struct {
	Name string
	// Calls counts admitted attempts (a retried call counts each attempt); Succeeded and
	// Failed count calls as Do returned them.
	Calls, Succeeded, Failed int64
	// RateLimited counts 429 answers that were rate limits; QuotaExhausted those that were an
	// exhausted quota; Retries the attempts Do made again after a 429.
	RateLimited, QuotaExhausted, Retries int64
	// Waits counts admissions that had to wait, for WaitTime in all.
	Waits    int64
	WaitTime time.Duration
	// Pauses counts the times every caller was paused; Decreases the cuts of the pace.
	Pauses, Decreases int64
	// TokensEstimated is the sum of estimates; TokensUsed of reported usage (the estimate where
	// a call reported none).
	TokensEstimated, TokensUsed int64
	// Leases, LeaseConflicts and LeaseErrors count the shared budget's leases taken, the
	// compare-and-swaps lost, and the failures to reach it.
	Leases, LeaseConflicts, LeaseErrors int64

	// InFlight and Queued are the calls running and waiting now.
	InFlight, Queued int
	// RequestsPerMinute and TokensPerMinute are the pace now, 0 when unlimited.
	RequestsPerMinute, TokensPerMinute float64
	// RequestLimit and TokenLimit are the ceilings in force (configured or learned), 0 when
	// unknown.
	RequestLimit, TokenLimit float64
	// PausedUntil is when the current pause ends; zero or past when none.
	PausedUntil time.Time
}

// Stats returns the Limiter's counters and state now.
func (l *Limiter) Stats() Stats {
	if l == nil {
		return Stats{}
	}
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Queued = l.queue.len()
	finite := func(r float64) float64 {
		if math.IsInf(r, 1) {
			return 0
		}
		return r
	}
	s.RequestsPerMinute = finite(l.pace[requests].rate(now, l.params[requests]))
	s.TokensPerMinute = finite(l.pace[tokens].rate(now, l.params[tokens]))
	s.RequestLimit = l.pace[requests].ceiling()
	s.TokenLimit = l.pace[tokens].ceiling()
	s.PausedUntil = l.paused
	return s
}

func (l *Limiter) count(f func(*Stats)) {
	l.mu.Lock()
	f(&l.stats)
	l.mu.Unlock()
}
