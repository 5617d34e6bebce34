package ratelimit

import (
	"context"
	"fmt"
	"testing"
)

func TestHostsOneLimiterPerHost(t *testing.T) {
	t.Parallel()
	h, err := NewHosts(Config{Name: "page", RequestsPerMinute: 60, MaxConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, b := h.For("Example.ORG"), h.For("example.org")
	if a == nil || a != b {
		t.Fatalf("one host, case aside, must share one Limiter: %p %p", a, b)
	}
	if c := h.For("other.example"); c == a {
		t.Fatal("two hosts share a Limiter")
	}
	if got := a.Name(); got != "page:example.org" {
		t.Errorf("Name = %q, want page:example.org", got)
	}
	if err := a.Do(context.Background(), 0, func(context.Context) (int64, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	if s := a.Stats(); s.Succeeded != 1 || s.RequestLimit != 60 {
		t.Errorf("the host's limiter carries the configured limits: %+v", s)
	}
	var nilHosts *Hosts
	if nilHosts.For("x") != nil {
		t.Error("a nil Hosts limits nothing")
	}
}

func TestHostsForgetsIdleHostsPastTheBound(t *testing.T) {
	t.Parallel()
	h, err := NewHosts(Config{Name: "page"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxHosts + 10 {
		h.For(fmt.Sprintf("h%d.example", i))
	}
	if n := h.Len(); n > MaxHosts {
		t.Errorf("Hosts keeps %d Limiters, more than MaxHosts %d", n, MaxHosts)
	}
}

func TestNewHostsRejectsABadConfig(t *testing.T) {
	t.Parallel()
	if _, err := NewHosts(Config{Name: "page", RequestsPerMinute: -1}); err == nil {
		t.Fatal("a negative rate was accepted")
	}
}
