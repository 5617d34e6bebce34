package methods

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
)

// ErrUnknownMethod: a job named a method that does not exist. New wraps it with the name and
// the names that exist.
var ErrUnknownMethod = errors.New("unknown method")

// Deps are what the methods are built over: the model every method calls, and for the
// open-book methods the search provider and the primary-source domains of calibration.
type Deps struct {
	Model    pipeline.Model
	Searcher pipeline.Searcher
	// AuthoritativeDomains are the primary sources of confidence calibration (see
	// evidence.Calibration); nil means evidence.DefaultAuthoritativeDomains.
	AuthoritativeDomains []string
	// Pages reads the pages behind the results the open-book methods keep; the zero value reads
	// none (the corpus provider, whose documents are whole already).
	Pages evidence.PageReading
}

// builders build each method from Deps, keyed by its name. A builder returns an error when a
// dependency its method cannot run without is missing; the CoVe variants need only the model.
var builders = map[string]func(Deps) (pipeline.Method, error){
	pipeline.MethodFactored:     func(d Deps) (pipeline.Method, error) { return cove.Factored{Model: d.Model}, nil },
	pipeline.MethodJoint:        func(d Deps) (pipeline.Method, error) { return cove.Joint{Model: d.Model}, nil },
	pipeline.MethodTwoStep:      func(d Deps) (pipeline.Method, error) { return cove.TwoStep{Model: d.Model}, nil },
	pipeline.MethodFactorRevise: func(d Deps) (pipeline.Method, error) { return cove.FactorRevise{Model: d.Model}, nil },
	pipeline.MethodCove2: func(d Deps) (pipeline.Method, error) {
		if d.Searcher == nil {
			return nil, fmt.Errorf("method %q: %w", pipeline.MethodCove2, pipeline.ErrNoSearcher)
		}
		return cove2.Cove2{Model: d.Model, Searcher: d.Searcher, Authoritative: d.AuthoritativeDomains, Pages: d.Pages}, nil
	},
	pipeline.MethodMultihop: func(d Deps) (pipeline.Method, error) {
		if d.Searcher == nil {
			return nil, fmt.Errorf("method %q: %w", pipeline.MethodMultihop, pipeline.ErrNoSearcher)
		}
		return multihop.Multihop{Model: d.Model, Searcher: d.Searcher, Authoritative: d.AuthoritativeDomains, Pages: d.Pages}, nil
	},
}

// Names returns the name of every method the registry builds, sorted: what a job's "method"
// may say.
func Names() []string { return slices.Sorted(maps.Keys(builders)) }

// New returns the method named name over d. An unknown name is an error that wraps
// ErrUnknownMethod and lists the names that exist; a method whose dependency is missing (cove2
// without a Searcher) is an error that says which.
func New(name string, d Deps) (pipeline.Method, error) {
	build, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: the methods are %s", ErrUnknownMethod, name, strings.Join(Names(), ", "))
	}
	return build(d)
}
