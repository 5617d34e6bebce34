package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Run statuses.
const (
	RunDone   = "done"
	RunFailed = "failed"
)

// Delivery identifies the JetStream message a job came in.
type Delivery struct {
	JobID     string
	Stream    string
	StreamSeq uint64
	Subject   string
	Attempt   int
	// Payload is the message body, kept for every message that does not end done.
	Payload    []byte
	ReceivedAt time.Time
	// Worker names the worker that handled this attempt (host/pid), for message_attempts.
	Worker string
}

// Statement is what a job asked to verify.
type Statement struct {
	ExternalID string
	Text       string
	Question   string
	Language   string
}

// contentKey identifies a statement: the same producer reference, question and text is the same
// statement, whatever method or options verify it.
func (s Statement) contentKey() string {
	h := sha256.New()
	for _, part := range []string{s.ExternalID, s.Question, s.Text} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RunRecord is one finished job, written by SaveRun in one transaction.
type RunRecord struct {
	Delivery  Delivery
	Statement Statement
	// Method is the method that ran; RequestedMethod the job's, MethodReason why they differ.
	Method          string
	RequestedMethod string
	MethodReason    string
	Model           string
	// Status is RunDone or RunFailed; Error says why a run failed.
	Status     string
	Error      string
	Reverify   bool
	Options    json.RawMessage
	Worker     string
	StartedAt  time.Time
	FinishedAt time.Time
	// Result may be partial for a failed run (its model calls); nil when nothing ran.
	Result *pipeline.Result
}

// Saved says what SaveRun did.
type Saved struct {
	RunID int64
	// AlreadyStored: a run for this job id existed; nothing of this one was written.
	AlreadyStored bool
}

// SaveRun writes the statement, the run and everything it produced (checks, claims, model
// calls) and marks its message done (or failed), all in one transaction: a crash at any point
// leaves either the whole run or nothing. A job that already has a run writes nothing twice.
func (s *Store) SaveRun(ctx context.Context, rec RunRecord) (Saved, error) {
	var saved Saved
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		saved, err = saveRun(ctx, tx, rec)
		return err
	})
	if err != nil {
		return Saved{}, fmt.Errorf("store: saving the run of job %s: %w", rec.Delivery.JobID, err)
	}
	return saved, nil
}

