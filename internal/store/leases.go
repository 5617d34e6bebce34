package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lease is one holding of a job's lease (the job_leases table): while it is held, no other
// delivery of the job runs it. Expiry is counted by the database's clock.
type Lease struct {
	JobID string
	// Token names this holding; only the holder with the same token renews or releases it.
	Token string
	// Worker and StreamSeq say who holds it, for the logs of those who wait and for operators.
	Worker    string
	StreamSeq uint64
	// TTL is how long the lease lasts without a renewal.
	TTL time.Duration
}

// LeaseHolder is who holds a job's lease, as a delivery that could not take it sees it.
type LeaseHolder struct {
	Worker    string
	StreamSeq uint64
	Expires   time.Time
}

// TakeLease takes the job's lease for l.TTL when nobody holds it or its holding has lapsed, and
// reports whether it did; when it did not, holder is who holds it.
func (s *Store) TakeLease(ctx context.Context, l Lease) (taken bool, holder LeaseHolder, err error) {
	var token string
	var worker *string
	var seq *int64
	err = s.pool.QueryRow(ctx, `
		INSERT INTO job_leases AS l (job_id, token, worker, stream_seq, expires_at)
		VALUES ($1, $2, NULLIF($3, ''), $4, now() + $5 * interval '1 millisecond')
		ON CONFLICT (job_id) DO UPDATE SET
			token = EXCLUDED.token, worker = EXCLUDED.worker, stream_seq = EXCLUDED.stream_seq,
			taken_at = now(), expires_at = EXCLUDED.expires_at
		WHERE l.expires_at <= now()
		RETURNING token`,
		l.JobID, l.Token, l.Worker, int64(l.StreamSeq), l.TTL.Milliseconds()).Scan(&token)
	if err == nil {
		return true, LeaseHolder{}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, LeaseHolder{}, fmt.Errorf("store: taking the lease of job %s: %w", l.JobID, err)
	}
	// Held by another: say by whom. It may have been released in between (no row): then the
	// next attempt takes it.
	err = s.pool.QueryRow(ctx, `SELECT worker, stream_seq, expires_at FROM job_leases WHERE job_id = $1`, l.JobID).
		Scan(&worker, &seq, &holder.Expires)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return false, LeaseHolder{}, fmt.Errorf("store: reading the lease of job %s: %w", l.JobID, err)
	}
	if worker != nil {
		holder.Worker = *worker
	}
	if seq != nil {
		holder.StreamSeq = uint64(*seq)
	}
	return false, holder, nil
}

// RenewLease extends a held lease by l.TTL from now, and reports whether it was still this
// holder's (false: it lapsed and another delivery took it).
func (s *Store) RenewLease(ctx context.Context, l Lease) (bool, error) {
	tag, err := s.pool.Exec(ctx, `
		UPDATE job_leases SET expires_at = now() + $3 * interval '1 millisecond'
		WHERE job_id = $1 AND token = $2`, l.JobID, l.Token, l.TTL.Milliseconds())
	if err != nil {
		return false, fmt.Errorf("store: renewing the lease of job %s: %w", l.JobID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// ReleaseLease gives a lease back; a lease that lapsed and was taken by another is left to it.
func (s *Store) ReleaseLease(ctx context.Context, l Lease) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM job_leases WHERE job_id = $1 AND token = $2`, l.JobID, l.Token); err != nil {
		return fmt.Errorf("store: releasing the lease of job %s: %w", l.JobID, err)
	}
	return nil
}
