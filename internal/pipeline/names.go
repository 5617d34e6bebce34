package pipeline

// Method names: what a job's "method" says, one constant each, defined here once. The registry
// (package methods) builds a method from its name; internal/jobs validates a job's method
// against MethodNames.
const (
	// MethodFactored is CoVe Factored (spec 001).
	MethodFactored = "cove-factored"
	// MethodJoint is CoVe Joint (spec 001).
	MethodJoint = "cove-joint"
	// MethodTwoStep is CoVe Two-step (spec 001).
	MethodTwoStep = "cove-two-step"
	// MethodFactorRevise is CoVe Factor + revise (spec 001).
	MethodFactorRevise = "cove-factor-revise"
	// MethodCove2 is CoVe 2.0, the agentic open-book pipeline (spec 000).
	MethodCove2 = "cove2"
	// MethodMultihop is multi-hop query chains (spec 004), the default method.
	MethodMultihop = "multihop"
)

// MethodNames returns the name of every method, in the order of DESIGN.md: what a job's
// "method" may say. It is the one list of methods (jobs validates against it and the commands
// name it in their help); the registry's test checks that package methods builds exactly these,
// and jobs' test that the message schema's enum lists them in this order. It is here, in the
// core, because jobs and the registry both import the core and neither imports the other.
func MethodNames() []string {
	return []string{MethodFactored, MethodJoint, MethodTwoStep, MethodFactorRevise, MethodCove2, MethodMultihop}
}

// Steps named in the methods' traces (ModelCall.Step): the Chain-of-Verification variants use
// all four, cove2 and multihop plan (StepPlan), and cove2 verifies (StepVerify).
const (
	StepDraft  = "draft"
	StepPlan   = "plan"
	StepVerify = "verify"
	StepRevise = "revise"
)

// Steps of one method beyond the shared ones.
const (
	// StepPlanAnswer is the Joint variant's one call that both plans the checks and answers them.
	StepPlanAnswer = "plan_answer"
	// StepVerifyAll is the Two-step variant's one call that answers every verification question.
	StepVerifyAll = "verify_all"
	// StepCrossCheck is the Factor + revise call that sets one claim next to its check.
	StepCrossCheck = "cross_check"
	// StepFinalize is CoVe 2.0's Phase 3 call: critique and finalize with citations.
	StepFinalize = "finalize"
	// StepReverify is a CoVe 2.0 verify call of the optional extra iteration.
	StepReverify = "reverify"
	// StepJudge is multihop's isolated call that judges one claim from its evidence.
	StepJudge = "judge"
)
