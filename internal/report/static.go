package report

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/store"
)

// WriteStatic writes the static report of the statements f selects into dir: index.html,
// statements/<id>.html, traces/<run>.html and style.css; existing report files are replaced.
// It shows its progress on progressOut and returns how many statements the report holds. With a
// publisher, statement pages embed the ClaimReview JSON-LD of their published claims.
func WriteStatic(ctx context.Context, r Reports, f store.ReportFilter, dir string, progressOut io.Writer, pub *Publisher) (int, error) {
	s, err := newSite()
	if err != nil {
		return 0, err
	}
	// The index lists what needs an editor first (store.AttentionOrder).
	f.ByAttention = true
	statements, err := r.Statements(ctx, f)
	if err != nil {
		return 0, err
	}
	sum, err := r.Summary(ctx, f)
	if err != nil {
		return 0, err
	}
	for _, sub := range []string{"statements", "traces"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return 0, fmt.Errorf("creating the report folder: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "style.css"), s.css, 0o644); err != nil {
		return 0, fmt.Errorf("writing the report: %w", err)
	}
	generated := FormatTime(time.Now())
	top := links{root: "", ext: ".html"}
	sub := links{root: "../", ext: ".html"}
	index := indexPage{
		page:    page{Title: "Verdicts", Links: top, Generated: generated},
		Heading: "Verdicts", Batch: Describe(f), Summary: sum, Statements: statements, Total: len(statements),
	}
	if err := writePage(s, filepath.Join(dir, "index.html"), "index", index); err != nil {
		return 0, err
	}
	p := progress.New("statement pages", len(statements), progressOut)
	defer p.Done()
	for _, row := range statements {
		sp, err := r.Statement(ctx, row.StatementID)
		if err != nil {
			return 0, err
		}
		data := newStatementPage(page{Title: "Statement " + cmp.Or(row.ExternalID, fmt.Sprint(row.StatementID)), Links: sub, Generated: generated}, sp).withClaimReviews(pub, sp)
		if err := writePage(s, filepath.Join(dir, "statements", fmt.Sprintf("%d.html", row.StatementID)), "statement", data); err != nil {
			return 0, err
		}
		// Every run the page lists gets its trace page, so that no link of the report is dead.
		for _, run := range sp.Runs {
			t, err := r.Trace(ctx, run.RunID)
			if err != nil {
				return 0, err
			}
			tp := tracePage{page: page{Title: fmt.Sprintf("Trace of run %d", run.RunID), Links: sub, Generated: generated}, Trace: t}
			if err := writePage(s, filepath.Join(dir, "traces", fmt.Sprintf("%d.html", run.RunID)), "trace", tp); err != nil {
				return 0, err
			}
		}
		p.Add(1)
	}
	return len(statements), nil
}

func writePage(s *site, path, name string, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := s.render(f, name, data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
