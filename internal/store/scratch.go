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
}

// CheckScratchSchemaName says what is wrong with name as a scratch schema, for commands that
// check their flags before doing any work.
func CheckScratchSchemaName(name string) error {
	if !identifier.MatchString(name) || name == "public" {
		return errors.New("a scratch schema must be lower-case letters, digits and _, and not public")
	}
	return nil
}

// NewScratchSchema drops any schema called name in the database at databaseURL and creates it
// empty. name must be a lower-case SQL identifier, and never "public".
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
	if err := execOnce(ctx, databaseURL, fmt.Sprintf("DROP SCHEMA IF EXISTS %[1]s CASCADE; CREATE SCHEMA %[1]s", name)); err != nil {
		return nil, fmt.Errorf("making schema %s: %w", name, err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return &ScratchSchema{Name: name, URL: u.String(), base: databaseURL}, nil
}

// Drop drops the schema and everything in it.
func (s *ScratchSchema) Drop(ctx context.Context) error {
	if err := execOnce(ctx, s.base, "DROP SCHEMA IF EXISTS "+s.Name+" CASCADE"); err != nil {
		return fmt.Errorf("dropping schema %s: %w", s.Name, err)
	}
	return nil
}

// execOnce runs sql on a connection of its own.
func execOnce(ctx context.Context, databaseURL, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cc, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return connectError(cc.Host, cc.Port, cc.Database, cc.User, err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
