package store

import (
	"context"
	"time"
)

// UsageDay is one row of usage_per_day. Cost is nil when the model has no price.
type UsageDay struct {
	Day              time.Time `db:"day"`
	Model            string    `db:"model"`
	Method           string    `db:"method"`
	Runs             int       `db:"runs"`
	FailedRuns       int       `db:"failed_runs"`
	ReverifyRuns     int       `db:"reverify_runs"`
	ModelCalls       int64     `db:"model_calls"`
	PromptTokens     int64     `db:"prompt_tokens"`
	CompletionTokens int64     `db:"completion_tokens"`
	TotalTokens      int64     `db:"total_tokens"`
	Searches         int64     `db:"searches"`
	Cost             *float64  `db:"cost_estimate"`
	Currency         string    `db:"currency"`
}

// UsagePerDay returns usage_per_day from the day of since on, newest day first.
func (s *Store) UsagePerDay(ctx context.Context, since time.Time) ([]UsageDay, error) {
	return queryAll[UsageDay](ctx, s, "usage per day", `
		SELECT day, model, method, runs, failed_runs, reverify_runs, model_calls, prompt_tokens,
		       completion_tokens, total_tokens, searches, cost_estimate::float8 AS cost_estimate, coalesce(currency, '') AS currency
		FROM usage_per_day WHERE day >= $1::timestamptz::date ORDER BY day DESC, model, method`, since)
}
