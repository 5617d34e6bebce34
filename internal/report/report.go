// Package report renders what editors and analysts read after a batch: the static HTML report
// (an index, one page per statement, one trace per run) and the review page served live, both
// from the same html/template pages; the terminal summary and verdict changes; and CSV, JSONL and
// ClaimReview exports. It reads through store's report queries. It changes something only from
// the review page with editing on (Server.EnableEditing): it records signed-in editors' decisions
// on claims (a Decider) and publishes the re-checks they ask for (a Recheck). Without editing the
// page is read-only and refuses every POST.
package report

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/store"
)

// Reports is what the pages read from PostgreSQL; *store.Store implements it.
type Reports interface {
	Statements(ctx context.Context, f store.ReportFilter) ([]store.StatementRow, error)
	CountStatements(ctx context.Context, f store.ReportFilter) (int, error)
	Summary(ctx context.Context, f store.ReportFilter) (store.Summary, error)
	Statement(ctx context.Context, statementID int64) (store.StatementPage, error)
	Trace(ctx context.Context, runID int64) (store.Trace, error)
}

// Describe says in words which statements a filter selects, for headings.
func Describe(f store.ReportFilter) string {
	var parts []string
	switch {
	case !f.Since.IsZero() && !f.Until.IsZero():
		parts = append(parts, fmt.Sprintf("latest run finished from %s to %s", FormatTime(f.Since), FormatTime(f.Until)))
	case !f.Since.IsZero():
		parts = append(parts, "latest run finished since "+FormatTime(f.Since))
	case !f.Until.IsZero():
		parts = append(parts, "latest run finished before "+FormatTime(f.Until))
	}
	for _, p := range []struct{ name, value string }{
		{"status", f.Status}, {"verdict", f.Verdict}, {"method", f.Method},
		{"id starting with", f.ExternalIDPrefix}, {"text containing", f.Text},
	} {
		if p.value != "" {
			parts = append(parts, fmt.Sprintf("%s %q", p.name, p.value))
		}
	}
	if len(parts) == 0 {
		return "all statements"
	}
	return "statements with " + strings.Join(parts, ", ")
}

// FormatTime is how every report shows a time: local, to the minute, with the zone; the zero
// time is "".
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04 MST")
}
