package multihop

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// The inputs of a multihop job and their checks (spec 004). Every failed check is a
// *RejectedError naming the job message field and the rule, so that the job ends rejected with
// that reason; none of them is a failure of the worker.

// DefaultGrounding is spec 004's grounding instruction, used when a job gives none.
const DefaultGrounding = "Every claim must have at least one source citation. " +
	"Claims without retrievable evidence must be flagged as UNVERIFIED with a reason."

// MaxHopsLimit is the largest max_hops a job may ask for; above MaxHopsReviewAbove a run carries
// the review flag pipeline.FlagMaxHopsAbove5 for its latency and cost.
const (
	MaxHopsLimit       = 10
	MaxHopsReviewAbove = 5
)

// Job message fields of the inputs, as rejections name them.
const (
	fieldText         = "text"
	fieldLanguage     = "language"
	fieldMaxHops      = "options.max_hops"
	fieldClaimSchema  = "options.claim_schema"
	fieldOutputSchema = "options.output_schema"
	fieldGrounding    = "options.grounding"
)

// multihopInputs are a multihop job's inputs after their checks, ready to run.
type multihopInputs struct {
	statement    string
	language     string
	languageName string
	maxHops      int
	scope        *pipeline.TemporalScope
	rules        IndependenceRules
	grounding    string
	schemas      planSchemas
	today        time.Time
	// published is the statement's publication date (YYYY-MM-DD), "" when unknown.
	published   string
	reviewFlags []pipeline.ReviewFlag
}

// checkMultihopInput checks every input of a multihop job as spec 004 says, in the order of the
// spec, and returns the first broken rule as a *RejectedError. What needs the plan (at least one
// verifiable claim) is checked once the plan is back.
func checkMultihopInput(in pipeline.Input) (multihopInputs, error) {
	var mi multihopInputs
	var err error
	if mi.statement, err = checkStatement(in.Text); err != nil {
		return mi, err
	}
	if mi.schemas, err = compilePlanSchemas(in.Options.ClaimSchema, in.Options.OutputSchema); err != nil {
		return mi, err
	}
	if mi.rules, err = ParseIndependenceRules(in.Options.IndependenceRules); err != nil {
		return mi, err
	}
	if mi.maxHops, err = checkMaxHops(in.Options.MaxHops); err != nil {
		return mi, err
	}
	if mi.maxHops > MaxHopsReviewAbove {
		mi.reviewFlags = append(mi.reviewFlags, pipeline.Flag(pipeline.FlagMaxHopsAbove5))
	}
	if mi.scope, err = pipeline.ParseTemporalScope(in.Options.TemporalScope); err != nil {
		return mi, err
	}
	if mi.grounding, err = checkGrounding(in.Options.Grounding); err != nil {
		return mi, err
	}
	if mi.language, err = checkLanguage(in.Language); err != nil {
		return mi, err
	}
	lang, _ := pipeline.LookupLanguage(mi.language)
	mi.languageName = lang.PromptName
	mi.today = in.Today
	if mi.today.IsZero() {
		mi.today = time.Now()
	}
	if in.Published != nil {
		mi.published = in.Published.UTC().Format(time.DateOnly)
	}
	return mi, nil
}

// checkStatement: a non-empty string of more than one word. That it holds a verifiable claim
// (not opinion only) is known once the plan is back.
func checkStatement(statement string) (string, error) {
	s := strings.TrimSpace(statement)
	switch {
	case s == "":
		return "", pipeline.Rejected(fieldText, "multihop verifies a statement: the job has no text")
	case len(strings.Fields(s)) < 2:
		return "", pipeline.Rejected(fieldText, fmt.Sprintf("is a single word (%q); a statement needs at least one factual claim", text.Truncate(s, 60)))
	}
	return s, nil
}

