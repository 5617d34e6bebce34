package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// RunBrief is one run of a statement, as a history lists it.
type RunBrief struct {
	RunID        int64  `db:"run_id"`
	JobID        string `db:"job_id"`
	Method       string `db:"method"`
	Model        string `db:"model"`
	Status       string `db:"status"`
	ResultStatus string `db:"result_status"`
	Error        string `db:"error"`
	Reverify     bool   `db:"reverify"`
	// RetryOf is the job this run's job ran again (enqueue retry), "" for a first run.
	RetryOf     string    `db:"retry_of"`
	Claims      int       `db:"claims"`
	ModelCalls  int       `db:"model_calls"`
	SearchCalls int       `db:"search_calls"`
	TotalTokens int64     `db:"total_tokens"`
	StartedAt   time.Time `db:"started_at"`
	FinishedAt  time.Time `db:"finished_at"`
}

const runBriefColumns = `r.id AS run_id, r.job_id, r.method, coalesce(r.model, '') AS model, r.status,
	coalesce(r.result_status, '') AS result_status, coalesce(r.error, '') AS error, r.reverify,
	coalesce((SELECT m.retry_of FROM messages m WHERE m.job_id = r.job_id AND m.retry_of IS NOT NULL LIMIT 1), '') AS retry_of,
	(SELECT count(*)::int FROM claims c WHERE c.run_id = r.id) AS claims,
	r.model_calls, r.search_calls, r.total_tokens, r.started_at, r.finished_at`

// StatementPage is everything a statement's page shows: the statement and its latest run, that
// run's claims and evidence, what it changed, and every run of the statement.
type StatementPage struct {
	Statement StatementRow
	Draft     string
	Report    string
	Claims    []ClaimRow
	Evidence  []EvidenceRow
	// Changes are the verdicts the latest run changed against the run before it.
	Changes []VerdictChange
	// Runs are all the statement's runs, newest first.
	Runs []RunBrief
	// Decisions are the latest run's claims in editorial_verdicts: the latest editor decision
	// of each and the verdict that stands, in claim order.
	Decisions []EditorialVerdict
}

// Statement returns the page of one statement, or ErrNotFound.
func (s *Store) Statement(ctx context.Context, statementID int64) (StatementPage, error) {
	var p StatementPage
	rows, err := queryAll[StatementRow](ctx, s, "statement", "SELECT "+statementColumns+" FROM statement_results sr WHERE sr.statement_id = $1", statementID)
	if err != nil {
		return p, err
	}
	if len(rows) == 0 {
		return p, fmt.Errorf("statement %d: %w", statementID, ErrNotFound)
	}
	p.Statement = rows[0]
	runID := p.Statement.RunID
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(draft, ''), coalesce(report, '') FROM runs WHERE id = $1`, runID).Scan(&p.Draft, &p.Report); err != nil {
		return p, fmt.Errorf("store: reading run %d: %w", runID, err)
	}
	if p.Claims, err = queryAll[ClaimRow](ctx, s, "claims", "SELECT "+claimColumns+" FROM claim_results cr WHERE cr.run_id = $1 ORDER BY cr.position", runID); err != nil {
		return p, err
	}
	if p.Evidence, err = queryAll[EvidenceRow](ctx, s, "evidence", "SELECT "+evidenceColumns+` FROM evidence e
		JOIN statement_results sr ON sr.run_id = e.run_id
		LEFT JOIN claims c ON c.run_id = e.run_id AND c.position = e.claim_position
		WHERE e.run_id = $1 ORDER BY e.source_number NULLS LAST, e.id`, runID); err != nil {
		return p, err
	}
	if p.Changes, err = queryAll[VerdictChange](ctx, s, "verdict changes", "SELECT "+verdictChangeColumns+" FROM verdict_changes vc WHERE vc.new_run_id = $1 ORDER BY vc.new_position", runID); err != nil {
		return p, err
	}
	if p.Runs, err = queryAll[RunBrief](ctx, s, "runs", "SELECT "+runBriefColumns+" FROM runs r WHERE r.statement_id = $1 ORDER BY r.finished_at DESC, r.id DESC", statementID); err != nil {
		return p, err
	}
	if p.Decisions, err = s.EditorialVerdicts(ctx, runID); err != nil {
		return p, err
	}
	return p, nil
}

// TraceCall is one model call of a run, with its full prompt and reply.
type TraceCall struct {
	Seq              int       `db:"seq"`
	Step             string    `db:"step"`
	Target           *int      `db:"target"`
	Model            string    `db:"model"`
	FinishReason     string    `db:"finish_reason"`
	Prompt           string    `db:"prompt"`
	Reply            string    `db:"reply"`
	PromptTokens     int64     `db:"prompt_tokens"`
	CompletionTokens int64     `db:"completion_tokens"`
	StartedAt        time.Time `db:"started_at"`
	LatencyMS        float64   `db:"latency_ms"`
	Error            string    `db:"error"`
}

// TraceSearch is one search call of a run, with its options and results.
type TraceSearch struct {
	Seq         int                     `db:"seq"`
	Provider    string                  `db:"provider"`
	Query       string                  `db:"query"`
	Options     json.RawMessage         `db:"options"`
	Results     []pipeline.SearchResult `db:"results"`
	ResultCount int                     `db:"result_count"`
	Cached      bool                    `db:"cached"`
	StartedAt   time.Time               `db:"started_at"`
	LatencyMS   float64                 `db:"latency_ms"`
	Error       string                  `db:"error"`
}

// Trace is the whole trace of one run: every model call and every search call, in order.
type Trace struct {
	Run         RunBrief
	StatementID int64
	ExternalID  string
	Text        string
	Question    string
	Calls       []TraceCall
	Searches    []TraceSearch
}

// Trace returns the trace of one run, or ErrNotFound.
func (s *Store) Trace(ctx context.Context, runID int64) (Trace, error) {
	var t Trace
	runs, err := queryAll[RunBrief](ctx, s, "run", "SELECT "+runBriefColumns+" FROM runs r WHERE r.id = $1", runID)
	if err != nil {
		return t, err
	}
	if len(runs) == 0 {
		return t, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	t.Run = runs[0]
	err = s.pool.QueryRow(ctx, `
		SELECT s.id, coalesce(s.external_id, ''), coalesce(s.text, ''), coalesce(s.question, '')
		FROM runs r JOIN statements s ON s.id = r.statement_id WHERE r.id = $1`, runID).Scan(&t.StatementID, &t.ExternalID, &t.Text, &t.Question)
	if err != nil {
		return t, fmt.Errorf("store: reading the statement of run %d: %w", runID, err)
	}
	if t.Calls, err = queryAll[TraceCall](ctx, s, "model calls", `
		SELECT seq, step, target, coalesce(model, '') AS model, coalesce(finish_reason, '') AS finish_reason, prompt,
		       coalesce(reply, '') AS reply, prompt_tokens, completion_tokens, started_at, latency_ms, coalesce(error, '') AS error
		FROM model_calls WHERE run_id = $1 ORDER BY seq`, runID); err != nil {
		return t, err
	}
	if t.Searches, err = queryAll[TraceSearch](ctx, s, "search calls", `
		SELECT seq, provider, query, options, coalesce(results, '[]') AS results, result_count, cached, started_at,
		       latency_ms, coalesce(error, '') AS error
		FROM search_calls WHERE run_id = $1 ORDER BY seq`, runID); err != nil {
		return t, err
	}
	return t, nil
}
