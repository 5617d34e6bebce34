package methods

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

func TestNewCove2(t *testing.T) {
	t.Parallel()
	model, search := &pipelinetest.StubModel{}, &pipelinetest.StubEvidenceSearcher{}
	m, err := New(pipeline.MethodCove2, Deps{Model: model, Searcher: search, AuthoritativeDomains: []string{"who.int"}})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := m.(cove2.Cove2); !ok || c.Name() != pipeline.MethodCove2 || !slices.Equal(c.Authoritative, []string{"who.int"}) {
		t.Errorf("New(cove2) = %#v", m)
	}
	if _, err := New(pipeline.MethodCove2, Deps{Model: model}); !errors.Is(err, pipeline.ErrNoSearcher) {
		t.Errorf("cove2 without a Searcher: %v", err)
	}
	if m, err := New(pipeline.MethodFactored, Deps{Model: model}); err != nil || m.Name() != pipeline.MethodFactored {
		t.Errorf("the CoVe methods still build from Deps: %v", err)
	}
	if _, err := New("cove3", Deps{Model: model}); !errors.Is(err, ErrUnknownMethod) || !strings.Contains(err.Error(), "cove2") {
		t.Errorf("an unknown name lists cove2 among the methods: %v", err)
	}
	if names := Names(); !slices.Contains(names, pipeline.MethodCove2) || !slices.IsSorted(names) {
		t.Errorf("Names: %v", names)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	model := &pipelinetest.StubModel{}
	for _, name := range []string{pipeline.MethodFactored, pipeline.MethodJoint, pipeline.MethodTwoStep, pipeline.MethodFactorRevise} {
		m, err := New(name, Deps{Model: model})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, m.Name())
		}
	}
	_, err := New("cove-jiont", Deps{Model: model})
	if !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("an unknown name: got %v, want ErrUnknownMethod", err)
	}
	for _, want := range []string{`"cove-jiont"`, "cove-factor-revise, cove-factored, cove-joint, cove-two-step, cove2, multihop"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q must name %s", err, want)
		}
	}
}

// multihop is in the registry, built over a model and a Searcher.
func TestNewMultihop(t *testing.T) {
	t.Parallel()
	m, err := New(pipeline.MethodMultihop, Deps{Model: &pipelinetest.StubModel{}, Searcher: &pipelinetest.StubEvidenceSearcher{}, AuthoritativeDomains: []string{"example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if mh, ok := m.(multihop.Multihop); !ok || mh.Name() != pipeline.MethodMultihop || !slices.Equal(mh.Authoritative, []string{"example.org"}) {
		t.Errorf("New(multihop) = %#v", m)
	}
	if _, err := New(pipeline.MethodMultihop, Deps{Model: &pipelinetest.StubModel{}}); !errors.Is(err, pipeline.ErrNoSearcher) {
		t.Errorf("without a Searcher: %v", err)
	}
	if !slices.Contains(Names(), pipeline.MethodMultihop) {
		t.Errorf("Names() = %v", Names())
	}
}

// The registry builds exactly the methods the vocabulary names: a name added to one and not the
// other fails here.
func TestNamesAreTheVocabulary(t *testing.T) {
	t.Parallel()
	if got, want := Names(), slices.Sorted(slices.Values(pipeline.MethodNames())); !slices.Equal(got, want) {
		t.Errorf("methods.Names() = %v, pipeline.MethodNames() = %v", got, want)
	}
}
