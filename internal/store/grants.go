package store

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// A Role is one of the database roles Corroborate's programs run as, each with only what its
// program does. The migrating role is not among them: it owns the schema (run `worker migrate`
// as the owner), and the others get their privileges from it with GrantSQL.
type Role string

const (
	// RoleWorker runs jobs: it appends runs and their records, and updates only the rows that
	// follow a job (statements, messages and their attempts) and the search cache.
	RoleWorker Role = "worker"
	// RoleCorpus loads a newsroom's archive into the search corpus.
	RoleCorpus Role = "corpus"
	// RoleReport reads: reports, exports and the review page; the one thing it writes is an
	// editor's decision (editor_decisions, append-only), from the signed-in review page.
	RoleReport Role = "report"
)

// Roles are every role GrantSQL knows, in the order `worker grants` lists them.
var Roles = []Role{RoleWorker, RoleCorpus, RoleReport}

// Privileges on a table.
const (
	readRows   = "SELECT"
	appendRows = "SELECT, INSERT"
	followRows = "SELECT, INSERT, UPDATE"
	manageRows = "SELECT, INSERT, UPDATE, DELETE"
)

// tablePrivileges says, for every table of the schema, what each role may do with it; a role
// not named gets nothing. Every table a migration creates must be listed here (a test checks it
// against the migrated schema), so that no table is given to a role by default. Views are not
// listed: the worker reads the views it needs (workerViews); a view grants no write through these
// roles, since none has UPDATE on a view. The report role reads every table and view, and writes
// nothing but editor decisions.
var tablePrivileges = map[string]map[Role]string{
	// A job's own records: written once, in the transaction of its run, never changed.
	"runs":              {RoleWorker: appendRows},
	"checks":            {RoleWorker: appendRows},
	"claims":            {RoleWorker: appendRows},
	"model_calls":       {RoleWorker: appendRows},
	"search_calls":      {RoleWorker: appendRows},
	"query_hops":        {RoleWorker: appendRows},
	"cross_validations": {RoleWorker: appendRows},
	"evidence":          {RoleWorker: appendRows},
	// Rows that follow a job through its attempts: a statement's language, a message's outcome, an
	// attempt redelivered to the same worker.
	"statements":       {RoleWorker: followRows},
	"messages":         {RoleWorker: followRows},
	"message_attempts": {RoleWorker: followRows},
	// A job's lease is taken, renewed and given back (deleted) by the worker running it.
	"job_leases": {RoleWorker: manageRows},
	// The search cache expires its own rows.
	"search_cache": {RoleWorker: manageRows},
	// The claims being verified now (reuse.go): a job takes, renews and deletes its leases.
	"claim_leases": {RoleWorker: manageRows},
	// The corpus and the statistics its triggers keep (triggers run with the loader's privileges).
	"documents":      {RoleCorpus: manageRows, RoleWorker: readRows},
	"corpus_configs": {RoleCorpus: manageRows, RoleWorker: readRows},
	"corpus_lexemes": {RoleCorpus: manageRows, RoleWorker: readRows},
	// Who owns which domain: editors keep it (corpus owners add, as the corpus role), the worker
	// reads it for independence.
	"source_owners": {RoleCorpus: manageRows, RoleWorker: readRows},
	// Prices are the analysts' to keep (as the schema owner); every role reads the migrations'
	// version to check that the schema is current.
	"model_prices": {},
	// Editors' decisions: the review page appends them, and a trigger refuses any change. The
	// accounts are kept by the schema owner (report users add); the review page reads them.
	"editor_decisions": {RoleReport: appendRows},
	"editor_accounts":  {RoleReport: readRows},
	"goose_db_version": {RoleWorker: readRows, RoleCorpus: readRows},
}

// workerViews are the views the worker reads.
var workerViews = []string{"joint_agreement", "latest_runs"}

// GrantSQL returns the statements that give the database role dbRole what role's program needs
// after the migrations, and nothing more: no DDL, no access to other schemas, and per table
// only the privileges of tablePrivileges. `worker grants --for ROLE --grant-role NAME` prints it.
func GrantSQL(schema, dbRole string, role Role) (string, error) {
	if !identifier.MatchString(schema) || !identifier.MatchString(dbRole) {
		return "", fmt.Errorf("schema %q and role %q must be lower-case SQL identifiers", schema, dbRole)
	}
	if !slices.Contains(Roles, role) {
		return "", fmt.Errorf("%q is not a role: use one of %s", role, joinRoles(Roles))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- Least privilege for Corroborate's %s role: run as the owner of schema %s, after the migrations.\n", role, schema)
	fmt.Fprintf(&b, "GRANT USAGE ON SCHEMA %s TO %s;\n", schema, dbRole)
	for _, table := range slices.Sorted(maps.Keys(tablePrivileges)) {
		if privileges, ok := tablePrivileges[table][role]; ok {
			fmt.Fprintf(&b, "GRANT %s ON %s.%s TO %s;\n", privileges, schema, table, dbRole)
		}
	}
	switch role {
	case RoleWorker:
		for _, view := range workerViews {
			fmt.Fprintf(&b, "GRANT SELECT ON %s.%s TO %s;\n", schema, view, dbRole)
		}
		fmt.Fprintf(&b, "GRANT USAGE ON ALL SEQUENCES IN SCHEMA %s TO %s;\n", schema, dbRole)
	case RoleCorpus:
		fmt.Fprintf(&b, "GRANT USAGE ON ALL SEQUENCES IN SCHEMA %s TO %s;\n", schema, dbRole)
	case RoleReport:
		// Reading every view and table is the report role's whole job.
		fmt.Fprintf(&b, "GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s;\n", schema, dbRole)
		fmt.Fprintf(&b, "GRANT USAGE ON SEQUENCE %s.editor_decisions_id_seq TO %s;\n", schema, dbRole)
	}
	b.WriteString("-- Tables a later migration adds need their grants too: run this again after upgrading.\n")
	return b.String(), nil
}

// ClassifiedTables are the tables GrantSQL knows, sorted: a migrated schema must hold exactly these.
func ClassifiedTables() []string { return slices.Sorted(maps.Keys(tablePrivileges)) }

func joinRoles(rs []Role) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}
