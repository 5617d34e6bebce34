// Package pipeline is the core of Corroborate's verification methods: the types a run reads and
// writes (Input, Options, Result, Claim, Check, Evidence, Hop, ModelCall), the verdict, confidence
// and method vocabulary, the Model and Searcher a method is given, the errors that end a job
// (Permanent, Rejected), the call recorder, prompt fencing and rendering, JSON replies with one
// repair, and the one language table. It is pure: it knows nothing of NATS or PostgreSQL, and
// nothing of any one method.
//
// The methods live in sub-packages (cove, cove2, multihop) over the grounding engine in evidence;
// methods is the one registry that builds a method from its name.
//
// The isolation rules of the specification are kept by signatures: a function that answers a
// verification question takes the question (and its evidence) and nothing else, so no draft can
// reach it by mistake.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Model is the language model a method calls. internal/llm implements it over any
// OpenAI-compatible endpoint; tests use the fake server in internal/llm/llmtest or a stub.
type Model interface {
	Complete(ctx context.Context, req ModelRequest) (ModelReply, error)
}

// ModelRequest is one call to the model: a single user prompt, sent at temperature 0.
type ModelRequest struct {
	// Step names the method's step ("draft", "plan", "verify", "revise", ...) for logs and limits.
	Step string
	// Prompt is the full rendered prompt, sent as one user message.
	Prompt string
	// Schema, when set, asks for JSON output matching it where the server supports that.
	// The reply is validated by the caller in every case.
	Schema *OutputSchema
	// MaxTokens bounds the reply; 0 leaves the model's configured default.
	MaxTokens int
}

// DefaultMaxTokens bounds a reply when neither the request nor the model's configuration sets a
// bound. It is defined here, in the contract of a request, because two packages that do not
// import each other must agree on it: the model adapter (llm) sends it, and the rate limiter
// (ratelimit) counts it against the token budget before the request is sent.
const DefaultMaxTokens = 1024

// OutputSchema is a JSON Schema for structured output, with the name the API wants for it.
type OutputSchema struct {
	Name   string
	Schema map[string]any
}

// ModelReply is what the model returned and what it cost.
type ModelReply struct {
	Text             string
	Model            string
	FinishReason     string
	PromptTokens     int64
	CompletionTokens int64
}

// PermanentError marks a failure that no retry can fix: a model that does not exist, a refused
// key, an exhausted quota, a plan that stays invalid after its repair. A job that meets one fails
// with its reason instead of being redelivered.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }

func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a PermanentError; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err, or anything it wraps, is a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// Input is one job as a method sees it: the statement and the per-job options, already validated.
type Input struct {
	// Question is the user's question. Methods that need one and get only Text use DefaultQuestion.
	Question string
	// Text, when set, is the draft to verify: the Draft call is skipped.
	Text string
	// Language is the ISO 639-1 code of the statement ("en" when the job gave none).
	Language string
	Options  Options
	// Today anchors freshness-sensitive queries; zero means time.Now().
	Today time.Time
	// Published is when the statement was published (the job's published_at), nil when
	// unknown: the date a claim's relative times ("15 years ago", "currently") are read from.
	Published *time.Time
	// Verified, when set, is looked up before a claim is verified (see VerifiedClaims).
	Verified VerifiedClaims
}

// DefaultQuestion frames a job that carries only a statement (Text) for the CoVe variants, whose
// prompts need a question: the statement becomes the draft answer to it.
const DefaultQuestion = "What are the correct facts in the following statement?"

// QuestionOrDefault returns the job's question, or DefaultQuestion when it has none.
func (in Input) QuestionOrDefault() string {
	if in.Question != "" {
		return in.Question
	}
	return DefaultQuestion
}

// Options are the per-job settings a message may carry, with defaults applied by WithDefaults.
type Options struct {
	// MaxQuestions caps the verification questions (or claims) of a CoVe run.
	MaxQuestions int
	// MaxHops caps the hops of a multi-hop query chain.
	MaxHops int
	// Concurrency bounds the parallel verification calls of one run.
	Concurrency int
	// Iterate asks CoVe 2.0 for one extra verify and correct cycle.
	Iterate bool
	// TemporalScope and IndependenceRules are kept raw here; the methods that use them parse them.
	TemporalScope     []byte
	IndependenceRules []byte
	// ClaimSchema and OutputSchema are JSON Schemas of a multihop plan's claims and of the whole
	// plan, raw; nil means the spec's. Grounding is the grounding instruction; "" means the spec's.
	ClaimSchema  []byte
	OutputSchema []byte
	Grounding    string
}

