package pipeline

import (
	"errors"
	"fmt"
)

// RejectedError marks a job whose input breaks a rule of its method: an option out of range, a
// schema that is not a JSON Schema, a statement with nothing verifiable in it. No retry can fix
// it, and it is not a failure of the worker: the job ends rejected with Field and Rule as its
// reason.
type RejectedError struct {
	// Field names the input that broke the rule, as the job message spells it ("text",
	// "options.max_hops", "options.independence_rules").
	Field string
	// Rule says in words which rule it broke and, where it helps, what to send instead.
	Rule string
}

func (e *RejectedError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Rule) }

// Rejected returns a *RejectedError for field and rule.
func Rejected(field, rule string) error { return &RejectedError{Field: field, Rule: rule} }

// IsRejected reports whether err, or anything it wraps, is a *RejectedError.
func IsRejected(err error) bool {
	var r *RejectedError
	return errors.As(err, &r)
}
