package jobs

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Message is the job message, version 1: one statement and one method. Its JSON form is
// described by SchemaJSON; Decode is the only way in that validates it.
type Message struct {
	V int `json:"v"`
	// Text is the statement to verify; for the CoVe methods it is the draft answer to Question.
	Text     string `json:"text,omitempty"`
	Question string `json:"question,omitempty"`
	// ID is the producer's own reference (an article id, a row number). It does not take part in
	// deduplication: the same statement sent under two references is one job.
	ID       string         `json:"id,omitempty"`
	Method   string         `json:"method,omitempty"`
	Language string         `json:"language,omitempty"`
	Options  MessageOptions `json:"options,omitzero"`
	// RetryOf is the id of the job this one runs again (enqueue retry writes it): the worker
	// records it with the outcome, so job_outcomes links a retry to the job it retries.
	RetryOf string `json:"retry_of,omitempty"`
	// SourceURL, SourceAuthor and PublishedAt say where and when the statement appeared, and who
	// made it (optional; the ClaimReview export names them). PublishedAt is an RFC 3339 time or
	// a date (PublishedTime reads it). None takes part in deduplication.
	SourceURL    string `json:"source_url,omitempty"`
	SourceAuthor string `json:"source_author,omitempty"`
	PublishedAt  string `json:"published_at,omitempty"`
}

// PublishedTime is PublishedAt as a time (a date is its midnight UTC), nil when absent or
// unreadable (Decode refuses an unreadable one).
func (m Message) PublishedTime() *time.Time {
	if m.PublishedAt == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, m.PublishedAt); err == nil {
			return &t
		}
	}
	return nil
}

