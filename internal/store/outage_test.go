package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
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
