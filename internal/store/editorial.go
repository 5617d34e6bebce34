package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Editor decisions on a claim's verdict (editor_decisions): approve the machine's verdict,
// override it with another verdict and a reason, or send the claim back for re-checking.
const (
	DecisionApprove  = "approve"
	DecisionOverride = "override"
	DecisionRecheck  = "recheck"
)

// Decisions are the decision kinds, in the order the CLI and the page offer them.
var Decisions = []string{DecisionApprove, DecisionOverride, DecisionRecheck}

// Sources of a standing verdict (editorial_verdicts.standing_source).
const (
	SourceEditor  = "editor"
	SourceMachine = "machine"
)

// ErrNotLatestRun is returned when a decision names a claim of a run that is no longer its
// statement's latest: a newer run has its own claims to decide on.
var ErrNotLatestRun = errors.New("store: not the statement's latest run")

// Decision is what an editor decided about one claim of one run.
type Decision struct {
	Editor string
	RunID  int64
	// Position is the claim's position in its run (claim_results.position).
	Position int
	// Kind is DecisionApprove, DecisionOverride or DecisionRecheck.
	Kind string
	// Verdict is the editor's verdict, for an override only: an approval stores the machine's.
	Verdict string
	// Reason is required for an override, optional otherwise.
	Reason string
	// RecheckJobID is the re-verification a recheck published.
	RecheckJobID string
}