// MessageOptions are the per-job settings of a Message. Nil and empty fields mean "the worker's
// default".
type MessageOptions struct {
	MaxQuestions *int `json:"max_questions,omitempty"`
	MaxHops      *int `json:"max_hops,omitempty"`
	// TemporalScope is null or {"start_date", "end_date", "prefer_recent"} (parsed by
	// pipeline.ParseTemporalScope); IndependenceRules is a sentence or a rules object. Both are
	// kept raw: the methods that use them parse them.
	TemporalScope     json.RawMessage `json:"temporal_scope,omitempty"`
	IndependenceRules json.RawMessage `json:"independence_rules,omitempty"`
	Iterate           *bool           `json:"iterate,omitempty"`
	// ClaimSchema and OutputSchema are JSON Schemas of the multihop plan's claim records and of
	// the whole plan; Grounding is its grounding instruction. The multihop method checks them and
	// uses spec 004's when they are absent.
	ClaimSchema  json.RawMessage `json:"claim_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Grounding    string          `json:"grounding,omitempty"`
	// Reverify marks a re-verification of a statement checked before (enqueue reverify): the
	// run is stored as one, and its freshness-sensitive searches bypass the search cache.
	Reverify *bool `json:"reverify,omitempty"`
	// Reuse false verifies every claim anew, even one verified within the worker's freshness
	// window (--reuse-within); absent or true lets the open-book methods reuse such a claim.
	Reuse *bool `json:"reuse,omitempty"`
}

// Version is the only message version this package reads and writes.
const Version = 1

// KnownMethod reports whether name is a method a job may give: one of pipeline.MethodNames,
// the one list of methods.
func KnownMethod(name string) bool { return slices.Contains(pipeline.MethodNames(), name) }

// Defaults of a message and of its validation.
const (
	DefaultMethod   = pipeline.MethodMultihop
	DefaultLanguage = pipeline.DefaultLanguage
	// DefaultMaxMessageBytes is the stream's MaxMsgSize as well: one limit for both ends.
	DefaultMaxMessageBytes  = 1 << 20
	DefaultMaxTextBytes     = 32768
	DefaultMaxQuestionBytes = 4096
)

// ValidationConfig bounds what Decode accepts. Its zero value uses the defaults.
type ValidationConfig struct {
	// MaxMessageBytes bounds the whole encoded message (default DefaultMaxMessageBytes).
	MaxMessageBytes int
	// MaxTextBytes and MaxQuestionBytes bound text and question, in bytes of UTF-8.
	MaxTextBytes     int
	MaxQuestionBytes int
	// DefaultMethod is given to a message that names none (default DefaultMethod). The caller
	// supplies it from its own configuration (enqueue --method, the worker's default).
	DefaultMethod string
}

// WithDefaults returns c with every unset field at its default.
func (c ValidationConfig) WithDefaults() ValidationConfig {
	c.MaxMessageBytes = cmp.Or(c.MaxMessageBytes, DefaultMaxMessageBytes)
	c.MaxTextBytes = cmp.Or(c.MaxTextBytes, DefaultMaxTextBytes)
	c.MaxQuestionBytes = cmp.Or(c.MaxQuestionBytes, DefaultMaxQuestionBytes)
	c.DefaultMethod = cmp.Or(c.DefaultMethod, DefaultMethod)
	return c
}

// Problem is one thing wrong with a message: the field (a dotted path such as
// "options.max_hops", or "message" for the whole) and the reason in words.
type Problem struct {
	Field  string
	Reason string
}

func (p Problem) String() string { return p.Field + ": " + p.Reason }

// ValidationError lists every problem Decode found in a message. Callers find it with
// errors.As: enqueue prints it with file and line, the worker stores it as the rejected reason.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "invalid job message: " + strings.Join(parts, "; ")
}

// has reports whether a problem was already recorded for field or anything inside it, so that
// the code checks do not repeat what the schema said.
func (e *ValidationError) has(field string) bool {
	for _, p := range e.Problems {
		if p.Field == field || strings.HasPrefix(p.Field, field+".") {
			return true
		}
	}
	return false
}

func (e *ValidationError) add(field, format string, args ...any) {
	e.Problems = append(e.Problems, Problem{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// Decode reads and validates a job message, in this order: its size, its JSON syntax, the JSON
// Schema (SchemaJSON), then the checks a schema cannot say (words, byte limits, control
// characters, language codes, dates). Defaults are applied last, in one place: V 1, Method
// cfg.DefaultMethod, Language "en". Every error is a *ValidationError that lists every problem
// found, each naming its field.
func Decode(data []byte, cfg ValidationConfig) (Message, error) {
	cfg = cfg.WithDefaults()
	verr := &ValidationError{}
	if len(data) > cfg.MaxMessageBytes {
		verr.add("message", "is %d bytes, over the limit of %d bytes", len(data), cfg.MaxMessageBytes)
		return Message{}, verr
	}
	if !utf8.Valid(data) {
		// encoding/json would quietly turn invalid UTF-8 into U+FFFD; refuse it instead.
		verr.add("message", "is not valid UTF-8 (first bad byte at byte offset %d)", invalidUTF8Offset(data))
		return Message{}, verr
	}
	doc, err := parseJSON(data)
	if err != nil {
		verr.add("message", "%v", err)
		return Message{}, verr
	}
	validateSchema(doc, verr)

	var m Message
	if err := json.Unmarshal(data, &m); err != nil {
		// encoding/json decodes every field it can and reports the first one of the wrong type.
		// The schema has named that field already, unless it is a number the schema takes for an
		// integer and Go does not (2.0); the other fields are still worth checking.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			if len(verr.Problems) == 0 {
				verr.add("message", "%v", err)
			}
			return Message{}, verr
		}
		if field := cmp.Or(te.Field, "message"); !verr.has(field) {
			verr.add(field, "must be written as a whole number such as 3, got %s", te.Value)
		}
	}
	checkMessage(m, cfg, verr)
	if len(verr.Problems) > 0 {
		return Message{}, verr
	}
	return m.withDefaults(cfg), nil
}

// withDefaults is the one place where a valid message gets its defaults.
func (m Message) withDefaults(cfg ValidationConfig) Message {
	m.V = cmp.Or(m.V, Version)
	m.Method = cmp.Or(m.Method, cfg.DefaultMethod)
	m.Language = cmp.Or(m.Language, DefaultLanguage)
	if isNull(m.Options.TemporalScope) {
		m.Options.TemporalScope = nil
	}
	return m
}

// checkMessage runs the checks that the schema cannot express. A field the schema already
// found fault with is skipped, so each field gets one clear reason.
func checkMessage(m Message, cfg ValidationConfig, verr *ValidationError) {
	if m.Text != "" && !verr.has("text") {
		checkString(verr, "text", m.Text, cfg.MaxTextBytes)
		if !verr.has("text") && len(strings.Fields(m.Text)) < 2 {
			verr.add("text", "a statement needs at least two words, got %s", quoteShort(m.Text))
		}
	}
	if m.Question != "" && !verr.has("question") {
		checkString(verr, "question", m.Question, cfg.MaxQuestionBytes)
	}
	if m.ID != "" && !verr.has("id") {
		checkString(verr, "id", m.ID, 1024)
	}
	if m.RetryOf != "" && !verr.has("retry_of") {
		checkString(verr, "retry_of", m.RetryOf, 1024)
	}
	if m.SourceURL != "" && !verr.has("source_url") {
		checkString(verr, "source_url", m.SourceURL, 2048)
		if u, err := url.Parse(m.SourceURL); !verr.has("source_url") && (err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https")) {
			verr.add("source_url", "%s is not an absolute http or https URL", quoteShort(m.SourceURL))
		}
	}
	if m.SourceAuthor != "" && !verr.has("source_author") {
		checkString(verr, "source_author", m.SourceAuthor, 256)
	}
	if m.PublishedAt != "" && !verr.has("published_at") && m.PublishedTime() == nil {
		verr.add("published_at", "%s is neither an RFC 3339 time (2026-11-30T09:00:00Z) nor a date (2026-11-30)", quoteShort(m.PublishedAt))
	}
	if m.Method != "" && !verr.has("method") && !KnownMethod(m.Method) {
		verr.add("method", "%q is not a known method (known: %s)", m.Method, strings.Join(pipeline.MethodNames(), ", "))
	}
	if m.Method == "" && !KnownMethod(cfg.DefaultMethod) {
		verr.add("method", "none given, and the configured default %q is not a known method (known: %s)",
			cfg.DefaultMethod, strings.Join(pipeline.MethodNames(), ", "))
	}
	if m.Language != "" && !verr.has("language") && !pipeline.KnownLanguage(m.Language) {
		verr.add("language", "%q is not an ISO 639-1 code", m.Language)
	}
	if !verr.has("options.independence_rules") {
		var rules string
		if json.Unmarshal(m.Options.IndependenceRules, &rules) == nil && strings.TrimSpace(rules) == "" &&
			len(m.Options.IndependenceRules) > 0 {
			verr.add("options.independence_rules", "must not be blank")
		}
	}
	if !verr.has("options.temporal_scope") {
		checkScope(m.Options, verr)
	}
	if m.Options.Grounding != "" && !verr.has("options.grounding") {
		checkString(verr, "options.grounding", m.Options.Grounding, 2000)
	}
}

// checkString checks a text field: not blank, within max bytes, no control characters other
// than newline, carriage return and tab. Valid UTF-8 was checked on the raw message, before
// encoding/json could hide a bad byte behind U+FFFD.
func checkString(verr *ValidationError, field, s string, max int) {
	if strings.TrimSpace(s) == "" {
		verr.add(field, "must not be blank")
		return
	}
	if len(s) > max {
		verr.add(field, "is %d bytes, over the limit of %d bytes", len(s), max)
		return
	}
	for i, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			verr.add(field, "contains the control character %U at byte %d; only newline, carriage return and tab are allowed", r, i)
			return
		}
	}
}

// checkScope checks options.temporal_scope with the one parser of it (pipeline.ParseTemporalScope):
// real calendar dates, start before end. A field the schema already found fault with keeps the
// schema's reason.
func checkScope(o MessageOptions, verr *ValidationError) {
	_, err := pipeline.ParseTemporalScope(o.TemporalScope)
	var rejected *pipeline.RejectedError
	switch {
	case err == nil:
	case errors.As(err, &rejected):
		if !verr.has(rejected.Field) {
			verr.add(rejected.Field, "%s", rejected.Rule)
		}
	default:
		verr.add("options.temporal_scope", "%v", err)
	}
}

// parseJSON parses one JSON value, keeping numbers exact for the schema, and reports a syntax
// error with its byte offset, line and column.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			// Offset counts the bytes read, the offending one included.
			off := max(se.Offset-1, 0)
			line, col := lineCol(data, off)
			return nil, fmt.Errorf("is not valid JSON: %v at byte offset %d (line %d, column %d)", se, off, line, col)
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
			return nil, errors.New("is empty; a job message is a JSON object")
		default:
			return nil, fmt.Errorf("is not valid JSON: %v", err)
		}
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		rest := int64(off) + int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n")))
		line, col := lineCol(data, rest)
		return nil, fmt.Errorf("is not valid JSON: unexpected data after the top-level value at byte offset %d (line %d, column %d)", rest, line, col)
	}
	return doc, nil
}

// lineCol turns a 0-based byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

func invalidUTF8Offset(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// quoteShort quotes s for a reason, cut to a readable length.
func quoteShort(s string) string {
	const max = 60
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		return fmt.Sprintf("%q...", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// DedupeID is the job id of a message that carries no Nats-Msg-Id of its own: "sha256:" and the
// hex digest of a canonical JSON encoding of method, question, text and options. Canonical means
// that key order and whitespace inside the options do not change it; any change of content does.
// The producer's id and the language are left out on purpose: the same statement checked the
// same way is the same job.
func DedupeID(m Message) string {
	canonical := struct {
		Method   string `json:"method"`
		Question string `json:"question"`
		Text     string `json:"text"`
		Options  any    `json:"options"`
	}{m.Method, m.Question, m.Text, canonicalOptions(m.Options)}
	// Marshal cannot fail: the value holds only strings, numbers, booleans, maps and slices.
	b, _ := json.Marshal(canonical)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalOptions turns options into a map whose JSON encoding is canonical: encoding/json
// sorts map keys, and the raw fields are re-encoded from their parsed form.
func canonicalOptions(o MessageOptions) map[string]any {
	out := map[string]any{}
	if o.MaxQuestions != nil {
		out["max_questions"] = *o.MaxQuestions
	}
	if o.MaxHops != nil {
		out["max_hops"] = *o.MaxHops
	}
	if o.Iterate != nil {
		out["iterate"] = *o.Iterate
	}
	if o.Grounding != "" {
		out["grounding"] = o.Grounding
	}
	if o.Reverify != nil && *o.Reverify {
		out["reverify"] = true
	}
	for key, raw := range map[string]json.RawMessage{
		"temporal_scope":     o.TemporalScope,
		"independence_rules": o.IndependenceRules,
		"claim_schema":       o.ClaimSchema,
		"output_schema":      o.OutputSchema,
	} {
		if isNull(raw) {
			continue
		}
		v, err := parseJSON(raw)
		if err != nil {
			out[key] = string(raw)
			continue
		}
		out[key] = v
	}
	return out
}
