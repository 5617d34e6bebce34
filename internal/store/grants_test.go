package store_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// roleSession creates a login role with GrantSQL's privileges for role and returns a pool that
// works as it, in the store tests' schema.
func roleSession(t *testing.T, s *store.Store, role store.Role) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	dbRole := fmt.Sprintf("test_%s_role_%d", role, os.Getpid())
	sql, err := store.GrantSQL("test_store", dbRole, role)
	if err != nil {
		t.Fatal(err)
	}
	admin := s.Pool()
	if _, err := admin.Exec(ctx, fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE IF EXISTS %[1]s", dbRole)); err != nil {
		if _, err := admin.Exec(ctx, fmt.Sprintf("DROP ROLE IF EXISTS %s", dbRole)); err != nil {
			t.Logf("dropping an old %s: %v", dbRole, err)
		}
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN", dbRole)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), fmt.Sprintf("DROP OWNED BY %[1]s; DROP ROLE IF EXISTS %[1]s", dbRole))
	})
	if _, err := admin.Exec(ctx, sql); err != nil {
		t.Fatalf("granting: %v\n%s", err, sql)
	}
	u, err := url.Parse(testenv.SchemaURL(t, "store"))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(dbRole)
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// refused runs each statement as pool and fails the test for any that PostgreSQL allows.
func refused(t *testing.T, pool *pgxpool.Pool, role store.Role, statements ...string) {
	t.Helper()
	for _, sql := range statements {
		_, err := pool.Exec(context.Background(), sql)
		if err == nil {
			t.Errorf("the %s role could run %q", role, sql)
		} else if !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("the %s role's %q failed, but not for want of a privilege: %v", role, sql, err)
		}
	}
}

// The roles run in one subtest each, one at a time: they grant on one schema.
func TestRolesHaveLeastPrivilege(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	rec := sampleRecord(newJobID(t))
	first, err := s.SaveRun(ctx, rec)
	if err != nil {
		t.Fatal(err)
	}

	// A worker does its whole job: the migrations check (no DDL left to run), saving runs and
	// outcomes, reading them back; and it can change nothing that a run recorded.
	t.Run("worker", func(t *testing.T) {
		pool := roleSession(t, s, store.RoleWorker)
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
		again := rec.Delivery
		again.StreamSeq++
		if _, err := worker.MarkDuplicate(ctx, again, saved.RunID); err != nil {
			t.Fatalf("recording a duplicate as the worker role: %v", err)
		}
		l := store.Lease{JobID: newJobID(t), Token: "t", TTL: time.Minute}
		if taken, _, err := worker.TakeLease(ctx, l); err != nil || !taken {
			t.Fatalf("taking a lease as the worker role: %v, %v", taken, err)
		}
		if still, err := worker.RenewLease(ctx, l); err != nil || !still {
			t.Fatalf("renewing a lease as the worker role: %v, %v", still, err)
		}
		if err := worker.ReleaseLease(ctx, l); err != nil {
			t.Fatalf("releasing a lease as the worker role: %v", err)
		}
		if _, err := worker.RecentJointAgreement(ctx, "gpt-4o-mini", 50); err != nil {
			t.Fatalf("reading the joint agreement as the worker role: %v", err)
		}
		refused(t, pool, store.RoleWorker,
			`UPDATE claims SET verdict = 'supported'`,
			`UPDATE runs SET revised_text = 'rewritten'`,
			`UPDATE evidence SET quote = 'forged'`,
			`DELETE FROM runs`,
			`INSERT INTO documents (url, title, body) VALUES ('https://x.example/a', 'x', 'x')`,
			`UPDATE documents SET body = 'x'`,
			`INSERT INTO model_prices (model, prompt_per_million, completion_per_million) VALUES ('m', 1, 1)`,
			`UPDATE goose_db_version SET is_applied = false`,
			`CREATE TABLE intruder (id int)`,
		)
	})

	t.Run("corpus", func(t *testing.T) {
		pool := roleSession(t, s, store.RoleCorpus)
		url := fmt.Sprintf("https://corpus.example/%s", newJobID(t))
		if _, err := pool.Exec(ctx, `INSERT INTO documents (url, title, body, domain) VALUES ($1, 'A title', 'A body of words', 'corpus.example')`, url); err != nil {
			t.Fatalf("loading a document as the corpus role: %v", err)
		}
		if _, err := pool.Exec(ctx, `UPDATE documents SET body = 'Another body' WHERE url = $1`, url); err != nil {
			t.Fatalf("updating a document as the corpus role: %v", err)
		}
		if _, err := pool.Exec(ctx, `DELETE FROM documents WHERE url = $1`, url); err != nil {
			t.Fatalf("deleting a document as the corpus role: %v", err)
		}
		refused(t, pool, store.RoleCorpus,
			`SELECT count(*) FROM runs`,
			`INSERT INTO messages (job_id, stream, stream_seq, subject, status) VALUES ('x', 's', 1, 's', 'done')`,
			`UPDATE claims SET verdict = 'supported'`,
			`DELETE FROM search_cache`,
			`CREATE TABLE intruder (id int)`,
		)
	})

	t.Run("report", func(t *testing.T) {
		pool := roleSession(t, s, store.RoleReport)
		var n int
		for _, view := range []string{"statement_results", "claim_results", "verdict_changes", "job_outcomes", "usage_per_day"} {
			if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+view).Scan(&n); err != nil {
				t.Errorf("reading %s as the report role: %v", view, err)
			}
		}
		// The one write of the review page: an editor's decision, appended.
		if _, err := store.New(pool).Decide(ctx, store.Decision{Editor: "ed", RunID: first.RunID, Position: 1, Kind: store.DecisionApprove}); err != nil {
			t.Fatalf("recording a decision as the report role: %v", err)
		}
		refused(t, pool, store.RoleReport,
			`UPDATE editor_decisions SET verdict = 'refuted'`,
			`DELETE FROM editor_decisions`,
			`INSERT INTO editor_accounts (name, password_hash) VALUES ('intruder', 'x')`,
			`UPDATE editor_accounts SET password_hash = 'x'`,
			`INSERT INTO statements (content_key) VALUES ('x')`,
			`UPDATE claims SET verdict = 'supported'`,
			`UPDATE runs SET revised_text = 'rewritten'`,
			`INSERT INTO model_prices (model, prompt_per_million, completion_per_million) VALUES ('m', 1, 1)`,
			`DELETE FROM messages`,
			`INSERT INTO documents (url) VALUES ('https://x.example/b')`,
			`CREATE TABLE intruder (id int)`,
		)
	})
}

// Every table the migrations create has its privileges said in GrantSQL, so that a new table
// is given to no role by default and to every role only deliberately.
func TestEveryTableHasItsPrivileges(t *testing.T) {
	t.Parallel()
	s := setup(t)
	rows, err := s.Pool().Query(context.Background(), `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if known := store.ClassifiedTables(); !slices.Equal(tables, known) {
		t.Errorf("the schema's tables %v\nGrantSQL's tables      %v\nlist every new table in internal/store/grants.go with what each role may do", tables, known)
	}
}

func TestGrantSQLRefusesWhatIsNotAnIdentifierOrARole(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		schema, role string
		for_         store.Role
	}{
		{"public; DROP TABLE runs", "w", store.RoleWorker},
		{"public", "Worker", store.RoleWorker},
		{"public", "w", "admin"},
	} {
		if _, err := store.GrantSQL(tt.schema, tt.role, tt.for_); err == nil {
			t.Errorf("GrantSQL(%q, %q, %q) is no error", tt.schema, tt.role, tt.for_)
		}
	}
}
