package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/jobs"
)

// JobResult is what `enqueue --wait` shows of one job: its outcome and, once done, its result.
type JobResult struct {
	JobID       string       `db:"job_id"`
	Status      jobs.Outcome `db:"status"`
	Reason      *string      `db:"reason"`
	Method      *string      `db:"method"`
	Model       *string      `db:"model"`
	RunStatus   *string      `db:"run_status"`
	Result      *string      `db:"result_status"`
	RevisedText *string      `db:"revised_text"`
	Checked     *int         `db:"checked"`
	FinishedAt  *time.Time   `db:"finished_at"`
}

// Final reports whether the job has its outcome (anything but pending).
func (r JobResult) Final() bool { return r.Status != MessagePending }

// heldMark joins an attempt's number to why it is held, in HeldReason's reasons.
const heldMark = " held: "

// HeldReason is the recorded reason of an attempt that a worker holds on its delivery, without
// spending it, because a service the job needs is down (the model endpoint, the database): why
// says which, and that the job runs again when it is back. JobResult.Held reads it back.
func HeldReason(attempt int, why string) string {
	return fmt.Sprintf("attempt %d%s%s", attempt, heldMark, why)
}

// Held reports why the job is held, when its latest attempt is (see HeldReason): it has no
// outcome yet, and will have one when the service it waits for is back.
func (r JobResult) Held() (why string, held bool) {
	if r.Status != MessagePending || r.Reason == nil || !strings.HasPrefix(*r.Reason, "attempt ") {
		return "", false
	}
	_, why, held = strings.Cut(*r.Reason, heldMark)
	return why, held
}

// JobResults returns the latest outcome of each job id that has one; a job with no row yet (not
// received by a worker) is missing from the result. A job's done message comes first, and a
// duplicate last: a copy of a failed job shows the failure, not the copy.
func (s *Store) JobResults(ctx context.Context, jobIDs []string) (map[string]JobResult, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (o.job_id) o.job_id, o.status, o.reason, r.method, r.model, r.status AS run_status,
		       r.result_status, r.revised_text,
		       (SELECT count(*)::int FROM checks c WHERE c.run_id = r.id) AS checked, o.finished_at
		FROM job_outcomes o
		LEFT JOIN runs r ON r.id = o.run_id
		WHERE o.job_id = ANY ($1)
		ORDER BY o.job_id, (o.status = 'done') DESC, (o.status = 'duplicate') ASC, o.last_received_at DESC`, jobIDs)
	if err != nil {
		return nil, fmt.Errorf("store: reading job outcomes: %w", err)
	}
	results, err := pgx.CollectRows(rows, pgx.RowToStructByName[JobResult])
	if err != nil {
		return nil, fmt.Errorf("store: reading job outcomes: %w", err)
	}
	out := make(map[string]JobResult, len(results))
	for _, r := range results {
		out[r.JobID] = r
	}
	return out, nil
}

// RunSummary is one run as a person reads it: the statement, the draft, the checks and the
// revised text.
type RunSummary struct {
	JobID        string
	RunID        int64
	ExternalID   string
	Text         string
	Question     string
	Method       string
	Model        string
	Status       string
	ResultStatus string
	Draft        string
	RevisedText  string
	Error        string
	Checks       []CheckSummary
	// Claims are the judged claims of the open-book methods (multihop, cove2), with the sources
	// each verdict cites.
	Claims []ClaimSummary
}

// ClaimSummary is one judged claim and the sources its verdict cites.
type ClaimSummary struct {
	Position   int
	Text       string
	Verdict    string
	Confidence string
	Reason     string
	Correction string
	Sources    []CitedSource
}

// CitedSource is one piece of evidence a verdict cites.
type CitedSource struct {
	URL, Title string
}

// CheckSummary is one verification question and its answer.
type CheckSummary struct {
	Position int
	Question string
	Answer   string
	Status   string
}

// RunSummaries returns the runs of the given jobs, in the order of jobIDs; jobs without a run
// are left out.
func (s *Store) RunSummaries(ctx context.Context, jobIDs []string) ([]RunSummary, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT r.job_id, r.id, coalesce(st.external_id, ''), coalesce(st.text, ''), coalesce(st.question, ''),
		       r.method, coalesce(r.model, ''), r.status, coalesce(r.result_status, ''), coalesce(r.draft, ''),
		       coalesce(r.revised_text, ''), coalesce(r.error, '')
		FROM runs r JOIN statements st ON st.id = r.statement_id
		WHERE r.job_id = ANY ($1)
		ORDER BY array_position($1, r.job_id)`, jobIDs)
	if err != nil {
		return nil, fmt.Errorf("store: reading runs: %w", err)
	}
	var out []RunSummary
	index := map[int64]int{}
	for rows.Next() {
		var r RunSummary
		if err := rows.Scan(&r.JobID, &r.RunID, &r.ExternalID, &r.Text, &r.Question, &r.Method, &r.Model,
			&r.Status, &r.ResultStatus, &r.Draft, &r.RevisedText, &r.Error); err != nil {
			return nil, fmt.Errorf("store: reading runs: %w", err)
		}
		index[r.RunID] = len(out)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading runs: %w", err)
	}
	runIDs := make([]int64, 0, len(out))
	for _, r := range out {
		runIDs = append(runIDs, r.RunID)
	}
	crows, err := s.pool.Query(ctx, `
		SELECT run_id, position, question, coalesce(answer, ''), status
		FROM checks WHERE run_id = ANY ($1) ORDER BY run_id, position`, runIDs)
	if err != nil {
		return nil, fmt.Errorf("store: reading checks: %w", err)
	}
	defer crows.Close()
	for crows.Next() {
		var runID int64
		var c CheckSummary
		if err := crows.Scan(&runID, &c.Position, &c.Question, &c.Answer, &c.Status); err != nil {
			return nil, fmt.Errorf("store: reading checks: %w", err)
		}
		out[index[runID]].Checks = append(out[index[runID]].Checks, c)
	}
	if err := crows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading checks: %w", err)
	}
	// A source cited by one claim is one evidence row per search that returned it: listed once,
	// as cited_urls() does.
	lrows, err := s.pool.Query(ctx, `
		SELECT c.run_id, c.position, c.text, c.verdict, coalesce(c.confidence, ''), coalesce(c.reason, ''),
		       coalesce(c.corrected_text, ''),
		       coalesce((SELECT jsonb_agg(jsonb_build_object('url', x.url, 'title', x.title) ORDER BY x.n)
		                 FROM (SELECT DISTINCT ON (e.url) e.url, coalesce(e.title, '') AS title, e.source_number AS n
		                       FROM evidence e
		                       WHERE e.run_id = c.run_id AND e.source_number = ANY (c.citations)
		                       ORDER BY e.url, e.source_number) x), '[]'::jsonb)
		FROM claims c WHERE c.run_id = ANY ($1) ORDER BY c.run_id, c.position`, runIDs)
	if err != nil {
		return nil, fmt.Errorf("store: reading claims: %w", err)
	}
	defer lrows.Close()
	for lrows.Next() {
		var runID int64
		var c ClaimSummary
		var sources []struct{ URL, Title string }
		if err := lrows.Scan(&runID, &c.Position, &c.Text, &c.Verdict, &c.Confidence, &c.Reason, &c.Correction, &sources); err != nil {
			return nil, fmt.Errorf("store: reading claims: %w", err)
		}
		for _, src := range sources {
			c.Sources = append(c.Sources, CitedSource(src))
		}
		out[index[runID]].Claims = append(out[index[runID]].Claims, c)
	}
	return out, lrows.Err()
}

