package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// ErrNotFound is returned by the reads of one statement or one run when there is none.
var ErrNotFound = errors.New("store: not found")

// Verdicts are the claim verdict labels, in the order reports show them.
var Verdicts = []string{
	pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictPartlySupported,
	pipeline.VerdictUnverified, pipeline.VerdictNotChecked,
}

// ReportFilter selects statements by their latest run, the way statement_results shows them.
// Its zero value selects every statement.
type ReportFilter struct {
	// Since and Until bound the latest run's finished_at: Since inclusive, Until exclusive; the
	// zero time leaves that side open.
	Since, Until time.Time
	// Status is the latest run's status (RunDone or RunFailed); empty: any.
	Status string
	// Verdict keeps statements with at least one claim of this verdict; for claim reads, the
	// claims of this verdict; for evidence, the evidence of such claims.
	Verdict string
	// Method is the method that ran, or the one the job asked for.
	Method string
	// ExternalIDPrefix keeps statements whose producer reference starts with it.
	ExternalIDPrefix string
	// Text keeps statements whose text, question or external id contains it, case-insensitively.
	Text string
	// Limit bounds the rows (0: all); Offset skips the first rows, for pages.
	Limit, Offset int
	// ByAttention lists statements by what needs an editor's attention first (AttentionOrder)
	// instead of newest first.
	ByAttention bool
}

// AttentionOrder is the order of statements by what needs an editor first: a claim refuted
// (machine or standing verdict), then a corrected text, then review flags, then a failed run,
// then the rest; newest first within each.
const AttentionOrder = `CASE WHEN sr.refuted > 0 OR sr.standing_verdict = 'refuted' THEN 0
	WHEN sr.corrected THEN 1
	WHEN cardinality(sr.review_flags) > 0 THEN 2
	WHEN sr.status = 'failed' THEN 3
	ELSE 4 END, sr.finished_at DESC, sr.statement_id DESC`

// Validate reports every bad field of f in one error.
func (f ReportFilter) Validate() error {
	var problems []string
	if f.Status != "" && f.Status != RunDone && f.Status != RunFailed {
		problems = append(problems, fmt.Sprintf("status %q is not a run status: use %s or %s", f.Status, RunDone, RunFailed))
	}
	if f.Verdict != "" && !slices.Contains(Verdicts, f.Verdict) {
		problems = append(problems, fmt.Sprintf("verdict %q is not a verdict: use one of %s", f.Verdict, strings.Join(Verdicts, ", ")))
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		problems = append(problems, fmt.Sprintf("since %s is not before until %s", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339)))
	}
	if f.Limit < 0 || f.Offset < 0 {
		problems = append(problems, "limit and offset must not be negative")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// conds collects the conditions and arguments of a WHERE clause; every "?" in a condition is
// its one argument's placeholder.
type conds struct {
	parts []string
	args  []any
}

func (c *conds) add(cond string, arg any) {
	c.args = append(c.args, arg)
	c.parts = append(c.parts, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(c.args))))
}

func (c *conds) where() string {
	if len(c.parts) == 0 {
		return ""
	}
	return "WHERE " + strings.Join(c.parts, " AND ")
}

