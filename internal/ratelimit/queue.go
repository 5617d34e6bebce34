package ratelimit

import (
	"context"
	"slices"
)

// Priority is the lane a call waits in. Every waiting Urgent call is admitted before any
// waiting Backlog call; within a lane, jobs take turns (see queue).
type Priority int

// Priorities, lowest first. The zero value is Backlog, so that a call that names no priority
// waits with the nightly backlog rather than jumping it.
const (
	Backlog Priority = iota
	Urgent
	numPriorities
)

func (p Priority) String() string {
	switch p {
	case Backlog:
		return "backlog"
	case Urgent:
		return "urgent"
	}
	return "unknown"
}

type (
	jobKey      struct{}
	priorityKey struct{}
)

// WithJob returns a context whose calls through a Limiter take turns with other jobs' calls:
// a job with 40 claims waiting does not hold back a job with one. Calls without a job share the
// turn of the job "".
func WithJob(ctx context.Context, jobID string) context.Context {
	return context.WithValue(ctx, jobKey{}, jobID)
}

// WithPriority returns a context whose calls through a Limiter wait in lane p.
func WithPriority(ctx context.Context, p Priority) context.Context {
	if p < Backlog || p >= numPriorities {
		p = Backlog
	}
	return context.WithValue(ctx, priorityKey{}, p)
}

// JobFrom returns the job set by WithJob, "" when none.
func JobFrom(ctx context.Context) string {
	id, _ := ctx.Value(jobKey{}).(string)
	return id
}

// PriorityFrom returns the priority set by WithPriority, Backlog when none.
func PriorityFrom(ctx context.Context) Priority {
	p, _ := ctx.Value(priorityKey{}).(Priority)
	return p
}

// waiter is one call waiting for its turn. turn is closed when the call becomes the head of
// the queue: the one call that then waits for budget while the others wait behind it.
type waiter struct {
	job   string
	prio  Priority
	retry bool
	turn  chan struct{}
}

// queue orders waiting calls: strict priority between lanes, round-robin between the jobs of a
// lane, first come first served within a job (a retry goes to the front of its job, so that a
// 429 does not cost the job its place). It is not safe for concurrent use: Limiter guards it.
type queue struct {
	lanes [numPriorities]lane
	n     int
}

// lane is the round of jobs with waiting calls in one priority. last is the position of the job
// served last: the turn goes on from the job after it. That job keeps its place in the round
// while it has nothing waiting, so that a job whose calls arrive one by one (each admitted
// before the next is queued) does not get a fresh turn with each; any other job leaves the
// round when it has nothing waiting, and joins at its end when it has again.
type lane struct {
	round []*jobWaiters
	byJob map[string]*jobWaiters
	last  int // -1 before anyone was served
}

type jobWaiters struct {
	job     string
	waiters []*waiter
}

func (q *queue) len() int { return q.n }

func (q *queue) push(w *waiter) {
	ln := &q.lanes[w.prio]
	if ln.byJob == nil {
		ln.byJob = map[string]*jobWaiters{}
	}
	jw := ln.byJob[w.job]
	if jw == nil {
		if len(ln.round) == 0 {
			ln.last = -1
		}
		jw = &jobWaiters{job: w.job}
		ln.byJob[w.job] = jw
		ln.round = append(ln.round, jw)
	}
	if w.retry {
		jw.waiters = append([]*waiter{w}, jw.waiters...)
	} else {
		jw.waiters = append(jw.waiters, w)
	}
	q.n++
}

// pop removes and returns the call whose turn it is, nil when none waits.
func (q *queue) pop() *waiter {
	for p := numPriorities - 1; p >= Backlog; p-- {
		ln := &q.lanes[p]
		n := len(ln.round)
		for i := 1; i <= n; i++ {
			pos := (ln.last + i) % n
			jw := ln.round[pos]
			if len(jw.waiters) == 0 {
				continue
			}
			w := jw.waiters[0]
			jw.waiters[0] = nil
			jw.waiters = jw.waiters[1:]
			ln.last = pos
			ln.compact()
			q.n--
			return w
		}
	}
	return nil
}

// remove takes w out of the queue, reporting whether it was there (a waiter whose context ended).
func (q *queue) remove(w *waiter) bool {
	ln := &q.lanes[w.prio]
	jw := ln.byJob[w.job]
	if jw == nil {
		return false
	}
	i := slices.Index(jw.waiters, w)
	if i < 0 {
		return false
	}
	jw.waiters = slices.Delete(jw.waiters, i, i+1)
	ln.compact()
	q.n--
	return true
}

// compact drops the jobs with nothing waiting from the round, except the one served last.
func (ln *lane) compact() {
	kept := ln.round[:0]
	last := -1
	for pos, jw := range ln.round {
		switch {
		case pos == ln.last:
			last = len(kept)
		case len(jw.waiters) == 0:
			delete(ln.byJob, jw.job)
			continue
		}
		kept = append(kept, jw)
	}
	clear(ln.round[len(kept):])
	ln.round, ln.last = kept, last
}
