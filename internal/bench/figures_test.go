package bench

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/store"
)

// The bound is whichever of the provider's two limits binds first.
func TestBound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name                        string
		rpm, tpm                    int
		callsPerStmt, tokensPerStmt float64
		want                        float64
	}{
		{"requests bind", 2400, 400000, 5, 500, 480},   // 2400/5 = 480 < 400000/500 = 800
		{"tokens bind", 2400, 400000, 5, 1000, 400},    // 400000/1000 = 400 < 480
		{"both at once", 600, 60000, 3, 300, 200},      // 200 = 200
		{"one call a statement", 60, 1e6, 1, 1000, 60}, // requests: 60
		{"fractional calls", 100, 1e6, 2.5, 10, 40},    // 100/2.5
		{"a token-heavy statement", 1e4, 1000, 1, 2000, 0.5},
	} {
		if got := bound(tt.rpm, tt.tpm, tt.callsPerStmt, tt.tokensPerStmt); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: bound(%d, %d, %g, %g) = %g, want %g", tt.name, tt.rpm, tt.tpm, tt.callsPerStmt, tt.tokensPerStmt, got, tt.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	ms := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	for _, tt := range []struct {
		name string
		ds   []time.Duration
		p    float64
		want time.Duration
	}{
		{"none", nil, 0.5, 0},
		{"one", ms(7), 0.95, 7 * time.Millisecond},
		{"median of an odd count, unsorted", ms(30, 10, 20), 0.5, 20 * time.Millisecond},
		{"median of an even count: the lower middle", ms(40, 10, 30, 20), 0.5, 20 * time.Millisecond},
		{"p95 of 10: nearest rank below", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 100), 0.95, 9 * time.Millisecond},
		{"p95 of 21: the last but one", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21), 0.95, 20 * time.Millisecond},
		{"p100: the largest", ms(3, 9, 1), 1, 9 * time.Millisecond},
		{"p0: the smallest", ms(3, 9, 1), 0, 1 * time.Millisecond},
	} {
		in := append([]time.Duration(nil), tt.ds...)
		if got := percentile(tt.ds, tt.p); got != tt.want {
			t.Errorf("%s: percentile(%v, %g) = %s, want %s", tt.name, tt.ds, tt.p, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.ds[i] {
				t.Errorf("%s: percentile reordered its input", tt.name)
				break
			}
		}
	}
}

// timings returns n statements received at t0, stored one a second apart from t0+1s, in
// reverse order (the store does not promise an order).
func timings(t0 time.Time, n int) []store.RunTiming {
	var ts []store.RunTiming
	for i := n - 1; i >= 0; i-- {
		ts = append(ts, store.RunTiming{Received: t0, Stored: t0.Add(time.Duration(i+1) * time.Second)})
	}
	return ts
}

// The steady state leaves out the first and the last tenth of the statements stored: the ramp
// up and the tail.
func TestSteadyState(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_000_000, 0)
	for _, tt := range []struct {
		name      string
		stmts     []store.RunTiming
		from, to  time.Time
		perMinute float64
		err       string
	}{
		// 100 stored at 1..100 s: the 10th (index 10, 11 s) to the 90th (index 90, 91 s), 80
		// statements in 80 s.
		{"a hundred, one a second", timings(t0, 100), t0.Add(11 * time.Second), t0.Add(91 * time.Second), 60, ""},
		// 10 stored at 1..10 s: index 1 (2 s) to index 9 (10 s), 8 statements in 8 s.
		{"ten", timings(t0, 10), t0.Add(2 * time.Second), t0.Add(10 * time.Second), 60, ""},
		// 25: index 2 (3 s) to index 22 (23 s); 22-2 = 20 statements in 20 s.
		{"twenty-five", timings(t0, 25), t0.Add(3 * time.Second), t0.Add(23 * time.Second), 60, ""},
		{"all stored at once", []store.RunTiming{{Stored: t0}, {Stored: t0}, {Stored: t0}}, time.Time{}, time.Time{}, 0, "no steady state"},
		{"none", nil, time.Time{}, time.Time{}, 0, "no statement"},
	} {
		from, to, perMinute, err := steadyState(tt.stmts)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || !from.Equal(tt.from) || !to.Equal(tt.to) || math.Abs(perMinute-tt.perMinute) > 1e-9 {
			t.Errorf("%s: steadyState = %s..%s, %g/min, %v; want %s..%s, %g/min",
				tt.name, from.Sub(t0), to.Sub(t0), perMinute, err, tt.from.Sub(t0), tt.to.Sub(t0), tt.perMinute)
		}
	}
}