// checkMaxHops: 1..MaxHopsLimit, 0 meaning the default.
func checkMaxHops(n int) (int, error) {
	switch {
	case n == 0:
		return pipeline.DefaultMaxHops, nil
	case n < 1 || n > MaxHopsLimit:
		return 0, pipeline.Rejected(fieldMaxHops, fmt.Sprintf("must be an integer from 1 to %d, got %d", MaxHopsLimit, n))
	}
	return n, nil
}

var languageCode = regexp.MustCompile(`^[a-z]{2}$`)

// checkLanguage: an ISO 639-1 code of a searchable language (pipeline.Language.Searchable), "en"
// when empty: a code outside them would search a corpus in a language it cannot match.
func checkLanguage(code string) (string, error) {
	if code == "" {
		return pipeline.DefaultLanguage, nil
	}
	if !languageCode.MatchString(code) {
		return "", pipeline.Rejected(fieldLanguage, fmt.Sprintf("must be an ISO 639-1 two-letter code in lower case, got %q", text.Truncate(code, 20)))
	}
	if l, ok := pipeline.LookupLanguage(code); !ok || !l.Searchable() {
		return "", pipeline.Rejected(fieldLanguage, fmt.Sprintf("%q is not a supported language: queries in it would not match the retrieval corpus (supported: %s)",
			code, strings.Join(pipeline.SearchableLanguages(), ", ")))
	}
	return code, nil
}

var (
	unverifiedWord = regexp.MustCompile(`(?i)\bunverified\b`)
	// forbidsUnverified: an instruction that tells the model never to flag a claim unverified.
	forbidsUnverified = regexp.MustCompile(`(?i)\b(never|do not|don't|must not|should not|may not|cannot|can't)\s+(\w+\s+){0,4}(mark|flag|label|report|call|list)\w*\b[^.;]*\bunverified\b`)
	// passesUngrounded: an instruction that lets a claim pass with neither a citation nor the flag.
	passesUngrounded = regexp.MustCompile(`(?i)(\b(may|can|could|are allowed to|is allowed to)\s+(pass|be accepted|be kept|stand|be (marked|reported|treated) (as )?(supported|verified|true|correct))\b[^.;]*\bwithout\b` +
		`|\bwithout (a |any )?(citations?|sources?|evidence)\b[^.;]*\b(may|can|is|are) (pass|fine|ok|okay|allowed|accepted|acceptable)\b` +
		`|\bcitations? (is|are) (optional|not required|not needed)\b` +
		`|\b(need not|needn't|do not need to|don't need to|not required to) (cite|be cited|have (a |any )?(citations?|sources?))\b` +
		`|\bno (citations?|sources?) (is |are )?(needed|required|necessary)\b)`)
)

// checkGrounding: a non-empty instruction that addresses the UNVERIFIED case and lets no claim
// pass without either a citation or the flag. "" gives DefaultGrounding.
func checkGrounding(g string) (string, error) {
	if g == "" {
		return DefaultGrounding, nil
	}
	g = strings.TrimSpace(g)
	switch {
	case g == "":
		return "", pipeline.Rejected(fieldGrounding, "must not be blank")
	case len(g) > 2000:
		return "", pipeline.Rejected(fieldGrounding, fmt.Sprintf("is %d bytes, over the limit of 2000", len(g)))
	case !unverifiedWord.MatchString(g):
		return "", pipeline.Rejected(fieldGrounding, fmt.Sprintf("must say what happens to a claim without retrievable evidence (flag it UNVERIFIED with a reason), as in %q", DefaultGrounding))
	case forbidsUnverified.MatchString(g):
		return "", pipeline.Rejected(fieldGrounding, "forbids the UNVERIFIED flag, so a claim without evidence would pass unflagged")
	case passesUngrounded.MatchString(g):
		return "", pipeline.Rejected(fieldGrounding, "lets a claim pass without either a citation or an explicit UNVERIFIED flag")
	}
	return g, nil
}

// trimmedJSON is raw with surrounding whitespace removed, nil when that leaves nothing or null.
func trimmedJSON(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}
