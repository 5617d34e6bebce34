// Package intake reads statements from the forms a newsroom has them in (arguments, JSONL, CSV
// and text files, stdin) and turns each into a validated, encoded job message, or into a
// problem named by file and line. Every message is checked by jobs.Decode, the check the
// worker applies, so that what intake accepts the worker accepts too; and each is encoded once,
// into the bytes that are published.
package intake

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Record is one statement read from the input, with where it came from ("file.csv:12").
type Record struct {
	Source string
	// Job is the validated message and its one encoding, published as it is.
	Job jobs.Encoded
}

// Problem is one bad record, reported with file and line.
type Problem struct {
	Source string
	Reason string
}

func (p Problem) String() string { return p.Source + ": " + p.Reason }

// Reader turns inputs into records and problems; it gathers them across every input it is
// given, so that all problems of a batch are listed at once.
type Reader struct {
	validation jobs.ValidationConfig
	// stdinFormat is "jsonl", "csv", "txt" or "" (guess from the first character).
	stdinFormat string

	records  []Record
	problems []Problem
}

// NewReader returns a Reader that validates with validation (its DefaultMethod is the method
// of records that name none) and reads stdin as stdinFormat: "jsonl", "csv", "txt", or "" to
// guess (jsonl when the input starts with '{', else txt).
func NewReader(validation jobs.ValidationConfig, stdinFormat string) *Reader {
	return &Reader{validation: validation.WithDefaults(), stdinFormat: stdinFormat}
}

// Records are the valid records read so far, in input order.
func (r *Reader) Records() []Record { return r.records }

// Problems are the bad records found so far, in input order.
func (r *Reader) Problems() []Problem { return r.problems }

// AddText adds one statement given as text (an --text argument) from source.
func (r *Reader) AddText(source, text string) { r.add(source, jobs.Message{Text: text}) }

// add validates one message built from the fields of the input at source.
func (r *Reader) add(source string, m jobs.Message) {
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD; name the field instead.
	for _, field := range []struct{ name, value string }{{"text", m.Text}, {"question", m.Question}, {"id", m.ID}} {
		if !utf8.ValidString(field.value) {
			r.problem(source, field.name+": is not valid UTF-8 (save the file as UTF-8)")
			return
		}
	}
	job, err := jobs.EncodeMessage(m, r.validation)
	r.keep(source, job, err)
}

// addEncoded validates one encoded message (a JSONL line).
func (r *Reader) addEncoded(source string, data []byte) {
	job, err := jobs.DecodeEncoded(data, r.validation)
	r.keep(source, job, err)
}

// keep records job, or the problem with it.
func (r *Reader) keep(source string, job jobs.Encoded, err error) {
	if err != nil {
		r.problem(source, err.Error())
		return
	}
	// The message format may name a method this version cannot run yet: refuse it here, so
	// that it is not queued only to be rejected by the workers.
	if method := job.Message.Method; !slices.Contains(pipeline.MethodNames(), method) {
		r.problem(source, fmt.Sprintf("method: %q is not available in this version of Corroborate (it has %s)", method, strings.Join(pipeline.MethodNames(), ", ")))
		return
	}
	r.records = append(r.records, Record{Source: source, Job: job})
}

func (r *Reader) problem(source, reason string) {
	r.problems = append(r.problems, Problem{Source: source, Reason: reason})
}

// ReadFile reads one input by its extension: .jsonl (or .ndjson), .csv, .txt; "-" is stdin.
// Bad records are problems, not errors; an error is an input that cannot be read at all.
func (r *Reader) ReadFile(path string, stdin io.Reader) error {
	if path == "-" {
		data, err := io.ReadAll(io.LimitReader(stdin, 1<<30))
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		format := r.stdinFormat
		if format == "" {
			format = "txt"
			if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
				format = "jsonl"
			}
		}
		return r.read("stdin", format, bytes.NewReader(data))
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening input: %w", err)
	}
	defer f.Close()
	format := ""
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		format = "jsonl"
	case ".csv":
		format = "csv"
	case ".txt", ".text":
		format = "txt"
	default:
		return fmt.Errorf("%s: unknown input type %q: use .jsonl, .csv or .txt (or - for stdin with --format)", path, filepath.Ext(path))
	}
	return r.read(path, format, f)
}

func (r *Reader) read(name, format string, in io.Reader) error {
	before := len(r.records) + len(r.problems)
	var err error
	switch format {
	case "jsonl":
		err = r.readLines(name, in, func(source string, line []byte) { r.addEncoded(source, line) })
	case "txt":
		err = r.readLines(name, in, func(source string, line []byte) {
			r.add(source, jobs.Message{Text: string(line)})
		})
	case "csv":
		err = r.readCSV(name, in)
	default:
		return fmt.Errorf("unknown --format %q: use jsonl, csv or txt", format)
	}
	if err != nil {
		return err
	}
	if len(r.records)+len(r.problems) == before {
		r.problem(name, "holds no statements (the input is empty)")
	}
	return nil
}

// readLines calls fn for every non-blank line. A line longer than the message size limit is a
// problem of its own (with its line number) and reading goes on after it.
func (r *Reader) readLines(name string, in io.Reader, fn func(source string, line []byte)) error {
	limit := r.validation.MaxMessageBytes
	br := bufio.NewReaderSize(in, 64*1024)
	for lineNo := 1; ; lineNo++ {
		line, tooLong, err := readLine(br, limit)
		source := fmt.Sprintf("%s:%d", name, lineNo)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if tooLong {
				r.problem(source, fmt.Sprintf("line is longer than the message size limit of %d bytes", limit))
			} else {
				fn(source, bytes.TrimRight(line, "\r"))
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", source, err)
		}
	}
}

// readLine reads one line of at most limit bytes; a longer one is consumed and reported as
// tooLong without being kept in memory.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// readCSV reads a CSV file with a header row: a text column (required) and optional question,
// id, method, language, source_url, source_author and published_at columns (the job message's
// fields of the same names). Other columns are ignored.
func (r *Reader) readCSV(name string, in io.Reader) error {
	cr := csv.NewReader(in)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		r.problem(name+":1", "cannot read the CSV header: "+err.Error())
		return nil
	}
	columns := map[string]int{}
	for i, h := range header {
		columns[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := columns["text"]; !ok {
		r.problem(name+":1", fmt.Sprintf("the CSV header has no text column (it has %q); add a header row with text and optionally question, id, method, language, source_url, source_author, published_at", header))
		return nil
	}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := cr.FieldPos(0)
		source := fmt.Sprintf("%s:%d", name, line)
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				source = fmt.Sprintf("%s:%d", name, perr.Line)
			}
			r.problem(source, "bad CSV: "+err.Error())
			if errors.As(err, &perr) {
				continue
			}
			return nil
		}
		get := func(col string) string {
			if i, ok := columns[col]; ok && i < len(row) {
				return strings.TrimSpace(row[i])
			}
			return ""
		}
		if strings.Join(row, "") == "" {
			continue
		}
		r.add(source, jobs.Message{Text: get("text"), Question: get("question"), ID: get("id"), Method: get("method"), Language: get("language"),
			SourceURL: get("source_url"), SourceAuthor: get("source_author"), PublishedAt: get("published_at")})
	}
}
