package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

// exportConfig is what `report export` is told.
type exportConfig struct {
	filterFlags
	Format       string
	What         string
	Out          string
	FormulaGuard bool
}

func exportFlags(c *exportConfig) *envflag.Set {
	fs := envflag.New("report export", "Usage: report export [flags]\n\n"+
		"Writes the statements (one row per statement, its latest run), their claims (with verdicts and\n"+
		"citation URLs) or their evidence (every source retrieved, cited or not) as CSV with a header row\n"+
		"or as JSONL, to --out or stdout. Progress goes to stderr: a bar on a terminal, plain lines otherwise.")
	c.define(fs, "")
	fs.String(&c.Format, "format", "CORROBORATE_REPORT_FORMAT", "csv", "csv or jsonl")
	fs.String(&c.What, "what", "CORROBORATE_REPORT_WHAT", "statements", "statements, claims or evidence")
	fs.String(&c.Out, "out", "CORROBORATE_REPORT_OUT", "", "file to write (written whole, then renamed into place); empty: stdout")
	fs.Bool(&c.FormulaGuard, "csv-formula-guard", "CORROBORATE_REPORT_CSV_FORMULA_GUARD", true,
		"CSV: prefix a text cell that starts with = + - @ tab or carriage return with ' so that a spreadsheet\nshows it as text instead of running it as a formula (statements and model output are untrusted)")
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
	if err := oneOf("format", c.Format, "csv", "jsonl"); err != nil {
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
	w := newRowWriter(out, c.Format, c.FormulaGuard)
	var n int
	switch c.What {
	case "statements":
		n, err = exportRows(ctx, w, filter, c.What, stderr, st.CountStatements, st.EachStatement)
	case "claims":
		n, err = exportRows(ctx, w, filter, c.What, stderr, st.CountClaims, st.EachClaim)
	case "evidence":
		n, err = exportRows(ctx, w, filter, c.What, stderr, st.CountEvidence, st.EachEvidence)
	}
	if err == nil {
		err = w.flush()
	}
	if err = commit(err); err != nil {
		fmt.Fprintln(stderr, "report export:", err)
		return exitError
	}
	if c.Out != "" {
		fmt.Fprintf(stderr, "report export: %d %s written to %s (%s)\n", n, c.What, c.Out, report.Describe(filter))
	}
	return exitOK
}

// exportRows writes every row each reads, counting first for the progress display.
func exportRows[T any](ctx context.Context, w *rowWriter, f store.ReportFilter, what string, stderr io.Writer,
	count func(context.Context, store.ReportFilter) (int, error),
	each func(context.Context, store.ReportFilter, func(T) error) error) (int, error) {
	var zero T
	if err := w.header(zero); err != nil {
		return 0, err
	}
	total, err := count(ctx, f)
	if err != nil {
		return 0, err
	}
	p := progress.New(what, total, stderr)
	n := 0
	err = each(ctx, f, func(row T) error {
		if err := w.write(row); err != nil {
			return err
		}
		n++
		p.Add(1)
		return nil
	})
	p.Done()
	return n, err
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

// rowWriter writes rows as CSV or JSONL. A row is a struct whose JSON form names its columns in
// order: the same field list makes the CSV header, the CSV cells and the JSONL objects.
type rowWriter struct {
	format string
	csv    *csv.Writer
	jsonl  *json.Encoder
	guard  bool
}

func newRowWriter(w io.Writer, format string, guard bool) *rowWriter {
	rw := &rowWriter{format: format, guard: guard}
	if format == "csv" {
		rw.csv = csv.NewWriter(w)
	} else {
		rw.jsonl = json.NewEncoder(w)
		rw.jsonl.SetEscapeHTML(false)
	}
	return rw
}

// header writes the CSV header row from the fields of zero (JSONL has none).
func (w *rowWriter) header(zero any) error {
	if w.csv == nil {
		return nil
	}
	keys, _, err := flatten(zero, false)
	if err != nil {
		return err
	}
	return w.csv.Write(keys)
}

func (w *rowWriter) write(row any) error {
	if w.jsonl != nil {
		return w.jsonl.Encode(row)
	}
	_, cells, err := flatten(row, w.guard)
	if err != nil {
		return err
	}
	return w.csv.Write(cells)
}

func (w *rowWriter) flush() error {
	if w.csv != nil {
		w.csv.Flush()
		return w.csv.Error()
	}
	return nil
}

// flatten returns the JSON field names of row, in order, and each value as a CSV cell: text as
// it is, numbers and booleans as JSON writes them, null as empty, lists joined by spaces.
// guard prefixes text that a spreadsheet would take for a formula with a single quote.
func flatten(row any, guard bool) (keys, cells []string, err error) {
	data, err := json.Marshal(row)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding a row: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		var value any
		if err := dec.Decode(&value); err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
		cells = append(cells, cell(value, guard))
	}
	return keys, cells, nil
}

func cell(v any, guard bool) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		if guard && v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			return "'" + v
		}
		return v
	case []any:
		parts := make([]string, len(v))
		for i, item := range v {
			parts[i] = cell(item, false)
		}
		s := strings.Join(parts, " ")
		if len(parts) > 0 {
			return cell(s, guard)
		}
		return s
	default:
		return fmt.Sprint(v)
	}
}
