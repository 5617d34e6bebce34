package ratelimit

import (
	"cmp"
	"context"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Model returns next with its calls kept within l's limits: each call is estimated (see
// EstimateTokens; a request without MaxTokens is estimated with Config.DefaultMaxTokens),
// waits its turn and budget, and is corrected by the usage its reply reports. A nil l returns
// next unchanged. For l to see 429s and rate-limit headers, next must report its responses to
// l.ObserveResponse (llm.Config.OnResponse).
func Model(next pipeline.Model, l *Limiter) pipeline.Model {
	if l == nil {
		return next
	}
	return &model{next: next, l: l}
}

type model struct {
	next pipeline.Model
	l    *Limiter
}

func (m *model) Complete(ctx context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	est := EstimateTokens(req.Prompt, cmp.Or(req.MaxTokens, m.l.cfg.DefaultMaxTokens))
	var reply pipeline.ModelReply
	err := m.l.Do(ctx, est, func(ctx context.Context) (int64, error) {
		var err error
		reply, err = m.next.Complete(ctx, req)
		return reply.PromptTokens + reply.CompletionTokens, err
	})
	return reply, err
}

// Searcher returns next with its searches kept within l's limits: each search counts as one
// request and no tokens. A nil l returns next unchanged. Wrap the provider itself, inside any
// result cache, so that cache hits spend no budget; for l to see 429s and rate-limit headers,
// give the provider's http.Client a Transport(l, ...).
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