func saveRun(ctx context.Context, tx pgx.Tx, rec RunRecord) (Saved, error) {
	st := rec.Statement
	var statementID int64
	err := tx.QueryRow(ctx, `
		INSERT INTO statements (content_key, external_id, text, question, language)
		VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), NULLIF($4, ''), $5)
		ON CONFLICT (content_key) DO UPDATE SET language = EXCLUDED.language
		RETURNING id`,
		st.contentKey(), st.ExternalID, st.Text, st.Question, st.Language).Scan(&statementID)
	if err != nil {
		return Saved{}, fmt.Errorf("statement: %w", err)
	}

	res := rec.Result
	if res == nil {
		res = &pipeline.Result{}
	}
	var promptTokens, completionTokens int64
	for _, c := range res.Calls {
		promptTokens += c.PromptTokens
		completionTokens += c.CompletionTokens
	}
	options := rec.Options
	if len(options) == 0 {
		options = json.RawMessage(`{}`)
	}
	d := rec.Delivery
	var runID int64
	err = tx.QueryRow(ctx, `
		INSERT INTO runs (job_id, statement_id, method, requested_method, method_reason, model, status,
			result_status, status_reason, error, attempt, reverify, options, draft, draft_from_input,
			plan_raw, revised_text, report, agreed, model_calls, prompt_tokens, completion_tokens,
			total_tokens, subject, stream_seq, worker, received_at, started_at, finished_at, duration_ms,
			search_calls, plan, plan_violations, plan_repaired, review_flags)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), $7, NULLIF($8, ''), NULLIF($9, ''),
			NULLIF($10, ''), $11, $12, $13, NULLIF($14, ''), $15, NULLIF($16, ''), NULLIF($17, ''),
			NULLIF($18, ''), $19, $20, $21, $22, $23, $24, $25, NULLIF($26, ''), $27, $28, $29, $30,
			$31, $32, $33, $34, $35)
		ON CONFLICT (job_id) DO NOTHING
		RETURNING id`,
		d.JobID, statementID, rec.Method, cmpOr(rec.RequestedMethod, rec.Method), rec.MethodReason,
		rec.Model, rec.Status, res.Status, res.StatusReason, rec.Error, max(d.Attempt, 1), rec.Reverify,
		options, res.Draft, res.DraftFromInput, res.Plan, res.RevisedText, res.Report, res.Agreed,
		len(res.Calls), promptTokens, completionTokens, promptTokens+completionTokens, d.Subject,
		int64(d.StreamSeq), rec.Worker, nullTime(d.ReceivedAt), rec.StartedAt, rec.FinishedAt,
		float64(rec.FinishedAt.Sub(rec.StartedAt).Microseconds())/1000,
		len(res.Searches), rawJSONOrNil(res.PlanJSON), jsonOrNil(res.PlanViolations), res.PlanRepaired, emptyIfNil(res.ReviewFlags)).Scan(&runID)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := tx.QueryRow(ctx, `SELECT id FROM runs WHERE job_id = $1`, d.JobID).Scan(&runID); err != nil {
			return Saved{}, fmt.Errorf("existing run: %w", err)
		}
		if err := upsertMessage(ctx, tx, d, jobs.OutcomeDone, "a run of this job was already stored", runID); err != nil {
			return Saved{}, err
		}
		return Saved{RunID: runID, AlreadyStored: true}, nil
	}
	if err != nil {
		return Saved{}, fmt.Errorf("run: %w", err)
	}

	if err := copyRows(ctx, tx, "checks", []string{"run_id", "position", "question", "answer", "status", "error", "attempts", "claim_position"},
		len(res.Checks), func(i int) []any {
			c := res.Checks[i]
			return []any{runID, c.Position, c.Question, c.Answer, c.Status, nullString(c.Error), max(c.Attempts, 1), nullInt(c.ClaimPosition)}
		}); err != nil {
		return Saved{}, err
	}
	if err := copyRows(ctx, tx, "claims", []string{"run_id", "position", "claim_key", "text", "span_start", "span_end", "span_text",
		"entities", "verifiable", "requires_temporal_scope", "ambiguity_note", "tier", "verification_query", "query_flags",
		"sub_queries", "source_independence_score", "verdict", "variant_verdict", "confidence", "reason", "consistent_part",
		"corrected_text", "check_position", "citations"},
		len(res.Claims), func(i int) []any {
			c := res.Claims[i]
			var spanStart, spanEnd *int
			if c.SpanText != "" {
				spanStart, spanEnd = &c.SpanStart, &c.SpanEnd
			}
			return []any{runID, c.Position, nullString(c.Key), c.Text, spanStart, spanEnd, nullString(c.SpanText),
				jsonOrNil(c.Entities), c.Verifiable, c.RequiresTemporalScope, nullString(c.AmbiguityNote), nullString(c.Tier),
				nullString(c.VerificationQuery), emptyIfNil(c.QueryFlags), jsonOrNil(c.SubQueries), c.SourceIndependenceScore,
				c.Verdict, nullString(c.VariantVerdict), nullString(c.Confidence), nullString(c.Reason), nullString(c.ConsistentPart),
				nullString(c.CorrectedText), nullInt(c.CheckPosition), intsOrEmpty(c.Citations)}
		}); err != nil {
		return Saved{}, err
	}
	if err := copyRows(ctx, tx, "search_calls", []string{"run_id", "seq", "provider", "query", "options", "results", "result_count", "cached", "started_at", "latency_ms", "error"},
		len(res.Searches), func(i int) []any {
			c := res.Searches[i]
			return []any{runID, c.Seq, cmpOr(c.Provider, "unknown"), c.Query, jsonOrEmpty(c.Options), jsonOrNil(c.Results), len(c.Results),
				c.Cached, c.StartedAt, float64(c.Latency.Microseconds()) / 1000, nullString(c.Error)}
		}); err != nil {
		return Saved{}, err
	}
	if err := copyRows(ctx, tx, "evidence", []string{"run_id", "id", "source_number", "claim_position", "hop_number", "search_seq", "url", "title",
		"snippet", "quote", "domain", "publisher", "published_at", "provider", "rank"},
		len(res.Evidence), func(i int) []any {
			e := res.Evidence[i]
			return []any{runID, cmpInt(e.ID, i+1), nullInt(e.SourceNumber), nullInt(e.ClaimPosition), nullInt(e.HopNumber), nullInt(e.SearchSeq), e.URL,
				nullString(e.Title), nullString(e.Snippet), nullString(e.Quote), nullString(e.Domain), nullString(e.Publisher), e.PublishedAt,
				nullString(e.Provider), nullInt(e.Rank)}
		}); err != nil {
		return Saved{}, err
	}
	if err := copyRows(ctx, tx, "query_hops", []string{"run_id", "claim_position", "hop_number", "query", "target_source_type", "expected_evidence_type",
		"excluded_domains", "excluded_publishers", "excluded_urls", "status", "note", "search_seq"},
		len(res.Hops), func(i int) []any {
			h := res.Hops[i]
			return []any{runID, h.ClaimPosition, h.Number, h.Query, nullString(h.TargetSourceType), nullString(h.ExpectedEvidenceType),
				emptyIfNil(h.ExcludedDomains), emptyIfNil(h.ExcludedPublishers), emptyIfNil(h.ExcludedURLs), nullString(h.Status), nullString(h.Note), nullInt(h.SearchSeq)}
		}); err != nil {
		return Saved{}, err
	}
	if err := copyRows(ctx, tx, "cross_validations", []string{"run_id", "position", "query", "relationship", "claim_positions", "verdict", "reason", "search_seq"},
		len(res.CrossChecks), func(i int) []any {
			x := res.CrossChecks[i]
			return []any{runID, x.Position, x.Query, nullString(x.Relationship), intsOrEmpty(x.ClaimPositions), nullString(x.Verdict), nullString(x.Reason), nullInt(x.SearchSeq)}
		}); err != nil {
		return Saved{}, err
	}
	if err := copyRows(ctx, tx, "model_calls", []string{"run_id", "seq", "step", "target", "prompt", "reply", "model", "finish_reason", "prompt_tokens", "completion_tokens", "started_at", "latency_ms", "error"},
		len(res.Calls), func(i int) []any {
			c := res.Calls[i]
			return []any{runID, c.Seq, c.Step, nullInt(c.Target), c.Prompt, c.Reply, nullString(c.Model), nullString(c.FinishReason), c.PromptTokens, c.CompletionTokens, c.StartedAt, float64(c.Latency.Microseconds()) / 1000, nullString(c.Error)}
		}); err != nil {
		return Saved{}, err
	}

	outcome, reason := jobs.OutcomeDone, ""
	if rec.Status == RunFailed {
		outcome, reason = jobs.OutcomeFailed, rec.Error
	}
	if err := upsertMessage(ctx, tx, d, outcome, reason, runID); err != nil {
		return Saved{}, err
	}
	return Saved{RunID: runID}, nil
}

