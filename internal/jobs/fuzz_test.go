package jobs

import (
	"errors"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// FuzzDecode feeds Decode arbitrary bytes: it must never panic, every failure must be a
// *ValidationError with at least one problem naming a field, and every success must satisfy the
// rules again when encoded and decoded once more. The seed corpus is in testdata/fuzz/FuzzDecode
// and below.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"text":"Paris is the capital of France."}`,
		`{"v":1,"question":"Who?","method":"cove-joint","language":"de","options":{"max_questions":3}}`,
		`{"text":"a b","options":{"temporal_scope":{"start_date":"2023-01-01","end_date":"2024-12-31","prefer_recent":true},"independence_rules":{"x":[1,{"y":null}]}}}`,
		`{"text":"a b","options":{"max_hops":1e400,"iterate":null}}`,
		`{"text":"\u0000 \ud800"}`,
		`{"text":1,"question":[],"options":"x"}`,
		`[`, `{"text":"a b"}}`, `null`, `""`, "\xff\xfe", `{"a":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data, ValidationConfig{MaxMessageBytes: 1 << 16})
		if err != nil {
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Decode error %T %v is not a *ValidationError", err, err)
			}
			if len(verr.Problems) == 0 {
				t.Fatal("a ValidationError without problems")
			}
			for _, p := range verr.Problems {
				if p.Field == "" || p.Reason == "" {
					t.Fatalf("problem without field or reason: %+v", p)
				}
			}
			return
		}
		if m.V != Version || !KnownMethod(m.Method) || !pipeline.KnownLanguage(m.Language) || m.Text == "" && m.Question == "" {
			t.Fatalf("Decode accepted %q as %+v", data, m)
		}
		_ = DedupeID(m)
	})
}
