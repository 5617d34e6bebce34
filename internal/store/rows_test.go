package store

import (
	"context"
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/testenv"
)

// Each table SaveRun writes has one row function; it must name every column of the table but
// those the database fills in itself (ids, creation times), so that a column a migration adds
// cannot be forgotten by the code that writes the table.
func TestRowsNameEveryColumnOfTheirTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := New(testenv.Postgres(t, "store_rows"))
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	filledByTheDatabase := map[string][]string{
		"statements": {"id", "created_at"},
		"runs":       {"id"},
		"messages":   {"id"},
	}
	for table, r := range map[string]row{
		"statements":        statementRow(Statement{}),
		"runs":              runRow(RunRecord{}, 0, &pipeline.Result{}),
		"checks":            checkRow(0, pipeline.Check{}),
		"claims":            claimRow(0, pipeline.Claim{}),
		"search_calls":      searchCallRow(0, pipeline.SearchCall{}),
		"evidence":          evidenceRow(0, 0, pipeline.Evidence{}),
		"query_hops":        hopRow(0, pipeline.Hop{}),
		"cross_validations": crossValidationRow(0, pipeline.CrossValidation{}),
		"model_calls":       modelCallRow(0, pipeline.ModelCall{}),
		"messages":          messageRow(Delivery{}, MessagePending, "", nil, 0, nil),
	} {
		rows, err := s.pool.Query(ctx, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name <> ALL (coalesce($2, ARRAY[]::text[]))
			ORDER BY column_name`, table, filledByTheDatabase[table])
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			want = append(want, name)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(slices.Values(r.columns()))
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: the row writes %q, the table has %q", table, got, want)
		}
	}
}