// Defaults of Options, applied by WithDefaults.
const (
	DefaultMaxQuestions = 10
	DefaultMaxHops      = 3
	DefaultConcurrency  = 4
)

// WithDefaults returns o with every unset field at its default.
func (o Options) WithDefaults() Options {
	if o.MaxQuestions <= 0 {
		o.MaxQuestions = DefaultMaxQuestions
	}
	if o.MaxHops <= 0 {
		o.MaxHops = DefaultMaxHops
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	return o
}

// Method is one verification method. Run returns the whole result of the job, every model call
// included, or an error; a run that fails still returns the calls it made in Result.Calls when
// it can, so that the failure can be stored with its trace.
type Method interface {
	Name() string
	Run(ctx context.Context, in Input) (*Result, error)
}

// Status of a finished run.
const (
	// StatusChecked: the draft was verified and revised.
	StatusChecked = "checked"
	// StatusNothingChecked: the plan produced no questions; the draft is returned unchanged.
	StatusNothingChecked = "nothing_checked"
	// StatusNoVerificationNeeded: CoVe 2.0's gate found nothing worth verifying.
	StatusNoVerificationNeeded = "no_verification_needed"
)

// Result is everything a run produced, in the shape internal/store writes in one transaction.
type Result struct {
	Method string
	Status string
	// StatusReason says in words why the status is what it is ("the plan produced no questions").
	StatusReason string
	Draft        string
	// DraftFromInput is true when the job's text was the draft and the Draft call was skipped.
	DraftFromInput bool
	// Plan is the raw plan reply (one question per line, JSON, ...), kept as the model wrote it.
	Plan        string
	Checks      []Check
	Claims      []Claim
	RevisedText string
	// Report is a rendered statement-level report, for the methods that write one.
	Report string
	// Agreed, for Joint runs, is whether the checks left every claim of the draft standing: see
	// Joint for how it is measured. Nil for other methods and for runs with nothing checked.
	Agreed *bool
	Calls  []ModelCall
	// Searches are the run's search calls, in the order they started (see SearchRecorder).
	Searches []SearchCall

	// The open-book methods (cove2, multihop) fill these.

	// PlanJSON is the validated plan; PlanViolations what the first plan broke when it needed
	// its repair round-trip (PlanRepaired).
	PlanJSON       []byte
	PlanViolations []string
	PlanRepaired   bool
	Evidence       []Evidence
	Hops           []Hop
	CrossChecks    []CrossValidation
	// ReviewFlags ask a person to look ("max_hops_above_5", "citation_removed", ...).
	ReviewFlags []ReviewFlag
}

// Check is one verification question and its answer, in plan order (Position from 1).
type Check struct {
	Position int
	Question string
	Answer   string
	// Status is CheckAnswered, CheckUnsure or CheckFailed.
	Status string
	// Error is the last error of a failed verify call.
	Error    string
	Attempts int
	// ClaimPosition links the check to the claim it checks (Factor + revise), 0 when none.
	ClaimPosition int
}

// Check statuses.
const (
	CheckAnswered = "answered"
	// CheckUnsure: the model said it is not sure. It neither confirms nor contradicts.
	CheckUnsure = "unsure"
	// CheckFailed: the verify call failed twice (or, in Two-step, the answer-all reply gave the
	// question no answer of its number); its answer is recorded as "unsure".
	CheckFailed = "failed"
)

// Verdict labels: one vocabulary across methods, stored in claim_results.
const (
	VerdictSupported       = "supported"
	VerdictRefuted         = "refuted"
	VerdictPartlySupported = "partly_supported"
	VerdictUnverified      = "unverified"
	VerdictNotChecked      = "not_checked"
)

// Claim is one factual claim of a statement and what verification made of it.
type Claim struct {
	Position int
	Text     string
	// Verdict is one of the Verdict labels; VariantVerdict keeps the method's own word for it
	// ("PARTIALLY CONSISTENT", "unsure", ...).
	Verdict        string
	VariantVerdict string
	// Reason says why, always set for unverified and not_checked.
	Reason string
	// ConsistentPart is the supported part of a partly supported claim.
	ConsistentPart string
	// CheckPosition is the check that decided the verdict, 0 when none.
	CheckPosition int
	// Confidence is High, Medium or Low for the evidence-grounded methods, calibrated in code.
	Confidence string

	// The open-book methods (cove2, multihop) fill these.

	// Key is the plan's own id of the claim ("c1").
	Key string
	// Span locates the claim in the statement: byte offsets [SpanStart, SpanEnd) of SpanText.
	SpanStart, SpanEnd int
	SpanText           string
	Entities           []string
	// Verifiable and RequiresTemporalScope are the plan's flags; nil when the method has none.
	Verifiable            *bool
	RequiresTemporalScope *bool
	AmbiguityNote         string
	// Tier is "deep" (searched) or "shallow" (closed-book) for cove2.
	Tier string
	// VerificationQuery is the query the verifier got, after the checks in code; QueryFlags say
	// what those checks found or repaired ("yes_no_repaired", "date_anchored", ...).
	VerificationQuery string
	QueryFlags        []string
	SubQueries        []string
	// SourceIndependenceScore is the plan's 0..1 estimate; nil when none.
	SourceIndependenceScore *float64
	// CorrectedText replaces the claim in the revision when the evidence contradicted it.
	CorrectedText string
	// Citations are the source numbers ([n] of Result.Evidence.SourceNumber) that ground the verdict.
	Citations []int
	// Reuse says how the claim can be found again and whether its verdict was reused (reuse.go).
	Reuse ClaimReuse
}

// Evidence is one piece of retrieved evidence a run kept: a search result a verifier read, with
// the short quote it used. SourceNumber is the [n] citations point at (0 when never cited).
type Evidence struct {
	ID            int
	SourceNumber  int
	ClaimPosition int
	HopNumber     int
	// SearchSeq is the search call (Result.Searches[].Seq) that returned it.
	SearchSeq int
	URL       string
	Title     string
	Snippet   string
	// Quote is the passage of this source that the claim's verdict relies on, checked in code to
	// be in its text; empty when the source was not cited.
	Quote string
	// Stance is whether this cited source supports or refutes the claim ("supports",
	// "refutes"); empty when the method gives none or the source was not cited.
	Stance      string
	Domain      string
	Publisher   string
	PublishedAt *time.Time
	Provider    string
	Rank        int
	// FromClaimPosition is set on a source a claim's judge was given because another claim
	// found it (multihop): a claim it depends on cited it, another claim's hops found it about
	// this one, or a claim stated with this claim's provisional bridge cited it. That claim's
	// position; 0 for the claim's own evidence.
	FromClaimPosition int
	// NotIndependentOfHop is set on a source the judge was given although it shares a domain,
	// publisher or document with an earlier hop of the chain: the number of the hop it repeats
	// (found by the search of an emptied hop run without its exclusions). It counts as one voice
	// with that hop. 0 otherwise.
	NotIndependentOfHop int
	// Page is the attempt to read the source's page (its text's hash, fetch time, status, final
	// URL, or why it was refused; not the text itself), nil when none was made; Passages are the
	// parts of its text the judge was given, with their byte offsets in that text.
	Page     *Page
	Passages []Passage
}

// Hop is one hop of a multi-hop query chain, with what it excluded to stay independent of the
// chain's earlier hops.
type Hop struct {
	ClaimPosition        int
	Number               int
	Query                string
	TargetSourceType     string
	ExpectedEvidenceType string
	ExcludedDomains      []string
	ExcludedPublishers   []string
	ExcludedURLs         []string
	// Status says how the hop ended ("found", "no_independent_source", "failed"); Note why.
	Status    string
	Note      string
	SearchSeq int
	// Reason is why the hop ran: "plan" (a hop of the plan's chain) or "follow_up" (a search for
	// what the judge found missing; Note names it).
	Reason string
}

// CrossValidation is a query that tests two or more claims jointly, and what it found.
type CrossValidation struct {
	Position       int
	Query          string
	Relationship   string
	ClaimPositions []int
	Verdict        string
	Reason         string
	SearchSeq      int
}

// ModelCall is one call to the model as it was made: the full prompt and the full reply.
type ModelCall struct {
	Seq int
	// Step names the method's step; Target is the check or claim position it served, 0 for none.
	Step             string
	Target           int
	Prompt           string
	Reply            string
	Model            string
	FinishReason     string
	PromptTokens     int64
	CompletionTokens int64
	StartedAt        time.Time
	Latency          time.Duration
	Error            string
}

// Sentinel errors of the pipeline.
var (
	// ErrEmptyReply: the model returned no text where the step needs some.
	ErrEmptyReply = errors.New("the model returned an empty reply")
	// ErrNoSearcher: an open-book method (cove2, multihop) was built without a Searcher; it
	// cannot run without one. The method wraps it with its name.
	ErrNoSearcher = errors.New("needs a search provider (a Searcher): configure one")
)

// StepError wraps err with the step that failed.
func StepError(step string, err error) error {
	return fmt.Errorf("%s: %w", step, err)
}
