package store

import (
	"context"
	"fmt"
)

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
