package multihop

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// Every input check of spec 004 rejects with the field and the rule.
func TestCheckMultihopInputRejects(t *testing.T) {
	t.Parallel()
	ok := pipeline.Input{Text: "The Eiffel Tower was completed in 1889."}
	with := func(f func(*pipeline.Input)) pipeline.Input {
		in := ok
		f(&in)
		return in
	}
	tests := []struct {
		name        string
		in          pipeline.Input
		field, rule string
	}{
		{"empty statement", with(func(in *pipeline.Input) { in.Text = "  " }), fieldText, "has no text"},
		{"single word", with(func(in *pipeline.Input) { in.Text = "Paris" }), fieldText, "single word"},
		{"claim schema not JSON", with(func(in *pipeline.Input) { in.Options.ClaimSchema = []byte(`{`) }), fieldClaimSchema, "not valid JSON"},
		{"claim schema not an object", with(func(in *pipeline.Input) { in.Options.ClaimSchema = []byte(`["claim_id"]`) }), fieldClaimSchema, "must be a JSON Schema object"},
		{"claim schema not a schema", with(func(in *pipeline.Input) {
			in.Options.ClaimSchema = []byte(`{"type":"object","required":["claim_id","claim_text","verifiable"],"properties":{"claim_id":{"type":"string"},"claim_text":{"type":"string","minLength":"one"},"verifiable":{"type":"boolean"}}}`)
		}), fieldClaimSchema, "not a valid JSON Schema"},
		{"claim schema without verifiable", with(func(in *pipeline.Input) {
			in.Options.ClaimSchema = []byte(`{"type":"object","required":["claim_id","claim_text"],"properties":{"claim_id":{"type":"string"},"claim_text":{"type":"string"}}}`)
		}), fieldClaimSchema, "a verifiable flag"},
		{"claim schema collapses claims", with(func(in *pipeline.Input) {
			in.Options.ClaimSchema = []byte(`{"type":"object","required":["claim_id","claim_text","verifiable"],"properties":{"claim_id":{"type":"string"},"claim_text":{"type":"array","items":{"type":"string"}},"verifiable":{"type":"boolean"}}}`)
		}), fieldClaimSchema, "collapses distinct claims"},
		{"claim array of one", with(func(in *pipeline.Input) {
			in.Options.ClaimSchema = []byte(`{"type":"array","maxItems":1,"items":{"type":"object"}}`)
		}), fieldClaimSchema, "single record"},
		{"claim schema with an external reference", with(func(in *pipeline.Input) {
			// A real schema file: the worker must refuse to read it, not find it valid.
			abs, _ := filepath.Abs("multihop_claim.schema.json")
			in.Options.ClaimSchema = []byte(`{"type":"object","required":["claim_id","claim_text","verifiable"],"properties":{"claim_id":{"type":"string"},"claim_text":{"type":"string"},"verifiable":{"type":"boolean"},"entities":{"$ref":"file://` + abs + `"}}}`)
		}), fieldClaimSchema, "only references inside the schema"},
		{"output schema without claims array", with(func(in *pipeline.Input) {
			in.Options.OutputSchema = []byte(`{"type":"object","required":["claims","query_chains","cross_validation_pairs"],"properties":{"claims":{"type":"object"},"query_chains":{"type":"array"},"cross_validation_pairs":{"type":"array"}}}`)
		}), fieldOutputSchema, "support arrays of claims"},
		{"output schema allows orphan chains", with(func(in *pipeline.Input) {
			var s map[string]any
			_ = json.Unmarshal(PlanSchemaJSON, &s)
			chain := s["properties"].(map[string]any)["query_chains"].(map[string]any)["items"].(map[string]any)
			chain["required"] = []string{"hops"}
			in.Options.OutputSchema, _ = json.Marshal(s)
		}), fieldOutputSchema, `must require "claim_id"`},
		{"output schema that no plan can pass", with(func(in *pipeline.Input) {
			in.Options.OutputSchema = []byte(`{"type":"object","additionalProperties":false,"required":["claims","query_chains","cross_validation_pairs"],
				"properties":{"claims":{"type":"array","items":{"type":"object","required":["claim_id","claim_text","verifiable"],"properties":{"claim_id":{"type":"string"},"claim_text":{"type":"string"},"verifiable":{"type":"boolean"}}}},
				"query_chains":{"type":"array","items":{"type":"object","required":["claim_id","hops"]}},
				"cross_validation_pairs":{"type":"array","items":{"type":"object","required":["claim_a_id","claim_b_id"]}}}}`)
		}), fieldOutputSchema, `does not list "plan_id"`},
		{"rules allow reuse", with(func(in *pipeline.Input) { in.Options.IndependenceRules = []byte(`"Hops may reuse the same source."`) }), fieldIndependence, "self-referencing"},
		{"max hops 11", with(func(in *pipeline.Input) { in.Options.MaxHops = 11 }), fieldMaxHops, "from 1 to 10"},
		{"max hops negative", with(func(in *pipeline.Input) { in.Options.MaxHops = -1 }), fieldMaxHops, "from 1 to 10"},
		{"scope not an object", with(func(in *pipeline.Input) { in.Options.TemporalScope = []byte(`"2023"`) }), pipeline.FieldTemporalScope, "must be null or an object"},
		{"scope malformed date", with(func(in *pipeline.Input) { in.Options.TemporalScope = []byte(`{"start_date":"2023-02-30"}`) }), pipeline.FieldTemporalScope + ".start_date", "calendar date as YYYY-MM-DD"},
		{"scope date not a string", with(func(in *pipeline.Input) { in.Options.TemporalScope = []byte(`{"end_date":20231231}`) }), pipeline.FieldTemporalScope + ".end_date", "ISO 8601"},
		{"scope end before start", with(func(in *pipeline.Input) {
			in.Options.TemporalScope = []byte(`{"start_date":"2024-12-31","end_date":"2023-01-01"}`)
		}), pipeline.FieldTemporalScope, "must precede"},
		{"scope same day", with(func(in *pipeline.Input) {
			in.Options.TemporalScope = []byte(`{"start_date":"2024-01-01","end_date":"2024-01-01"}`)
		}), pipeline.FieldTemporalScope, "must precede"},
		{"scope unknown key", with(func(in *pipeline.Input) { in.Options.TemporalScope = []byte(`{"recent":true}`) }), pipeline.FieldTemporalScope + ".recent", "not a field"},
		{"scope empty", with(func(in *pipeline.Input) { in.Options.TemporalScope = []byte(`{}`) }), pipeline.FieldTemporalScope, "empty object"},
		{"prefer_recent not a boolean", with(func(in *pipeline.Input) { in.Options.TemporalScope = []byte(`{"prefer_recent":"yes"}`) }), pipeline.FieldTemporalScope + ".prefer_recent", "true or false"},
		{"grounding blank", with(func(in *pipeline.Input) { in.Options.Grounding = "   " }), fieldGrounding, "must not be blank"},
		{"grounding without UNVERIFIED", with(func(in *pipeline.Input) { in.Options.Grounding = "Every claim must cite a source." }), fieldGrounding, "UNVERIFIED"},
		{"grounding forbids the flag", with(func(in *pipeline.Input) {
			in.Options.Grounding = "Never mark a claim as UNVERIFIED; always decide."
		}), fieldGrounding, "forbids the UNVERIFIED flag"},
		{"grounding lets claims pass", with(func(in *pipeline.Input) {
			in.Options.Grounding = "Citations are optional. Claims without evidence may be flagged UNVERIFIED."
		}), fieldGrounding, "without either a citation"},
		{"grounding lets claims stand without evidence", with(func(in *pipeline.Input) {
			in.Options.Grounding = "A claim can be marked as supported without a source; otherwise UNVERIFIED."
		}), fieldGrounding, "without either a citation"},
		{"language not a code", with(func(in *pipeline.Input) { in.Language = "english" }), fieldLanguage, "ISO 639-1"},
		{"language upper case", with(func(in *pipeline.Input) { in.Language = "EN" }), fieldLanguage, "ISO 639-1"},
		{"language unsupported", with(func(in *pipeline.Input) { in.Language = "xx" }), fieldLanguage, "not a supported language"},
		{"language without a text search configuration", with(func(in *pipeline.Input) { in.Language = "ja" }), fieldLanguage, "not a supported language"},
	}
	for _, tt := range tests {
		_, err := checkMultihopInput(tt.in)
		assertRejected(t, tt.name, err, tt.field, tt.rule)
	}
}

