package ratelimit

import (
	"fmt"
	"strings"
	"sync"
)

// MaxHosts bounds the Limiters a Hosts keeps: past it, the idle ones are forgotten (a host met
// again starts from its configured pace), so that a worker reading pages of many sites for
// months does not grow without bound.
const MaxHosts = 4096

// Hosts keeps one Limiter per host, created on demand from one Config: the per-site limit of
// page reading, where every site is its own provider with its own limits, learned from its own
// 429s and rate-limit headers as the model's and the search provider's are. Each Limiter is named
// Config.Name + ":" + host. Hosts are not shared between workers (Config.Shared is ignored): a
// site's limit is met one worker at a time, and its 429 pauses that worker.
type Hosts struct {
	cfg Config

	mu     sync.Mutex
	byHost map[string]*Limiter
}

// NewHosts returns a Hosts whose Limiters follow cfg. cfg is defaulted and validated once here.
func NewHosts(cfg Config) (*Hosts, error) {
	cfg.Shared = nil
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Hosts{cfg: cfg, byHost: map[string]*Limiter{}}, nil
}

// For returns the Limiter of host (case-insensitive), creating it on first use. A nil Hosts
// returns nil, which Limiter.Do treats as no limit.
func (h *Hosts) For(host string) *Limiter {
	if h == nil {
		return nil
	}
	host = strings.ToLower(host)
	h.mu.Lock()
	defer h.mu.Unlock()
	if l, ok := h.byHost[host]; ok {
		return l
	}
	if len(h.byHost) >= MaxHosts {
		h.forgetIdleLocked()
	}
	cfg := h.cfg
	cfg.Name = fmt.Sprintf("%s:%s", h.cfg.Name, host)
	l, err := New(cfg)
	if err != nil {
		// cfg was validated by NewHosts; only the name differs, which New does not check.
		panic(fmt.Sprintf("ratelimit: a validated host configuration failed: %v", err))
	}
	h.byHost[host] = l
	return l
}

// forgetIdleLocked drops the Limiters with no call in flight or waiting.
func (h *Hosts) forgetIdleLocked() {
	for host, l := range h.byHost {
		if l.idle() {
			delete(h.byHost, host)
		}
	}
}

// Len is the number of hosts with a Limiter.
func (h *Hosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.byHost)
}

// idle reports whether no call of l is in flight or waiting, and no pause is in force: such a
// Limiter can be forgotten and made again without losing anything a caller is counting on.
func (l *Limiter) idle() bool {
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stats.InFlight == 0 && l.queue.len() == 0 && !l.paused.After(now)
}
