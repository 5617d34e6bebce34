// Package examples bundles what `make demo` and the README's quick start run: the example
// statements, a small archive for the evidence search (written for the project), and the model
// replies recorded from the project's own pipeline that the demo replays when no model is
// configured.
package examples

import _ "embed"

// Date is the day the examples and their recorded replies were written for (YYYY-MM-DD). The
// demo takes it as today: the prompts of the open-book methods carry today's date (spec 000's
// date anchor), and the replay answers only the prompts it recorded, so on any other day the
// demo would ask what it never recorded.
const Date = "2026-12-02"

// Statements are the example statements, one JSON job message per line.
//
//go:embed statements.jsonl
var Statements []byte

// Archive is a small corpus for `corpus load` (one JSON document per line), written for the
// project: the evidence the demo's multihop and cove2 examples search.
//
//go:embed archive.jsonl
var Archive []byte

// Replay is the recorded replies for Statements (see internal/llm's replay model),
// recorded by TestDemoReplayIsRecordedFromThePipeline in cmd/worker.
//
//go:embed replay.json
var Replay []byte
