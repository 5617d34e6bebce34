package ratelimit

import (
	"math"
	"testing"
	"time"
)

var testParams = paceParams{decrease: 0.5, recovery: 10 * time.Second, headroom: 0.1, floor: 1}

func near(got, want float64) bool { return math.Abs(got-want) < 1e-6*max(1, math.Abs(want)) }

func TestPaceCeiling(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	tests := []struct {
		name                string
		configured, learned float64
		want                float64
	}{
		{"nothing known: unlimited", 0, 0, math.Inf(1)},
		{"configured", 600, 0, 540},
		{"learned from headers", 0, 1000, 900},
		{"the lower of configured and learned", 600, 1000, 540},
		{"the lower of learned and configured", 2000, 1000, 900},
	}
	for _, tt := range tests {
		p := pace{configured: tt.configured, learned: tt.learned}
		if got := p.rate(now, testParams); !near(got, tt.want) && !(math.IsInf(got, 1) && math.IsInf(tt.want, 1)) {
			t.Errorf("%s: rate = %g, want %g", tt.name, got, tt.want)
		}
	}
}

// TestPaceAIMDKnownCeiling: a cut halves the pace, which then climbs back linearly to the safe
// pace over Recovery and stays there.
func TestPaceAIMDKnownCeiling(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	p := pace{configured: 1000}
	p.decrease(t0, traffic{}, testParams)
	steps := []struct {
		after time.Duration
		want  float64
	}{
		{0, 450},
		{5 * time.Second, 675},
		{10 * time.Second, 900},
		{time.Hour, 900},
	}
	for _, s := range steps {
		if got := p.rate(t0.Add(s.after), testParams); !near(got, s.want) {
			t.Errorf("%s after the cut: rate = %g, want %g", s.after, got, s.want)
		}
	}
	// A second cut halfway through recovery cuts from where the pace was.
	p.decrease(t0.Add(5*time.Second), traffic{}, testParams)
	if got := p.rate(t0.Add(5*time.Second), testParams); !near(got, 337.5) {
		t.Errorf("after a second cut: rate = %g, want 337.5", got)
	}
}

// TestPaceAIMDUnknownCeiling: with nothing known, the first 429 sets the pace from what was
// sent; recovery returns to the refused rate within a sixth of Recovery (the rate is measured,
// not guessed) and then probes above it.
func TestPaceAIMDUnknownCeiling(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	ramp := testParams.recovery / unknownRamp
	var p pace
	p.decrease(t0, traffic{sent: 800}, testParams)
	steps := []struct {
		after time.Duration
		want  float64
	}{
		{0, 400},
		{ramp / 2, 560},
		{ramp, 720}, // headroom below the refused 800
		{ramp + 10*time.Second, 720 * (1 + probeGain)},
		{ramp + 20*time.Second, 720 * (1 + 8*probeGain)}, // probing speeds up while nothing refuses
	}
	for _, s := range steps {
		if got := p.rate(t0.Add(s.after), testParams); !near(got, s.want) {
			t.Errorf("%s after the cut: rate = %g, want %g", s.after, got, s.want)
		}
	}
	// Another worker's later cut, carried by the shared budget, replaces this one; an older one
	// does not.
	later := paceCut{At: t0.Add(time.Minute).UnixMilli(), From: 100, To: 200}
	if !p.adopt(later) || !near(p.rate(t0.Add(time.Minute), testParams), 100) {
		t.Errorf("a later cut was not adopted: rate %g, want 100", p.rate(t0.Add(time.Minute), testParams))
	}
	if p.adopt(paceCut{At: t0.UnixMilli(), From: 1, To: 1}) || p.adopt(paceCut{}) {
		t.Error("an older cut, or none, was adopted")
	}
	if got := p.lastCut(); got != later {
		t.Errorf("last cut %+v, want %+v", got, later)
	}
	// The limit learned later caps the probing.
	p.learned = 500
	if got := p.rate(t0.Add(time.Hour), testParams); !near(got, 450) {
		t.Errorf("with a learned limit of 500: rate = %g, want 450", got)
	}
}

