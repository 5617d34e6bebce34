package main

import (
	"time"

	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/worker"
)

// claimLookup wires the store's claim reuse (issue 16, item 4) into the executor.
func claimLookup(s *store.Store) func(jobID string, within time.Duration) worker.ClaimLookup {
	return func(jobID string, within time.Duration) worker.ClaimLookup { return s.ClaimReuse(jobID, within) }
}
