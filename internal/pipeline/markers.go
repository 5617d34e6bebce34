package pipeline

import "regexp"

// Prompt markers tell which prompt a request is, for the models that answer by rule instead of
// by reading it: evaluate's scripted fake, the benchmarks' simulated providers and the tests'
// stubs. Each is a phrase of the prompt files (prompts/*.tmpl) that the prompts it names hold
// and no other does. They are defined here, beside the prompts, because a copy in each fake
// drifts: TestPromptMarkers checks them against every rendered prompt, so that a prompt
// reworded out of its marker fails there and not as a fake that quietly stops answering.
//
// A marker is matched in the whole prompt, untrusted parts included: a rule-based model that
// tells several prompts apart checks the prompts that quote others' text first (the revisions
// and the cross-check quote questions and drafts).
const (
	// MarkerDraft is in the CoVe draft prompt (cove_draft).
	MarkerDraft = "Answer the question.\n\n<question>"
	// MarkerPlan is in the plan of Factored and Two-step (cove_plan_verification).
	MarkerPlan = "Write one verification question per line"
	// MarkerJointPlan is in Joint's one call that plans and answers (joint_plan_answer).
	MarkerJointPlan = "then answer that question."
	// MarkerFactorRevisePlan is in the plan of Factor + revise (factorrevise_plan).
	MarkerFactorRevisePlan = "Claim: <the claim>\nQuestion: <the verification question>"
	// MarkerVerify is in the verification of one question by Factored and by Factor + revise
	// (factored_verify, factorrevise_verify).
	MarkerVerify = "Answer the question with a short, factual answer."
	// MarkerVerifyAll is in Two-step's one call that answers every question (twostep_verify_all).
	MarkerVerifyAll = "Number your answers to match the questions."
	// MarkerCrossCheck is in the cross-check of Factor + revise (factorrevise_cross_check).
	MarkerCrossCheck = "Is the claim consistent with the evidence?"
	// MarkerRevise is in the revision of Factored, Joint and Two-step (factored_revise,
	// joint_revise, twostep_revise).
	MarkerRevise = "Rewrite the answer so it agrees"
	// MarkerJointRevise is in Joint's revision only (joint_revise).
	MarkerJointRevise = "add nothing the checks do not support"
	// MarkerTwoStepRevise is in Two-step's revision only (twostep_revise).
	MarkerTwoStepRevise = "were answered without seeing the draft"
	// MarkerFinalAnswer is in the revision of Factor + revise (factorrevise_revise).
	MarkerFinalAnswer = "Write the final answer from the consistent material only"
	// MarkerCove2Plan is in CoVe 2.0's Phase 1 (cove2_plan).
	MarkerCove2Plan = "Phase 1 (Adaptive Draft & Plan)"
	// MarkerCove2Verify is in CoVe 2.0's isolated verifier (cove2_verify).
	MarkerCove2Verify = "Answer this question using ONLY the web-search evidence"
	// MarkerCove2Finalize is in CoVe 2.0's Phase 3 (cove2_finalize).
	MarkerCove2Finalize = "Phase 3 (Critique & Finalize with Citations)"
	// MarkerRepair is in the one repair of a reply that broke its schema (cove2_repair), which
	// every method that asks for JSON sends.
	MarkerRepair = "Your previous reply was not valid"
	// MarkerMultihopPlan is in multihop's plan (multihop_plan).
	MarkerMultihopPlan = "You are planning the verification of a statement by multi-hop search query chains."
	// MarkerMultihopJudge is in multihop's judgement of one claim (multihop_judge).
	MarkerMultihopJudge = "Judge one claim against the numbered sources below"
)

// Prompt patterns find the parts of a prompt that a rule-based model answers from, as the
// prompts and Fence write them (escaped: EscapeFenced's entities are not undone). Like the
// markers, they are checked against every rendered prompt (TestPromptPatterns).
var (
	// PromptStatement finds the statement of a multihop plan prompt: its text.
	PromptStatement = regexp.MustCompile(`(?s)<untrusted_statement[^>]*>\n(.*?)\n</untrusted_statement>`)
	// PromptMaxHops finds the hop bound of a multihop plan prompt: its number.
	PromptMaxHops = regexp.MustCompile(`Maximum hops per query chain: (\d+)\.`)
	// PromptClaim finds the claim of a multihop judge prompt: its text.
	PromptClaim = regexp.MustCompile(`(?s)<untrusted_claim>\n(.*?)\n</untrusted_claim>`)
	// PromptSource finds each source of a judge or verifier prompt: its number, URL and text.
	PromptSource = regexp.MustCompile(`(?s)<source n="(\d+)" url="([^"]*)"[^>]*>\n(.*?)\n</source>`)
	// PromptDraft finds the draft of a CoVe plan or revision prompt: its text.
	PromptDraft = regexp.MustCompile(`(?s)<draft>(.*?)</draft>`)
	// PromptQuestion finds the question of a CoVe prompt: its text.
	PromptQuestion = regexp.MustCompile(`(?s)<question>(.*?)</question>`)
	// PromptNumberedQuestion finds each question of Two-step's verify-all prompt: its number
	// and text. Other prompts have numbered lines too: use it where MarkerVerifyAll is.
	PromptNumberedQuestion = regexp.MustCompile(`(?m)^(\d+)\. (.*)$`)
)
