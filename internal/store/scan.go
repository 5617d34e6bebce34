package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

func (s *Store) count(ctx context.Context, what, q string, args []any) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting %s: %w", what, err)
	}
	return n, nil
}

// eachRow runs q and calls fn with each row scanned into T by column name; an error from fn
// stops the read and is returned as it is.
func eachRow[T any](ctx context.Context, s *Store, what, q string, args []any, fn func(T) error) error {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: reading %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := pgx.RowToStructByName[T](rows)
		if err != nil {
			return fmt.Errorf("store: reading %s: %w", what, err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: reading %s: %w", what, err)
	}
	return nil
}

func collect[T any](each func(func(T) error) error) ([]T, error) {
	var out []T
	err := each(func(v T) error { out = append(out, v); return nil })
	return out, err
}

func queryAll[T any](ctx context.Context, s *Store, what, q string, args ...any) ([]T, error) {
	return collect(func(fn func(T) error) error { return eachRow(ctx, s, what, q, args, fn) })
}
