package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Document is one corpus document as a JSONL line gives it.
type Document struct {
	URL, Title, Body, Publisher string
	PublishedAt                 *time.Time
	// Language is an ISO 639-1 code; empty takes LoadOpts.DefaultLanguage.
	Language string
}

// Bounds of a document line.
const (
	// MaxLineBytes bounds one JSONL line.
	MaxLineBytes = 8 << 20
	// MaxBodyBytes bounds a body: PostgreSQL's tsvector holds at most 1 MiB, and a body much
	// longer than an article is better split into several documents.
	MaxBodyBytes = 1 << 20
	// maxProblems is how many bad lines an InputError keeps.
	maxProblems = 20
)

// LoadOpts tunes Load.
type LoadOpts struct {
	// DefaultLanguage is the language of documents that give none; empty means "en".
	DefaultLanguage string
	// Progress, when set, is called every ProgressEvery lines read and once when all are.
	Progress      func(LoadProgress)
	ProgressEvery int
}

// LoadProgress says how far a load has come.
type LoadProgress struct {
	Lines     int
	Documents int
	Done      bool
}

// LoadStats says what a load did.
type LoadStats struct {
	// Lines read, blank ones included; Documents is the number of document lines.
	Lines     int
	Documents int
	// Inserted, Updated and Unchanged count distinct URLs; Duplicates are lines whose URL a
	// later line of the same input gave again (the last one wins).
	Inserted, Updated, Unchanged, Duplicates int
	Duration                                 time.Duration
}

// LineProblem is one bad input line.
type LineProblem struct {
	Line    int
	Problem string
}

// InputError reports the bad lines of an input: nothing of it was loaded.
type InputError struct {
	// Problems holds the first bad lines (up to 20); More counts the others.
	Problems []LineProblem
	More     int
	// Empty is set when the input held no document at all (no line, or blank lines only).
	Empty bool
}

func (e *InputError) Error() string {
	if e.Empty {
		return "holds no documents (the input is empty): nothing was loaded; give a JSONL file with one document a line"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad line(s), nothing was loaded:", len(e.Problems)+e.More)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  line %d: %s", p.Line, p.Problem)
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

func (e *InputError) add(line int, format string, args ...any) {
	if len(e.Problems) < maxProblems {
		e.Problems = append(e.Problems, LineProblem{Line: line, Problem: fmt.Sprintf(format, args...)})
	} else {
		e.More++
	}
}

// Load reads JSONL documents from r (one object a line: url, title, body, publisher,
// published_at as RFC 3339 or YYYY-MM-DD, language) and loads them in ONE transaction: the lines
// are copied (COPY) into a temporary table as they are read, then upserted into documents by URL,
// so that loading a URL again updates its document. If any line is bad, Load reports every bad
// line (up to 20) in an *InputError and loads nothing.
func (c *Corpus) Load(ctx context.Context, r io.Reader, opts LoadOpts) (LoadStats, error) {
	start := time.Now()
	opts.DefaultLanguage = strings.ToLower(strings.TrimSpace(opts.DefaultLanguage))
	if opts.DefaultLanguage == "" {
		opts.DefaultLanguage = pipeline.DefaultLanguage
	}
	if !isLanguageCode(opts.DefaultLanguage) {
		return LoadStats{}, fmt.Errorf("corpus load: default language %q is not an ISO 639-1 code such as en", opts.DefaultLanguage)
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10000
	}
	// The configuration of every language is settled before COPY starts: the source below runs
	// while the transaction's connection is busy with COPY.
	if _, err := c.serverConfig(ctx, opts.DefaultLanguage); err != nil {
		return LoadStats{}, fmt.Errorf("corpus load: %w", err)
	}
	src := &documentSource{
		ctx: ctx, corpus: c, opts: opts,
		scanner: bufio.NewScanner(r), bad: &InputError{},
	}
	src.scanner.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)

	var stats LoadStats
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			CREATE TEMP TABLE corpus_load (
				line int, url text, title text, body text, publisher text, domain text,
				published_at timestamptz, language text, ts_config text
			) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("staging table: %w", err)
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"corpus_load"},
			[]string{"line", "url", "title", "body", "publisher", "domain", "published_at", "language", "ts_config"}, src)
		if src.failed() {
			return src.err()
		}
		if err != nil {
			return fmt.Errorf("copying documents: %w", err)
		}
		if src.documents == 0 {
			// An empty file is a mistake of the input (the wrong file, an export that wrote
			// nothing), said as such and exit 2 in corpus load, as in every command.
			return &InputError{Empty: true}
		}
		var distinct int
		if err := tx.QueryRow(ctx, `SELECT count(DISTINCT url) FROM corpus_load`).Scan(&distinct); err != nil {
			return fmt.Errorf("counting documents: %w", err)
		}
		rows, err := tx.Query(ctx, upsertSQL)
		if err != nil {
			return fmt.Errorf("upserting documents: %w", err)
		}
		inserted, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return fmt.Errorf("upserting documents: %w", err)
		}
		for _, ins := range inserted {
			if ins {
				stats.Inserted++
			} else {
				stats.Updated++
			}
		}
		stats.Unchanged = distinct - stats.Inserted - stats.Updated
		stats.Duplicates = src.documents - distinct
		return nil
	})
	stats.Lines, stats.Documents = src.line, src.documents
	stats.Duration = time.Since(start)
	if err != nil {
		var inputErr *InputError
		if errors.As(err, &inputErr) {
			return stats, err
		}
		return stats, fmt.Errorf("corpus load: %w", err)
	}
	if opts.Progress != nil {
		opts.Progress(LoadProgress{Lines: src.line, Documents: src.documents, Done: true})
	}
	// Fresh statistics let the planner see the new rows; cheap next to the load itself.
	if stats.Inserted+stats.Updated > 1000 {
		if _, err := c.pool.Exec(ctx, `ANALYZE documents`); err != nil {
			return stats, fmt.Errorf("corpus load: analyzing documents: %w", err)
		}
	}
	return stats, nil
}

