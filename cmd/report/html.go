package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/store"
)

type htmlConfig struct {
	filterFlags
	Out string
}

func htmlFlags(c *htmlConfig) *envflag.Set {
	fs := envflag.New("report html", "Usage: report html --out DIR [flags]\n\n"+
		"Writes a static HTML report of a batch into DIR: index.html lists its statements with their\n"+
		"verdicts; statements/<id>.html shows one statement's claims, verdicts, confidence, sources and\n"+
		"revised text; traces/<run>.html every model call (prompt and reply) and search call of a run.\n"+
		"Plain HTML and CSS, no script; open DIR/index.html in a browser or serve DIR as it is.")
	c.define(fs, "24h")
	fs.String(&c.Out, "out", "CORROBORATE_REPORT_HTML_OUT", "", "folder to write the report into (created when missing; its report files are replaced)")
	return fs
}

func runHTML(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c htmlConfig
	fs := htmlFlags(&c)
	if code, ok := parse("html", fs, args, stderr); !ok {
		return code
	}
	filter, err := c.filter(time.Now())
	if c.Out == "" {
		err = errors.Join(err, errors.New("--out DIR: say where to write the report"))
	}
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitInvalid
	}
	st, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitError
	}
	defer st.Close()
	s, err := newSite()
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitError
	}
	n, err := writeReport(ctx, st, s, filter, c.Out, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "report html:", err)
		return exitError
	}
	fmt.Fprintf(stdout, "%d statements written: %s\n", n, filepath.Join(c.Out, "index.html"))
	return exitOK
}

// writeReport writes the static report of the statements f selects into dir, and returns how
// many statements it holds.
func writeReport(ctx context.Context, st *store.Store, s *site, f store.ReportFilter, dir string, progressOut io.Writer) (int, error) {
	statements, err := st.Statements(ctx, f)
	if err != nil {
		return 0, err
	}
	sum, err := st.Summary(ctx, f)
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
	generated := fmtTime(time.Now())
	top := links{root: "", ext: ".html"}
	sub := links{root: "../", ext: ".html"}
	index := indexPage{
		page:    page{Title: "Verdicts", Links: top, Generated: generated},
		Heading: "Verdicts", Batch: describe(f), Summary: sum, Statements: statements, Total: len(statements),
	}
	if err := writePage(s, filepath.Join(dir, "index.html"), "index", index); err != nil {
		return 0, err
	}
	p := progress.New("statement pages", len(statements), progressOut)
	defer p.Done()
	for _, row := range statements {
		sp, err := st.Statement(ctx, row.StatementID)
		if err != nil {
			return 0, err
		}
		data := newStatementPage(page{Title: "Statement " + cmpOr(row.ExternalID, fmt.Sprint(row.StatementID)), Links: sub, Generated: generated}, sp)
		if err := writePage(s, filepath.Join(dir, "statements", fmt.Sprintf("%d.html", row.StatementID)), "statement", data); err != nil {
			return 0, err
		}
		// Every run the page lists gets its trace page, so that no link of the report is dead.
		for _, r := range sp.Runs {
			t, err := st.Trace(ctx, r.RunID)
			if err != nil {
				return 0, err
			}
			tp := tracePage{page: page{Title: fmt.Sprintf("Trace of run %d", r.RunID), Links: sub, Generated: generated}, Trace: t}
			if err := writePage(s, filepath.Join(dir, "traces", fmt.Sprintf("%d.html", r.RunID)), "trace", tp); err != nil {
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

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
