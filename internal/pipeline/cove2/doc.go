// Package cove2 is CoVe 2.0, the agentic open-book method: a plan with a needs_verification gate
// and deep/shallow risk tiers, verification queries checked in code, isolated verifiers grounded
// in search evidence (through package evidence), and a finalize step under a confidence gate.
package cove2
