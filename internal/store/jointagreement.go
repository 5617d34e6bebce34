package store

import (
	"context"
	"fmt"
)

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
