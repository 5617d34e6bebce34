package pipeline

import (
	"errors"
	"strings"
	"testing"
)

func TestNewMethod(t *testing.T) {
	t.Parallel()
	model := &stubModel{}
	for _, name := range []string{MethodFactored, MethodJoint, MethodTwoStep, MethodFactorRevise} {
		m, err := NewMethod(name, model)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Name() != name {
			t.Errorf("NewMethod(%q).Name() = %q", name, m.Name())
		}
	}
	if got := len(Methods(model)); got != 4 {
		t.Errorf("Methods: %d, want the four CoVe methods", got)
	}
	_, err := NewMethod("cove-jiont", model)
	if !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("an unknown name: got %v, want ErrUnknownMethod", err)
	}
	for _, want := range []string{`"cove-jiont"`, "cove-factor-revise, cove-factored, cove-joint, cove-two-step"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q must name %s", err, want)
		}
	}
}
