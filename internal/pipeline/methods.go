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

// NewMethod returns the method named name over model m. An unknown name is an error that wraps
// ErrUnknownMethod and lists the names that exist.
func NewMethod(name string, m Model) (Method, error) {
	methods := Methods(m)
	if method, ok := methods[name]; ok {
		return method, nil
	}
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return nil, fmt.Errorf("%w %q: the methods are %s", ErrUnknownMethod, name, strings.Join(names, ", "))
}
