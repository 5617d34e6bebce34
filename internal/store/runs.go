package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	// RetryOf is the job this one runs again (enqueue retry), "" for a first run.
	RetryOf string
}

// Statement is what a job asked to verify.
type Statement struct {
	ExternalID string
	Text       string
	Question   string
	Language   string
	// SourceURL, SourceAuthor and PublishedAt say where the statement appeared, when the job
	// says so (optional); they are not part of what identifies it.
	SourceURL    string
	SourceAuthor string
	PublishedAt  *time.Time
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
	res := rec.Result
	if res == nil {
		res = &pipeline.Result{}
	}
	d := rec.Delivery
	// The statement and the run are written under a savepoint: when another delivery of the job
	// stored its run first, both are undone, so that a copy whose statement differs (another
	// producer reference, the same job id) leaves no statement without a run behind.
	sp, err := tx.Begin(ctx)
	if err != nil {
		return Saved{}, fmt.Errorf("savepoint: %w", err)
	}
	var statementID int64
	q, args := insert("statements", statementRow(rec.Statement),
		`ON CONFLICT (content_key) DO UPDATE SET language = EXCLUDED.language,
			source_url = coalesce(EXCLUDED.source_url, statements.source_url),
			source_author = coalesce(EXCLUDED.source_author, statements.source_author),
			published_at = coalesce(EXCLUDED.published_at, statements.published_at)
		RETURNING id`)
	if err := sp.QueryRow(ctx, q, args).Scan(&statementID); err != nil {
		return Saved{}, fmt.Errorf("statement: %w", err)
	}
	var runID int64
	q, args = insert("runs", runRow(rec, statementID, res), "ON CONFLICT (job_id) DO NOTHING RETURNING id")
	err = sp.QueryRow(ctx, q, args).Scan(&runID)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := sp.Rollback(ctx); err != nil {
			return Saved{}, fmt.Errorf("rolling back to the savepoint: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT id FROM runs WHERE job_id = $1`, d.JobID).Scan(&runID); err != nil {
			return Saved{}, fmt.Errorf("existing run: %w", err)
		}
		if _, err := markDuplicate(ctx, tx, d, runID); err != nil {
			return Saved{}, err
		}
		return Saved{RunID: runID, AlreadyStored: true}, nil
	}
	if err != nil {
		return Saved{}, fmt.Errorf("run: %w", err)
	}
	if err := sp.Commit(ctx); err != nil {
		return Saved{}, fmt.Errorf("releasing the savepoint: %w", err)
	}

	copies := []struct {
		table string
		n     int
		row   func(i int) row
	}{
		{"checks", len(res.Checks), func(i int) row { return checkRow(runID, res.Checks[i]) }},
		{"claims", len(res.Claims), func(i int) row { return claimRow(runID, res.Claims[i]) }},
		{"search_calls", len(res.Searches), func(i int) row { return searchCallRow(runID, res.Searches[i]) }},
		{"evidence", len(res.Evidence), func(i int) row { return evidenceRow(runID, i, res.Evidence[i]) }},
		{"query_hops", len(res.Hops), func(i int) row { return hopRow(runID, res.Hops[i]) }},
		{"cross_validations", len(res.CrossChecks), func(i int) row { return crossValidationRow(runID, res.CrossChecks[i]) }},
		{"model_calls", len(res.Calls), func(i int) row { return modelCallRow(runID, res.Calls[i]) }},
	}
	for _, c := range copies {
		if err := copyRows(ctx, tx, c.table, c.n, c.row); err != nil {
			return Saved{}, err
		}
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

// The rows below are each table's one column list: a table's INSERT or COPY takes its columns and
// values from its row, so that a column cannot be written in one statement and forgotten in
// another, nor a value land in the wrong column.

func statementRow(st Statement) row {
	return row{
		{"content_key", st.contentKey()},
		{"external_id", nullString(st.ExternalID)},
		{"text", nullString(st.Text)},
		{"question", nullString(st.Question)},
		{"language", st.Language},
		{"source_url", nullString(st.SourceURL)},
		{"source_author", nullString(st.SourceAuthor)},
		{"published_at", st.PublishedAt},
	}
}

func runRow(rec RunRecord, statementID int64, res *pipeline.Result) row {
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
	return row{
		{"job_id", d.JobID},
		{"statement_id", statementID},
		{"method", rec.Method},
		{"requested_method", cmp.Or(rec.RequestedMethod, rec.Method)},
		{"method_reason", nullString(rec.MethodReason)},
		{"model", nullString(rec.Model)},
		{"status", rec.Status},
		{"result_status", nullString(res.Status)},
		{"status_reason", nullString(res.StatusReason)},
		{"error", nullString(rec.Error)},
		{"attempt", max(d.Attempt, 1)},
		{"reverify", rec.Reverify},
		{"options", options},
		{"draft", nullString(res.Draft)},
		{"draft_from_input", res.DraftFromInput},
		{"plan_raw", nullString(res.Plan)},
		{"revised_text", nullString(res.RevisedText)},
		{"report", nullString(res.Report)},
		{"agreed", res.Agreed},
		{"model_calls", len(res.Calls)},
		{"prompt_tokens", promptTokens},
		{"completion_tokens", completionTokens},
		{"total_tokens", promptTokens + completionTokens},
		{"subject", d.Subject},
		{"stream_seq", int64(d.StreamSeq)},
		{"worker", nullString(rec.Worker)},
		{"received_at", nullTime(d.ReceivedAt)},
		{"started_at", rec.StartedAt},
		{"finished_at", rec.FinishedAt},
		{"duration_ms", float64(rec.FinishedAt.Sub(rec.StartedAt).Microseconds()) / 1000},
		{"search_calls", len(res.Searches)},
		{"plan", rawJSONOrNil(res.PlanJSON)},
		{"plan_violations", jsonOrNil(res.PlanViolations)},
		{"plan_repaired", res.PlanRepaired},
		// review_flags holds the codes, so that 'code' = ANY (review_flags) finds every flag of a
		// kind; review_flag_details the same flags with their details, in the same order.
		{"review_flags", flagCodes(res.ReviewFlags)},
		{"review_flag_details", flagDetails(res.ReviewFlags)},
	}
}

func checkRow(runID int64, c pipeline.Check) row {
	return row{
		{"run_id", runID},
		{"position", c.Position},
		{"question", c.Question},
		{"answer", c.Answer},
		{"status", c.Status},
		{"error", nullString(c.Error)},
		{"attempts", max(c.Attempts, 1)},
		{"claim_position", nullInt(c.ClaimPosition)},
	}
}

func claimRow(runID int64, c pipeline.Claim) row {
	var spanStart, spanEnd *int
	if c.SpanText != "" {
		spanStart, spanEnd = &c.SpanStart, &c.SpanEnd
	}
	return row{
		{"run_id", runID},
		{"position", c.Position},
		{"claim_key", nullString(c.Key)},
		{"text", c.Text},
		{"span_start", spanStart},
		{"span_end", spanEnd},
		{"span_text", nullString(c.SpanText)},
		{"entities", jsonOrNil(c.Entities)},
		{"verifiable", c.Verifiable},
		{"requires_temporal_scope", c.RequiresTemporalScope},
		{"ambiguity_note", nullString(c.AmbiguityNote)},
		{"tier", nullString(c.Tier)},
		{"verification_query", nullString(c.VerificationQuery)},
		{"query_flags", emptyIfNil(c.QueryFlags)},
		{"sub_queries", jsonOrNil(c.SubQueries)},
		{"source_independence_score", c.SourceIndependenceScore},
		{"verdict", c.Verdict},
		{"variant_verdict", nullString(c.VariantVerdict)},
		{"confidence", nullString(c.Confidence)},
		{"reason", nullString(c.Reason)},
		{"consistent_part", nullString(c.ConsistentPart)},
		{"corrected_text", nullString(c.CorrectedText)},
		{"check_position", nullInt(c.CheckPosition)},
		{"citations", intsOrEmpty(c.Citations)},
		{"reuse_key", nullString(c.Reuse.Key)},
		{"reuse_words", reuseWords(c)},
		{"reuse_context", nullString(c.Reuse.Context)},
		{"reused_from_run", reusedFromRun(c.Reuse)},
		{"reused_from_position", reusedFromPosition(c.Reuse)},
	}
}

func searchCallRow(runID int64, c pipeline.SearchCall) row {
	return row{
		{"run_id", runID},
		{"seq", c.Seq},
		{"provider", cmp.Or(c.Provider, "unknown")},
		{"query", c.Query},
		{"options", jsonOrEmpty(c.Options)},
		{"results", jsonOrNil(c.Results)},
		{"result_count", len(c.Results)},
		{"cached", c.Cached},
		{"started_at", c.StartedAt},
		{"latency_ms", float64(c.Latency.Microseconds()) / 1000},
		{"error", nullString(c.Error)},
	}
}

// evidenceRow is the i-th evidence of a run; evidence without an id is numbered by its place.
func evidenceRow(runID int64, i int, e pipeline.Evidence) row {
	return append(row{
		{"run_id", runID},
		{"id", cmp.Or(e.ID, i+1)},
		{"source_number", nullInt(e.SourceNumber)},
		{"claim_position", nullInt(e.ClaimPosition)},
		{"hop_number", nullInt(e.HopNumber)},
		{"search_seq", nullInt(e.SearchSeq)},
		{"url", e.URL},
		{"title", nullString(e.Title)},
		{"snippet", nullString(e.Snippet)},
		{"quote", nullString(e.Quote)},
		{"stance", nullString(e.Stance)},
		{"domain", nullString(e.Domain)},
		{"publisher", nullString(e.Publisher)},
		{"published_at", e.PublishedAt},
		{"provider", nullString(e.Provider)},
		{"rank", nullInt(e.Rank)},
		{"from_claim_position", nullInt(e.FromClaimPosition)},
		{"not_independent_of_hop", nullInt(e.NotIndependentOfHop)},
	}, pageColumns(e)...)
}

// pageColumnList are the page columns of evidence, as pageColumns writes them and storedPage
// reads them (targets is in the same order).
var pageColumnList = strings.Join(pageColumns(pipeline.Evidence{}).columns(), ", ")

// storedPage is a page attempt as an evidence row holds it (pageColumns wrote it).
type storedPage struct {
	fetchedAt                                        *time.Time
	cached                                           *bool
	status                                           *int
	finalURL, contentType, sha, failure, errorString *string
	passages                                         []byte
}

// targets are the Scan destinations of pageColumnList.
func (p *storedPage) targets() []any {
	return []any{&p.fetchedAt, &p.cached, &p.status, &p.finalURL, &p.contentType, &p.sha, &p.passages, &p.failure, &p.errorString}
}

// page is the attempt back in pipeline's types; nil when the row records none.
func (p *storedPage) page(url string) (*pipeline.Page, []pipeline.Passage, error) {
	if p.fetchedAt == nil && p.failure == nil && p.sha == nil {
		return nil, nil, nil
	}
	page := &pipeline.Page{URL: url, FinalURL: stringOf(p.finalURL), ContentType: stringOf(p.contentType), TextSHA256: stringOf(p.sha),
		Failure: stringOf(p.failure), Error: stringOf(p.errorString)}
	if p.fetchedAt != nil {
		page.FetchedAt = *p.fetchedAt
	}
	if p.cached != nil {
		page.Cached = *p.cached
	}
	if p.status != nil {
		page.Status = *p.status
	}
	var passages []pipeline.Passage
	if len(p.passages) > 0 {
		if err := json.Unmarshal(p.passages, &passages); err != nil {
			return nil, nil, fmt.Errorf("the page passages of %s: %w", url, err)
		}
	}
	return page, passages, nil
}

// pageColumns are the evidence columns of the attempt to read the source's page (migration
// 00024), all NULL when none was made.
func pageColumns(e pipeline.Evidence) row {
	p := e.Page
	if p == nil {
		p = &pipeline.Page{}
	}
	var fetchedAt *time.Time
	var cached *bool
	if e.Page != nil {
		fetchedAt, cached = &p.FetchedAt, &p.Cached
		if p.FetchedAt.IsZero() {
			fetchedAt = nil
		}
	}
	return row{
		{"page_fetched_at", fetchedAt},
		{"page_cached", cached},
		{"page_status", nullInt(p.Status)},
		{"page_final_url", nullString(p.FinalURL)},
		{"page_content_type", nullString(p.ContentType)},
		{"page_text_sha256", nullString(p.TextSHA256)},
		{"page_passages", jsonOrNil(e.Passages)},
		{"page_failure", nullString(p.Failure)},
		{"page_error", nullString(p.Error)},
	}
}

func hopRow(runID int64, h pipeline.Hop) row {
	return row{
		{"run_id", runID},
		{"claim_position", h.ClaimPosition},
		{"hop_number", h.Number},
		{"query", h.Query},
		{"target_source_type", nullString(h.TargetSourceType)},
		{"expected_evidence_type", nullString(h.ExpectedEvidenceType)},
		{"excluded_domains", emptyIfNil(h.ExcludedDomains)},
		{"excluded_publishers", emptyIfNil(h.ExcludedPublishers)},
		{"excluded_urls", emptyIfNil(h.ExcludedURLs)},
		{"status", nullString(h.Status)},
		{"note", nullString(h.Note)},
		{"search_seq", nullInt(h.SearchSeq)},
		{"reason", nullString(h.Reason)},
	}
}

func crossValidationRow(runID int64, x pipeline.CrossValidation) row {
	return row{
		{"run_id", runID},
		{"position", x.Position},
		{"query", x.Query},
		{"relationship", nullString(x.Relationship)},
		{"claim_positions", intsOrEmpty(x.ClaimPositions)},
		{"verdict", nullString(x.Verdict)},
		{"reason", nullString(x.Reason)},
		{"search_seq", nullInt(x.SearchSeq)},
	}
}

func modelCallRow(runID int64, c pipeline.ModelCall) row {
	return row{
		{"run_id", runID},
		{"seq", c.Seq},
		{"step", c.Step},
		{"target", nullInt(c.Target)},
		{"prompt", c.Prompt},
		{"reply", c.Reply},
		{"model", nullString(c.Model)},
		{"finish_reason", nullString(c.FinishReason)},
		{"prompt_tokens", c.PromptTokens},
		{"completion_tokens", c.CompletionTokens},
		{"started_at", c.StartedAt},
		{"latency_ms", float64(c.Latency.Microseconds()) / 1000},
		{"error", nullString(c.Error)},
	}
}

// messageRow is a message's row as a delivery first writes it; upsertMessage says what a later
// delivery of it changes.
func messageRow(d Delivery, status jobs.Outcome, reason string, payload []byte, runID int64, finished *time.Time) row {
	received := cmpTime(d.ReceivedAt)
	return row{
		{"job_id", d.JobID},
		{"stream", d.Stream},
		{"stream_seq", int64(d.StreamSeq)},
		{"subject", d.Subject},
		{"status", string(status)},
		{"reason", nullString(reason)},
		{"attempts", max(d.Attempt, 1)},
		{"payload", payload},
		{"run_id", nullInt64(runID)},
		{"first_received_at", received},
		{"last_received_at", received},
		{"finished_at", finished},
		{"retry_of", nullString(d.RetryOf)},
	}
}

// flagCodes is the codes of flags, in order, for runs.review_flags (text[] NOT NULL).
func flagCodes(flags []pipeline.ReviewFlag) []string {
	codes := make([]string, len(flags))
	for i, f := range flags {
		codes[i] = f.Code
	}
	return codes
}

// flagDetails is flags as runs.review_flag_details holds them (jsonb NOT NULL, [] for none).
func flagDetails(flags []pipeline.ReviewFlag) []byte {
	if len(flags) == 0 {
		return []byte(`[]`)
	}
	return jsonOrEmpty(flags)
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

// runStored is true of a message row (in an ON CONFLICT clause) whose outcome is its job's stored
// run: that outcome is final for good.
const runStored = `(messages.run_id IS NOT NULL AND messages.status IN ('done', 'failed'))`

// upsertMessage records one handled attempt: the message's row in messages takes its outcome
// (MessagePending while another attempt follows) and message_attempts gets a row of its own.
func upsertMessage(ctx context.Context, tx pgx.Tx, d Delivery, outcome jobs.Outcome, reason string, runID int64) error {
	status := outcome
	if !outcome.Final() {
		status = MessagePending
	}
	return writeMessage(ctx, tx, d, status, outcome, reason, runID)
}

// writeMessage writes a message's row with status (a final one, MessagePending or
// MessageDuplicate) and records the attempt with outcome. The payload is kept unless the message
// ended done.
func writeMessage(ctx context.Context, tx pgx.Tx, d Delivery, status, outcome jobs.Outcome, reason string, runID int64) error {
	var payload []byte
	if status != jobs.OutcomeDone {
		payload = d.Payload
	}
	var finished *time.Time
	if status != MessagePending {
		now := time.Now()
		finished = &now
	}
	// A late redelivery must not turn a finished message back into a pending one, and a message
	// whose run is stored (done or failed) keeps that outcome: a late delivery of it that the
	// consume loop dead-letters (its acknowledgement lost until the attempts ran out) does not
	// turn the job dead. Its attempt is recorded all the same.
	q, args := insert("messages", messageRow(d, status, reason, payload, runID, finished), `
		ON CONFLICT (job_id, stream_seq) DO UPDATE SET
			status = CASE WHEN `+runStored+` THEN messages.status ELSE EXCLUDED.status END,
			reason = CASE WHEN `+runStored+` THEN messages.reason ELSE EXCLUDED.reason END,
			attempts = GREATEST(messages.attempts, EXCLUDED.attempts),
			payload = CASE WHEN `+runStored+` THEN messages.payload ELSE EXCLUDED.payload END,
			run_id = COALESCE(EXCLUDED.run_id, messages.run_id),
			last_received_at = EXCLUDED.last_received_at,
			finished_at = CASE WHEN `+runStored+` THEN messages.finished_at ELSE EXCLUDED.finished_at END,
			retry_of = COALESCE(EXCLUDED.retry_of, messages.retry_of)
		WHERE messages.status = 'pending' OR EXCLUDED.status <> 'pending'`)
	if _, err := tx.Exec(ctx, q, args); err != nil {
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

// stringOf is nullString's inverse: a NULL text column read back as "".
func stringOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
