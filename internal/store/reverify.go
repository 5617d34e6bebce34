package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ReverifySelection chooses the statements a night's re-verification enqueues.
type ReverifySelection struct {
	// Before is the cutoff: statements whose latest run finished before it.
	Before time.Time
	// Verdict keeps statements whose latest run has a claim of this verdict.
	Verdict string
	// Method keeps statements whose latest run ran, or asked for, this method.
	Method           string
	ExternalIDPrefix string
	// Limit bounds how many (0: all), oldest latest run first.
	Limit int
}

// ReverifyCandidate is a statement to verify again, with what its latest run asked for.
type ReverifyCandidate struct {
	StatementID int64  `db:"statement_id"`
	ExternalID  string `db:"external_id"`
	Text        string `db:"text"`
	Question    string `db:"question"`
	Language    string `db:"language"`
	RunID       int64  `db:"run_id"`
	// RequestedMethod is the method the latest run's job asked for; Method what ran.
	RequestedMethod string `db:"requested_method"`
	Method          string `db:"method"`
	// Options are the latest run's job options, as stored in runs.options.
	Options    json.RawMessage `db:"options"`
	FinishedAt time.Time       `db:"finished_at"`
}

// ReverifyCandidates returns the statements sel selects, oldest latest run first.
func (s *Store) ReverifyCandidates(ctx context.Context, sel ReverifySelection) ([]ReverifyCandidate, error) {
	if sel.Before.IsZero() {
		return nil, errors.New("store: re-verification needs a cutoff time")
	}
	if sel.Verdict != "" && !slices.Contains(Verdicts, sel.Verdict) {
		return nil, fmt.Errorf("store: verdict %q is not a verdict: use one of %s", sel.Verdict, strings.Join(Verdicts, ", "))
	}
	var c conds
	c.add("l.finished_at < ?", sel.Before)
	if sel.Method != "" {
		c.add("(l.method = ? OR l.requested_method = ?)", sel.Method)
	}
	if sel.ExternalIDPrefix != "" {
		c.add("starts_with(coalesce(s.external_id, ''), ?)", sel.ExternalIDPrefix)
	}
	if sel.Verdict != "" {
		c.add("EXISTS (SELECT 1 FROM claims v WHERE v.run_id = l.id AND v.verdict = ?)", sel.Verdict)
	}
	q := `SELECT s.id AS statement_id, coalesce(s.external_id, '') AS external_id, coalesce(s.text, '') AS text,
		       coalesce(s.question, '') AS question, s.language, l.id AS run_id, l.requested_method, l.method,
		       l.options, l.finished_at
		FROM latest_runs l JOIN statements s ON s.id = l.statement_id ` + c.where() +
		" ORDER BY l.finished_at, s.id" + ReportFilter{Limit: sel.Limit}.page()
	return queryAll[ReverifyCandidate](ctx, s, "re-verification candidates", q, c.args...)
}