// Validate reports every problem of d in one error, naming the field and what to give.
func (d Decision) Validate() error {
	var problems []string
	if strings.TrimSpace(d.Editor) == "" {
		problems = append(problems, "no editor: say who decides")
	}
	if d.RunID < 1 || d.Position < 1 {
		problems = append(problems, fmt.Sprintf("claim %d:%d: give a run id and a claim position from 1 (RUN:POSITION, as claim_results lists them)", d.RunID, d.Position))
	}
	switch d.Kind {
	case DecisionOverride:
		if !slices.Contains(Verdicts, d.Verdict) {
			problems = append(problems, fmt.Sprintf("verdict %q: an override needs a verdict, one of %s", d.Verdict, strings.Join(Verdicts, ", ")))
		}
		if strings.TrimSpace(d.Reason) == "" {
			problems = append(problems, "an override needs a reason: say why the machine's verdict is wrong")
		}
	case DecisionApprove, DecisionRecheck:
		if d.Verdict != "" {
			problems = append(problems, fmt.Sprintf("verdict %q: only an override gives a verdict", d.Verdict))
		}
	default:
		problems = append(problems, fmt.Sprintf("decision %q: use one of %s", d.Kind, strings.Join(Decisions, ", ")))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// Decided is a stored decision.
type Decided struct {
	ID          int64
	DecidedAt   time.Time
	StatementID int64
	// Verdict is the verdict the decision made stand ("" for a recheck).
	Verdict string
}

// Decide appends d to editor_decisions, after checking that its claim belongs to its
// statement's latest run (ErrNotLatestRun otherwise, ErrNotFound when there is no such claim).
// An approval stores the machine's verdict as the one that stands. Nothing else is written:
// the machine's verdict stays as it was.
func (s *Store) Decide(ctx context.Context, d Decision) (Decided, error) {
	if err := d.Validate(); err != nil {
		return Decided{}, err
	}
	var out Decided
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var machine string
		var latest bool
		err := tx.QueryRow(ctx, `
			SELECT c.verdict, r.statement_id, EXISTS (SELECT 1 FROM latest_runs l WHERE l.id = r.id)
			FROM claims c JOIN runs r ON r.id = c.run_id
			WHERE c.run_id = $1 AND c.position = $2`, d.RunID, d.Position).Scan(&machine, &out.StatementID, &latest)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("claim %d:%d (run %d has no claim %d): %w", d.RunID, d.Position, d.RunID, d.Position, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if !latest {
			return fmt.Errorf("claim %d:%d: run %d of statement %d has a newer run; decide on the claims of that one: %w",
				d.RunID, d.Position, d.RunID, out.StatementID, ErrNotLatestRun)
		}
		verdict := d.Verdict
		if d.Kind == DecisionApprove {
			verdict = machine
		}
		out.Verdict = verdict
		return tx.QueryRow(ctx, `
			INSERT INTO editor_decisions (editor, run_id, claim_position, decision, verdict, reason, recheck_job_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, decided_at`,
			strings.TrimSpace(d.Editor), d.RunID, d.Position, d.Kind, nullString(verdict), nullString(strings.TrimSpace(d.Reason)),
			nullString(d.RecheckJobID)).Scan(&out.ID, &out.DecidedAt)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrNotLatestRun) {
			return Decided{}, err
		}
		return Decided{}, fmt.Errorf("store: recording the %s of claim %d:%d: %w", d.Kind, d.RunID, d.Position, err)
	}
	return out, nil
}

// EditorialVerdict is one row of editorial_verdicts: a claim of a latest run, its machine
// verdict, the latest editor decision (empty fields when none) and the verdict that stands.
type EditorialVerdict struct {
	StatementID     int64      `db:"statement_id" json:"statement_id"`
	ExternalID      string     `db:"external_id" json:"external_id"`
	RunID           int64      `db:"run_id" json:"run_id"`
	Position        int        `db:"position" json:"position"`
	ClaimText       string     `db:"claim_text" json:"claim_text"`
	MachineVerdict  string     `db:"machine_verdict" json:"machine_verdict"`
	Decision        string     `db:"decision" json:"decision"`
	DecisionVerdict string     `db:"decision_verdict" json:"decision_verdict"`
	DecidedBy       string     `db:"decided_by" json:"decided_by"`
	DecidedAt       *time.Time `db:"decided_at" json:"decided_at"`
	DecisionReason  string     `db:"decision_reason" json:"decision_reason"`
	RecheckJobID    string     `db:"recheck_job_id" json:"recheck_job_id"`
	StandingVerdict string     `db:"standing_verdict" json:"standing_verdict"`
	StandingSource  string     `db:"standing_source" json:"standing_source"`
}

const editorialColumns = `ev.statement_id, coalesce(ev.external_id, '') AS external_id, ev.run_id, ev.position,
	ev.claim_text, ev.machine_verdict, coalesce(ev.decision, '') AS decision,
	coalesce(ev.decision_verdict, '') AS decision_verdict, coalesce(ev.decided_by, '') AS decided_by,
	ev.decided_at, coalesce(ev.decision_reason, '') AS decision_reason,
	coalesce(ev.recheck_job_id, '') AS recheck_job_id, ev.standing_verdict, ev.standing_source`

// EditorialVerdicts returns the editorial_verdicts rows of one run, in claim order.
func (s *Store) EditorialVerdicts(ctx context.Context, runID int64) ([]EditorialVerdict, error) {
	return queryAll[EditorialVerdict](ctx, s, "editorial verdicts",
		"SELECT "+editorialColumns+" FROM editorial_verdicts ev WHERE ev.run_id = $1 ORDER BY ev.position", runID)
}

// RecheckCandidate returns what a re-verification of the statement of run needs, when run is
// its statement's latest run (ErrNotLatestRun otherwise, ErrNotFound when there is no run).
func (s *Store) RecheckCandidate(ctx context.Context, runID int64) (ReverifyCandidate, error) {
	rows, err := queryAll[ReverifyCandidate](ctx, s, "re-check candidate", `
		SELECT s.id AS statement_id, coalesce(s.external_id, '') AS external_id, coalesce(s.text, '') AS text,
		       coalesce(s.question, '') AS question, s.language, r.id AS run_id, r.requested_method, r.method,
		       r.options, r.finished_at
		FROM runs r JOIN statements s ON s.id = r.statement_id WHERE r.id = $1`, runID)
	if err != nil {
		return ReverifyCandidate{}, err
	}
	if len(rows) == 0 {
		return ReverifyCandidate{}, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	var latest bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM latest_runs WHERE id = $1)`, runID).Scan(&latest); err != nil {
		return ReverifyCandidate{}, fmt.Errorf("store: reading run %d: %w", runID, err)
	}
	if !latest {
		return ReverifyCandidate{}, fmt.Errorf("run %d of statement %d has a newer run: %w", runID, rows[0].StatementID, ErrNotLatestRun)
	}
	return rows[0], nil
}

// EditorAccount is one editor who may sign in to the review page.
type EditorAccount struct {
	Name         string
	PasswordHash string
	Disabled     bool
}

// AddEditor stores a new editor account with the hash of its secret; an existing name is
// refused (ErrEditorExists), so that a secret is never replaced by mistake.
func (s *Store) AddEditor(ctx context.Context, name, passwordHash string) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO editor_accounts (name, password_hash) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, passwordHash)
	if err != nil {
		return fmt.Errorf("store: adding editor %q: %w", name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("editor %q: %w", name, ErrEditorExists)
	}
	return nil
}

// ErrEditorExists is returned by AddEditor for a name already taken.
var ErrEditorExists = errors.New("store: an editor of this name exists")

// EditorAccount returns the account of name, or ErrNotFound.
func (s *Store) EditorAccount(ctx context.Context, name string) (EditorAccount, error) {
	var a EditorAccount
	err := s.pool.QueryRow(ctx, `SELECT name, password_hash, disabled_at IS NOT NULL FROM editor_accounts WHERE name = $1`, name).
		Scan(&a.Name, &a.PasswordHash, &a.Disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("editor %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("store: reading editor %q: %w", name, err)
	}
	return a, nil
}

// PublishedClaim is a claim whose standing verdict an editor decided (approved or overrode),
// with what a ClaimReview names: the statement's language and where it appeared.
type PublishedClaim struct {
	StatementID  int64      `db:"statement_id"`
	ExternalID   string     `db:"external_id"`
	RunID        int64      `db:"run_id"`
	Position     int        `db:"position"`
	ClaimText    string     `db:"claim_text"`
	Language     string     `db:"language"`
	Verdict      string     `db:"verdict"`
	Decision     string     `db:"decision"`
	DecidedBy    string     `db:"decided_by"`
	DecidedAt    time.Time  `db:"decided_at"`
	SourceURL    string     `db:"source_url"`
	SourceAuthor string     `db:"source_author"`
	PublishedAt  *time.Time `db:"published_at"`
}

func (f ReportFilter) publishedQuery(selectList, order string) (string, []any) {
	var c conds
	f.statementConds(&c)
	c.parts = append(c.parts, "ev.standing_source = 'editor'", "ev.standing_verdict <> 'not_checked'")
	if f.Verdict != "" {
		c.add("ev.standing_verdict = ?", f.Verdict)
	}
	q := "SELECT " + selectList + " FROM editorial_verdicts ev JOIN statement_results sr ON sr.run_id = ev.run_id " + c.where()
	if order != "" {
		q += " ORDER BY " + order + f.page()
	}
	return q, c.args
}

// CountPublishedClaims counts the claims EachPublishedClaim reads.
func (s *Store) CountPublishedClaims(ctx context.Context, f ReportFilter) (int, error) {
	q, args := f.publishedQuery("count(*)", "")
	return s.count(ctx, "published claims", q, args)
}

// EachPublishedClaim calls fn with every claim of the statements f selects whose standing
// verdict an editor decided (not_checked aside: no review says nothing was checked), latest
// decision first. Verdict filters on the standing verdict.
func (s *Store) EachPublishedClaim(ctx context.Context, f ReportFilter, fn func(PublishedClaim) error) error {
	q, args := f.publishedQuery(`ev.statement_id, coalesce(ev.external_id, '') AS external_id, ev.run_id, ev.position,
		ev.claim_text, sr.language, ev.standing_verdict AS verdict, ev.decision, ev.decided_by, ev.decided_at,
		coalesce(sr.source_url, '') AS source_url, coalesce(sr.source_author, '') AS source_author, sr.published_at`,
		"ev.decided_at DESC, ev.statement_id, ev.position")
	return eachRow(ctx, s, "published claims", q, args, fn)
}
