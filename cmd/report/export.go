package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/report"
)

// exportConfig is what `report export` is told.
type exportConfig struct {
	filterFlags
	Format       string
	What         string
	Out          string
	FormulaGuard bool
	Publisher    publisherFlags
}

func exportFlags(c *exportConfig) *envflag.Set {
	fs := envflag.New("report export", "Usage: report export [flags]\n\n"+
		"Writes the statements (one row per statement, its latest run), their claims (with verdicts and\n"+
		"citation URLs) or their evidence (every source retrieved, cited or not) as CSV with a header row\n"+
		"or as JSONL, to --out or stdout. Progress goes to stderr: a bar on a terminal, plain lines otherwise.\n\n"+
		"--format claimreview writes, as one JSON-LD array, the schema.org ClaimReview of every claim whose\n"+
		"standing verdict an editor approved or overrode (docs/editors.md): it needs --publisher-name and\n"+
		"--review-url, and ignores --what.")
	c.define(fs, "")
	fs.String(&c.Format, "format", "CORROBORATE_REPORT_FORMAT", "csv", "csv, jsonl or claimreview")
	fs.String(&c.What, "what", "CORROBORATE_REPORT_WHAT", "statements", "statements, claims or evidence")
	fs.String(&c.Out, "out", "CORROBORATE_REPORT_OUT", "", "file to write (written whole, then renamed into place); empty: stdout")
	fs.Bool(&c.FormulaGuard, "csv-formula-guard", "CORROBORATE_REPORT_CSV_FORMULA_GUARD", true,
		"CSV: prefix a text cell that starts with = + - @ tab or carriage return with ' so that a spreadsheet\nshows it as text instead of running it as a formula (statements and model output are untrusted)")
	c.Publisher.define(fs)
	return fs
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c exportConfig
	fs := exportFlags(&c)
	if code, ok := parse("export", fs, args, stderr); !ok {
		return code
	}
	filter, err := c.filter(time.Now())
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if err := oneOf("format", c.Format, "csv", "jsonl", "claimreview"); err != nil {
		problems = append(problems, err.Error())
	}
	pub, err := c.Publisher.publisher(c.Format == "claimreview")
	if err != nil {
		problems = append(problems, err.Error())
	}
	if err := oneOf("what", c.What, "statements", "claims", "evidence"); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		fmt.Fprintln(stderr, "report export:", strings.Join(problems, "; "))
		return exitInvalid
	}
	st, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "report export:", err)
		return exitError
	}
	defer st.Close()

	out, commit, err := openOutput(c.Out, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "report export:", err)
		return exitError
	}
	w := report.NewRowWriter(out, c.Format, c.FormulaGuard)
	var n int
	what := c.What
	switch {
	case c.Format == "claimreview":
		what = "claim reviews"
		n, err = report.ExportClaimReviews(ctx, out, *pub, filter, stderr, st.CountPublishedClaims, st.EachPublishedClaim)
	case c.What == "statements":
		n, err = report.ExportRows(ctx, w, filter, c.What, stderr, st.CountStatements, st.EachStatement)
	case c.What == "claims":
		n, err = report.ExportRows(ctx, w, filter, c.What, stderr, st.CountClaims, st.EachClaim)
	case c.What == "evidence":
		n, err = report.ExportRows(ctx, w, filter, c.What, stderr, st.CountEvidence, st.EachEvidence)
	}
	if err == nil {
		err = w.Flush()
	}
	if err = commit(err); err != nil {
		fmt.Fprintln(stderr, "report export:", err)
		return exitError
	}
	if c.Out != "" {
		fmt.Fprintf(stderr, "report export: %d %s written to %s (%s)\n", n, what, c.Out, report.Describe(filter))
	}
	return exitOK
}

// openOutput returns where to write, and commit, which finishes the output given the write's
// error: a file is written beside its destination and renamed into place only when all of it
// was written, so that a failed or interrupted export never leaves half a file under the name.
func openOutput(path string, stdout io.Writer) (io.Writer, func(error) error, error) {
	if path == "" {
		return stdout, func(err error) error { return err }, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot write beside %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	commit := func(err error) error {
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	return bw, commit, nil
}
