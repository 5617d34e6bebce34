package ratelimit

import (
	"cmp"
	"context"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Model returns next with its calls kept within l's limits: each call is estimated (see
// EstimateTokens; the reply's share is the request's MaxTokens, or Config.DefaultMaxTokens when
// it sets none, until the replies to its step are known: see replyLengths), waits its turn and
// budget, and is corrected by the usage its reply reports. A nil l returns next unchanged. For l
// to see 429s and rate-limit headers, next must report its responses to l.ObserveResponse
// (llm.Config.OnResponse).
func Model(next pipeline.Model, l *Limiter) pipeline.Model {
	if l == nil {
		return next
	}
	return &model{next: next, l: l}
}

type model struct {
	next    pipeline.Model
	l       *Limiter
	replies replyLengths
}

func (m *model) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	bound := int64(cmp.Or(req.MaxTokens, m.l.cfg.DefaultMaxTokens))
	est := EstimateTokens(req.Prompt, int(m.replies.expect(req.Step, bound)))
	var reply pipeline.ModelReply
	err := m.l.Do(ctx, est, func(ctx context.Context) (int64, error) {
		var err error
		reply, err = m.next.Complete(ctx, req)
		return reply.PromptTokens + reply.CompletionTokens, err
	})
	if err == nil && reply.CompletionTokens > 0 {
		m.replies.observe(req.Step, reply.CompletionTokens)
	}
	return reply, err
}

// Reply estimates: how many replies of a step are remembered, and how many are needed before
// they, rather than the reply bound, make the estimate.
const (
	replyWindow     = 32
	replyMinSamples = 2
)

// replyLengths learns how long the replies to each step of a method are (a plan, a verification
// answer, a revision), so that a call is estimated at what such calls use, not at its reply
// bound. Estimates at the bound (max_tokens 1024 for an answer of 10 tokens) make a token limit
// bite ten times too early: the tokens of the calls in flight, and the leases of a shared budget,
// follow the estimates, and the corrections come back only when the calls return. The estimate
// is the longest of the step's last replyWindow replies plus a quarter and 16 tokens, at most the
// bound; while the step has had fewer than replyMinSamples replies, the longest of any step's,
// and before that many replies at all, the bound. A reply that reaches its bound is a
// sample like any other, so a step whose replies grow raises its estimate at once, and a reply
// longer than its estimate is a debt the next calls pay (see Limiter). A provider that charges
// the bound itself (as OpenAI's does at request time) says so in x-ratelimit-remaining-tokens,
// which drains the local limiter to match.
type replyLengths struct {
	mu     sync.Mutex
	byStep map[string]*recentReplies
}

type recentReplies struct {
	tokens [replyWindow]int64
	n      int // replies seen, up to replyWindow
	next   int
}

// expect is the reply tokens to estimate a call of step at, given its bound: from the step's
// replies, else from every step's while the step has too few, else the bound.
func (r *replyLengths) expect(step string, bound int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	longest, n := r.byStep[step].longest()
	if n < replyMinSamples {
		longest, n = 0, 0
		for _, rr := range r.byStep {
			l, k := rr.longest()
			longest, n = max(longest, l), n+k
		}
	}
	if n < replyMinSamples {
		return bound
	}
	return min(bound, longest+longest/4+16)
}

// longest is the longest reply remembered, and how many are.
func (rr *recentReplies) longest() (int64, int) {
	if rr == nil {
		return 0, 0
	}
	longest := int64(0)
	for _, t := range rr.tokens[:rr.n] {
		longest = max(longest, t)
	}
	return longest, rr.n
}

func (r *replyLengths) observe(step string, tokens int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byStep == nil {
		r.byStep = map[string]*recentReplies{}
	}
	rr := r.byStep[step]
	if rr == nil {
		rr = &recentReplies{}
		r.byStep[step] = rr
	}
	rr.tokens[rr.next] = tokens
	rr.next = (rr.next + 1) % replyWindow
	rr.n = min(rr.n+1, replyWindow)
}

// Searcher returns next with its searches kept within l's limits: each search counts as one
// request and no tokens. A nil l returns next unchanged. Wrap the provider itself, inside any
// result cache, so that cache hits spend no budget; for l to see 429s and rate-limit headers,
// give the provider l.ObserveResponse as its response hook (search.WebOpts.OnResponse).
func Searcher(next pipeline.Searcher, l *Limiter) pipeline.Searcher {
	if l == nil {
		return next
	}
	return &searcher{next: next, l: l}
}

type searcher struct {
	next pipeline.Searcher
	l    *Limiter
}

func (s *searcher) Search(ctx context.Context, q pipeline.SearchQuery) (pipeline.SearchResponse, error) {
	var resp pipeline.SearchResponse
	err := s.l.Do(ctx, 0, func(ctx context.Context) (int64, error) {
		var err error
		resp, err = s.next.Search(ctx, q)
		return 0, err
	})
	return resp, err
}
