package ratelimit

import (
	"math"
	"time"
)

// pace is the allowed rate of one dimension (requests or tokens, per minute) and how it adapts:
// the AIMD controller. It is a pure function of time and the events it was told about, so tests
// drive it with explicit times.
//
// The ceiling is the configured limit or the one the provider's headers announce, the lower of
// the two; the pace runs Headroom below it. A 429 cuts the pace to Decrease times what it was
// (multiplicative decrease), then the pace climbs back linearly over Recovery (additive
// increase). With no ceiling known the pace is unlimited until the first 429; from then on it
// climbs back over Recovery to Headroom below the rate that was refused, then probes above it,
// slowly at first and faster the longer no 429 comes (by probeGain times the cube of the
// Recovery periods since, as TCP CUBIC grows its window): near the last refused rate it lingers,
// far from it (a guess from little traffic was too low, or the provider raised its limit) it
// moves fast. So it finds the provider's limit from 429s alone and follows it when it moves.
type pace struct {
	configured float64 // per minute, 0 for unknown
	learned    float64 // per minute from x-ratelimit-limit-*, 0 for none seen

	cut   bool      // a decrease happened
	cutAt time.Time // when
	from  float64   // the pace right after it
	to    float64   // Headroom below the refused pace: where recovery heads with no ceiling known
}

// paceParams are Config's AIMD settings, defaulted.
type paceParams struct {
	decrease float64
	recovery time.Duration
	headroom float64
	floor    float64 // per minute: no cut goes below it
}

// probeGain is how far above the last refused rate an unknown limit is probed one Recovery after
// the recovery: 2%, then 16% after two, 54% after three, doubling after four.
const probeGain = 0.02

// ceiling is the limit in force, 0 when unknown.
func (p *pace) ceiling() float64 {
	switch {
	case p.configured > 0 && p.learned > 0:
		return min(p.configured, p.learned)
	case p.configured > 0:
		return p.configured
	default:
		return p.learned
	}
}

// rate is the pace at now, per minute; +Inf when unlimited.
func (p *pace) rate(now time.Time, pp paceParams) float64 {
	c := p.ceiling()
	safe := math.Inf(1)
	if c > 0 {
		safe = max(c*(1-pp.headroom), pp.floor)
	}
	if !p.cut {
		return safe
	}
	elapsed := max(now.Sub(p.cutAt), 0)
	progress := elapsed.Seconds() / pp.recovery.Seconds()
	if c > 0 {
		if p.from >= safe || progress >= 1 {
			return safe
		}
		return p.from + (safe-p.from)*progress
	}
	if progress <= 1 {
		return p.from + (p.to-p.from)*progress
	}
	k := progress - 1
	return p.to * (1 + probeGain*k*k*k)
}

// decrease cuts the pace after a 429 at now. measured is the rate actually sent lately (see
// meter.perMinute). With no ceiling known it is the best guess of the limit: the pace is cut
// from it when the pace was unlimited or above it (a pace the calls never used says nothing
// of where the limit is).
func (p *pace) decrease(now time.Time, measured float64, pp paceParams) {
	cur := p.rate(now, pp)
	if p.ceiling() == 0 && measured > 0 {
		cur = min(cur, measured)
	}
	if math.IsInf(cur, 1) {
		cur = pp.floor
	}
	p.cut, p.cutAt = true, now
	p.from = max(cur*pp.decrease, pp.floor)
	// Recovery heads for just below the refused rate, from where probing goes on slowly.
	p.to = max(cur*(1-pp.headroom), p.from)
}

// meter counts what was sent in each of the last 60 seconds, to measure the rate a provider
// refused when its limit is unknown.
type meter struct {
	buckets [60]float64
	stamps  [60]int64 // the Unix second each bucket holds
}

func (m *meter) add(now time.Time, n float64) {
	sec := now.Unix()
	i := int(((sec % 60) + 60) % 60)
	if m.stamps[i] != sec {
		m.stamps[i], m.buckets[i] = sec, 0
	}
	m.buckets[i] += n
}

// perMinute is the rate sent over the last minute up to now, per minute. When less than a minute
// has been sent, the rate is over the seconds since the first send (at least one): a worker that
// started two seconds ago and was refused after 40 requests was refused at 1200 a minute, not at
// 40. For a provider whose budget holds a whole minute this overestimates the first refusal, and
// the cuts that follow bring the pace down; an underestimate would take far longer to climb out of.
func (m *meter) perMinute(now time.Time) float64 {
	sec := now.Unix()
	total, oldest := 0.0, sec
	for i, stamp := range m.stamps {
		if stamp > sec-60 && stamp <= sec && m.buckets[i] != 0 {
			total += m.buckets[i]
			oldest = min(oldest, stamp)
		}
	}
	return max(total, 0) * 60 / float64(sec-oldest+1)
}
