package ratelimit

import "testing"

// TestReplyLengths: a call is estimated at its bound until replies are known, then at the longest
// recent reply of its step (any step's while its own has too few) plus a margin, never above the
// bound; a long reply raises the estimate at once and is forgotten after replyWindow others.
func TestReplyLengths(t *testing.T) {
	t.Parallel()
	var r replyLengths
	const bound = 1024
	check := func(when, step string, want int64) {
		t.Helper()
		if got := r.expect(step, bound); got != want {
			t.Errorf("%s: expect(%q) = %d, want %d", when, step, got, want)
		}
	}
	check("nothing known", "verify", bound)
	r.observe("verify", 8)
	check("one reply", "verify", bound)
	r.observe("verify", 12)
	check("two replies", "verify", 12+3+16)
	check("another step, from every step's", "plan", 12+3+16)
	r.observe("plan", 40)
	check("one plan reply: every step's longest", "plan", 40+10+16)
	check("verify keeps its own", "verify", 12+3+16)
	r.observe("verify", bound) // a reply cut at its bound
	check("a reply at the bound", "verify", bound)
	if got := r.expect("verify", 100); got != 100 {
		t.Errorf("expect under a smaller bound = %d, want the bound 100", got)
	}
	for range replyWindow {
		r.observe("verify", 20)
	}
	check("the long reply forgotten", "verify", 20+5+16)
}
