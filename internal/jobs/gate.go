package jobs

import (
	"context"
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
