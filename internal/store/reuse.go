package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// A claim checked once (issue 16, item 4): the stored side of pipeline.VerifiedClaims. A run
// writes each reusable claim's key (claims.reuse_key, reuse_context); a later job finds it there,
// within its freshness window, by the same key or as the same claim reworded
// (evidence.SameClaim). A claim being verified by a running job holds a lease (claim_leases), so
// that another job with the same claim waits for that verification instead of paying for it too.

// Defaults of a ClaimReuse.
const (
	// DefaultLeaseTTL bounds how long a job holds a claim's lease without storing its run, and so
	// how long another job waits for it: a worker that died frees its claims after it.
	DefaultLeaseTTL = 10 * time.Minute
	// defaultLeasePoll is how often a waiting job looks again.
	defaultLeasePoll = 250 * time.Millisecond
	// maxSameClaimCandidates bounds the claims of the window, with the same content words,
	// compared with a new claim that has no exact match, most recent first.
	maxSameClaimCandidates = 100
)

// ClaimReuse is one job's pipeline.VerifiedClaims: it finds claims verified within Within, and
// holds the leases of the claims the job verifies itself until Release (called once the job's
// run is stored, or failed). Make one per job with Store.ClaimReuse.
type ClaimReuse struct {
	store  *Store
	jobID  string
	within time.Duration
	// LeaseTTL and Poll: DefaultLeaseTTL and defaultLeasePoll unless set.
	LeaseTTL, Poll time.Duration

	mu   sync.Mutex
	held int
}

var _ pipeline.VerifiedClaims = (*ClaimReuse)(nil)

// ClaimReuse returns the claim lookup of one job: verifications finished within the window are
// reused. A window of 0 or less means no reuse: the caller passes a nil pipeline.VerifiedClaims.
func (s *Store) ClaimReuse(jobID string, within time.Duration) *ClaimReuse {
	return &ClaimReuse{store: s, jobID: jobID, within: within, LeaseTTL: DefaultLeaseTTL, Poll: defaultLeasePoll}
}

// Verified returns a stored verification of the claim, or nil when the job is to verify it: then
// the job holds the claim's lease. When another job holds it, Verified waits until that job's run
// is stored (and reuses its verdict) or its lease expires. A job that already holds a lease does
// not wait: two jobs each waiting for a claim of the other would wait for each other.
func (c *ClaimReuse) Verified(ctx context.Context, q pipeline.ClaimQuery) (*pipeline.VerifiedClaim, error) {
	if q.Key == "" || q.Context == "" {
		return nil, nil
	}
	deadline := time.Now().Add(c.LeaseTTL)
	for {
		vc, err := c.find(ctx, q)
		if err != nil || vc != nil {
			return vc, err
		}
		took, err := c.lease(ctx, q)
		if err != nil {
			return nil, err
		}
		if took || c.holding() || time.Now().After(deadline) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(c.Poll):
		}
	}
}

func (c *ClaimReuse) holding() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held > 0
}

// lease takes the claim's lease for the job, unless another job holds one that has not expired.
// The lease is keyed by evidence.LeaseKeyOf, so that a claim and its rewording share one.
func (c *ClaimReuse) lease(ctx context.Context, q pipeline.ClaimQuery) (bool, error) {
	key := evidence.LeaseKeyOf(q.Text)
	if key == "" {
		key = q.Key
	}
	var job string
	err := c.store.pool.QueryRow(ctx, `
		INSERT INTO claim_leases (context, key, job_id, expires_at)
		VALUES ($1, $2, $3, now() + make_interval(secs => $4))
		ON CONFLICT (context, key) DO UPDATE SET job_id = EXCLUDED.job_id, expires_at = EXCLUDED.expires_at
		WHERE claim_leases.expires_at < now() OR claim_leases.job_id = EXCLUDED.job_id
		RETURNING job_id`, q.Context, key, c.jobID, c.LeaseTTL.Seconds()).Scan(&job)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("taking the lease of claim %q: %w", q.Text, err)
	}
	c.mu.Lock()
	c.held++
	c.mu.Unlock()
	return true, nil
}

// Release gives up the job's leases: call it once the job's run is stored (or will not be), so
// that the jobs waiting for its claims find them verified.
func (c *ClaimReuse) Release(ctx context.Context) error {
	if _, err := c.store.pool.Exec(ctx, `DELETE FROM claim_leases WHERE job_id = $1`, c.jobID); err != nil {
		return fmt.Errorf("releasing the claim leases of job %s: %w", c.jobID, err)
	}
	c.mu.Lock()
	c.held = 0
	c.mu.Unlock()
	return nil
}

// storedClaim is a candidate claim of the window.
type storedClaim struct {
	runID                                                           int64
	position                                                        int
	text                                                            string
	verdict, variant, reason, confidence, consistentPart, corrected *string
	citations                                                       []int32
	from                                                            pipeline.ClaimRef
}

// reusableClaims selects the claims a job may reuse: of a done run finished within the window,
// in the same context, with a verdict the evidence decided (an unverified claim is checked again:
// its evidence may have appeared since). The claim a reuse points to is the first run's.
const reusableClaims = `
	SELECT c.run_id, c.position, c.text, c.verdict, c.variant_verdict, c.reason, c.confidence,
	       c.consistent_part, c.corrected_text, c.citations,
	       coalesce(c.reused_from_run, c.run_id), coalesce(c.reused_from_position, c.position), o.job_id
	FROM claims c
	JOIN runs r ON r.id = c.run_id
	JOIN runs o ON o.id = coalesce(c.reused_from_run, c.run_id)
	WHERE c.reuse_context = $1 AND c.reuse_key IS NOT NULL
	  AND c.verdict IN ('supported', 'refuted', 'partly_supported')
	  AND r.status = 'done' AND r.finished_at >= now() - make_interval(secs => $2)`