// upsertSQL moves the staged lines into documents: the last line of each URL wins, and a
// document whose fields are all unchanged is not rewritten (its statistics stay as they are).
// It returns one row per document written, true when it was new.
const upsertSQL = `
	WITH latest AS (
		SELECT DISTINCT ON (url) url, title, body, publisher, domain, published_at, language,
		       ts_config::regconfig AS ts_config
		FROM corpus_load
		ORDER BY url, line DESC
	)
	INSERT INTO documents AS d (url, title, body, publisher, domain, published_at, language, ts_config)
	SELECT url, title, body, publisher, domain, published_at, language, ts_config FROM latest
	ORDER BY url
	ON CONFLICT (url) DO UPDATE SET
		title = EXCLUDED.title, body = EXCLUDED.body, publisher = EXCLUDED.publisher,
		domain = EXCLUDED.domain, published_at = EXCLUDED.published_at,
		language = EXCLUDED.language, ts_config = EXCLUDED.ts_config, loaded_at = now()
	WHERE (d.title, d.body, d.publisher, d.domain, d.published_at, d.language, d.ts_config)
	      IS DISTINCT FROM
	      (EXCLUDED.title, EXCLUDED.body, EXCLUDED.publisher, EXCLUDED.domain, EXCLUDED.published_at,
	       EXCLUDED.language, EXCLUDED.ts_config)
	RETURNING (xmax = 0)`

// documentSource feeds COPY from the JSONL lines as it reads them. After the first bad line it
// sends nothing more but keeps reading, to report every bad line, and its error then aborts the
// COPY and with it the transaction.
type documentSource struct {
	ctx     context.Context
	corpus  *Corpus
	opts    LoadOpts
	scanner *bufio.Scanner
	bad     *InputError
	readErr error

	line      int
	documents int
	row       []any
}

func (s *documentSource) failed() bool { return len(s.bad.Problems) > 0 || s.readErr != nil }

func (s *documentSource) err() error {
	if s.readErr != nil {
		return s.readErr
	}
	if len(s.bad.Problems) > 0 {
		return s.bad
	}
	return nil
}

func (s *documentSource) Next() bool {
	for s.scanner.Scan() {
		s.line++
		if s.line%s.opts.ProgressEvery == 0 && s.opts.Progress != nil {
			s.opts.Progress(LoadProgress{Lines: s.line, Documents: s.documents})
		}
		raw := bytes.TrimSpace(s.scanner.Bytes())
		if len(raw) == 0 {
			continue
		}
		s.documents++
		doc, err := ParseDocument(raw)
		if err != nil {
			s.bad.add(s.line, "%v", err)
			continue
		}
		if s.failed() {
			continue
		}
		row, err := s.rowOf(doc)
		if err != nil {
			s.bad.add(s.line, "%v", err)
			continue
		}
		s.row = row
		return true
	}
	if err := s.scanner.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			s.bad.add(s.line+1, "longer than %d MiB: split the document", MaxLineBytes>>20)
		} else {
			s.readErr = fmt.Errorf("reading line %d: %w", s.line+1, err)
		}
	}
	return false
}

