// Package multihop is the multi-hop fact-verification method: its inputs (statement, hop limit,
// independence rules, temporal scope, schemas, grounding), the plan schema and its validation
// rules, query chains executed under source-independence rules, the isolated judge of each claim
// (grounded through package evidence) and the revision of the statement.
package multihop
