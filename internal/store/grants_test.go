package store_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// A role with only GrantSQL's privileges can do a worker's whole job: the migrations check (no
// DDL left to run), saving runs and outcomes, and reading them back; and it cannot change the
// schema.
func TestWorkerRunsWithLeastPrivilege(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	role := fmt.Sprintf("test_worker_role_%d", os.Getpid())
	sql, err := store.GrantSQL("test_store", role)
	if err != nil {
		t.Fatal(err)
	}
	admin := s.Pool()
	if _, err := admin.Exec(ctx, fmt.Sprintf("DROP ROLE IF EXISTS %[1]s; CREATE ROLE %[1]s LOGIN", role)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE IF EXISTS %[1]s", role))
	})
	if _, err := admin.Exec(ctx, sql); err != nil {
		t.Fatalf("granting: %v\n%s", err, sql)
	}

	u, err := url.Parse(testenv.SchemaURL(t, "store"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	worker := store.New(pool)
	if _, err := worker.Migrate(ctx); err != nil {
		t.Fatalf("the migrations check as the worker role: %v", err)
	}
	rec := sampleRecord(newJobID(t))
	saved, err := worker.SaveRun(ctx, rec)
	if err != nil {
		t.Fatalf("saving a run as the worker role: %v", err)
	}
	if _, found, err := worker.StoredRun(ctx, rec.Delivery.JobID); err != nil || !found {
		t.Fatalf("reading it back: found %v, %v", found, err)
	}
	if err := worker.MarkDone(ctx, rec.Delivery, saved.RunID, "again"); err != nil {
		t.Fatalf("updating an outcome as the worker role: %v", err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE intruder (id int)`); err == nil {
		t.Fatal("the worker role could create a table")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM runs`); err == nil {
		t.Fatal("the worker role could delete runs")
	}
}
