package ratelimit

import "time"

// stormRow is how many 429s in a row, with no success between, make a storm: then, as for the
// first call, one call goes at a time (after each pause) until one succeeds, so that a provider
// refusing everything gets one request per pause rather than a burst of them.
const stormRow = 3

// stormPatience is how long a call goes on retrying through a storm (see weatheringStorm).
const stormPatience = 2 * time.Minute

// weatheringStorm reports whether a call that met a 429 should be retried beyond MaxRetries: in
// a storm (stormRow 429s in a row, one call going at a time) that began less than stormPatience
// ago. The storm is the provider's, not the job's: failing the one call that probes it would
// only send its job to wait out a retry delay after the storm has ended (the calls queued behind
// it wait without spending retries). A longer storm fails calls as before, so that the jobs'
// retries and the worker's circuit breaker take over. It applies only with no ceiling known
// (configured or announced): a provider with known limits that refuses calls in a row is held to
// MaxRetries, as configured.
func (l *Limiter) weatheringStorm() bool {
	if l.cfg.MaxRetries < 0 {
		return false
	}
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	unknown := l.pace[requests].ceiling() == 0 && l.pace[tokens].ceiling() == 0
	return unknown && l.row429.n >= stormRow && now.Sub(l.row429.start) < stormPatience
}
