// Package testenv gives tests the real PostgreSQL and NATS: the ones named by DATABASE_URL and
// NATS_URL, else the machine's own on their standard loopback ports, else throwaway ones started
// for this test process (see internal/devenv). Each test package works in a PostgreSQL schema of
// its own, so that packages can run in parallel.
package testenv

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"

	"github.com/corroborate/corroborate/internal/devenv"
)

const (
	defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	defaultNATSURL     = "nats://127.0.0.1:4222"
)

var (
	natsOnce sync.Once
	natsURL  string
	natsErr  error

	pgOnce sync.Once
	pgURL  string
	pgErr  error

	schemasMu sync.Mutex
	schemas   = map[string]bool{}
)

// NATSURL returns the URL of a NATS server with JetStream for tests.
func NATSURL(t testing.TB) string {
	t.Helper()
	natsOnce.Do(func() {
		natsURL = os.Getenv("NATS_URL")
		if natsURL == "" {
			natsURL = defaultNATSURL
			if reachable(natsURL) {
				return
			}
			dir, err := os.MkdirTemp("", "corroborate-test-nats-")
			if err != nil {
				natsErr = err
				return
			}
			ns, err := devenv.StartNATS(dir, 0)
			if err != nil {
				natsErr = err
				return
			}
			natsURL = ns.URL
		}
	})
	if natsErr != nil {
		t.Fatalf("no NATS for tests: %v", natsErr)
	}
	return natsURL
}

// NATS connects to the test NATS server; the connection closes when the test ends.
func NATS(t testing.TB) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(NATSURL(t), nats.Name(t.Name()))
	if err != nil {
		t.Fatalf("connecting to NATS at %s: %v", NATSURL(t), err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// DatabaseURL returns the URL of a PostgreSQL database for tests.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	pgOnce.Do(func() {
		pgURL = os.Getenv("DATABASE_URL")
		if pgURL == "" {
			pgURL = defaultDatabaseURL
			if reachable(pgURL) {
				return
			}
			dir, err := os.MkdirTemp("", "corroborate-test-pg-")
			if err != nil {
				pgErr = err
				return
			}
			pg, err := devenv.StartPostgres(context.Background(), dir)
			if err != nil {
				pgErr = err
				return
			}
			pgURL = pg.URL
		}
	})
	if pgErr != nil {
		t.Fatalf("no PostgreSQL for tests: %v", pgErr)
	}
	return pgURL
}

var schemaName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// SchemaURL returns a database URL whose search_path is the schema "test_<name>", created empty
// the first time this process asks for it. name is the test package's name.
func SchemaURL(t testing.TB, name string) string {
	t.Helper()
	if !schemaName.MatchString(name) {
		t.Fatalf("testenv: schema name %q must be lower-case letters, digits and _", name)
	}
	schema := "test_" + name
	base := DatabaseURL(t)
	schemasMu.Lock()
	defer schemasMu.Unlock()
	if !schemas[schema] {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Fatalf("connecting to PostgreSQL at %s: %v", base, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, fmt.Sprintf("DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema)); err != nil {
			t.Fatalf("creating schema %s: %v", schema, err)
		}
		schemas[schema] = true
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parsing DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Postgres returns a pool working in the package's own schema (see SchemaURL), closed when the
// test ends.
func Postgres(t testing.TB, name string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), SchemaURL(t, name))
	if err != nil {
		t.Fatalf("opening a pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// reachable reports whether something listens at the URL's host and port.
func reachable(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
