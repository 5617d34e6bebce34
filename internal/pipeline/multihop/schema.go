package multihop

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// PlanSchemaJSON is the JSON Schema of a multihop plan: spec 004's plan schema and output
// validation rules, completed with what the method needs, bounded (maxLength, maxItems) so that
// constrained decoding ends. It is sent with the plan request, every plan is validated against
// it, and it is the default of options.output_schema.
//
//go:embed multihop_plan.schema.json
var PlanSchemaJSON []byte

// ClaimSchemaJSON is spec 004's claim schema (ClaimDecomposition) as a JSON Schema: the default
// of options.claim_schema, applied to every claim of a plan.
//
//go:embed multihop_claim.schema.json
var ClaimSchemaJSON []byte

const (
	planSchemaID  = "https://github.com/corroborate/corroborate/internal/pipeline/multihop_plan.schema.json"
	claimSchemaID = "https://github.com/corroborate/corroborate/internal/pipeline/multihop_claim.schema.json"
)

// builtinSchemas are the two embedded schemas, compiled once; an error is a defect of the
// embedded files, which a test catches.
var builtinSchemas = sync.OnceValues(func() (planSchemas, error) {
	plan, err := pipeline.CompileSchema(planSchemaID, PlanSchemaJSON)
	if err != nil {
		return planSchemas{}, fmt.Errorf("plan schema: %w", err)
	}
	claim, err := pipeline.CompileSchema(claimSchemaID, ClaimSchemaJSON)
	if err != nil {
		return planSchemas{}, fmt.Errorf("claim schema: %w", err)
	}
	return planSchemas{plan: plan, claim: claim}, nil
})

// planRequestSchema is PlanSchemaJSON as the model request's structured-output schema: without
// the $schema and $id keywords, which some servers refuse.
var planRequestSchema = sync.OnceValue(func() *pipeline.OutputSchema {
	var m map[string]any
	if err := json.Unmarshal(PlanSchemaJSON, &m); err != nil {
		panic(fmt.Sprintf("pipeline: the embedded plan schema is not JSON: %v", err))
	}
	delete(m, "$schema")
	delete(m, "$id")
	return &pipeline.OutputSchema{Name: "verification_plan", Schema: m}
})

// planSchemas are the schemas a run validates its plan with: the plan schema always, the job's
// output schema when it gave one (nil otherwise), and the claim schema (the job's or the spec's)
// on every claim.
type planSchemas struct {
	plan, output, claim *jsonschema.Schema
}

// compilePlanSchemas checks and compiles a job's claim and output schemas (nil for the spec's).
func compilePlanSchemas(claimRaw, outputRaw []byte) (planSchemas, error) {
	s, err := builtinSchemas()
	if err != nil {
		return planSchemas{}, err
	}
	if raw := trimmedJSON(claimRaw); raw != nil {
		doc, err := userSchema(fieldClaimSchema, raw)
		if err != nil {
			return planSchemas{}, err
		}
		if rule := claimSchemaProblem(doc); rule != "" {
			return planSchemas{}, pipeline.Rejected(fieldClaimSchema, rule)
		}
		if s.claim, err = pipeline.CompileSchema("https://corroborate.invalid/options/claim_schema.json", raw); err != nil {
			return planSchemas{}, pipeline.Rejected(fieldClaimSchema, "is not a valid JSON Schema: "+pipeline.OneLine(err))
		}
	}
	if raw := trimmedJSON(outputRaw); raw != nil {
		doc, err := userSchema(fieldOutputSchema, raw)
		if err != nil {
			return planSchemas{}, err
		}
		if rule := outputSchemaProblem(doc); rule != "" {
			return planSchemas{}, pipeline.Rejected(fieldOutputSchema, rule)
		}
		if s.output, err = pipeline.CompileSchema("https://corroborate.invalid/options/output_schema.json", raw); err != nil {
			return planSchemas{}, pipeline.Rejected(fieldOutputSchema, "is not a valid JSON Schema: "+pipeline.OneLine(err))
		}
	}
	return s, nil
}

// userSchema parses a job's schema: it must be a JSON object.
func userSchema(field string, raw []byte) (map[string]any, error) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, pipeline.Rejected(field, "is not valid JSON: "+err.Error())
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, pipeline.Rejected(field, "must be a JSON Schema object")
	}
	return obj, nil
}

// schemaNode is one subschema of a job's schema, with the root it came from to resolve
// references inside it.
type schemaNode struct {
	root, node map[string]any
}

// resolve follows local "$ref"s ("#/$defs/claim", "#/definitions/claim") to the subschema they
// name; a reference it cannot follow leaves the node as it is.
func (n schemaNode) resolve() schemaNode {
	for range 10 {
		ref, ok := n.node["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return n
		}
		var cur any = n.root
		for _, part := range strings.Split(ref[2:], "/") {
			part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
			m, ok := cur.(map[string]any)
			if !ok {
				return n
			}
			cur = m[part]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return n
		}
		n.node = next
	}
	return n
}

func (n schemaNode) child(keys ...string) (schemaNode, bool) {
	cur := n.resolve()
	for _, k := range keys {
		m, ok := cur.node[k].(map[string]any)
		if !ok {
			return schemaNode{}, false
		}
		cur = schemaNode{root: n.root, node: m}.resolve()
	}
	return cur, true
}

