package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/store"
)

// ExportRows writes every row each reads to w, counting them first for the progress display
// on progressOut (a bar on a terminal, plain lines otherwise), and returns how many it wrote.
func ExportRows[T any](ctx context.Context, w *RowWriter, f store.ReportFilter, what string, progressOut io.Writer,
	count func(context.Context, store.ReportFilter) (int, error),
	each func(context.Context, store.ReportFilter, func(T) error) error) (int, error) {
	var zero T
	if err := w.Header(zero); err != nil {
		return 0, err
	}
	total, err := count(ctx, f)
	if err != nil {
		return 0, err
	}
	p := progress.New(what, total, progressOut)
	n := 0
	err = each(ctx, f, func(row T) error {
		if err := w.Write(row); err != nil {
			return err
		}
		n++
		p.Add(1)
		return nil
	})
	p.Done()
	return n, err
}

// RowWriter writes rows as CSV (with a header row) or JSONL. A row is a struct whose JSON form names its columns in
// order: the same field list makes the CSV header, the CSV cells and the JSONL objects.
type RowWriter struct {
	format string
	csv    *csv.Writer
	jsonl  *json.Encoder
	guard  bool
}

// NewRowWriter writes rows to w in format, "csv" or "jsonl"; guard prefixes CSV text cells
// that a spreadsheet would run as a formula with a single quote.
func NewRowWriter(w io.Writer, format string, guard bool) *RowWriter {
	rw := &RowWriter{format: format, guard: guard}
	if format == "csv" {
		rw.csv = csv.NewWriter(w)
	} else {
		rw.jsonl = json.NewEncoder(w)
		rw.jsonl.SetEscapeHTML(false)
	}
	return rw
}

// Header writes the CSV header row from the fields of zero (JSONL has none).
func (w *RowWriter) Header(zero any) error {
	if w.csv == nil {
		return nil
	}
	keys, _, err := flatten(zero, false)
	if err != nil {
		return err
	}
	return w.csv.Write(keys)
}

// Write writes one row.
func (w *RowWriter) Write(row any) error {
	if w.jsonl != nil {
		return w.jsonl.Encode(row)
	}
	_, cells, err := flatten(row, w.guard)
	if err != nil {
		return err
	}
	return w.csv.Write(cells)
}

// Flush writes out what the CSV writer buffers and returns its first error.
func (w *RowWriter) Flush() error {
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
