package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// field is one column of a row to write and its value.
type field struct {
	column string
	value  any
}

// row is a row to write, as its columns and their values side by side: each table's row function
// (runs.go) is the one list of the columns its INSERT or COPY writes.
type row []field

func (r row) columns() []string {
	names := make([]string, len(r))
	for i, f := range r {
		names[i] = f.column
	}
	return names
}

func (r row) values() []any {
	values := make([]any, len(r))
	for i, f := range r {
		values[i] = f.value
	}
	return values
}

// insert is the INSERT of r into table followed by suffix (ON CONFLICT, RETURNING), with r's
// values as named arguments. They are strict: a placeholder without a value, or a value without
// a placeholder, is an error, not a NULL.
func insert(table string, r row, suffix string) (string, pgx.StrictNamedArgs) {
	columns := r.columns()
	args := make(pgx.StrictNamedArgs, len(r))
	for _, f := range r {
		args[f.column] = f.value
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (@%s) %s",
		pgx.Identifier{table}.Sanitize(), strings.Join(columns, ", "), strings.Join(columns, ", @"), suffix)
	return q, args
}

// copyRows bulk-inserts n rows into table with COPY; row(i) is the i-th. Every row must name the
// same columns in the same order.
func copyRows(ctx context.Context, tx pgx.Tx, table string, n int, row func(i int) row) error {
	if n == 0 {
		return nil
	}
	columns := row(0).columns()
	_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromSlice(n, func(i int) ([]any, error) {
		r := row(i)
		if !slices.Equal(r.columns(), columns) {
			return nil, fmt.Errorf("row %d names columns %v, not those of the first row %v", i, r.columns(), columns)
		}
		return r.values(), nil
	}))
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}