// copyRows bulk-inserts n rows into table with COPY.
func copyRows(ctx context.Context, tx pgx.Tx, table string, columns []string, n int, row func(i int) []any) error {
	if n == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromSlice(n, func(i int) ([]any, error) {
		return row(i), nil
	}))
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}

// MessageOutcome is what became of one message that produced no run, or is still being retried.
type MessageOutcome struct {
	Delivery Delivery
	// Status is jobs.OutcomeRetry or OutcomeInterrupted (another attempt follows: the message
	// stays pending), OutcomeRejected, OutcomeFailed or OutcomeDead.
	Status jobs.Outcome
	Reason string
}

// RecordOutcome records a message's outcome on its row in messages (one row per job id and
// stream sequence: a redelivery updates it) and the attempt in message_attempts. The payload is
// kept so that a rejected, failed or dead message can be inspected and published again.
func (s *Store) RecordOutcome(ctx context.Context, o MessageOutcome) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return upsertMessage(ctx, tx, o.Delivery, o.Status, o.Reason, 0)
	})
	if err != nil {
		return fmt.Errorf("store: recording outcome %s of job %s: %w", o.Status, o.Delivery.JobID, err)
	}
	return nil
}

// upsertMessage records one handled attempt: the message's row in messages takes its outcome
// (MessagePending while another attempt follows) and message_attempts gets a row of its own.
func upsertMessage(ctx context.Context, tx pgx.Tx, d Delivery, outcome jobs.Outcome, reason string, runID int64) error {
	status := outcome
	if !outcome.Final() {
		status = MessagePending
	}
	var payload []byte
	if outcome != jobs.OutcomeDone {
		payload = d.Payload
	}
	var finished *time.Time
	if outcome.Final() {
		now := time.Now()
		finished = &now
	}
	// A late redelivery must not turn a finished message back into a pending one.
	_, err := tx.Exec(ctx, `
		INSERT INTO messages (job_id, stream, stream_seq, subject, status, reason, attempts, payload, run_id,
			first_received_at, last_received_at, finished_at)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8, $9, $10, $10, $11)
		ON CONFLICT (job_id, stream_seq) DO UPDATE SET
			status = EXCLUDED.status,
			reason = EXCLUDED.reason,
			attempts = GREATEST(messages.attempts, EXCLUDED.attempts),
			payload = EXCLUDED.payload,
			run_id = COALESCE(EXCLUDED.run_id, messages.run_id),
			last_received_at = EXCLUDED.last_received_at,
			finished_at = EXCLUDED.finished_at
		WHERE messages.status = 'pending' OR EXCLUDED.status <> 'pending'`,
		d.JobID, d.Stream, int64(d.StreamSeq), d.Subject, status, reason, max(d.Attempt, 1), payload,
		nullInt64(runID), cmpTime(d.ReceivedAt), finished)
	if err != nil {
		return fmt.Errorf("message outcome: %w", err)
	}
	return recordAttempt(ctx, tx, d, outcome, reason)
}

