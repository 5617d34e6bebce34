package jobs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// switchGate is a Gate a test opens and closes.
type switchGate struct {
	mu     sync.Mutex
	closed bool
	opened chan struct{}
}

func newSwitchGate(closed bool) *switchGate {
	g := &switchGate{opened: make(chan struct{})}
	if closed {
		g.close()
	} else {
		close(g.opened)
	}
	return g
}

func (g *switchGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.closed, g.opened = true, make(chan struct{})
	}
}

func (g *switchGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		g.closed = false
		close(g.opened)
	}
}

func (g *switchGate) Wait(ctx context.Context) error {
	g.mu.Lock()
	opened := g.opened
	g.mu.Unlock()
	select {
	case <-opened:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestConsumeGateHoldsFetching: while a gate is closed no message is taken; once it opens the
// backlog runs.
func TestConsumeGateHoldsFetching(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 3)
	gate := newSwitchGate(true)
	var handled atomic.Int64
	_, done := b.consume(t, ConsumeConfig{ExitWhenIdle: 300 * time.Millisecond, Gates: []Gate{gate}}, HandlerFunc(func(ctx context.Context, d *Delivery) error {
		handled.Add(1)
		return nil
	}))
	time.Sleep(700 * time.Millisecond)
	if n := handled.Load(); n != 0 {
		t.Fatalf("%d jobs ran while the gate was closed", n)
	}
	gate.open()
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	if n := handled.Load(); n != 3 {
		t.Fatalf("handled %d jobs, want 3", n)
	}
}

// TestConsumeHeldJobKeepsItsDelivery: a handler that returns a retry wrapped by Hold has its job
// run again in the same delivery once the gates open: the outage spends no attempt.
func TestConsumeHeldJobKeepsItsDelivery(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 2)
	gate := newSwitchGate(false)
	var mu sync.Mutex
	calls := map[string][]uint64{}
	obs := &recorder{}
	_, done := b.consume(t, ConsumeConfig{ExitWhenIdle: 300 * time.Millisecond, Gates: []Gate{gate}, Observer: obs},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			mu.Lock()
			calls[d.JobID] = append(calls[d.JobID], d.NumDelivered)
			first := len(calls[d.JobID]) == 1
			mu.Unlock()
			if first {
				gate.close()
				go func() { time.Sleep(300 * time.Millisecond); gate.open() }()
				return Hold(errors.New("the model endpoint is down"))
			}
			return nil
		}))
	if err := waitDone(t, done); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 {
		t.Fatalf("jobs handled: %v", calls)
	}
	for id, deliveries := range calls {
		if len(deliveries) != 2 || deliveries[0] != 1 || deliveries[1] != 1 {
			t.Errorf("job %s ran in deliveries %v, want twice in delivery 1", id, deliveries)
		}
	}
	if obs.started != 2 || obs.count(OutcomeDone) != 2 || obs.count(OutcomeRetry) != 0 {
		t.Errorf("observer saw %d started, outcomes %v; want 2 done and no retry", obs.started, obs.outcomes)
	}
}

// TestConsumeHeldJobIsGivenBackAtShutdown: a job held behind a closed gate when the loop is
// stopped is nakked at once (interrupted), not kept until the shutdown timeout.
func TestConsumeHeldJobIsGivenBackAtShutdown(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.publishN(t, 1)
	gate := newSwitchGate(false)
	obs := &recorder{}
	held := make(chan struct{})
	var once sync.Once
	stop, _ := b.consume(t, ConsumeConfig{Gates: []Gate{gate}, Observer: obs, ShutdownTimeout: 10 * time.Second},
		HandlerFunc(func(ctx context.Context, d *Delivery) error {
			gate.close()
			once.Do(func() { close(held) })
			return Hold(errors.New("down"))
		}))
	<-held
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("stopping took %s with a held job", took)
	}
	if obs.count(OutcomeInterrupted) != 1 {
		t.Errorf("outcomes %v, want the held job interrupted", obs.outcomes)
	}
}
