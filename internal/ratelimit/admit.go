package ratelimit

import (
	"context"
	"time"
)

// grant is an admitted call: what it was charged and in which epoch (number of cuts) it went.
type grant struct {
	epoch  uint64
	tokens int64
	probe  bool
}

// admit waits for the call's turn in the queue, then, as the head, for its budget.
func (l *Limiter) admit(ctx context.Context, est int64, retry bool) (grant, error) {
	start := l.clock().Now()
	w := &waiter{job: JobFrom(ctx), prio: PriorityFrom(ctx), retry: retry, turn: make(chan struct{})}
	l.mu.Lock()
	l.queue.push(w)
	if !l.headBusy {
		l.promoteLocked()
	}
	l.mu.Unlock()
	waited := false
	select {
	case <-w.turn:
	default:
		waited = true
		select {
		case <-w.turn:
		case <-ctx.Done():
			l.mu.Lock()
			removed := l.queue.remove(w)
			l.mu.Unlock()
			if !removed { // it became the head meanwhile: pass the turn on
				l.passTurn()
			}
			return grant{}, ctx.Err()
		}
	}
	defer l.passTurn()

	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		default:
			waited = true
			select {
			case l.slots <- struct{}{}:
			case <-ctx.Done():
				return grant{}, ctx.Err()
			}
		}
	}
	probe, err := l.awaitProbe(ctx, &waited)
	if err != nil {
		l.releaseSlot()
		return grant{}, err
	}
	if err := l.awaitBudget(ctx, est, &waited); err != nil {
		l.releaseSlot()
		if probe {
			l.mu.Lock()
			l.ungateLocked()
			l.mu.Unlock()
		}
		return grant{}, err
	}
	now := l.clock().Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.meter[requests].add(now, 1)
	l.meter[tokens].add(now, float64(est))
	l.lastEst = est
	l.stats.Calls++
	l.stats.InFlight++
	l.stats.TokensEstimated += est
	if waited {
		l.stats.Waits++
		l.stats.WaitTime += now.Sub(start)
	}
	return grant{epoch: l.epoch, tokens: est, probe: probe}, nil
}

// promoteLocked makes the next waiter the head, if any waits.
func (l *Limiter) promoteLocked() {
	w := l.queue.pop()
	l.headBusy = w != nil
	if w != nil {
		close(w.turn)
	}
}

func (l *Limiter) passTurn() {
	l.mu.Lock()
	l.promoteLocked()
	l.mu.Unlock()
}

func (l *Limiter) releaseSlot() {
	if l.slots != nil {
		<-l.slots
	}
}

// maxSlice bounds one sleep for the local pace: a longer wait is taken in slices, each with the
// pace as it is then, so that a pace that recovers or is learned meanwhile shortens the wait.
const maxSlice = time.Second

// awaitBudget waits out any pause, then the local pace, then the shared budget.
func (l *Limiter) awaitBudget(ctx context.Context, est int64, waited *bool) error {
	for {
		if err := l.awaitPause(ctx, waited); err != nil {
			return err
		}
		delay, undo := l.reserve(est)
		if delay <= 0 {
			break
		}
		*waited = true
		if delay <= maxSlice {
			if err := l.clock().Sleep(ctx, delay); err != nil {
				undo()
				return err
			}
			break
		}
		undo()
		if err := l.clock().Sleep(ctx, maxSlice); err != nil {
			return err
		}
	}
	if l.cfg.Shared != nil {
		if err := l.takeShared(ctx, est, waited); err != nil {
			return err
		}
	}
	// A 429 may have come back while this call waited.
	return l.awaitPause(ctx, waited)
}

func (l *Limiter) awaitPause(ctx context.Context, waited *bool) error {
	for {
		now := l.clock().Now()
		l.mu.Lock()
		until := l.paused
		l.mu.Unlock()
		if !now.Before(until) {
			return ctx.Err()
		}
		*waited = true
		if err := l.clock().Sleep(ctx, until.Sub(now)); err != nil {
			return err
		}
	}
}
