package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrUnknownMethod: a job named a method that does not exist. NewMethod wraps it with the name
// and the names that exist.
var ErrUnknownMethod = errors.New("unknown method")

// Methods returns the Chain-of-Verification methods over model m, keyed by job method name.
func Methods(m Model) map[string]Method {
	return map[string]Method{
		MethodFactored:     Factored{Model: m},
		MethodJoint:        Joint{Model: m},
		MethodTwoStep:      TwoStep{Model: m},
		MethodFactorRevise: FactorRevise{Model: m},
	}
}

// Deps are what the methods are built over: the model every method calls, and for the
// open-book methods the search provider and the primary-source domains of calibration.
type Deps struct {
	Model    Model
	Searcher Searcher
	// AuthoritativeDomains are the primary sources of confidence calibration (see
	// Calibration); nil means DefaultAuthoritativeDomains.
	AuthoritativeDomains []string
}

// openBookMethods build the methods that need more than a model, from Deps. A builder returns
// an error when a dependency its method cannot run without is missing.
var openBookMethods = map[string]func(Deps) (Method, error){
	MethodCove2: func(d Deps) (Method, error) {
		if d.Searcher == nil {
			return nil, fmt.Errorf("method %q: %w", MethodCove2, ErrNoSearcher)
		}
		return Cove2{Model: d.Model, Searcher: d.Searcher, Authoritative: d.AuthoritativeDomains}, nil
	},
	MethodMultihop: func(d Deps) (Method, error) {
		if d.Searcher == nil {
			return nil, fmt.Errorf("method %q: %w", MethodMultihop, ErrMultihopNoSearcher)
		}
		return Multihop{Model: d.Model, Searcher: d.Searcher, Authoritative: d.AuthoritativeDomains}, nil
	},
}

// MethodNames returns the name of every method, sorted: what a job's "method" may say.
func MethodNames() []string {
	var names []string
	for n := range Methods(nil) {
		names = append(names, n)
	}
	for n := range openBookMethods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// NewMethod returns the method named name over model m. An unknown name is an error that wraps
// ErrUnknownMethod and lists the names that exist; an open-book method (cove2) needs a
// Searcher, which only NewMethodWith can give, so NewMethod returns its error.
func NewMethod(name string, m Model) (Method, error) {
	return NewMethodWith(name, Deps{Model: m})
}

// NewMethodWith returns the method named name over d. An unknown name is an error that wraps
// ErrUnknownMethod and lists the names that exist; a method whose dependency is missing (cove2
// without a Searcher) is an error that says which.
func NewMethodWith(name string, d Deps) (Method, error) {
	if method, ok := Methods(d.Model)[name]; ok {
		return method, nil
	}
	if build, ok := openBookMethods[name]; ok {
		return build(d)
	}
	return nil, fmt.Errorf("%w %q: the methods are %s", ErrUnknownMethod, name, strings.Join(MethodNames(), ", "))
}
