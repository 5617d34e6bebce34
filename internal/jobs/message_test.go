package jobs

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

func TestDecodeValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		cfg  ValidationConfig
		want Message
	}{
		{
			name: "text only gets every default",
			in:   `{"text":"Paris is the capital of France."}`,
			want: Message{V: 1, Text: "Paris is the capital of France.", Method: "multihop", Language: "en"},
		},
		{
			name: "question only, a single word is fine",
			in:   `{"question":"Why?"}`,
			want: Message{V: 1, Question: "Why?", Method: "multihop", Language: "en"},
		},
		{
			name: "the caller's default method",
			in:   `{"question":"Name some politicians born in New York."}`,
			cfg:  ValidationConfig{DefaultMethod: pipeline.MethodFactored},
			want: Message{V: 1, Question: "Name some politicians born in New York.", Method: "cove-factored", Language: "en"},
		},
		{
			name: "every field",
			in: `{"v":1,"text":"Line one.\nLine\ttwo.\r\n","question":"What?","id":"article-7","method":"cove2",
				"language":"de","options":{"max_questions":20,"max_hops":1,"iterate":true,
				"temporal_scope":{"start_date":"2023-01-01","end_date":"2024-12-31","prefer_recent":true},
				"independence_rules":{"distinct_domains":true}}}`,
			want: Message{V: 1, Text: "Line one.\nLine\ttwo.\r\n", Question: "What?", ID: "article-7", Method: "cove2",
				Language: "de", Options: MessageOptions{
					MaxQuestions: intp(20), MaxHops: intp(1), Iterate: boolp(true),
					TemporalScope:     json.RawMessage(`{"start_date":"2023-01-01","end_date":"2024-12-31","prefer_recent":true}`),
					IndependenceRules: json.RawMessage(`{"distinct_domains":true}`),
				}},
		},
		{
			name: "null temporal scope is none",
			in:   `{"text":"Water boils at 100 C.","options":{"temporal_scope":null,"independence_rules":"Each hop a different publisher."}}`,
			want: Message{V: 1, Text: "Water boils at 100 C.", Method: "multihop", Language: "en",
				Options: MessageOptions{IndependenceRules: json.RawMessage(`"Each hop a different publisher."`)}},
		},
		{
			name: "only one end of the scope",
			in:   `{"text":"Water boils at 100 C.","options":{"temporal_scope":{"end_date":"2020-02-29"}}}`,
			want: Message{V: 1, Text: "Water boils at 100 C.", Method: "multihop", Language: "en",
				Options: MessageOptions{TemporalScope: json.RawMessage(`{"end_date":"2020-02-29"}`)}},
		},
		{
			name: "text exactly at a configured limit",
			in:   `{"text":"ab cd"}`,
			cfg:  ValidationConfig{MaxTextBytes: 5},
			want: Message{V: 1, Text: "ab cd", Method: "multihop", Language: "en"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode([]byte(tt.in), tt.cfg)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode =\n %#v\nwant\n %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 7000) // 35000 bytes
	tests := []struct {
		name string
		in   string
		cfg  ValidationConfig
		want []Problem
	}{
		{"over the message size limit", `{"text":"` + strings.Repeat("a ", 60) + `"}`, ValidationConfig{MaxMessageBytes: 100},
			[]Problem{{"message", "is 131 bytes, over the limit of 100 bytes"}}},
		{"empty input", ``, ValidationConfig{},
			[]Problem{{"message", "is empty; a job message is a JSON object"}}},
		{"not JSON", "{\"text\":\n  \"two words\",,}", ValidationConfig{},
			[]Problem{{"message", "is not valid JSON: invalid character ',' looking for beginning of object key string at byte offset 23 (line 2, column 15)"}}},
		{"truncated JSON", `{"text":"two words"`, ValidationConfig{},
			[]Problem{{"message", "is not valid JSON: unexpected EOF"}}},
		{"data after the object", `{"text":"two words"} {}`, ValidationConfig{},
			[]Problem{{"message", "is not valid JSON: unexpected data after the top-level value at byte offset 21 (line 1, column 22)"}}},
		{"invalid UTF-8", "{\"text\":\"two \xff words\"}", ValidationConfig{},
			[]Problem{{"message", "is not valid UTF-8 (first bad byte at byte offset 13)"}}},
		{"not an object", `["text"]`, ValidationConfig{},
			[]Problem{{"message", "must be an object, got an array"}}},
		{"neither text nor question", `{"method":"multihop"}`, ValidationConfig{},
			[]Problem{{"message", "needs text, question, or both; it has neither"}}},
		{"unknown version", `{"v":2,"text":"two words"}`, ValidationConfig{},
			[]Problem{{"v", "must be 1 (the only message version this worker reads), got 2"}}},
		{"unknown field", `{"text":"two words","colour":"red"}`, ValidationConfig{},
			[]Problem{{"colour", "is not a field of the job message v1 (see job.v1.schema.json)"}}},
		{"wrong type", `{"text":42}`, ValidationConfig{},
			[]Problem{{"text", "must be a string, got a number"}}},
		{"empty text", `{"text":""}`, ValidationConfig{},
			[]Problem{{"text", "must not be empty"}}},
		{"blank text", `{"text":" \n\t "}`, ValidationConfig{},
			[]Problem{{"text", "must not be blank"}}},
		{"a single word", `{"text":"  Paris  "}`, ValidationConfig{},
			[]Problem{{"text", `a statement needs at least two words, got "  Paris  "`}}},
		{"text over the default limit", `{"text":"` + long + `"}`, ValidationConfig{},
			[]Problem{{"text", "is 35000 bytes, over the limit of 32768 bytes"}}},
		{"text over a configured limit", `{"text":"abc def"}`, ValidationConfig{MaxTextBytes: 5},
			[]Problem{{"text", "is 7 bytes, over the limit of 5 bytes"}}},
		{"control character in text", `{"text":"two\u0007 words"}`, ValidationConfig{},
			[]Problem{{"text", "contains the control character U+0007 at byte 3; only newline, carriage return and tab are allowed"}}},
		{"empty question", `{"question":""}`, ValidationConfig{},
			[]Problem{{"question", "must not be empty"}}},
		{"blank question", `{"question":"   "}`, ValidationConfig{},
			[]Problem{{"question", "must not be blank"}}},
		{"question over the limit", `{"question":"` + strings.Repeat("q", 4097) + `"}`, ValidationConfig{},
			[]Problem{{"question", "is 4097 bytes, over the limit of 4096 bytes"}}},
		{"control character in question", `{"question":"why\u001b[31m?"}`, ValidationConfig{},
			[]Problem{{"question", "contains the control character U+001B at byte 3; only newline, carriage return and tab are allowed"}}},
		{"unknown method", `{"text":"two words","method":"cove3"}`, ValidationConfig{},
			[]Problem{{"method", `"cove3" is not one of "cove-factored", "cove-joint", "cove-two-step", "cove-factor-revise", "cove2", "multihop"`}}},
		{"unknown default method", `{"text":"two words"}`, ValidationConfig{DefaultMethod: "magic"},
			[]Problem{{"method", `none given, and the configured default "magic" is not a known method (known: cove-factored, cove-joint, cove-two-step, cove-factor-revise, cove2, multihop)`}}},
		{"language not two lower-case letters", `{"text":"two words","language":"EN"}`, ValidationConfig{},
			[]Problem{{"language", `must be a two-letter lower-case ISO 639-1 code such as "en", got "EN"`}}},
		{"unknown language", `{"text":"two words","language":"xx"}`, ValidationConfig{},
			[]Problem{{"language", `"xx" is not an ISO 639-1 code`}}},
		{"max_questions too small", `{"text":"two words","options":{"max_questions":0}}`, ValidationConfig{},
			[]Problem{{"options.max_questions", "must be >= 1, got 0"}}},
		{"max_questions too large", `{"text":"two words","options":{"max_questions":21}}`, ValidationConfig{},
			[]Problem{{"options.max_questions", "must be <= 20, got 21"}}},
		{"max_hops too large", `{"text":"two words","options":{"max_hops":11}}`, ValidationConfig{},
			[]Problem{{"options.max_hops", "must be <= 10, got 11"}}},
		{"max_hops a fraction", `{"text":"two words","options":{"max_hops":2.5}}`, ValidationConfig{},
			[]Problem{{"options.max_hops", "must be an integer, got a number"}}},
		{"max_hops written as 2.0", `{"text":"two words","options":{"max_hops":2.0}}`, ValidationConfig{},
			[]Problem{{"options.max_hops", "must be written as a whole number such as 3, got number 2.0"}}},
		{"absurd max_hops", `{"text":"two words","options":{"max_hops":1e400}}`, ValidationConfig{},
			[]Problem{{"options.max_hops", "must be <= 10, got 100000000000... (401 characters)"}}},
		{"iterate not a boolean", `{"text":"two words","options":{"iterate":"yes"}}`, ValidationConfig{},
			[]Problem{{"options.iterate", "must be true or false, got a string"}}},
		{"unknown option", `{"text":"two words","options":{"max_claims":3}}`, ValidationConfig{},
			[]Problem{{"options.max_claims", "is not a field of the job message v1 (see job.v1.schema.json)"}}},
		{"temporal scope a string", `{"text":"two words","options":{"temporal_scope":"2023"}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope", "must be null or an object, got a string"}}},
		{"temporal scope empty", `{"text":"two words","options":{"temporal_scope":{}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope", "must not be an empty object (use null for none)"}}},
		{"temporal scope unknown key", `{"text":"two words","options":{"temporal_scope":{"start":"2023-01-01"}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope.start", "is not a field of the job message v1 (see job.v1.schema.json)"}}},
		{"malformed date", `{"text":"two words","options":{"temporal_scope":{"start_date":"01/02/2023"}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope.start_date", `must be a calendar date as YYYY-MM-DD, got "01/02/2023"`}}},
		{"impossible date", `{"text":"two words","options":{"temporal_scope":{"end_date":"2023-02-29"}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope.end_date", `must be a calendar date as YYYY-MM-DD, got "2023-02-29"`}}},
		{"start after end", `{"text":"two words","options":{"temporal_scope":{"start_date":"2024-12-31","end_date":"2023-01-01"}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope", "start_date 2024-12-31 must precede end_date 2023-01-01"}}},
		{"start equals end", `{"text":"two words","options":{"temporal_scope":{"start_date":"2024-01-01","end_date":"2024-01-01"}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope", "start_date 2024-01-01 must precede end_date 2024-01-01"}}},
		{"prefer_recent not a boolean", `{"text":"two words","options":{"temporal_scope":{"prefer_recent":1}}}`, ValidationConfig{},
			[]Problem{{"options.temporal_scope.prefer_recent", "must be true or false, got a number"}}},
		{"independence rules a number", `{"text":"two words","options":{"independence_rules":5}}`, ValidationConfig{},
			[]Problem{{"options.independence_rules", "must be a string or an object, got a number"}}},
		{"independence rules empty", `{"text":"two words","options":{"independence_rules":""}}`, ValidationConfig{},
			[]Problem{{"options.independence_rules", "must not be empty"}}},
		{"independence rules blank", `{"text":"two words","options":{"independence_rules":"  "}}`, ValidationConfig{},
			[]Problem{{"options.independence_rules", "must not be blank"}}},
		{"options not an object", `{"text":"two words","options":[]}`, ValidationConfig{},
			[]Problem{{"options", "must be an object, got an array"}}},
		{"every problem at once, sorted by field", `{"v":0,"text":"Paris","method":"x","language":"zz","options":{"max_hops":0,"iterate":1}}`, ValidationConfig{},
			[]Problem{
				{"method", `"x" is not one of "cove-factored", "cove-joint", "cove-two-step", "cove-factor-revise", "cove2", "multihop"`},
				{"options.iterate", "must be true or false, got a number"},
				{"options.max_hops", "must be >= 1, got 0"},
				{"v", "must be 1 (the only message version this worker reads), got 0"},
				{"text", `a statement needs at least two words, got "Paris"`},
				{"language", `"zz" is not an ISO 639-1 code`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Decode([]byte(tt.in), tt.cfg)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Decode = %+v, %v; want a *ValidationError", m, err)
			}
			if !reflect.DeepEqual(verr.Problems, tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", verr.Problems, tt.want)
			}
			if !reflect.DeepEqual(m, Message{}) {
				t.Errorf("an invalid message decoded to %+v, want the zero Message", m)
			}
		})
	}
}

func TestValidationErrorText(t *testing.T) {
	t.Parallel()
	_, err := Decode([]byte(`{"text":"Paris","language":"xx"}`), ValidationConfig{})
	want := `invalid job message: text: a statement needs at least two words, got "Paris"; language: "xx" is not an ISO 639-1 code`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v\nwant %s", err, want)
	}
}

func TestScopeParses(t *testing.T) {
	t.Parallel()
	m, err := Decode([]byte(`{"text":"two words","options":{"temporal_scope":{"start_date":"2023-01-01","prefer_recent":true}}}`), ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.ParseTemporalScope(m.Options.TemporalScope)
	if err != nil || s == nil || *s != (pipeline.TemporalScope{Start: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), PreferRecent: true}) {
		t.Errorf("ParseTemporalScope = %+v, %v", s, err)
	}
	if s, err := pipeline.ParseTemporalScope((MessageOptions{}).TemporalScope); s != nil || err != nil {
		t.Errorf("ParseTemporalScope of no scope = %+v, %v; want nil, nil", s, err)
	}
}

// TestSchemaEnumMatchesMethods keeps the one list of methods and the schema's enum in step.
func TestSchemaEnumMatchesMethods(t *testing.T) {
	t.Parallel()
	var schema struct {
		Schema     string `json:"$schema"`
		ID         string `json:"$id"`
		Properties struct {
			Method struct {
				Enum []string `json:"enum"`
			} `json:"method"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(SchemaJSON, &schema); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(schema.Properties.Method.Enum, pipeline.MethodNames()) {
		t.Errorf("schema enum %q, pipeline.MethodNames() %q", schema.Properties.Method.Enum, pipeline.MethodNames())
	}
	if schema.Schema != "https://json-schema.org/draft/2020-12/schema" || schema.ID != SchemaID {
		t.Errorf("$schema %q, $id %q", schema.Schema, schema.ID)
	}
	if _, err := compiledSchema(); err != nil {
		t.Errorf("the embedded schema does not compile: %v", err)
	}
}

// TestSchemaDescribesEveryField walks the schema: every property has a description, and the
// objects allow no other fields.
func TestSchemaDescribesEveryField(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(SchemaJSON, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		if _, ok := node["description"].(string); !ok {
			t.Errorf("%s has no description", path)
		}
		props, ok := node["properties"].(map[string]any)
		if !ok {
			return
		}
		if node["additionalProperties"] != false {
			t.Errorf("%s allows additional properties", path)
		}
		for name, p := range props {
			walk(path+"."+name, p.(map[string]any))
		}
	}
	walk("message", doc)
}

func TestDedupeID(t *testing.T) {
	t.Parallel()
	decode := func(s string) Message {
		t.Helper()
		m, err := Decode([]byte(s), ValidationConfig{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := decode(`{"text":"The Eiffel Tower is in Paris.","question":"Where is it?","method":"cove2",
		"options":{"max_hops":3,"temporal_scope":{"start_date":"2023-01-01","end_date":"2024-01-01"},"independence_rules":{"a":1,"b":[1,2]}}}`)
	id := DedupeID(base)
	if !strings.HasPrefix(id, "sha256:") || len(id) != len("sha256:")+64 {
		t.Fatalf("DedupeID = %q, want sha256:<64 hex>", id)
	}

	same := map[string]string{
		"keys reordered, whitespace added": `{ "options" : { "independence_rules" : { "b" : [ 1 , 2 ] , "a" : 1 },
			"temporal_scope" : { "end_date" : "2024-01-01" , "start_date" : "2023-01-01" }, "max_hops" : 3 },
			"method" : "cove2", "question" : "Where is it?", "text" : "The Eiffel Tower is in Paris." }`,
		"another producer id and language": `{"id":"row-9","language":"fr","text":"The Eiffel Tower is in Paris.","question":"Where is it?","method":"cove2",
			"options":{"max_hops":3,"temporal_scope":{"start_date":"2023-01-01","end_date":"2024-01-01"},"independence_rules":{"a":1,"b":[1,2]}}}`,
	}
	for name, s := range same {
		if got := DedupeID(decode(s)); got != id {
			t.Errorf("%s: id changed to %s", name, got)
		}
	}

	changes := map[string]func(m *Message){
		"text":               func(m *Message) { m.Text += " " },
		"question":           func(m *Message) { m.Question = "Where is it now?" },
		"method":             func(m *Message) { m.Method = pipeline.MethodMultihop },
		"max_hops":           func(m *Message) { m.Options.MaxHops = intp(4) },
		"max_questions":      func(m *Message) { m.Options.MaxQuestions = intp(3) },
		"iterate":            func(m *Message) { m.Options.Iterate = boolp(false) },
		"temporal_scope":     func(m *Message) { m.Options.TemporalScope = json.RawMessage(`{"start_date":"2023-01-02"}`) },
		"independence_rules": func(m *Message) { m.Options.IndependenceRules = json.RawMessage(`"different publishers"`) },
		"text moved to question": func(m *Message) {
			m.Text, m.Question = m.Question, m.Text
		},
	}
	seen := map[string]string{id: "base"}
	for name, change := range changes {
		m := base
		change(&m)
		got := DedupeID(m)
		if prev, dup := seen[got]; dup {
			t.Errorf("changing %s gives the id of %s", name, prev)
		}
		seen[got] = name
	}
	if DedupeID(base) != id {
		t.Error("DedupeID is not stable")
	}
	// Absent and null temporal scope are the same content.
	a := decode(`{"text":"two words"}`)
	b := decode(`{"text":"two words","options":{"temporal_scope":null}}`)
	if DedupeID(a) != DedupeID(b) {
		t.Error("a null temporal scope changes the id")
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	base, limit := 5*time.Second, 5*time.Minute
	for _, tt := range []struct {
		attempt uint64
		want    time.Duration
	}{{1, 5 * time.Second}, {2, 10 * time.Second}, {3, 20 * time.Second}, {6, 160 * time.Second}, {7, 5 * time.Minute}, {1000, 5 * time.Minute}} {
		got := backoff(tt.attempt, base, limit)
		if got < tt.want || got > tt.want+tt.want/10 {
			t.Errorf("backoff(%d) = %s, want %s plus at most a tenth", tt.attempt, got, tt.want)
		}
	}
}

func TestTermReasonVersion(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"2.9.10": false, "2.10.3": false, "2.10.4": true, "2.11.0-RC.1": true, "2.15.2": true, "3.0.0": true, "": false} {
		if got := termReasonVersion(v); got != want {
			t.Errorf("termReasonVersion(%q) = %v", v, got)
		}
	}
}

func TestReject(t *testing.T) {
	t.Parallel()
	cause := errors.New("unknown method")
	err := Reject(cause)
	if !errors.Is(err, ErrReject) || !errors.Is(err, cause) || err.Error() != "unknown method" {
		t.Errorf("Reject(%v) = %v: Is ErrReject %v, Is cause %v", cause, err, errors.Is(err, ErrReject), errors.Is(err, cause))
	}
	var verr *ValidationError
	_, decodeErr := Decode([]byte(`{}`), ValidationConfig{})
	if !errors.As(Reject(decodeErr), &verr) {
		t.Error("a rejected *ValidationError is not found by errors.As")
	}
	if !errors.Is(Reject(nil), ErrReject) {
		t.Error("Reject(nil) is not a rejection")
	}
}
