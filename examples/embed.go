// Package examples bundles the example statements and the recorded model replies that `make demo`
// runs when no model is configured.
package examples

import _ "embed"

// Statements are the example statements, one JSON job message per line.
//
//go:embed statements.jsonl
var Statements []byte

// Replay is the recorded replies for Statements (see internal/llm's replay model).
//
//go:embed replay.json
var Replay []byte
