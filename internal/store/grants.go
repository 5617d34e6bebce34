package store

import (
	"fmt"
	"regexp"
)

var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// GrantSQL returns the statements that give role what a worker needs after the migrations, and
// nothing more: no DDL, no DELETE but on the search cache (which expires its own rows), no
// access to other schemas. Run `worker migrate` as the owner of the schema, then the workers as
// role. `worker grants --role NAME` prints it.
func GrantSQL(schema, role string) (string, error) {
	if !identifier.MatchString(schema) || !identifier.MatchString(role) {
		return "", fmt.Errorf("schema %q and role %q must be lower-case SQL identifiers", schema, role)
	}
	return fmt.Sprintf(`-- Least privilege for Corroborate workers: run as the owner of schema %[1]s, after the migrations.
GRANT USAGE ON SCHEMA %[1]s TO %[2]s;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA %[1]s TO %[2]s;
GRANT DELETE ON %[1]s.search_cache TO %[2]s;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %[1]s TO %[2]s;
-- Tables a later migration adds need the same grants: re-run this after upgrading.
`, schema, role), nil
}
