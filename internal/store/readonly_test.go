package store_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

func TestOpenReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	setup(t) // migrated, so that model_prices exists
	ro, err := store.OpenReadOnly(context.Background(), store.Config{URL: testenv.SchemaURL(t, "store"), MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var n int
	if err := ro.Pool().QueryRow(context.Background(), `SELECT count(*) FROM model_prices`).Scan(&n); err != nil {
		t.Fatalf("a read: %v", err)
	}
	if _, err := ro.Pool().Exec(context.Background(), `DELETE FROM model_prices`); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write through a read-only store: %v", err)
	}
}

func TestOpenWithSearchPath(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), store.Config{URL: testenv.DatabaseURL(t), MaxConns: 1, SearchPath: "pg_catalog"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var path string
	if err := st.Pool().QueryRow(context.Background(), `SHOW search_path`).Scan(&path); err != nil || path != "pg_catalog" {
		t.Fatalf("search_path %q (%v), want pg_catalog", path, err)
	}
}

// A database that does not exist, or a role PostgreSQL refuses, is said as such, with what to
// do, not as a server that cannot be reached.
func TestOpenSaysWhatIsWrongWithTheDatabase(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(testenv.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	missing := *u
	missing.Path = "/corroborate_no_such_database"
	_, err = store.Open(context.Background(), store.Config{URL: missing.String(), MaxConns: 1})
	if err == nil || !strings.Contains(err.Error(), `database "corroborate_no_such_database" does not exist`) || !strings.Contains(err.Error(), "createdb corroborate_no_such_database") {
		t.Errorf("a missing database: %v", err)
	}
	refused := *u
	refused.User = url.UserPassword("corroborate_no_such_role", "x")
	_, err = store.Open(context.Background(), store.Config{URL: refused.String(), MaxConns: 1})
	if err == nil || strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("a refused role: %v; want it said as a refused role, not an unreachable server", err)
	}
}

// The database breaker's probe fails where runs cannot be stored although the server answers
// (a read-only database here; a full disk in cmd/worker's TestFullDiskLosesNothing), and passes
// where they can.
func TestProbeWriteSeesADatabaseThatCannotStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if err := setup(t).ProbeWrite(ctx); err != nil {
		t.Fatalf("the probe of a writable database: %v", err)
	}
	ro, err := store.OpenReadOnly(ctx, store.Config{URL: testenv.SchemaURL(t, "store"), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = ro.ProbeWrite(ctx)
	if reason := store.OutageReason(err); reason != store.OutageReadOnly {
		t.Fatalf("the probe of a read-only database: %v (outage %q), want a read_only outage", err, reason)
	}
}
