package ratelimit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of SharedConfig, applied by OpenShared.
const (
	// DefaultWindow is short enough for a provider whose budget holds only a second, long
	// enough that a lease of a quarter window is a batch of calls at any usual limit.
	DefaultWindow        = time.Second
	DefaultLeaseFraction = 0.25
	// maxConflicts bounds the compare-and-swap retries of one lease: past it the budget is
	// under heavier contention than leases of a quarter window should ever see, and the call
	// goes ahead on its local limits.
	maxConflicts = 32
)

// SharedConfig configures the budget that limiters in many processes share.
type SharedConfig struct {
	// Bucket is the JetStream KV bucket holding the budget; every worker sharing a provider's
	// limit names the same bucket. OpenShared creates it when missing.
	Bucket string
	// Window is the length of one budget window; 0 means DefaultWindow. Every worker sharing a
	// bucket must use the same window (it is part of the key, so mismatched workers do not
	// corrupt each other's counts, they only stop sharing).
	Window time.Duration
	// LeaseFraction is the share of a window's budget one lease takes at most; 0 means
	// DefaultLeaseFraction. Smaller leases share more evenly between workers and waste less
	// at a window's end; larger ones mean fewer KV writes.
	LeaseFraction float64
	// TTL is how long a window's key lives after its last write; 0 means 30 windows, at least
	// a minute.
	TTL time.Duration
}

// WithDefaults returns c with every unset field at its default.
func (c SharedConfig) WithDefaults() SharedConfig {
	c.Window = cmp.Or(c.Window, DefaultWindow)
	c.LeaseFraction = cmp.Or(c.LeaseFraction, DefaultLeaseFraction)
	c.TTL = cmp.Or(c.TTL, max(time.Minute, 30*c.Window))
	return c
}

// Validate lists every problem of a defaulted c in one error.
func (c SharedConfig) Validate() error {
	var problems []string
	if c.Bucket == "" {
		problems = append(problems, "no bucket name")
	} else if !validBucket(c.Bucket) {
		problems = append(problems, fmt.Sprintf("bucket name %q may only hold letters, digits, - and _", c.Bucket))
	}
	if c.Window < 10*time.Millisecond || c.Window > time.Minute {
		problems = append(problems, fmt.Sprintf("window %s must be between 10ms and 1m", c.Window))
	}
	if c.LeaseFraction <= 0 || c.LeaseFraction > 1 || math.IsNaN(c.LeaseFraction) {
		problems = append(problems, fmt.Sprintf("lease fraction %g must be in (0, 1]", c.LeaseFraction))
	}
	if c.TTL < 2*c.Window {
		problems = append(problems, fmt.Sprintf("TTL %s must be at least two windows (%s)", c.TTL, 2*c.Window))
	}
	if len(problems) > 0 {
		return fmt.Errorf("ratelimit: shared budget: %s", strings.Join(problems, "; "))
	}
	return nil
}

func validBucket(name string) bool {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Shared is a budget in a JetStream KV bucket that limiters in many worker processes draw from
// together; see the package comment for the algorithm. One Shared serves any number of
// Limiters (one per provider); it is safe for concurrent use.
type Shared struct {
	kv  jetstream.KeyValue
	cfg SharedConfig
}

// OpenShared creates (or updates) the bucket cfg names and returns the budget in it. The bucket
// is in memory: a budget is worth nothing after its window, so a NATS restart loses nothing.
func OpenShared(ctx context.Context, js jetstream.JetStream, cfg SharedConfig) (*Shared, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      cfg.Bucket,
		Description: "Corroborate: provider rate-limit budget shared by workers",
		History:     1,
		TTL:         cfg.TTL,
		Storage:     jetstream.MemoryStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("ratelimit: shared budget bucket %q: %w", cfg.Bucket, err)
	}
	return &Shared{kv: kv, cfg: cfg}, nil
}

// Window is the length of one budget window.
func (s *Shared) Window() time.Duration { return s.cfg.Window }

// opTimeout bounds one lease's KV traffic: a bucket that was deleted, or a NATS that went away,
// answers reads with silence, and a call must not hang on it.
func (s *Shared) opTimeout() time.Duration { return max(s.cfg.Window, time.Second) }

// kvRetryAfter is how long a Limiter goes on local limits alone after the shared budget failed.
func kvRetryAfter(window time.Duration) time.Duration { return max(5*time.Second, window) }

// windowDoc is the value of one window's key: what all workers together have taken from the
// window (R requests, T tokens; with no pace known, what they sent), until when a 429 paused
// every caller (Unix ms), and the last cut of each dimension's pace (requests, tokens), so that
// every worker paces alike.
type windowDoc struct {
	R int64       `json:"r"`
	T int64       `json:"t"`
	P int64       `json:"p,omitempty"`
	C *[2]paceCut `json:"c,omitempty"`
}

