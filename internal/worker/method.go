package worker

import (
	"context"
	"fmt"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// JointSwitch configures the MethodChooser's switch from cove-joint to cove-factored. Its zero
// value is off.
type JointSwitch struct {
	Enabled bool
	// Threshold is the share of recent cove-joint runs whose checks agreed with their drafts
	// from which jobs switch (0..1).
	Threshold float64
	// Window is how many recent cove-joint runs of the model the share is over; fewer runs never
	// switch.
	Window int
}

// MethodChooser chooses the method a job runs. It is the joint-agreement switch: a cove-joint job
// runs as cove-factored once the model's joint checks (almost) always agreed with their drafts,
// since such checks confirm rather than verify. The switch lasts: runs that switched are factored
// runs, so the joint rate that caused it stays as it was. Every other method runs as asked.
type MethodChooser struct {
	Switch     JointSwitch
	Agreements JointAgreements
	// Model is the model whose runs count (the one this worker calls).
	Model string
	// Observe, when set, is told each agreement rate read, for metrics.
	Observe func(model string, rate float64)
}

// Choose returns the method to run for the requested one, and why when it is another one.
func (c MethodChooser) Choose(ctx context.Context, requested string) (method, reason string, err error) {
	if requested != pipeline.MethodJoint || !c.Switch.Enabled {
		return requested, "", nil
	}
	a, err := c.Agreements.RecentJointAgreement(ctx, c.Model, c.Switch.Window)
	if err != nil {
		return "", "", fmt.Errorf("choosing the method: %w", err)
	}
	if c.Observe != nil {
		c.Observe(c.Model, a.Rate())
	}
	if a.Runs < c.Switch.Window || a.Rate() < c.Switch.Threshold {
		return requested, "", nil
	}
	reason = fmt.Sprintf("the checks of the last %d cove-joint runs of model %s agreed with their drafts in %.0f%% of runs (switch threshold %.0f%%): ran cove-factored instead",
		a.Runs, c.Model, 100*a.Rate(), 100*c.Switch.Threshold)
	return pipeline.MethodFactored, reason, nil
}
