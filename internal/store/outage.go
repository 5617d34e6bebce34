package store

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Reasons OutageReason gives, the label of the worker's corroborate_database_breaker_open metric.
const (
	OutageUnreachable = "unreachable" // no connection: refused, reset, closed, a host that does not answer
	OutageShutdown    = "shutdown"    // the server is shutting down, starting up or in recovery
	OutageDiskFull    = "disk_full"   // no space left for the write
	OutageResources   = "resources"   // out of memory, too many connections, another resource gone
	OutageReadOnly    = "read_only"   // a standby, or a database set read-only
	OutageIOError     = "io_error"    // the server failed to read or write its files
	OutageTimeout     = "timeout"     // a write that did not finish within its own bound
)

// OutageReason names the way err shows the database unavailable, or returns "" when err is not
// the database's failure (a constraint, a bad query, a job's own context ended): a write that
// fails for the database's reasons is the database's outage, not the job's, and must not spend
// its attempts (the worker's breaker on the database holds jobs instead).
func OutageReason(err error) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return ""
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case code == "53100":
			return OutageDiskFull
		case strings.HasPrefix(code, "53"):
			return OutageResources
		case code == "25006":
			return OutageReadOnly
		case code == "57P01", code == "57P02", code == "57P03", code == "57P05":
			return OutageShutdown
		case strings.HasPrefix(code, "08"):
			return OutageUnreachable
		case strings.HasPrefix(code, "58"), code == "XX001", code == "XX002":
			return OutageIOError
		}
		return ""
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return OutageUnreachable
	case errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), errors.As(err, &netErr) && netErr.Timeout():
		return OutageTimeout
	case errors.As(err, &netErr):
		return OutageUnreachable
	case strings.Contains(err.Error(), "conn closed"), strings.Contains(err.Error(), "closed pool"):
		// pgx's own words for a connection or pool lost under the query.
		return OutageUnreachable
	}
	return ""
}

// ProbeWrite checks that the database can store again, for the worker's breaker while it is
// open: a row written into a temporary table takes a new page on disk, which a full disk refuses
// (disk_full) and a standby refuses like any write (read_only), where a ping succeeds on both and
// the breaker let jobs run whose results could not be stored. A failure that is not an outage (a
// role without the TEMP privilege, say) shows the server answered, and passes as a ping would.
func (s *Store) ProbeWrite(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	_, err = tx.Exec(ctx, `CREATE TEMPORARY TABLE corroborate_write_probe (x int) ON COMMIT DROP`)
	if err == nil {
		_, err = tx.Exec(ctx, `INSERT INTO corroborate_write_probe VALUES (1)`)
	}
	if err != nil && OutageReason(err) == "" {
		return nil
	}
	return err
}
