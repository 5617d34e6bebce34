package ratelimit

import (
	"context"
	"slices"
	"testing"
)

// drain pops every waiter and returns their jobs in order.
func drain(q *queue) []string {
	var order []string
	for w := q.pop(); w != nil; w = q.pop() {
		order = append(order, w.job)
	}
	return order
}

func newWaiter(job string, prio Priority) *waiter {
	return &waiter{job: job, prio: prio, turn: make(chan struct{})}
}

// TestQueueFairness: a job with 40 waiting calls takes turns with the jobs that arrive after it.
func TestQueueFairness(t *testing.T) {
	t.Parallel()
	var q queue
	for range 40 {
		q.push(newWaiter("big", Backlog))
	}
	q.push(newWaiter("small", Backlog))
	q.push(newWaiter("small", Backlog))
	q.push(newWaiter("other", Backlog))

	order := drain(&q)
	if len(order) != 43 {
		t.Fatalf("popped %d waiters, want 43", len(order))
	}
	want := []string{"big", "small", "other", "big", "small", "big", "big"}
	if got := order[:len(want)]; !slices.Equal(got, want) {
		t.Errorf("order starts %q, want %q", got, want)
	}
	if pos := slices.Index(order, "other"); pos > 2 {
		t.Errorf("the one-call job waited behind %d calls", pos)
	}
	if q.len() != 0 {
		t.Errorf("len = %d after draining", q.len())
	}
}

func TestQueuePriority(t *testing.T) {
	t.Parallel()
	var q queue
	q.push(newWaiter("b1", Backlog))
	q.push(newWaiter("b2", Backlog))
	q.push(newWaiter("u1", Urgent))
	q.push(newWaiter("u1", Urgent))
	q.push(newWaiter("u2", Urgent))
	if got, want := drain(&q), []string{"u1", "u2", "u1", "b1", "b2"}; !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q: urgent first, fair within each lane", got, want)
	}
}

func TestQueueRetryGoesFirstInItsJob(t *testing.T) {
	t.Parallel()
	var q queue
	first, second := newWaiter("a", Backlog), newWaiter("a", Backlog)
	q.push(first)
	q.push(second)
	retry := newWaiter("a", Backlog)
	retry.retry = true
	q.push(retry)
	if got := q.pop(); got != retry {
		t.Errorf("popped %p, want the retry %p", got, retry)
	}
	if got := q.pop(); got != first {
		t.Errorf("then popped %p, want the first waiter %p", got, first)
	}
}

func TestQueueRemove(t *testing.T) {
	t.Parallel()
	var q queue
	a1, a2, b, c := newWaiter("a", Backlog), newWaiter("a", Backlog), newWaiter("b", Backlog), newWaiter("c", Backlog)
	for _, w := range []*waiter{a1, a2, b, c} {
		q.push(w)
	}
	if got := q.pop(); got != a1 {
		t.Fatalf("first pop = %q, want a", got.job)
	}
	// The turn is at b; removing b hands it to c, and a comes after.
	if !q.remove(b) {
		t.Fatal("remove(b) = false")
	}
	if q.remove(b) {
		t.Error("removing b twice succeeded")
	}
	if got, want := drain(&q), []string{"c", "a"}; !slices.Equal(got, want) {
		t.Errorf("order after removing b = %q, want %q", got, want)
	}
	// A job emptied by remove leaves the round, and comes back at its end when it returns.
	q.push(a1)
	q.push(c)
	q.remove(a1)
	q.push(a2)
	if got, want := drain(&q), []string{"c", "a"}; !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
}

func TestContextValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if JobFrom(ctx) != "" || PriorityFrom(ctx) != Backlog {
		t.Errorf("empty context: job %q, priority %v; want none and backlog", JobFrom(ctx), PriorityFrom(ctx))
	}
	ctx = WithPriority(WithJob(ctx, "job-7"), Urgent)
	if JobFrom(ctx) != "job-7" || PriorityFrom(ctx) != Urgent {
		t.Errorf("job %q, priority %v; want job-7 and urgent", JobFrom(ctx), PriorityFrom(ctx))
	}
	if p := PriorityFrom(WithPriority(ctx, Priority(42))); p != Backlog {
		t.Errorf("an unknown priority became %v, want backlog", p)
	}
}
