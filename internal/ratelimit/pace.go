package ratelimit

import (
	"math"
	"slices"
	"time"
)

// pace is the allowed rate of one dimension (requests or tokens, per minute) and how it adapts:
// the AIMD controller. It is a pure function of time and the events it was told about, so tests
// drive it with explicit times.
//
// The ceiling is the configured limit or the one the provider's headers announce, the lower of
// the two; the pace runs Headroom below it. A 429 cuts the pace to Decrease times what it was
// (multiplicative decrease), then the pace climbs back linearly over Recovery (additive
// increase).
//
// With no ceiling known (a provider that sends no rate-limit headers) the pace is unlimited
// until the first 429; from then on the rate that drew the 429 is the estimate of the ceiling:
// the rate actually sent over the last few seconds (see meter.peak), or the pace when it was
// lower. The pace is cut to Decrease times it, climbs back within a sixth of Recovery to
// Headroom below it (the estimate comes from measured traffic, so there is no reason to linger
// far below it), and then probes above it, slowly at first and faster the longer no 429 comes
// (by probeGain times the cube of the Recovery periods since, as TCP CUBIC grows its window):
// near the last refused rate it lingers, far from it (the provider raised its limit) it moves
// fast. So it finds the provider's limit from 429s alone and follows it when it moves. What keeps
// a storm of 429s (a provider refusing everything for a while) from ratcheting the estimate down
// to the trickle sent during it is in the Limiter: a cut needs a success since the last one.
type pace struct {
	configured float64 // per minute, 0 for unknown
	learned    float64 // per minute from x-ratelimit-limit-*, 0 for none seen

	cut   bool      // a decrease happened
	cutAt time.Time // when
	from  float64   // the pace right after it
	to    float64   // Headroom below the refused pace: where recovery heads with no ceiling known
}

// unknownRamp is the share of Recovery the pace takes to climb back after a cut when no ceiling
// is known: the target is measured, not guessed.
const unknownRamp = 6

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
	ramp := progress * unknownRamp
	if ramp <= 1 {
		return p.from + (p.to-p.from)*ramp
	}
	k := progress - 1/float64(unknownRamp)
	return p.to * (1 + probeGain*k*k*k)
}

// traffic is what a dimension's calls did lately, per minute: the busiest second of what was
// sent (see meter.peak), and a typical second of what the provider accepted (see meter.typical);
// 0 when unknown.
type traffic struct {
	sent, accepted float64
}

// decrease cuts the pace after a 429 at now. With no ceiling known, what was sent lately is the
// best guess of the limit: the pace is cut from it when the pace was unlimited or above it (a
// pace the calls never used says nothing of where the limit is). Recovery heads for just below
// the rate cut from, or below what the provider accepted lately when that was more: a 429 that
// comes while the pace climbs back from a cut (a storm's first, say) says nothing against a rate
// the provider took a few seconds ago, and with the pace of the moment as the target each such
// 429 lowered the estimate (after a 30 s storm one worker came back at 82% of the limit).
func (p *pace) decrease(now time.Time, lately traffic, pp paceParams) {
	cur := p.rate(now, pp)
	target := cur
	if p.ceiling() == 0 && lately.sent > 0 {
		cur = min(cur, lately.sent)
		target = max(cur, min(lately.accepted, lately.sent))
	}
	if math.IsInf(cur, 1) {
		cur, target = pp.floor, pp.floor
	}
	p.cut, p.cutAt = true, now
	p.from = max(cur*pp.decrease, pp.floor)
	// Recovery heads for just below the target, from where probing goes on slowly.
	p.to = max(target*(1-pp.headroom), p.from)
}

// adopt takes the cut another worker sharing the budget made (see sharedCut), when it is newer
// than this pace's own: every worker then computes the same pace, and so the same window
// budgets. It reports whether it took it.
func (p *pace) adopt(c paceCut) bool {
	if c.At == 0 || p.cut && c.At <= p.cutAt.UnixMilli() {
		return false
	}
	p.cut, p.cutAt, p.from, p.to = true, time.UnixMilli(c.At), c.From, c.To
	return true
}

// paceCut is a pace's last cut as the shared budget carries it: when (Unix ms, 0 for none), the
// pace right after it and where recovery heads.
type paceCut struct {
	At   int64   `json:"at"`
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

func (p *pace) lastCut() paceCut {
	if !p.cut {
		return paceCut{}
	}
	return paceCut{At: p.cutAt.UnixMilli(), From: p.from, To: p.to}
}

// meter counts what was sent in each tenth of a second of the last peakSeconds, to measure the
// rate a provider refused when its limit is unknown.
type meter struct {
	buckets [meterSlots]float64
	stamps  [meterSlots]int64 // the tenth of a second since the Unix epoch each bucket holds
}

// peakSeconds is how far back meter.peak looks: long enough to reach back past a pause to
// the traffic that drew the 429, short enough that the rate of a minute ago does not count.
const peakSeconds = 5

const meterSlots = peakSeconds * 10

func tenths(t time.Time) int64 { return t.UnixMilli() / 100 }

func (m *meter) add(now time.Time, n float64) {
	tick := tenths(now)
	i := int(((tick % meterSlots) + meterSlots) % meterSlots)
	if m.stamps[i] != tick {
		m.stamps[i], m.buckets[i] = tick, 0
	}
	m.buckets[i] += n
}

// peak is the most sent within any one second of the last peakSeconds up to now, per minute: the
// rate that drew a 429. The busiest second rather than the mean, because the pause of an earlier
// 429, or the ramp after it, would pull a mean down and each cut would start lower than the last
// (with a minute's mean, the estimate crept down cut after cut). A sliding second rather than
// calendar seconds, because a provider's budget of a second emptied across a second's boundary
// would look half as large.
func (m *meter) peak(now time.Time) float64 {
	return slices.Max(m.seconds(now)) * 60
}

// typical is the median of what was counted within one second over the last peakSeconds up to
// now, per minute. For what a provider accepted, the median rather than the busiest second or the
// mean: a provider's bucket that refilled during a pause accepts a burst of up to twice its rate
// within a second, and the pause and ramp after a cut pull a mean down, neither of which says
// what it takes in the long run.
func (m *meter) typical(now time.Time) float64 {
	seconds := m.seconds(now)
	slices.Sort(seconds)
	return seconds[len(seconds)/2] * 60
}

// seconds is what was counted within each sliding second of the last peakSeconds up to now, a
// tenth of a second apart.
func (m *meter) seconds(now time.Time) []float64 {
	tick := tenths(now)
	var byAge [meterSlots]float64
	for i, stamp := range m.stamps {
		if age := tick - stamp; age >= 0 && age < meterSlots {
			byAge[age] += m.buckets[i]
		}
	}
	seconds := make([]float64, 0, meterSlots)
	second := 0.0
	for age := meterSlots - 1; age >= 0; age-- {
		second += byAge[age]
		if age+10 < meterSlots {
			second -= byAge[age+10]
		}
		if age+10 <= meterSlots {
			seconds = append(seconds, second)
		}
	}
	return seconds
}
