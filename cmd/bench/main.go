// Command bench measures Corroborate at a model provider's rate limits, through the real stack:
// JetStream (an in-process nats-server, or NATS_URL), PostgreSQL (a throwaway cluster, or
// DATABASE_URL, in a schema of its own), worker processes built from ./cmd/worker, and a
// simulated OpenAI-compatible provider (internal/ratelimit/ratelimittest) that enforces requests
// and tokens per minute with real 429s, x-ratelimit-* headers and a latency distribution.
//
//	go run ./cmd/bench [flags]
//
// For each mode (limits configured on the workers, or none: the limiter learns them from the
// provider's headers and 429s) and each number of workers (sharing one budget through
// --shared-budget when more than one), it runs a backlog of cove-factored statements and reports
// the steady-state throughput against the bound min(RPM / calls per statement, TPM / tokens per
// statement), the share of calls answered 429, statement latency and the workers' peak memory.
// Runs without provider limits measure latency against the critical path (the sequential model
// rounds: plan, verify in parallel, revise) and the peak memory at a high concurrency.
//
// With --storm, each number of workers also runs learned through a storm: --storm-after into the
// run the provider refuses every request for --storm, with no headers and no Retry-After (or
// --storm-retry-after), and
// the bench reports how long after the storm's end the provider accepted 90% of the bound again
// (over 10 s). The header-less learning table sums up what matters when the provider sends no
// rate-limit headers (--provider-headers none): ratio to the bound, 429 share, recovery. With
// --storm-after 0 the storm begins before the workers start, so it meets their very first request,
// before anything is learned.
//
// The benchmark lives in internal/bench; this main only hands it the command line and the
// process's signals.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/corroborate/corroborate/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(bench.Run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