func (s *documentSource) rowOf(doc Document) ([]any, error) {
	lang := doc.Language
	if lang == "" {
		lang = s.opts.DefaultLanguage
	}
	cfg, err := s.corpus.serverConfig(s.ctx, lang)
	if err != nil {
		return nil, err
	}
	var publisher *string
	if doc.Publisher != "" {
		publisher = &doc.Publisher
	}
	return []any{s.line, doc.URL, doc.Title, doc.Body, publisher, Domain(doc.URL), doc.PublishedAt, lang, cfg}, nil
}

func (s *documentSource) Values() ([]any, error) { return s.row, nil }

func (s *documentSource) Err() error { return s.err() }

// documentLine is the JSON shape of a line; published_at is parsed by hand.
type documentLine struct {
	URL         *string `json:"url"`
	Title       string  `json:"title"`
	Body        string  `json:"body"`
	Publisher   string  `json:"publisher"`
	PublishedAt *string `json:"published_at"`
	Language    string  `json:"language"`
}

// ParseDocument reads and validates one JSONL line: a JSON object with an absolute http(s) url,
// a title or a body, an optional publisher, published_at (RFC 3339, or YYYY-MM-DD read as UTC
// midnight) and language (ISO 639-1). Unknown fields are errors, so that a misspelt one is not
// silently dropped. The URL comes back normalized (NormalizeURL); HTML markup is removed from
// the title and body (documentText), and NUL characters, which PostgreSQL text cannot hold,
// from every field.
func ParseDocument(raw []byte) (Document, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var l documentLine
	if err := dec.Decode(&l); err != nil {
		return Document{}, describeJSONError(err)
	}
	if dec.More() {
		return Document{}, errors.New("more than one JSON value on the line")
	}
	if l.URL == nil || strings.TrimSpace(*l.URL) == "" {
		return Document{}, errors.New(`"url" is missing`)
	}
	if len(*l.URL) > maxURLBytes {
		return Document{}, fmt.Errorf(`"url" is %d bytes long; at most %d`, len(*l.URL), maxURLBytes)
	}
	u, err := NormalizeURL(*l.URL)
	if err != nil {
		return Document{}, fmt.Errorf(`"url" %q is not an absolute http(s) URL: %v`, truncateRunes(*l.URL, 80), err)
	}
	doc := Document{
		URL:       u,
		Title:     documentText(l.Title),
		Body:      documentText(l.Body),
		Publisher: strings.TrimSpace(stripNUL(l.Publisher)),
		Language:  strings.ToLower(strings.TrimSpace(l.Language)),
	}
	if doc.Title == "" && doc.Body == "" {
		return Document{}, errors.New(`"title" and "body" are both empty: a document needs text`)
	}
	if len(doc.Body) > MaxBodyBytes {
		return Document{}, fmt.Errorf(`"body" is %d bytes; at most %d (1 MiB): split the document`, len(doc.Body), MaxBodyBytes)
	}
	if doc.Language != "" && !isLanguageCode(doc.Language) {
		return Document{}, fmt.Errorf(`"language" %q is not an ISO 639-1 code such as en, fr, de`, l.Language)
	}
	if l.PublishedAt != nil && strings.TrimSpace(*l.PublishedAt) != "" {
		t, err := parseDate(*l.PublishedAt)
		if err != nil {
			return Document{}, err
		}
		doc.PublishedAt = &t
	}
	return doc, nil
}

// parseDate reads RFC 3339 or a plain date (UTC midnight).
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf(`"published_at" %q is not a date: use RFC 3339 (2024-05-01T12:00:00Z) or YYYY-MM-DD`, truncateRunes(s, 40))
}

func describeJSONError(err error) error {
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return fmt.Errorf("not a JSON object but a JSON %s", typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Errorf("field %q must be a %s, not a JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return fmt.Errorf("%s (the fields are url, title, body, publisher, published_at, language)", strings.TrimPrefix(err.Error(), "json: "))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("not a complete JSON object")
	default:
		return fmt.Errorf("not a JSON object: %v", err)
	}
}

func stripNUL(s string) string { return strings.ReplaceAll(s, "\x00", "") }

// documentText is a title or body as the corpus keeps it: text. An archive exported as HTML
// loses its markup here (tags, and the content of script and style elements; entities are
// decoded), so that neither the index nor the snippets carry it; line breaks stay.
func documentText(s string) string {
	s = stripNUL(s)
	if strings.ContainsAny(s, "<&") {
		s = stripTags(html.UnescapeString(stripTags(s)))
	}
	return strings.TrimSpace(s)
}

// isLanguageCode reports whether s looks like an ISO 639-1 code: two lower-case letters.
func isLanguageCode(s string) bool {
	return len(s) == 2 && 'a' <= s[0] && s[0] <= 'z' && 'a' <= s[1] && s[1] <= 'z'
}
