package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
)

// ScratchSchema is a schema of its own in a database, for a measurement (the benchmark, the
// retrieval evaluations) that must not touch the data beside it: created empty, dropped by Drop.
type ScratchSchema struct {
	Name string
	// URL is the database URL with the schema as its search_path.
	URL  string
	base string
	// holder is the connection that holds the schema's advisory lock (scratchLockKey) until
	// Drop closes it, or the process ends.
	holder *pgx.Conn
}

// scratchLockKey is the advisory lock key of the scratch schema name: one run at a time holds
// it in a database (advisory locks, like schemas, are a database's own).
func scratchLockKey(name string) string { return "corroborate scratch schema " + name }

// CheckScratchSchemaName says what is wrong with name as a scratch schema, for commands that
// check their flags before doing any work.
func CheckScratchSchemaName(name string) error {
	if !identifier.MatchString(name) || name == "public" {
		return errors.New("a scratch schema must be lower-case letters, digits and _, and not public")
	}
	return nil
}

// NewScratchSchema drops any schema called name in the database at databaseURL and creates it
// empty. name must be a lower-case SQL identifier, and never "public". The schema is this run's
// until Drop: another run given the same name (two `evaluate verdicts` with the default
// --schema) is refused, since dropping it would pull the corpus from under the first run, and
// the first, ending, would drop the second's. A session advisory lock on a connection of its
// own says so, and goes with that connection when the process ends without Drop.
func NewScratchSchema(ctx context.Context, databaseURL, name string) (*ScratchSchema, error) {
	if err := CheckScratchSchemaName(name); err != nil {
		return nil, fmt.Errorf("schema %q: %w", name, err)
	}
	if databaseURL == "" {
		return nil, fmt.Errorf("no database for schema %s: set DATABASE_URL or --database-url", name)
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL is not a valid PostgreSQL URL: %w", err)
	}
	holder, err := holdScratchSchema(ctx, databaseURL, name)
	if err != nil {
		return nil, err
	}
	makeCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := holder.Exec(makeCtx, fmt.Sprintf("DROP SCHEMA IF EXISTS %[1]s CASCADE; CREATE SCHEMA %[1]s", name)); err != nil {
		holder.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("making schema %s: %w", name, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return &ScratchSchema{Name: name, URL: u.String(), base: databaseURL, holder: holder}, nil
}

// holdScratchSchema takes the advisory lock of the schema name on a connection of its own and
// returns that connection, or says that another run holds it.
func holdScratchSchema(ctx context.Context, databaseURL, name string) (*pgx.Conn, error) {
	lockCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := connectOnce(lockCtx, databaseURL)
	if err != nil {
		return nil, err
	}
	var held bool
	if err := conn.QueryRow(lockCtx, `SELECT pg_try_advisory_lock(hashtext($1))`, scratchLockKey(name)).Scan(&held); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("schema %s: taking its advisory lock: %w", name, err)
	}
	if !held {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("schema %s is in use by another run on this database (an evaluate, corpus or bench run that has not ended): give this run a schema of its own with --schema, or wait for that run to end", name)
	}
	return conn, nil
}

// Drop drops the schema and everything in it, and frees its name for another run.
func (s *ScratchSchema) Drop(ctx context.Context) error {
	defer func() {
		if s.holder != nil {
			s.holder.Close(context.WithoutCancel(ctx)) // the session's advisory lock goes with it
			s.holder = nil
		}
	}()
	if err := execOnce(ctx, s.base, "DROP SCHEMA IF EXISTS "+s.Name+" CASCADE"); err != nil {
		return fmt.Errorf("dropping schema %s: %w", s.Name, err)
	}
	return nil
}

// execOnce runs sql on a connection of its own.
func execOnce(ctx context.Context, databaseURL, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := connectOnce(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// connectOnce opens one connection to databaseURL, saying where it could not connect.
func connectOnce(ctx context.Context, databaseURL string) (*pgx.Conn, error) {
	cc, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, connectError(cc.Host, cc.Port, cc.Database, cc.User, err)
	}
	return conn, nil
}