// The figures of one run's statements: calls and tokens per statement and the bound they imply
// (none without provider limits), latency, and the overhead beside the model's critical path.
func TestStatementFigures(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(2_000_000, 0)
	stmt := func(before, inMethod, critical, storing time.Duration, calls, tokens int64) store.RunTiming {
		started := t0.Add(before)
		ran := started.Add(inMethod + critical)
		return store.RunTiming{Received: t0, Started: started, Ran: ran, Stored: ran.Add(storing), Calls: calls, Tokens: tokens, Critical: critical}
	}
	ms := time.Millisecond
	stmts := []store.RunTiming{
		stmt(10*ms, 5*ms, 600*ms, 20*ms, 5, 1000),  // latency 635 ms, overhead 35 ms
		stmt(30*ms, 15*ms, 800*ms, 40*ms, 5, 1200), // latency 885 ms, overhead 85 ms
		stmt(20*ms, 10*ms, 700*ms, 30*ms, 5, 800),  // latency 760 ms, overhead 60 ms
		stmt(20*ms, 10*ms, 0, 30*ms, 4, 600),       // no model round recorded: no ratio
	}
	cfg := Config{RPM: 2400, TPM: 400000, Latency: 200 * ms}

	var res result
	res.mode = modeLearned
	statementFigures(&res, stmts, cfg)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"calls per statement", res.callsPerStmt, 19.0 / 4},
		{"tokens per statement", res.tokensPerStmt, 3600.0 / 4},
		{"bound", res.bound, min(2400/(19.0/4), 400000/(3600.0/4))},
		{"p95 of latency over own critical path", res.ownRatioP95, 760.0 / 700}, // ratios 1.058, 1.086, 1.106: index int(0.95*2) = 1
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"p50 latency", res.p50, 635 * ms}, // of 60, 635, 760, 885
		{"p95 latency", res.p95, 760 * ms}, // index int(0.95*3) = 2
		{"critical path: 3 rounds", res.critical, 600 * ms},
		{"own critical path p50", res.ownCriticalP50, 600 * ms},
		{"overhead p50", res.overheadP50, 60 * ms}, // of 35, 60, 60, 85
		{"overhead mean", res.overheadMean, 240 * ms / 4},
		{"before the method p50", res.beforeP50, 20 * ms},
		{"in the method p50", res.inMethodP50, 10 * ms},
		{"storing p50", res.storeP50, 30 * ms},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}

	// Without provider limits there is no bound to run against.
	var unbound result
	unbound.mode = modeUnbound
	statementFigures(&unbound, stmts, cfg)
	if unbound.bound != 0 {
		t.Errorf("unbound run: bound %g, want 0", unbound.bound)
	}
}

// acceptedAt is a provider's timeline for recovery: the times of the requests it accepted.
type acceptedAt []time.Time

func (a acceptedAt) AcceptedBetween(from, to time.Time) int {
	n := 0
	for _, at := range a {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

// every returns one accepted request each step from from until to.
func every(step time.Duration, from, to time.Time) acceptedAt {
	var a acceptedAt
	for at := from; at.Before(to); at = at.Add(step) {
		a = append(a, at)
	}
	return a
}

// Recovery after a storm: the first half-second step after the storm's end from which 10 s
// hold the calls wanted, if that window ends before the run.
func TestRecovery(t *testing.T) {
	t.Parallel()
	end := time.Unix(3_000_000, 0) // the storm's end
	for _, tt := range []struct {
		name     string
		accepted acceptedAt
		stormEnd time.Time
		runEnd   time.Time
		want     float64
		recovery time.Duration
	}{
		{"no storm", every(100*time.Millisecond, end, end.Add(time.Minute)), time.Time{}, end.Add(time.Minute), 10, -1},
		// 10 a second from the storm's end: the first 10 s window holds 100.
		{"back at once", every(100*time.Millisecond, end, end.Add(time.Minute)), end, end.Add(time.Minute), 90, 0},
		// Nothing for 3 s, then 10 a second: [3.5 s, 13.5 s) holds 100; [3 s, 13 s) does too.
		{"back after 3 s", every(100*time.Millisecond, end.Add(3*time.Second), end.Add(time.Minute)), end, end.Add(time.Minute), 100, 3 * time.Second},
		// Back after 2.2 s: [2 s, 12 s) holds 98, [2.5 s, 12.5 s) holds 100; in steps of 0.5 s.
		{"back between steps", every(100*time.Millisecond, end.Add(2200*time.Millisecond), end.Add(time.Minute)), end, end.Add(time.Minute), 99, 2500 * time.Millisecond},
		// The rate comes back to 90 in 10 s only after 20 s, but the run ends at 25 s: no 10 s
		// window fits after it.
		{"not within the run", every(100*time.Millisecond, end.Add(20*time.Second), end.Add(time.Minute)), end, end.Add(25 * time.Second), 90, -1},
		{"never back", every(time.Second, end, end.Add(time.Minute)), end, end.Add(time.Minute), 90, -1},
		{"a run shorter than one window", every(100*time.Millisecond, end, end.Add(time.Minute)), end, end.Add(9 * time.Second), 1, -1},
	} {
		if got := recovery(tt.accepted, tt.stormEnd, tt.runEnd, tt.want); got != tt.recovery {
			t.Errorf("%s: recovery = %s, want %s", tt.name, got, tt.recovery)
		}
	}
}