// JointAgreement is how often the checks of recent cove-joint runs of one model agreed with
// their draft (the revision left every claim standing).
type JointAgreement struct {
	Model string
	// Runs is how many runs the rate is over: at most the window asked for.
	Runs   int
	Agreed int
}

// Rate is Agreed / Runs, 0 when there are no runs.
func (a JointAgreement) Rate() float64 {
	if a.Runs == 0 {
		return 0
	}
	return float64(a.Agreed) / float64(a.Runs)
}

// RecentJointAgreement returns the agreement of the last window cove-joint runs of model.
func (s *Store) RecentJointAgreement(ctx context.Context, model string, window int) (JointAgreement, error) {
	a := JointAgreement{Model: model}
	err := s.pool.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE agreed)
		FROM (SELECT agreed FROM runs
		      WHERE method = 'cove-joint' AND model = $1 AND agreed IS NOT NULL
		      ORDER BY finished_at DESC LIMIT $2) recent`, model, window).Scan(&a.Runs, &a.Agreed)
	if err != nil {
		return a, fmt.Errorf("store: reading the joint agreement of %s: %w", model, err)
	}
	return a, nil
}

// RunTiming is when one done run of a subject was received, run and stored, and what it cost:
// what the benchmark measures latency and throughput from.
type RunTiming struct {
	// Received is when the message arrived; Stored when its outcome was written.
	Received, Stored time.Time
	// Started and Ran bound the method's run.
	Started, Ran  time.Time
	Calls, Tokens int64
	// Critical is the sum over the run's steps of each step's slowest model call: the run's
	// critical path through the model.
	Critical time.Duration
}

// RunTimings returns the timing of every done run on subject.
func (s *Store) RunTimings(ctx context.Context, subject string) ([]RunTiming, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT r.received_at, m.finished_at, r.started_at, r.finished_at, r.model_calls, r.total_tokens,
		       (SELECT coalesce(sum(slowest), 0) FROM (SELECT max(c.latency_ms) AS slowest FROM model_calls c
		         WHERE c.run_id = r.id GROUP BY c.step) rounds) AS critical_ms
		FROM runs r JOIN messages m ON m.run_id = r.id AND m.job_id = r.job_id
		WHERE r.subject = $1 AND r.status = 'done' AND m.status = 'done'`, subject)
	if err != nil {
		return nil, fmt.Errorf("store: reading run timings: %w", err)
	}
	defer rows.Close()
	var out []RunTiming
	for rows.Next() {
		var t RunTiming
		var criticalMS float64
		if err := rows.Scan(&t.Received, &t.Stored, &t.Started, &t.Ran, &t.Calls, &t.Tokens, &criticalMS); err != nil {
			return nil, fmt.Errorf("store: reading run timings: %w", err)
		}
		t.Critical = time.Duration(criticalMS * float64(time.Millisecond))
		out = append(out, t)
	}
	return out, rows.Err()
}

// ModelCallsBetween counts the model calls of subject's runs that started in (from, to].
func (s *Store) ModelCallsBetween(ctx context.Context, subject string, from, to time.Time) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FROM model_calls c JOIN runs r ON r.id = c.run_id
		WHERE r.subject = $1 AND c.started_at > $2 AND c.started_at <= $3`, subject, from, to).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: counting model calls: %w", err)
	}
	return n, nil
}
