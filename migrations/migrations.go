// Package migrations holds Corroborate's PostgreSQL schema as goose SQL files, embedded so that
// the worker applies them at start (internal/store) and `worker migrate` applies them by hand.
package migrations

import "embed"

// FS holds the SQL files, in goose's order (by their numeric prefix).
//
//go:embed *.sql
var FS embed.FS