// StoredRun returns the id of the run stored for a job, and whether there is one. A redelivered
// job with a stored run is acknowledged without running again.
func (s *Store) StoredRun(ctx context.Context, jobID string) (int64, bool, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM runs WHERE job_id = $1`, jobID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: looking up the run of job %s: %w", jobID, err)
	}
	return id, true, nil
}

// jsonOrNil encodes v as JSON for a jsonb column; an empty slice or nil is SQL NULL.
func jsonOrNil[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return raw
}

// jsonOrEmpty encodes v as JSON for a NOT NULL jsonb column.
func jsonOrEmpty(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		return []byte(`{}`)
	}
	return raw
}

// rawJSONOrNil passes JSON through to a jsonb column; empty is SQL NULL.
func rawJSONOrNil(raw []byte) []byte {
	if len(raw) == 0 || !json.Valid(raw) {
		return nil
	}
	return raw
}

// emptyIfNil gives a text[] NOT NULL column an empty array for nil.
func emptyIfNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func intsOrEmpty(v []int) []int32 {
	out := make([]int32, len(v))
	for i, n := range v {
		out[i] = int32(n)
	}
	return out
}

func cmpInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullInt(i int) *int {
	if i == 0 {
		return nil
	}
	return &i
}

func nullInt64(i int64) *int64 {
	if i == 0 {
		return nil
	}
	return &i
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func cmpTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// MarkDone marks a message done whose job already has a stored run (a redelivery, or the same
// job published twice outside the dedupe window).
func (s *Store) MarkDone(ctx context.Context, d Delivery, runID int64, reason string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return upsertMessage(ctx, tx, d, jobs.OutcomeDone, reason, runID)
	})
	if err != nil {
		return fmt.Errorf("store: marking job %s done: %w", d.JobID, err)
	}
	return nil
}