func TestCheckMultihopInputDefaults(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	mi, err := checkMultihopInput(pipeline.Input{Text: "  The Eiffel Tower was completed in 1889. ", Today: today})
	if err != nil {
		t.Fatal(err)
	}
	if mi.statement != "The Eiffel Tower was completed in 1889." || mi.language != "en" || mi.languageName != "English" ||
		mi.maxHops != pipeline.DefaultMaxHops || mi.scope != nil || mi.grounding != DefaultGrounding ||
		mi.rules.Text != DefaultIndependenceRules || !mi.today.Equal(today) || len(mi.reviewFlags) != 0 {
		t.Errorf("defaults: %+v", mi)
	}
	if mi.schemas.plan == nil || mi.schemas.claim == nil || mi.schemas.output != nil {
		t.Errorf("schemas: want the plan and claim schemas and no job output schema, got %+v", mi.schemas)
	}

	mi, err = checkMultihopInput(pipeline.Input{Text: "Two words", Language: "de", Options: pipeline.Options{MaxHops: 6,
		TemporalScope: []byte(`{"start_date":"2023-01-01","end_date":"2024-12-31","prefer_recent":true}`),
		Grounding:     "Cite a source for every claim, or flag it Unverified and say why.",
		ClaimSchema:   ClaimSchemaJSON, OutputSchema: PlanSchemaJSON}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mi.reviewFlags, []pipeline.ReviewFlag{pipeline.Flag(pipeline.FlagMaxHopsAbove5)}) || mi.maxHops != 6 || mi.language != "de" {
		t.Errorf("max_hops 6 in German: %+v", mi)
	}
	if mi.scope == nil || !mi.scope.PreferRecent || mi.scope.Start.Format(time.DateOnly) != "2023-01-01" || mi.schemas.output == nil {
		t.Errorf("scope and output schema: %+v", mi)
	}
	for _, n := range []int{1, 5, 10} {
		mi, err := checkMultihopInput(pipeline.Input{Text: "Two words", Options: pipeline.Options{MaxHops: n}})
		if err != nil || mi.maxHops != n || (n > 5) != slices.Contains(mi.reviewFlags, pipeline.Flag(pipeline.FlagMaxHopsAbove5)) {
			t.Errorf("max_hops %d: %+v, %v", n, mi, err)
		}
	}
}

// The spec's default schemas pass the checks a job's schemas must pass.
func TestDefaultSchemasPassTheirOwnChecks(t *testing.T) {
	t.Parallel()
	if _, err := compilePlanSchemas(ClaimSchemaJSON, PlanSchemaJSON); err != nil {
		t.Fatal(err)
	}
	if _, err := builtinSchemas(); err != nil {
		t.Fatal(err)
	}
	if s := planRequestSchema(); s.Name == "" || s.Schema["type"] != "object" || s.Schema["$id"] != nil {
		t.Errorf("request schema: %+v", s)
	}
}

func TestTemporalScope(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	s, err := pipeline.ParseTemporalScope([]byte(`{"start_date":"2023-01-01","end_date":"2024-12-31","prefer_recent":true}`))
	if err != nil {
		t.Fatal(err)
	}
	from, to := s.Bounds()
	if from.Format(time.DateOnly) != "2023-01-01" || to.Format(time.DateOnly) != "2025-01-01" {
		t.Errorf("bounds = %v, %v", from, to)
	}
	day := func(d string) *time.Time { t, _ := time.Parse(time.DateOnly, d); return &t }
	for d, want := range map[string]bool{"2022-12-31": false, "2023-01-01": true, "2024-12-31": true, "2025-01-01": false} {
		if got := s.Admits(day(d)); got != want {
			t.Errorf("admits(%s) = %v", d, got)
		}
	}
	if s.Admits(nil) {
		t.Error("a bounded scope admits evidence of unknown date")
	}
	if got := s.ShapeQuery("APOE4 cancer risk", today); got != "APOE4 cancer risk 2023 2024" {
		t.Errorf("shapeQuery = %q", got)
	}
	if got := s.ShapeQuery("APOE4 cancer risk 2024 meta-analysis", today); got != "APOE4 cancer risk 2024 meta-analysis" {
		t.Errorf("shapeQuery kept a query with a year in scope: %q", got)
	}
	recent, _ := pipeline.ParseTemporalScope([]byte(`{"prefer_recent":true}`))
	if recent.Bounded() || !recent.Admits(nil) || recent.ShapeQuery("APOE4", today) != "APOE4 2026" {
		t.Errorf("prefer_recent alone: %+v %q", recent, recent.ShapeQuery("APOE4", today))
	}
	var none *pipeline.TemporalScope
	if none.ShapeQuery("q", today) != "q" || !none.Admits(nil) {
		t.Error("no scope changes nothing")
	}
	if s, err := pipeline.ParseTemporalScope([]byte(` null `)); s != nil || err != nil {
		t.Errorf("null: %v %v", s, err)
	}
}