// find returns the most recent reusable verification of the claim: by its key, else the most
// recent candidate that evidence.SameClaim takes for it. SameClaim needs the same content words,
// so the candidates are the claims with the same reuse_words (evidence.LeaseKeyOf), an index
// lookup rather than a scan of the window.
func (c *ClaimReuse) find(ctx context.Context, q pipeline.ClaimQuery) (*pipeline.VerifiedClaim, error) {
	within := c.within.Seconds()
	rows, _ := c.store.pool.Query(ctx, reusableClaims+` AND c.reuse_key = $3 ORDER BY r.finished_at DESC, c.run_id DESC LIMIT 1`,
		q.Context, within, q.Key)
	found, err := scanStoredClaims(rows)
	if err != nil {
		return nil, fmt.Errorf("looking up claim %q: %w", q.Text, err)
	}
	if len(found) == 0 {
		rows, _ := c.store.pool.Query(ctx, reusableClaims+` AND c.reuse_words = $3 ORDER BY r.finished_at DESC, c.run_id DESC LIMIT $4`,
			q.Context, within, evidence.LeaseKeyOf(q.Text), maxSameClaimCandidates)
		candidates, err := scanStoredClaims(rows)
		if err != nil {
			return nil, fmt.Errorf("looking up claims like %q: %w", q.Text, err)
		}
		for _, sc := range candidates {
			if evidence.SameClaim(q.Text, sc.text) {
				found = append(found, sc)
				break
			}
		}
	}
	if len(found) == 0 {
		return nil, nil
	}
	return c.verifiedClaim(ctx, found[0])
}

func scanStoredClaims(rows pgx.Rows) ([]storedClaim, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (storedClaim, error) {
		var sc storedClaim
		err := row.Scan(&sc.runID, &sc.position, &sc.text, &sc.verdict, &sc.variant, &sc.reason, &sc.confidence,
			&sc.consistentPart, &sc.corrected, &sc.citations, &sc.from.RunID, &sc.from.Position, &sc.from.JobID)
		return sc, err
	})
}

// verifiedClaim reads a stored claim's evidence.
func (c *ClaimReuse) verifiedClaim(ctx context.Context, sc storedClaim) (*pipeline.VerifiedClaim, error) {
	vc := &pipeline.VerifiedClaim{From: sc.from, Claim: pipeline.Claim{
		Text: sc.text, Verdict: stringOf(sc.verdict), VariantVerdict: stringOf(sc.variant), Reason: stringOf(sc.reason),
		Confidence: stringOf(sc.confidence), ConsistentPart: stringOf(sc.consistentPart), CorrectedText: stringOf(sc.corrected),
	}}
	for _, n := range sc.citations {
		vc.Claim.Citations = append(vc.Claim.Citations, int(n))
	}
	rows, _ := c.store.pool.Query(ctx, `
		SELECT coalesce(source_number, 0), coalesce(hop_number, 0), url, coalesce(title, ''), coalesce(snippet, ''),
		       coalesce(quote, ''), coalesce(stance, ''), coalesce(domain, ''), coalesce(publisher, ''), published_at,
		       coalesce(provider, ''), coalesce(rank, 0), `+pageColumnList+`
		FROM evidence WHERE run_id = $1 AND claim_position = $2 ORDER BY id`, sc.runID, sc.position)
	ev, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (pipeline.Evidence, error) {
		var e pipeline.Evidence
		var page storedPage
		err := row.Scan(append([]any{&e.SourceNumber, &e.HopNumber, &e.URL, &e.Title, &e.Snippet, &e.Quote, &e.Stance,
			&e.Domain, &e.Publisher, &e.PublishedAt, &e.Provider, &e.Rank}, page.targets()...)...)
		if err == nil {
			// A reused verdict says what its sources' pages held when they were read.
			e.Page, e.Passages, err = page.page(e.URL)
		}
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the evidence of claim %d of run %d: %w", sc.position, sc.runID, err)
	}
	vc.Evidence = ev
	// cove2 reuses its verifier's answer as well: the answered check of the claim.
	err = c.store.pool.QueryRow(ctx, `SELECT coalesce(answer, '') FROM checks WHERE run_id = $1 AND claim_position = $2 AND status = 'answered'
		ORDER BY position DESC LIMIT 1`, sc.runID, sc.position).Scan(&vc.Answer)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("reading the check of claim %d of run %d: %w", sc.position, sc.runID, err)
	}
	return vc, nil
}

// reuseWords is a reusable claim's content words, sorted (see find); NULL for another claim.
func reuseWords(c pipeline.Claim) *string {
	if c.Reuse.Key == "" {
		return nil
	}
	return nullString(evidence.LeaseKeyOf(c.Text))
}

// reusedFromRun and reusedFromPosition are a claim row's link to the claim it was reused from.
func reusedFromRun(r pipeline.ClaimReuse) *int64 {
	if r.From == nil {
		return nil
	}
	return &r.From.RunID
}

func reusedFromPosition(r pipeline.ClaimReuse) *int {
	if r.From == nil {
		return nil
	}
	return &r.From.Position
}