func (d windowDoc) pausedUntil() time.Time {
	if d.P <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(d.P)
}

// windowIndex numbers the window now falls in: windows are aligned on the Unix epoch, so every
// worker with a synchronised clock agrees on them without talking.
func (s *Shared) windowIndex(now time.Time) int64 {
	return now.UnixNano() / int64(s.cfg.Window)
}

// windowStart is the start of window idx.
func (s *Shared) windowStart(idx int64) time.Time {
	return time.Unix(0, idx*int64(s.cfg.Window))
}

// key is the KV key of provider's window idx: "<provider>.<window ms>.<idx>".
func (s *Shared) key(provider string, idx int64) string {
	return keyToken(provider) + "." + strconv.FormatInt(s.cfg.Window.Milliseconds(), 10) + "." + strconv.FormatInt(idx, 10)
}

// keyToken makes a provider name safe as one token of a KV key.
func keyToken(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return cmp.Or(b.String(), "_")
}

// windowState is a lease holder's last known view of a window key: its revision (0 when
// unknown) and value. With it, a lease tries its update first without reading the key again.
type windowState struct {
	rev uint64
	doc windowDoc
}

// errContended: the lease lost maxConflicts compare-and-swaps in a row.
var errContended = errors.New("shared budget under contention")

// change edits a window's value by compare-and-swap: edit returns false to leave it unchanged.
// It starts from known when known.rev is set, reads the key otherwise (and again after every
// conflict), and creates a missing key from the previous window (see carry). It returns the
// state after the change, whether edit made one, and how many swaps it lost.
func (s *Shared) change(ctx context.Context, provider string, idx int64, budget func(idx int64) [2]int64, known windowState,
	edit func(*windowDoc) bool) (windowState, bool, int, error) {
	key := s.key(provider, idx)
	st := known
	conflicts := 0
	for {
		if st.rev == 0 {
			e, err := s.kv.Get(ctx, key)
			switch {
			case errors.Is(err, jetstream.ErrKeyNotFound):
				st = windowState{doc: s.carry(ctx, provider, idx, budget)}
			case err != nil:
				return known, false, conflicts, fmt.Errorf("reading %s: %w", key, err)
			default:
				st.rev = e.Revision()
				if json.Unmarshal(e.Value(), &st.doc) != nil {
					// Not ours or corrupt: start the window over rather than stop every worker.
					st.doc = windowDoc{}
				}
			}
		}
		doc := st.doc
		if !edit(&doc) {
			return st, false, conflicts, nil
		}
		value, err := json.Marshal(doc)
		if err != nil {
			return known, false, conflicts, err
		}
		var rev uint64
		if st.rev == 0 {
			rev, err = s.kv.Create(ctx, key, value)
		} else {
			rev, err = s.kv.Update(ctx, key, value, st.rev)
		}
		if err == nil {
			return windowState{rev: rev, doc: doc}, true, conflicts, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return known, false, conflicts, fmt.Errorf("writing %s: %w", key, err)
		}
		conflicts++
		if conflicts >= maxConflicts {
			return known, false, conflicts, errContended
		}
		st = windowState{}
	}
}

// carry is the starting value of window idx: what the previous window took beyond its budget
// (a call larger than what was left, corrections of estimates), so that an overshoot is paid
// for in the next window instead of being forgotten, and any pause still running.
func (s *Shared) carry(ctx context.Context, provider string, idx int64, budgetOf func(idx int64) [2]int64) windowDoc {
	e, err := s.kv.Get(ctx, s.key(provider, idx-1))
	if err != nil {
		return windowDoc{}
	}
	var prev windowDoc
	if json.Unmarshal(e.Value(), &prev) != nil {
		return windowDoc{}
	}
	// The previous window's budget is recomputed at today's rate: close enough, since rates
	// move slowly against a window.
	budget := budgetOf(idx - 1)
	var next windowDoc
	if budget[requests] != unlimited {
		next.R = max(0, prev.R-budget[requests])
	}
	if budget[tokens] != unlimited {
		next.T = max(0, prev.T-budget[tokens])
	}
	next.P = prev.P
	next.C = prev.C
	return next
}

