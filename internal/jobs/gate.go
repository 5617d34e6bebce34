package jobs

import (
	"context"
	"errors"
)

// Gate is a condition the consume loop waits on before it takes a message: a circuit breaker
// on the model endpoint (internal/breaker), a check that the database is reachable. While a gate
// is closed the worker takes no new job, so that jobs do not spend their attempts on a service
// that is down; jobs already running may be held (see Hold).
type Gate interface {
	// Wait returns nil at once while the gate is open. While it is closed, Wait blocks until it
	// opens (nil) or ctx ends (ctx.Err()).
	Wait(ctx context.Context) error
}

// ErrHold marks a failed attempt as an outage of something the job depends on, not a failure
// of the job. Test for it with errors.Is.
var ErrHold = errors.New("job held until the service it needs is back")

// Hold wraps err, the failure of an attempt, as an outage behind a closed Gate: a Handler
// returns it with OutcomeRetry (HandlerFunc does so for any error). The consume loop then keeps
// the message (its heartbeat goes on, so no redelivery happens and no attempt is counted),
// waits for every gate to open, and runs the handler again on the same delivery. Without gates,
// or when the loop is stopping, it is a plain retry. errors.Is(Hold(err), err's targets) still
// holds. Hold(nil) is ErrHold itself.
func Hold(err error) error {
	if err == nil {
		return ErrHold
	}
	return &holdError{err: err}
}

type holdError struct{ err error }

func (e *holdError) Error() string   { return e.err.Error() }
func (e *holdError) Unwrap() []error { return []error{e.err, ErrHold} }

// waitGates waits for each gate in turn to be open. A gate that closes again while a later one
// is waited on is met again before the next message, since every fetch waits on the gates.
func waitGates(ctx context.Context, gates []Gate) error {
	for _, g := range gates {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := g.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}
