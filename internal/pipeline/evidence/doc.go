// Package evidence is the one grounding engine of the open-book methods (cove2, multihop): the
// sources a run retrieved and the numbers citations point at (SourceBook, Retrieved), the
// independence of sources (registrable domains, publishers, URLs), confidence calibration by
// corroboration, the rule that a citation must be among the sources given, citation and URL
// filtering of revised text, quote and span checks, search-query hygiene, and the report.
package evidence
