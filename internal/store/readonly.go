package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// OpenReadOnly connects to PostgreSQL with a pool whose every transaction is read-only
// (default_transaction_read_only): a reader such as the review page cannot change a result
// even by mistake. It applies no migrations: a read-only session cannot.
func OpenReadOnly(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URL == "" {
		return nil, errors.New("store: no database URL: set DATABASE_URL (for example postgres://user@localhost:5432/corroborate)")
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL is not a valid PostgreSQL URL: %w", err)
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	pc.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("opening the pool: %w", err)
	}
	return New(pool), nil
}
