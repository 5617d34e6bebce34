package jobs

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// The multihop plan options (claim_schema, output_schema, grounding) are carried raw, checked by
// the schema for their type, and take part in the job id.
func TestMultihopPlanOptions(t *testing.T) {
	t.Parallel()
	in := `{"text":"The Eiffel Tower is in Paris.","options":{
		"claim_schema":{"type":"object","required":["claim_id"]},
		"output_schema":{"type":"object"},
		"grounding":"Cite a source for every claim or flag it UNVERIFIED with a reason."}}`
	m, err := Decode([]byte(in), ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := MessageOptions{
		ClaimSchema:  json.RawMessage(`{"type":"object","required":["claim_id"]}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		Grounding:    "Cite a source for every claim or flag it UNVERIFIED with a reason.",
	}
	if !reflect.DeepEqual(m.Options, want) {
		t.Errorf("options = %+v\nwant %+v", m.Options, want)
	}

	plain, err := Decode([]byte(`{"text":"The Eiffel Tower is in Paris."}`), ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{DedupeID(plain): true}
	for _, o := range []MessageOptions{
		{ClaimSchema: want.ClaimSchema}, {OutputSchema: want.OutputSchema}, {Grounding: want.Grounding},
	} {
		changed := plain
		changed.Options = o
		id := DedupeID(changed)
		if ids[id] {
			t.Errorf("options %+v do not change the job id", o)
		}
		ids[id] = true
	}

	for _, tt := range []struct {
		in    string
		field string
	}{
		{`{"text":"two words","options":{"claim_schema":"claim_id"}}`, "options.claim_schema"},
		{`{"text":"two words","options":{"output_schema":[1]}}`, "options.output_schema"},
		{`{"text":"two words","options":{"grounding":""}}`, "options.grounding"},
		{`{"text":"two words","options":{"grounding":"   "}}`, "options.grounding"},
		{`{"text":"two words","options":{"grounding":7}}`, "options.grounding"},
	} {
		_, err := Decode([]byte(tt.in), ValidationConfig{})
		var verr *ValidationError
		if !errors.As(err, &verr) || len(verr.Problems) != 1 || verr.Problems[0].Field != tt.field {
			t.Errorf("%s: got %v, want one problem with %s", tt.in, err, tt.field)
		}
	}
}