// peak is the fleet's rate over the last peakSeconds, per minute and dimension: the most any one
// window of them counted, scaled to a minute (see meter.peak). The current window, still under
// way, is slid back over the previous one in proportion: a budget emptied across two windows
// must not look half as large. A window nobody wrote is 0.
func (s *Shared) peak(ctx context.Context, provider string, now time.Time) ([2]float64, error) {
	idx := s.windowIndex(now)
	n := max(int64(math.Ceil(float64(peakSeconds*time.Second)/float64(s.cfg.Window))), 1)
	counts := make([][2]int64, 0, n+1)
	for i := idx - n; i <= idx; i++ {
		var doc windowDoc
		e, err := s.kv.Get(ctx, s.key(provider, i))
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return [2]float64{}, fmt.Errorf("reading %s: %w", s.key(provider, i), err)
		default:
			_ = json.Unmarshal(e.Value(), &doc) // not ours or corrupt: counts as nothing sent
		}
		counts = append(counts, [2]int64{doc.R, doc.T})
	}
	elapsed := float64(now.Sub(s.windowStart(idx))) / float64(s.cfg.Window)
	var best [2]float64
	for d := range best {
		for _, c := range counts[1 : len(counts)-1] {
			best[d] = max(best[d], float64(c[d]))
		}
		current, previous := counts[len(counts)-1][d], counts[len(counts)-2][d]
		best[d] = max(best[d], float64(current)+float64(previous)*(1-min(elapsed, 1)))
	}
	perMinute := float64(time.Minute) / float64(s.cfg.Window)
	return [2]float64{best[requests] * perMinute, best[tokens] * perMinute}, nil
}

// unlimited marks a dimension of a window budget with no known limit: it is not leased.
const unlimited = -1

// windowBudget is a window's share of a per-minute rate: whole units, spread so that the
// windows of any hour add up to the rate however small it is (a rate of 15 per minute in 2s
// windows gives 0, 1, 0, 1, ...). It depends only on the rate and the window's number, so every
// worker computes the same budget. +Inf gives unlimited.
func windowBudget(perMinute float64, window time.Duration, idx int64) int64 {
	if math.IsInf(perMinute, 1) || math.IsNaN(perMinute) {
		return unlimited
	}
	per := max(perMinute, 0) * window.Seconds() / 60
	const period = 3600 // windows, so that idx*per stays exact in a float64
	i := float64(((idx % period) + period) % period)
	return int64(math.Floor((i+1)*per) - math.Floor(i*per))
}

// leaseAsk is what a lease asks of a window: at least need, up to want, of each dimension,
// within budget (unlimited for a dimension with no known limit, which is then not leased), and
// within what has fallen due at elapsed (see due).
type leaseAsk struct {
	need, want [2]int64
	budget     [2]int64
	// elapsed is how far into the window the ask is made and lead how far ahead of the clock a
	// window gives out its budget, both as fractions of the window (lead 1: all of it at once).
	elapsed, lead float64
}

// due is how much of dimension d's budget the window may have given out by elapsed: its share
// of the time gone by, plus lead (a lease's share), rounded up. Spreading a window's budget over
// the window keeps the fleet's sends as even as the provider's refill: given out all at its
// start, a window's budget went out within a tenth of a second, and a provider whose bucket
// holds about a second refused that burst whenever it had not refilled since the last one.
func (a leaseAsk) due(d int) int64 {
	return min(a.budget[d], int64(math.Ceil(float64(a.budget[d])*(a.elapsed+a.lead))))
}

// grant applies the ask to doc: it takes what it can and reports how much, or false when the
// window cannot cover the need now. A token need larger than what is left is granted whole as
// long as anything is left, the overshoot being carried into the next window: otherwise a call
// larger than a window's budget could never run.
func (a leaseAsk) grant(doc *windowDoc) ([2]int64, bool) {
	var got [2]int64
	used := [2]*int64{&doc.R, &doc.T}
	for d := range got {
		if a.budget[d] == unlimited {
			continue
		}
		left := a.due(d) - *used[d]
		switch {
		case a.need[d] <= 0:
			got[d] = max(0, min(a.want[d], left))
		case left <= 0 || d == requests && left < a.need[d]:
			return [2]int64{}, false
		default:
			got[d] = max(a.need[d], min(a.want[d], left))
		}
	}
	for d := range got {
		*used[d] += got[d]
	}
	return got, true
}

// dueAt is when, as a fraction of the window, enough of it falls due for grant to cover the need
// given what doc has given out, or false when the window's budget cannot cover it at all.
func (a leaseAsk) dueAt(doc windowDoc) (float64, bool) {
	used := [2]int64{doc.R, doc.T}
	at := a.elapsed
	for d := range used {
		if a.budget[d] == unlimited || a.need[d] <= 0 {
			continue
		}
		upTo := used[d] + 1 // tokens: anything left will do (see grant)
		if d == requests {
			upTo = used[d] + a.need[d]
		}
		if upTo > a.budget[d] {
			return 0, false
		}
		// due(d) >= upTo once budget * (elapsed + lead) > upTo - 1.
		at = max(at, float64(upTo-1)/float64(a.budget[d])-a.lead)
	}
	return at, true
}
