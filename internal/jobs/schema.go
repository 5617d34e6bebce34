package jobs

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	textlang "golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaJSON is the JSON Schema (draft 2020-12) of the job message, version 1: the contract for
// other systems that publish straight onto the subject. docs/job-message.md ships the same file.
//
//go:embed job.v1.schema.json
var SchemaJSON []byte

// SchemaID is the $id of SchemaJSON.
const SchemaID = "https://github.com/corroborate/corroborate/internal/jobs/job.v1.schema.json"

// compiledSchema compiles SchemaJSON once; a failure is a defect of the embedded file, which a
// test catches.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("job schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Formats are annotations only in draft 2020-12; "date" is part of the contract, so assert it.
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("job schema: %w", err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("job schema: %w", err)
	}
	return sch, nil
})

// validateSchema validates a parsed message against SchemaJSON and adds one readable problem per
// failed keyword, sorted by field so that the list is the same on every run.
func validateSchema(doc any, verr *ValidationError) {
	sch, err := compiledSchema()
	if err != nil {
		verr.add("message", "cannot be validated: %v", err)
		return
	}
	err = sch.Validate(doc)
	if err == nil {
		return
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		verr.add("message", "%v", err)
		return
	}
	var found []Problem
	collectProblems(ve, &found)
	slices.SortStableFunc(found, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) })
	found = slices.Compact(found)
	verr.Problems = append(verr.Problems, found...)
}

// collectProblems walks the schema library's error tree down to the keywords that failed.
func collectProblems(e *jsonschema.ValidationError, out *[]Problem) {
	field := fieldName(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
		if len(e.InstanceLocation) == 0 && allRequired(e.Causes) {
			// The only anyOf at the top is "text or question".
			*out = append(*out, Problem{"message", "needs text, question, or both; it has neither"})
			return
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			name := fieldPart(p)
			if field != "message" {
				name = field + "." + p
			}
			*out = append(*out, Problem{name, "is not a field of the job message v1 (see job.v1.schema.json)"})
		}
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectProblems(c, out)
		}
		return
	}
	*out = append(*out, Problem{field, reasonFor(field, e.ErrorKind)})
}

func allRequired(causes []*jsonschema.ValidationError) bool {
	for _, c := range causes {
		if _, ok := c.ErrorKind.(*kind.Required); !ok {
			return false
		}
	}
	return len(causes) > 0
}

// fieldName turns an instance location into the dotted field name used in problems.
func fieldName(loc []string) string {
	if len(loc) == 0 {
		return "message"
	}
	return strings.Join(loc, ".")
}

// fieldPart is a property name as it appears in a field path: quoted when it is not a plain
// name, so that an empty or dotted key stays visible and unambiguous.
func fieldPart(name string) string {
	for _, r := range name {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return quoteShort(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// reasonFor says in words what one failed keyword means.
func reasonFor(field string, k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = typeWord(w)
		}
		return fmt.Sprintf("must be %s, got %s", strings.Join(want, " or "), typeWord(k.Got))
	case *kind.Const:
		if field == "v" {
			return fmt.Sprintf("must be %v (the only message version this worker reads), got %s", Version, display(k.Got))
		}
		return fmt.Sprintf("must be %s, got %s", display(k.Want), display(k.Got))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		return fmt.Sprintf("%s is not one of %s", display(k.Got), strings.Join(want, ", "))
	case *kind.Minimum:
		return fmt.Sprintf("must be >= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be <= %s, got %s", ratText(k.Want), ratText(k.Got))
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters, got %d", k.Want, k.Got)
	case *kind.MinProperties:
		return "must not be an empty object (use null for none)"
	case *kind.Pattern:
		if hint, ok := patternHints[field]; ok {
			return fmt.Sprintf("%s, got %q", hint, k.Got)
		}
		return fmt.Sprintf("%q does not match %s", k.Got, k.Want)
	case *kind.Format:
		if k.Want == "date" {
			return fmt.Sprintf("must be a calendar date as YYYY-MM-DD, got %s", display(k.Got))
		}
		return fmt.Sprintf("%s is not a valid %s", display(k.Got), k.Want)
	case *kind.Required:
		return fmt.Sprintf("needs %s", strings.Join(k.Missing, ", "))
	}
	return k.LocalizedString(englishPrinter)
}

// englishPrinter words the schema library's own messages for the keywords reasonFor does not know.
var englishPrinter = message.NewPrinter(textlang.English)

// patternHints name what a pattern means, for the fields that have one.
var patternHints = map[string]string{
	"language":                          "must be a two-letter lower-case ISO 639-1 code such as \"en\"",
	"options.temporal_scope.start_date": "must be a calendar date as YYYY-MM-DD",
	"options.temporal_scope.end_date":   "must be a calendar date as YYYY-MM-DD",
}

// ratText shows a number from the schema library; an absurd one (1e400) is cut short rather
// than written out in full into a reason.
func ratText(r *big.Rat) string {
	s := r.RatString()
	if len(s) > 24 {
		return s[:12] + fmt.Sprintf("... (%d characters)", len(s))
	}
	return s
}

func typeWord(t string) string {
	switch t {
	case "object", "integer", "array":
		return "an " + t
	case "null":
		return "null"
	case "number":
		return "a number"
	case "boolean":
		return "true or false"
	}
	return "a " + t
}

// display shows a JSON value as it was written, for reasons.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return quoteShort(v)
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}