// TestPaceCutDuringRecoveryKeepsWhatWasAccepted: with no ceiling known, a 429 that comes while
// the pace is still climbing back from a cut cuts from where the pace is, but recovery heads for
// just below what the provider accepted lately when that was more than the pace of the moment.
// Before, such a 429 (a storm's first, two seconds after an ordinary cut) set the target to 97%
// of the ramp's rate: after a 30 s storm one worker came back at 82% of the limit and took 26.5 s
// to reach 90% (cmd/bench). When nothing more was accepted (the pace overshot on its way back)
// the target comes down to the pace, as before.
func TestPaceCutDuringRecoveryKeepsWhatWasAccepted(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	ramp := testParams.recovery / unknownRamp
	for _, tt := range []struct {
		name     string
		accepted float64
		want     float64
	}{
		{"760 accepted lately", 760, 684},
		{"nothing more than the pace accepted", 500, 504},
		{"accepted unknown", 0, 504},
	} {
		var p pace
		p.decrease(t0, traffic{sent: 800}, testParams) // from 400, heading for 720
		second := t0.Add(ramp / 2)                     // at 560
		p.decrease(second, traffic{sent: 800, accepted: tt.accepted}, testParams)
		if got := p.rate(second, testParams); !near(got, 280) {
			t.Errorf("%s: right after the second cut: rate = %g, want 280 (half of 560)", tt.name, got)
		}
		if got := p.rate(second.Add(ramp), testParams); !near(got, tt.want) {
			t.Errorf("%s: recovered from the second cut: rate = %g, want %g", tt.name, got, tt.want)
		}
	}
	// A pace the calls did not use says nothing: the target is below what they sent.
	var idle pace
	idle.decrease(t0, traffic{sent: 300, accepted: 300}, testParams)
	if got := idle.rate(t0.Add(ramp), testParams); !near(got, 270) {
		t.Errorf("cut from an unlimited pace with 300 sent: recovered to %g, want 270", got)
	}
}

// TestPaceConvergesFrom429s drives the controller against a provider limit it does not know and
// checks that, after the first cuts, it spends most of its time near the limit and rarely above.
func TestPaceConvergesFrom429s(t *testing.T) {
	t.Parallel()
	const limit = 600.0
	params := paceParams{decrease: DefaultDecrease, recovery: DefaultRecovery, headroom: DefaultHeadroom, floor: 1}
	var p pace
	now := time.Unix(0, 0)
	p.decrease(now, traffic{sent: 3 * limit}, params) // the first burst overshot threefold
	var sum, over float64
	var samples int
	for i := 0; i < 3600; i++ { // an hour in one-second steps
		now = now.Add(time.Second)
		r := p.rate(now, params)
		if r > limit {
			p.decrease(now, traffic{}, params) // the provider answers 429
		}
		if i >= 600 {
			sum += min(r, limit)
			samples++
			if r > limit {
				over++
			}
		}
	}
	if mean := sum / float64(samples); mean < 0.8*limit {
		t.Errorf("mean pace after 10 minutes = %.0f, want at least 80%% of the limit %.0f", mean, limit)
	}
	// Each second above the limit is the one that draws the 429 and the cut: the share is one
	// over the length of a cycle, about 40s once the pace climbs back within a sixth of Recovery.
	if share := over / float64(samples); share > 0.03 {
		t.Errorf("pace above the limit %.1f%% of the time, want at most 3%%", 100*share)
	}
}

// TestMeterPeak: the rate that drew a 429 is the busiest second of the last few, so that the
// pause of an earlier 429 does not pull the estimate down.
func TestMeterPeak(t *testing.T) {
	t.Parallel()
	var m meter
	t0 := time.Unix(1_000_000, 0)
	if got := m.peak(t0); got != 0 {
		t.Errorf("nothing sent: %g a minute, want 0", got)
	}
	// 40 in the first second: refused at 2400 a minute.
	m.add(t0, 40)
	if got := m.peak(t0.Add(500 * time.Millisecond)); got != 2400 {
		t.Errorf("40 in one second = %g a minute, want 2400", got)
	}
	// A pause of two seconds, then 10 in a second: the busiest second still counts.
	m.add(t0.Add(3*time.Second), 10)
	if got := m.peak(t0.Add(3 * time.Second)); got != 2400 {
		t.Errorf("after a pause = %g a minute, want the 2400 of the busiest second", got)
	}
	// Five seconds on, the first second is out of the window.
	if got := m.peak(t0.Add(5 * time.Second)); got != 600 {
		t.Errorf("5s later = %g a minute, want 600", got)
	}
	if got := m.peak(t0.Add(time.Hour)); got != 0 {
		t.Errorf("an hour later = %g, want 0", got)
	}
	// 40 sent within one second that straddles two calendar seconds: still 2400 a minute.
	var across meter
	across.add(t0.Add(600*time.Millisecond), 20)
	across.add(t0.Add(1400*time.Millisecond), 20)
	if got := across.peak(t0.Add(1500 * time.Millisecond)); got != 2400 {
		t.Errorf("40 across a second's boundary = %g a minute, want 2400", got)
	}
}