// types returns the node's "type" as a list; nil when the node does not say (it allows any).
func (n schemaNode) types() []string {
	switch t := n.resolve().node["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// onlyTypes reports whether the node's type is set and every type it allows is in want (plus
// "null").
func (n schemaNode) onlyTypes(want ...string) bool {
	ts := n.types()
	if len(ts) == 0 {
		return false
	}
	for _, t := range ts {
		if t != "null" && !slices.Contains(want, t) {
			return false
		}
	}
	return true
}

func (n schemaNode) required() []string {
	var out []string
	if list, ok := n.resolve().node["required"].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// closed reports whether the node forbids properties it does not list.
func (n schemaNode) closed() bool {
	v, ok := n.resolve().node["additionalProperties"].(bool)
	return ok && !v
}

func (n schemaNode) hasProperty(name string) bool {
	_, ok := n.child("properties", name)
	return ok
}

// maxItems returns the node's maxItems, or -1 when it has none.
func (n schemaNode) maxItems() int {
	if v, ok := n.resolve().node["maxItems"].(json.Number); ok {
		if i, err := v.Int64(); err == nil {
			return int(i)
		}
	}
	return -1
}

// planClaimFields and planFields are the fields a plan carries; a closed job schema must admit
// them, or no plan could pass it.
var (
	planClaimFields = []string{"claim_id", "claim_text", "source_span", "entities", "verifiable", "requires_temporal_scope",
		"ambiguity_note", "interpretations", "depends_on", "sub_queries", "source_independence_score"}
	planFields = []string{"plan_id", "claims", "query_chains", "cross_validation_pairs", "cross_validation_queries", "execution_order"}
)

// claimSchemaProblem returns the rule a job's claim schema breaks, "" for none: it describes one
// claim record (or an array of them, whose items are the record), that record requires an id,
// a text and a verifiable flag, and its id and text are single values, so that distinct claims
// cannot collapse into one record.
func claimSchemaProblem(doc map[string]any) string {
	rec := schemaNode{root: doc, node: doc}.resolve()
	if rec.onlyTypes("array") {
		if n := rec.maxItems(); n >= 0 && n < 2 {
			return fmt.Sprintf("allows at most %d claim: distinct claims would collapse into a single record", n)
		}
		items, ok := rec.child("items")
		if !ok {
			return "is an array schema without items: it must describe the claim record"
		}
		rec = items
	}
	return claimRecordProblem(rec)
}

func claimRecordProblem(rec schemaNode) string {
	if !rec.onlyTypes("object") {
		return `must describe a claim record with "type": "object" (or an array of them)`
	}
	for _, f := range []struct{ name, what string }{{"claim_id", "an id"}, {"claim_text", "a text"}, {"verifiable", "a verifiable flag"}} {
		if !rec.hasProperty(f.name) || !slices.Contains(rec.required(), f.name) {
			return fmt.Sprintf("each claim record must include %s: %q must be a required property", f.what, f.name)
		}
	}
	text, _ := rec.child("properties", "claim_text")
	if !text.onlyTypes("string") {
		return `"claim_text" must be of type string: a record whose text can hold several values collapses distinct claims into one`
	}
	id, _ := rec.child("properties", "claim_id")
	if !id.onlyTypes("string", "integer") {
		return `"claim_id" must be of type string or integer: one id per claim`
	}
	verifiable, _ := rec.child("properties", "verifiable")
	if !verifiable.onlyTypes("boolean") {
		return `"verifiable" must be of type boolean`
	}
	if rec.closed() {
		for _, f := range planClaimFields {
			if !rec.hasProperty(f) {
				return fmt.Sprintf("forbids additional properties but does not list %q, which every plan claim carries", f)
			}
		}
	}
	return ""
}

// outputSchemaProblem returns the rule a job's output schema breaks, "" for none: it describes
// an object whose claims are an array of claim records (as claimSchemaProblem requires), whose
// query chains must name their claim and whose cross-validation pairs and queries must name
// theirs, so that no query or cross-reference can be an orphan. That the names point at claims
// that exist is checked in code on every plan.
func outputSchemaProblem(doc map[string]any) string {
	root := schemaNode{root: doc, node: doc}.resolve()
	if !root.onlyTypes("object") {
		return `must describe the plan with "type": "object"`
	}
	for _, f := range []string{"claims", "query_chains", "cross_validation_pairs"} {
		if !root.hasProperty(f) || !slices.Contains(root.required(), f) {
			return fmt.Sprintf("%q must be a required property of the plan", f)
		}
	}
	claims, _ := root.child("properties", "claims")
	if !claims.onlyTypes("array") {
		return `"claims" must be of type array: the schema must support arrays of claims`
	}
	if n := claims.maxItems(); n >= 0 && n < 2 {
		return fmt.Sprintf(`"claims" allows at most %d item: distinct claims would collapse into a single record`, n)
	}
	items, ok := claims.child("items")
	if !ok {
		return `"claims" must describe its items, the claim records`
	}
	if rule := claimRecordProblem(items); rule != "" {
		return `"claims" items: ` + rule
	}
	for _, ref := range []struct {
		array  string
		fields []string
	}{
		{"query_chains", []string{"claim_id", "hops"}},
		{"cross_validation_pairs", []string{"claim_a_id", "claim_b_id"}},
		{"cross_validation_queries", []string{"query_text", "target_claim_indices"}},
	} {
		arr, ok := root.child("properties", ref.array)
		if !ok {
			continue // only cross_validation_queries may be absent: it was checked above
		}
		if !arr.onlyTypes("array") {
			return fmt.Sprintf("%q must be of type array", ref.array)
		}
		item, ok := arr.child("items")
		if !ok || !item.onlyTypes("object") {
			return fmt.Sprintf("%q must describe its items as objects", ref.array)
		}
		for _, f := range ref.fields {
			if !slices.Contains(item.required(), f) {
				return fmt.Sprintf("%q items must require %q, or a query or cross-reference could be an orphan", ref.array, f)
			}
		}
	}
	if root.closed() {
		for _, f := range planFields {
			if !root.hasProperty(f) {
				return fmt.Sprintf("forbids additional properties but does not list %q, which every plan carries", f)
			}
		}
	}
	return ""
}
