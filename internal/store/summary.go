package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Count is one group of a summary and its size.
type Count struct {
	Key string
	N   int
}

// MethodCount is how the statements of one method ended.
type MethodCount struct {
	Method     string `db:"method"`
	Statements int    `db:"statements"`
	Done       int    `db:"done"`
	Failed     int    `db:"failed"`
}

// ModelUsage is what the runs of one model cost over a summary's window; Cost is nil when
// model_prices has no row for the model.
type ModelUsage struct {
	Model            string   `db:"model"`
	Runs             int      `db:"runs"`
	ModelCalls       int64    `db:"model_calls"`
	PromptTokens     int64    `db:"prompt_tokens"`
	CompletionTokens int64    `db:"completion_tokens"`
	Searches         int64    `db:"searches"`
	Cost             *float64 `db:"cost"`
	Currency         string   `db:"currency"`
}

// Summary is a batch at a glance: its statements by status and method, their claims by
// verdict, the messages received in its window by outcome, and what its runs cost.
type Summary struct {
	Statements int
	ByStatus   []Count
	ByMethod   []MethodCount
	// ByVerdict counts the claims of the statements' latest runs, every verdict listed.
	ByVerdict []Count
	// Confirmed counts the supported claims among them at High or Medium confidence: a
	// supported verdict at Low or no confidence (closed-book, shallow) is no confirmation.
	Confirmed int
	// Outcomes counts job_outcomes by status for messages received in [Since, Until); only the
	// window applies to them (a message has no method or verdict until it has run).
	Outcomes []Count
	// Usage covers every run (re-verifications and earlier runs too) that finished in the
	// window and matches the status, method and external id filters.
	Usage []ModelUsage
}

// Summary summarises the statements f selects.
func (s *Store) Summary(ctx context.Context, f ReportFilter) (Summary, error) {
	f.Limit, f.Offset = 0, 0
	var sum Summary
	q, args := f.statementQuery("sr.status, count(*)::int", "")
	status, err := s.counts(ctx, "statements by status", q+" GROUP BY sr.status ORDER BY sr.status", args)
	if err != nil {
		return sum, err
	}
	sum.ByStatus = status
	for _, c := range status {
		sum.Statements += c.N
	}
	q, args = f.statementQuery(`sr.method, count(*)::int AS statements,
		count(*) FILTER (WHERE sr.status = 'done')::int AS done, count(*) FILTER (WHERE sr.status = 'failed')::int AS failed`, "")
	if sum.ByMethod, err = queryAll[MethodCount](ctx, s, "statements by method", q+" GROUP BY sr.method ORDER BY statements DESC, sr.method", args...); err != nil {
		return sum, err
	}
	q, args = f.claimQuery("cr.verdict, count(*)::int", "")
	verdicts, err := s.counts(ctx, "claims by verdict", q+" GROUP BY cr.verdict", args)
	if err != nil {
		return sum, err
	}
	q, args = f.claimQuery("cr.confirmed", "")
	if sum.Confirmed, err = s.count(ctx, "confirmed claims", "SELECT count(*) FROM ("+q+") c WHERE c.confirmed", args); err != nil {
		return sum, err
	}
	for _, v := range Verdicts {
		n := 0
		for _, c := range verdicts {
			if c.Key == v {
				n = c.N
			}
		}
		sum.ByVerdict = append(sum.ByVerdict, Count{Key: v, N: n})
	}

	var oc conds
	if !f.Since.IsZero() {
		oc.add("received_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		oc.add("received_at < ?", f.Until)
	}
	if sum.Outcomes, err = s.counts(ctx, "job outcomes", "SELECT status, count(*)::int FROM job_outcomes "+oc.where()+" GROUP BY status ORDER BY status", oc.args); err != nil {
		return sum, err
	}

	var uc conds
	if !f.Since.IsZero() {
		uc.add("r.finished_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		uc.add("r.finished_at < ?", f.Until)
	}
	if f.Status != "" {
		uc.add("r.status = ?", f.Status)
	}
	if f.Method != "" {
		uc.add("(r.method = ? OR r.requested_method = ?)", f.Method)
	}
	if f.ExternalIDPrefix != "" {
		uc.add("starts_with(coalesce(st.external_id, ''), ?)", f.ExternalIDPrefix)
	}
	sum.Usage, err = queryAll[ModelUsage](ctx, s, "usage", `
		SELECT coalesce(r.model, '') AS model, count(*)::int AS runs, sum(r.model_calls)::bigint AS model_calls,
		       sum(r.prompt_tokens)::bigint AS prompt_tokens, sum(r.completion_tokens)::bigint AS completion_tokens,
		       sum(r.search_calls)::bigint AS searches,
		       (sum(r.prompt_tokens) * p.prompt_per_million / 1000000
		        + sum(r.completion_tokens) * p.completion_per_million / 1000000)::float8 AS cost,
		       coalesce(p.currency, '') AS currency
		FROM runs r JOIN statements st ON st.id = r.statement_id
		LEFT JOIN model_prices p ON p.model = r.model
		`+uc.where()+`
		GROUP BY 1, p.prompt_per_million, p.completion_per_million, p.currency
		ORDER BY runs DESC, 1`, uc.args...)
	return sum, err
}

func (s *Store) counts(ctx context.Context, what, q string, args []any) ([]Count, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading %s: %w", what, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Count, error) {
		var c Count
		err := row.Scan(&c.Key, &c.N)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: reading %s: %w", what, err)
	}
	return out, nil
}
