package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corroborate/corroborate/internal/jobs"
)

func TestOutageReason(t *testing.T) {
	t.Parallel()
	pg := func(code string) error { return fmt.Errorf("store: saving run: %w", &pgconn.PgError{Code: code}) }
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{pg("53100"), OutageDiskFull},
		{pg("53300"), OutageResources},
		{pg("25006"), OutageReadOnly},
		{pg("57P01"), OutageShutdown},
		{pg("57P03"), OutageShutdown},
		{pg("08006"), OutageUnreachable},
		{pg("58030"), OutageIOError},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), OutageUnreachable},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), OutageUnreachable},
		{fmt.Errorf("write: %w", context.DeadlineExceeded), OutageTimeout},
		// The job's own failures and the worker's own shutdown are not outages.
		{pg("23505"), ""},
		{pg("42P01"), ""},
		{pg("22P02"), ""},
		{fmt.Errorf("shutdown: %w", context.Canceled), ""},
		{errors.New("a run without a statement"), ""},
	} {
		if got := OutageReason(tt.err); got != tt.want {
			t.Errorf("OutageReason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// HeldReason and JobResult.Held are one vocabulary: what the worker records of a held attempt is
// read back as held, with its reason, only while the job has no outcome.
func TestHeldReasonReadsBack(t *testing.T) {
	t.Parallel()
	reason := HeldReason(3, "the database is unavailable (disk_full), the job runs again when it stores: held: no space")
	other := "attempt 2 failed, will retry: llm: HTTP 500"
	for _, c := range []struct {
		name   string
		status jobs.Outcome
		reason *string
		why    string
		held   bool
	}{
		{"held", MessagePending, &reason, "the database is unavailable (disk_full), the job runs again when it stores: held: no space", true},
		{"a retry", MessagePending, &other, "", false},
		{"no reason", MessagePending, nil, "", false},
		{"final", jobs.OutcomeFailed, &reason, "", false},
	} {
		why, held := JobResult{Status: c.status, Reason: c.reason}.Held()
		if why != c.why || held != c.held {
			t.Errorf("%s: Held() = %q, %v; want %q, %v", c.name, why, held, c.why, c.held)
		}
	}
}