// page returns the LIMIT and OFFSET clause of f.
func (f ReportFilter) page() string {
	var out string
	if f.Limit > 0 {
		out += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	if f.Offset > 0 {
		out += fmt.Sprintf(" OFFSET %d", f.Offset)
	}
	return out
}

// statementConds adds f's conditions on the statement_results row sr, except the verdict, whose
// meaning depends on what is read.
func (f ReportFilter) statementConds(c *conds) {
	if !f.Since.IsZero() {
		c.add("sr.finished_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		c.add("sr.finished_at < ?", f.Until)
	}
	if f.Status != "" {
		c.add("sr.status = ?", f.Status)
	}
	if f.Method != "" {
		c.add("(sr.method = ? OR sr.requested_method = ?)", f.Method)
	}
	if f.ExternalIDPrefix != "" {
		c.add("starts_with(coalesce(sr.external_id, ''), ?)", f.ExternalIDPrefix)
	}
	if f.Text != "" {
		c.add("strpos(lower(coalesce(sr.text, '') || ' ' || coalesce(sr.question, '') || ' ' || coalesce(sr.external_id, '')), lower(?)) > 0", f.Text)
	}
}

// StatementRow is one row of statement_results: a statement and its latest run. Absent text
// fields are empty. Its JSON form is what `report export --what statements` writes, in this
// field order.
type StatementRow struct {
	StatementID     int64     `db:"statement_id" json:"statement_id"`
	ExternalID      string    `db:"external_id" json:"external_id"`
	Text            string    `db:"text" json:"text"`
	Question        string    `db:"question" json:"question"`
	Language        string    `db:"language" json:"language"`
	RunID           int64     `db:"run_id" json:"run_id"`
	JobID           string    `db:"job_id" json:"job_id"`
	Method          string    `db:"method" json:"method"`
	RequestedMethod string    `db:"requested_method" json:"requested_method"`
	Model           string    `db:"model" json:"model"`
	Status          string    `db:"status" json:"status"`
	ResultStatus    string    `db:"result_status" json:"result_status"`
	StatusReason    string    `db:"status_reason" json:"status_reason"`
	Error           string    `db:"error" json:"error"`
	RevisedText     string    `db:"revised_text" json:"revised_text"`
	Checked         int       `db:"checked" json:"checked"`
	Claims          int       `db:"claims" json:"claims"`
	Supported       int       `db:"supported" json:"supported"`
	Refuted         int       `db:"refuted" json:"refuted"`
	PartlySupported int       `db:"partly_supported" json:"partly_supported"`
	Unverified      int       `db:"unverified" json:"unverified"`
	NotChecked      int       `db:"not_checked" json:"not_checked"`
	ModelCalls      int       `db:"model_calls" json:"model_calls"`
	SearchCalls     int       `db:"search_calls" json:"search_calls"`
	TotalTokens     int64     `db:"total_tokens" json:"total_tokens"`
	Reverify        bool      `db:"reverify" json:"reverify"`
	StartedAt       time.Time `db:"started_at" json:"started_at"`
	FinishedAt      time.Time `db:"finished_at" json:"finished_at"`
	DurationMS      float64   `db:"duration_ms" json:"duration_ms"`
	// Corrected says that the revision changed the text (statement_results.corrected).
	Corrected bool `db:"corrected" json:"corrected"`
	// StandingVerdict is the most severe verdict that stands for its claims, an editor's or the
	// machine's, and StandingSource whose: editor, machine or mixed ("" without claims).
	StandingVerdict string `db:"standing_verdict" json:"standing_verdict"`
	StandingSource  string `db:"standing_source" json:"standing_source"`
	// SourceURL, SourceAuthor and PublishedAt say where the statement appeared, when its job
	// said so.
	SourceURL    string     `db:"source_url" json:"source_url"`
	SourceAuthor string     `db:"source_author" json:"source_author"`
	PublishedAt  *time.Time `db:"published_at" json:"published_at"`
	// Flags are the run's review flag codes; Answered counts the claims whose check was
	// answered but whose method gives no claim-level verdict (closed-book CoVe with a revision
	// that changed the text): the pages show them as answered, not as unverified.
	Flags    []string `db:"review_flags" json:"-"`
	Answered int      `db:"answered" json:"-"`
}

const statementColumns = `sr.statement_id, coalesce(sr.external_id, '') AS external_id, coalesce(sr.text, '') AS text,
	coalesce(sr.question, '') AS question, sr.language, sr.run_id, sr.job_id, sr.method, sr.requested_method,
	coalesce(sr.model, '') AS model, sr.status, coalesce(sr.result_status, '') AS result_status,
	coalesce(sr.status_reason, '') AS status_reason, coalesce(sr.error, '') AS error,
	coalesce(sr.revised_text, '') AS revised_text, sr.checked, sr.claims, sr.supported, sr.refuted,
	sr.partly_supported, sr.unverified, sr.not_checked, sr.model_calls, sr.search_calls, sr.total_tokens,
	sr.reverify, sr.started_at, sr.finished_at, sr.duration_ms, sr.corrected,
	coalesce(sr.standing_verdict, '') AS standing_verdict, coalesce(sr.standing_source, '') AS standing_source,
	coalesce(sr.source_url, '') AS source_url, coalesce(sr.source_author, '') AS source_author, sr.published_at,
	sr.review_flags,
	(SELECT count(*)::int FROM claims a WHERE a.run_id = sr.run_id AND a.verdict = 'unverified' AND a.variant_verdict = 'answered') AS answered`

func (f ReportFilter) statementQuery(selectList, order string) (string, []any) {
	var c conds
	f.statementConds(&c)
	if f.Verdict != "" {
		c.add("EXISTS (SELECT 1 FROM claims v WHERE v.run_id = sr.run_id AND v.verdict = ?)", f.Verdict)
	}
	q := "SELECT " + selectList + " FROM statement_results sr " + c.where()
	if order != "" {
		q += " ORDER BY " + order + f.page()
	}
	return q, c.args
}

// CountStatements counts the statements f selects (Limit and Offset aside).
func (s *Store) CountStatements(ctx context.Context, f ReportFilter) (int, error) {
	q, args := f.statementQuery("count(*)", "")
	return s.count(ctx, "statements", q, args)
}

// EachStatement calls fn with every statement f selects, newest latest run first (or by
// attention, f.ByAttention).
func (s *Store) EachStatement(ctx context.Context, f ReportFilter, fn func(StatementRow) error) error {
	order := "sr.finished_at DESC, sr.statement_id DESC"
	if f.ByAttention {
		order = AttentionOrder
	}
	q, args := f.statementQuery(statementColumns, order)
	return eachRow(ctx, s, "statements", q, args, fn)
}

// Statements returns the statements f selects, newest latest run first (or by attention).
func (s *Store) Statements(ctx context.Context, f ReportFilter) ([]StatementRow, error) {
	return collect(func(fn func(StatementRow) error) error { return s.EachStatement(ctx, f, fn) })
}

// ClaimRow is one row of claim_results: a claim of a latest run. Its JSON form is what
// `report export --what claims` writes.
type ClaimRow struct {
	StatementID    int64     `db:"statement_id" json:"statement_id"`
	ExternalID     string    `db:"external_id" json:"external_id"`
	RunID          int64     `db:"run_id" json:"run_id"`
	JobID          string    `db:"job_id" json:"job_id"`
	Method         string    `db:"method" json:"method"`
	Model          string    `db:"model" json:"model"`
	Position       int       `db:"position" json:"position"`
	ClaimKey       string    `db:"claim_key" json:"claim_key"`
	ClaimText      string    `db:"claim_text" json:"claim_text"`
	SpanText       string    `db:"span_text" json:"span_text"`
	Tier           string    `db:"tier" json:"tier"`
	Verdict        string    `db:"verdict" json:"verdict"`
	VariantVerdict string    `db:"variant_verdict" json:"variant_verdict"`
	Confidence     string    `db:"confidence" json:"confidence"`
	Reason         string    `db:"reason" json:"reason"`
	ConsistentPart string    `db:"consistent_part" json:"consistent_part"`
	CorrectedText  string    `db:"corrected_text" json:"corrected_text"`
	CheckQuestion  string    `db:"check_question" json:"check_question"`
	CheckAnswer    string    `db:"check_answer" json:"check_answer"`
	Citations      []int     `db:"citations" json:"citations"`
	CitationURLs   []string  `db:"citation_urls" json:"citation_urls"`
	FinishedAt     time.Time `db:"finished_at" json:"finished_at"`
	// StandingVerdict is the verdict that stands (an editor's approval or override, else the
	// machine's) and StandingSource whose it is: editor or machine.
	StandingVerdict string `db:"standing_verdict" json:"standing_verdict"`
	StandingSource  string `db:"standing_source" json:"standing_source"`
}

const claimColumns = `cr.statement_id, coalesce(cr.external_id, '') AS external_id, cr.run_id, cr.job_id, cr.method,
	coalesce(cr.model, '') AS model, cr.position, coalesce(cr.claim_key, '') AS claim_key, cr.claim_text,
	coalesce(cr.span_text, '') AS span_text, coalesce(cr.tier, '') AS tier, cr.verdict,
	coalesce(cr.variant_verdict, '') AS variant_verdict, coalesce(cr.confidence, '') AS confidence,
	coalesce(cr.reason, '') AS reason, coalesce(cr.consistent_part, '') AS consistent_part,
	coalesce(cr.corrected_text, '') AS corrected_text, coalesce(cr.check_question, '') AS check_question,
	coalesce(cr.check_answer, '') AS check_answer, cr.citations, cr.citation_urls, cr.finished_at,
	cr.standing_verdict, cr.standing_source`

func (f ReportFilter) claimQuery(selectList, order string) (string, []any) {
	var c conds
	f.statementConds(&c)
	if f.Verdict != "" {
		c.add("cr.verdict = ?", f.Verdict)
	}
	q := "SELECT " + selectList + " FROM claim_results cr JOIN statement_results sr ON sr.run_id = cr.run_id " + c.where()
	if order != "" {
		q += " ORDER BY " + order + f.page()
	}
	return q, c.args
}

// CountClaims counts the claims f selects.
func (s *Store) CountClaims(ctx context.Context, f ReportFilter) (int, error) {
	q, args := f.claimQuery("count(*)", "")
	return s.count(ctx, "claims", q, args)
}

// EachClaim calls fn with every claim f selects, newest run first, in claim order.
func (s *Store) EachClaim(ctx context.Context, f ReportFilter, fn func(ClaimRow) error) error {
	q, args := f.claimQuery(claimColumns, "cr.finished_at DESC, cr.statement_id DESC, cr.position")
	return eachRow(ctx, s, "claims", q, args, fn)
}

// EvidenceRow is one piece of evidence of a latest run, with the claim it was retrieved for.
// Cited says whether a claim of the run cites it. Its JSON form is what `report export --what
// evidence` writes.
type EvidenceRow struct {
	StatementID   int64      `db:"statement_id" json:"statement_id"`
	ExternalID    string     `db:"external_id" json:"external_id"`
	RunID         int64      `db:"run_id" json:"run_id"`
	JobID         string     `db:"job_id" json:"job_id"`
	EvidenceID    int        `db:"evidence_id" json:"evidence_id"`
	SourceNumber  *int       `db:"source_number" json:"source_number"`
	Cited         bool       `db:"cited" json:"cited"`
	ClaimPosition *int       `db:"claim_position" json:"claim_position"`
	ClaimText     string     `db:"claim_text" json:"claim_text"`
	ClaimVerdict  string     `db:"claim_verdict" json:"claim_verdict"`
	HopNumber     *int       `db:"hop_number" json:"hop_number"`
	SearchSeq     *int       `db:"search_seq" json:"search_seq"`
	URL           string     `db:"url" json:"url"`
	Title         string     `db:"title" json:"title"`
	Snippet       string     `db:"snippet" json:"snippet"`
	Quote         string     `db:"quote" json:"quote"`
	Domain        string     `db:"domain" json:"domain"`
	Publisher     string     `db:"publisher" json:"publisher"`
	PublishedAt   *time.Time `db:"published_at" json:"published_at"`
	Provider      string     `db:"provider" json:"provider"`
	Rank          *int       `db:"rank" json:"rank"`
}

const evidenceColumns = `sr.statement_id, coalesce(sr.external_id, '') AS external_id, e.run_id, sr.job_id,
	e.id AS evidence_id, e.source_number,
	EXISTS (SELECT 1 FROM claims k WHERE k.run_id = e.run_id AND e.source_number = ANY (k.citations)) AS cited,
	e.claim_position, coalesce(c.text, '') AS claim_text, coalesce(c.verdict, '') AS claim_verdict,
	e.hop_number, e.search_seq, e.url, coalesce(e.title, '') AS title, coalesce(e.snippet, '') AS snippet,
	coalesce(e.quote, '') AS quote, coalesce(e.domain, '') AS domain, coalesce(e.publisher, '') AS publisher,
	e.published_at, coalesce(e.provider, '') AS provider, e.rank`

func (f ReportFilter) evidenceQuery(selectList, order string) (string, []any) {
	var c conds
	f.statementConds(&c)
	if f.Verdict != "" {
		c.add("c.verdict = ?", f.Verdict)
	}
	q := "SELECT " + selectList + ` FROM evidence e JOIN statement_results sr ON sr.run_id = e.run_id
		LEFT JOIN claims c ON c.run_id = e.run_id AND c.position = e.claim_position ` + c.where()
	if order != "" {
		q += " ORDER BY " + order + f.page()
	}
	return q, c.args
}

// CountEvidence counts the evidence f selects.
func (s *Store) CountEvidence(ctx context.Context, f ReportFilter) (int, error) {
	q, args := f.evidenceQuery("count(*)", "")
	return s.count(ctx, "evidence", q, args)
}

// EachEvidence calls fn with every piece of evidence f selects, newest run first, in evidence
// order.
func (s *Store) EachEvidence(ctx context.Context, f ReportFilter, fn func(EvidenceRow) error) error {
	q, args := f.evidenceQuery(evidenceColumns, "sr.finished_at DESC, sr.statement_id DESC, e.id")
	return eachRow(ctx, s, "evidence", q, args, fn)
}

// VerdictChange is one row of verdict_changes: a claim whose verdict the new run changed.
type VerdictChange struct {
	StatementID     int64     `db:"statement_id" json:"statement_id"`
	ExternalID      string    `db:"external_id" json:"external_id"`
	ClaimText       string    `db:"claim_text" json:"claim_text"`
	OldVerdict      string    `db:"old_verdict" json:"old_verdict"`
	NewVerdict      string    `db:"new_verdict" json:"new_verdict"`
	OldRunID        int64     `db:"old_run_id" json:"old_run_id"`
	NewRunID        int64     `db:"new_run_id" json:"new_run_id"`
	ChangedAt       time.Time `db:"changed_at" json:"changed_at"`
	NewReason       string    `db:"new_reason" json:"new_reason"`
	OldReason       string    `db:"old_reason" json:"old_reason"`
	OldFinishedAt   time.Time `db:"old_finished_at" json:"old_finished_at"`
	Reverify        bool      `db:"reverify" json:"reverify"`
	OldMethod       string    `db:"old_method" json:"old_method"`
	NewMethod       string    `db:"new_method" json:"new_method"`
	OldConfidence   string    `db:"old_confidence" json:"old_confidence"`
	NewConfidence   string    `db:"new_confidence" json:"new_confidence"`
	OldCitationURLs []string  `db:"old_citation_urls" json:"old_citation_urls"`
	NewCitationURLs []string  `db:"new_citation_urls" json:"new_citation_urls"`
	NewCheckQ       string    `db:"new_check_question" json:"new_check_question"`
	NewCheckA       string    `db:"new_check_answer" json:"new_check_answer"`
	NewPosition     int       `db:"new_position" json:"new_position"`
}

const verdictChangeColumns = `vc.statement_id, coalesce(vc.external_id, '') AS external_id, vc.claim_text,
	vc.old_verdict, vc.new_verdict, vc.old_run_id, vc.new_run_id, vc.changed_at,
	coalesce(vc.new_reason, '') AS new_reason, coalesce(vc.old_reason, '') AS old_reason, vc.old_finished_at,
	vc.reverify, vc.old_method, vc.new_method, coalesce(vc.old_confidence, '') AS old_confidence,
	coalesce(vc.new_confidence, '') AS new_confidence, vc.old_citation_urls, vc.new_citation_urls,
	coalesce(vc.new_check_question, '') AS new_check_question, coalesce(vc.new_check_answer, '') AS new_check_answer,
	vc.new_position`

// VerdictChanges returns the verdict changes f selects (Since, Until on changed_at;
// ExternalIDPrefix; Verdict as the new verdict), newest first.
func (s *Store) VerdictChanges(ctx context.Context, f ReportFilter) ([]VerdictChange, error) {
	var c conds
	if !f.Since.IsZero() {
		c.add("vc.changed_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		c.add("vc.changed_at < ?", f.Until)
	}
	if f.ExternalIDPrefix != "" {
		c.add("starts_with(coalesce(vc.external_id, ''), ?)", f.ExternalIDPrefix)
	}
	if f.Verdict != "" {
		c.add("vc.new_verdict = ?", f.Verdict)
	}
	if f.Method != "" {
		c.add("vc.new_method = ?", f.Method)
	}
	q := "SELECT " + verdictChangeColumns + " FROM verdict_changes vc " + c.where() +
		" ORDER BY vc.changed_at DESC, vc.statement_id, vc.new_position" + f.page()
	return queryAll[VerdictChange](ctx, s, "verdict changes", q, c.args...)
}
