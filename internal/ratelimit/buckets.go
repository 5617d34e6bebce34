package ratelimit

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// burstWindow is how much budget the local limiters let go at once: a second's worth (rounded
// down), so that a provider whose budget holds only a second (some quantise their per-minute
// limits that way) is not overrun by the first burst.
const burstWindow = time.Second

// tickLocked is the time now for the local limiters: never earlier than a time they were given
// before. x/time/rate takes the time of each call as its own and would, given an earlier one
// (read before another goroutine's later one took the lock), count the refill in between twice.
func (l *Limiter) tickLocked() time.Time {
	now := l.clock().Now()
	if now.Before(l.buckets.lastTick) {
		now = l.buckets.lastTick
	}
	l.buckets.lastTick = now
	return now
}

// reserve takes one request and est tokens from the local limiters at the pace now, and returns
// how long until they are there, and how to give them back.
func (l *Limiter) reserve(est int64) (time.Duration, func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.tickLocked()
	l.applyPaceLocked(now)
	// Credit left by calls that used less than estimated pays first; a debt adds to the take.
	take, creditUsed := int64(0), int64(0)
	if !math.IsInf(l.buckets.applied[tokens], 1) {
		if l.buckets.credit >= est {
			creditUsed, take = est, 0
		} else {
			creditUsed, take = l.buckets.credit, est-l.buckets.credit
		}
		l.buckets.credit -= creditUsed
		if take > l.buckets.maxTake {
			l.buckets.maxTake = take
			l.buckets.limiters[tokens].SetBurstAt(now, max(l.buckets.limiters[tokens].Burst(), int(take)))
		}
	}
	var reservations []*rate.Reservation
	if !math.IsInf(l.buckets.applied[requests], 1) {
		reservations = append(reservations, l.buckets.limiters[requests].ReserveN(now, 1))
	}
	if take > 0 {
		reservations = append(reservations, l.buckets.limiters[tokens].ReserveN(now, int(take)))
	}
	var delay time.Duration
	for _, r := range reservations {
		if r.OK() {
			delay = max(delay, r.DelayFrom(now))
		}
	}
	undo := func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		at := l.tickLocked()
		for _, r := range reservations {
			r.CancelAt(at)
		}
		l.buckets.credit += creditUsed
	}
	return delay, undo
}

// applyPaceLocked gives the local limiters the pace at now. A limiter is made when its
// dimension first has a pace, and is skipped while the pace is unlimited.
func (l *Limiter) applyPaceLocked(now time.Time) {
	for d := range l.pace {
		r := l.pace[d].rate(now, l.params[d])
		if r == l.buckets.applied[d] {
			continue
		}
		l.buckets.applied[d] = r
		if math.IsInf(r, 1) {
			continue
		}
		perSecond := r / 60
		// Rounded down: a provider whose budget holds exactly one second must still have
		// something left when the requests of a full local burst arrive unevenly.
		burst := max(1, int(perSecond*burstWindow.Seconds()))
		if d == tokens {
			burst = max(burst, int(l.buckets.maxTake))
		}
		if l.buckets.limiters[d] == nil {
			l.buckets.limiters[d] = rate.NewLimiter(rate.Limit(perSecond), burst) // full, like the provider's
			continue
		}
		l.buckets.limiters[d].SetLimitAt(now, rate.Limit(perSecond))
		l.buckets.limiters[d].SetBurstAt(now, burst)
	}
}

// drainLocked takes from dimension d's local limiter what it holds beyond left: the provider
// said it has no more than that, and a full local bucket would send it a burst it refuses.
func (l *Limiter) drainLocked(d int, now time.Time, left int64) {
	if math.IsInf(l.buckets.applied[d], 1) {
		return
	}
	lim := l.buckets.limiters[d]
	if excess := lim.TokensAt(now) - float64(left); excess >= 1 {
		lim.ReserveN(now, int(excess))
	}
}

// correctLocked books the difference between a call's estimate and its reported usage (delta >
// 0: it used less): as local credit, capped at one burst, and on the shared lease.
func (l *Limiter) correctLocked(now time.Time, delta int64) {
	l.meter[tokens].add(now, float64(-delta))
	if !math.IsInf(l.buckets.applied[tokens], 1) {
		l.buckets.credit = min(l.buckets.credit+delta, int64(l.buckets.limiters[tokens].Burst()))
	}
	if l.cfg.Shared != nil {
		l.fleet.lease.have[tokens] += delta
	}
}
