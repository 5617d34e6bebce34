// Package store is Corroborate's PostgreSQL room: the connection pool, the schema migrations
// (goose, under an advisory lock so that many workers may start at once), writing a whole run in
// one transaction, and the reads that reports, `enqueue --wait` and re-verification need.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/corroborate/corroborate/migrations"
)

// Store is the PostgreSQL store. Its zero value is not usable: call Open.
type Store struct {
	pool *pgxpool.Pool
}

// Config of the store's connection pool.
type Config struct {
	// URL is a PostgreSQL connection URL (DATABASE_URL).
	URL string
	// MaxConns bounds the pool; 0 keeps pgx's default (max(4, CPUs)).
	MaxConns int32
	// SearchPath, when set, is the schema every statement works in (a scratch schema of an
	// evaluation, for instance); empty keeps the URL's own.
	SearchPath string
}

// Open connects to PostgreSQL and checks the connection.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URL == "" {
		return nil, errors.New("store: no database URL: set DATABASE_URL (for example postgres://user@localhost:5432/corroborate)")
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("store: DATABASE_URL is not a valid PostgreSQL URL: %w", err)
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	if cfg.SearchPath != "" {
		pc.ConnConfig.RuntimeParams["search_path"] = cfg.SearchPath
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("store: opening the pool: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: %w", connectError(pc.ConnConfig.Host, pc.ConnConfig.Port, pc.ConnConfig.Database, pc.ConnConfig.User, err))
	}
	return &Store{pool: pool}, nil
}

// New wraps an existing pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Pool returns the underlying pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// OpenMigrated opens the store and applies the pending migrations, so that the reporting views
// exist: what a command that reads or writes them needs before a worker has ever started.
func OpenMigrated(ctx context.Context, cfg Config) (*Store, error) {
	st, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// Migrate applies every pending migration. A PostgreSQL advisory session lock serialises
// concurrent callers: one migrates, the others wait for it and then find nothing to do.
func (s *Store) Migrate(ctx context.Context) ([]string, error) {
	db := stdlib.OpenDBFromPool(s.pool)
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("store: migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return nil, fmt.Errorf("store: loading migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: applying migrations: %w", err)
	}
	var applied []string
	for _, r := range results {
		applied = append(applied, r.Source.Path)
	}
	return applied, nil
}

// connectError says why a connection to PostgreSQL failed in the words of what to do: a database
// that does not exist or a refused role is not an unreachable server.
func connectError(host string, port uint16, database, user string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("database %q does not exist on PostgreSQL at %s:%d: create it (createdb %s) or fix the database name in DATABASE_URL: %w", database, host, port, database, err)
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("PostgreSQL at %s:%d refused role %q: check the user and password in DATABASE_URL: %w", host, port, user, err)
		}
	}
	return fmt.Errorf("cannot reach PostgreSQL at %s:%d (is it running? is DATABASE_URL right?): %w", host, port, err)
}
