package cove2

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"golang.org/x/sync/errgroup"
)

// Errors of CoVe 2.0 a caller can test for with errors.Is.
var (
	// ErrNoDraft: a cove2 job carries no text. CoVe 2.0 verifies a draft; it does not write one.
	// It is a RejectedError (bad input, never retried); Run returns it wrapped by Permanent.
	ErrNoDraft = pipeline.Rejected("text", `is empty, and cove2 verifies a draft: send the statement to check in "text"`)
)

// Cove2 is Agentic Chain-of-Verification, CoVe 2.0 (spec 000), on a job's text as the draft:
//
//  1. Plan: one call returns the plan JSON (draft, needs_verification, claims with tier and
//     verification_query), asked for with a schema and always validated, with one repair
//     round-trip. needs_verification false ends the run: no verification needed. Tiers are the
//     model's advice, raised to deep in code by ClaimSignals; every deep claim's query is checked
//     in code by CheckVerificationQuery, and a deep claim without a valid query stays unverified,
//     unsearched.
//  2. Verify: the deep claims, at most Options.MaxQuestions of them (the highest-risk by
//     ClaimRisk; the rest are listed as skipped), each get one search and one isolated verifier
//     call that sees only the query and its evidence (Verifier), in parallel under
//     Options.Concurrency. Confidence is calibrated in code (Calibration). Shallow claims are not
//     searched: they are reviewed closed-book in the finalize call, caveats only.
//  3. Finalize: one call sees the draft, the claims and the verification results, all fenced as
//     untrusted data, and returns per claim confirmed, corrected or uncertain, with the revised
//     response. The rules are then enforced in code: a correction needs a High- or
//     Medium-confidence verification (else the claim is kept, caveated and Uncertain), its own or,
//     when its own is weak, other claims' grounded results that the review cites (settle.go); a shallow
//     claim is never corrected, and its closed-book "confirmed" is never stored as supported
//     unless the review cites other claims' grounded results that settle it (settle.go); a
//     correction that adds a fact neither the draft nor its evidence holds is refused; the
//     revised response changes the draft only by the accepted corrections (revise.go); a
//     citation [n] or a URL that no verifier retrieved and used is removed and logged. The
//     report is rendered in code in the specification's format.
//
// Options.Iterate re-verifies the corrected claims once, with fresh searches, and finalizes
// again. Cost: 2 + d model calls and d searches for d verified deep claims, plus one repair per
// structured call (plan, finalize) that needs one, plus one retry per failed verify call; a deep
// claim whose search fails or finds nothing costs its search and no call. Iterate adds c calls,
// c searches and one finalize call for c corrected claims.
type Cove2 struct {
	Model    pipeline.Model
	Searcher pipeline.Searcher
	// Authoritative lists the primary-source domains of calibration; nil means
	// DefaultAuthoritativeDomains.
	Authoritative []string
	// SearchLimit is the number of results a verifier reads; 0 means DefaultVerifierSearchLimit.
	SearchLimit int
	// Pages reads the pages behind the first results of each verification search; the zero
	// value reads none (the corpus, whose documents are whole).
	Pages evidence.PageReading
}

// Name returns the job method name.
func (Cove2) Name() string { return pipeline.MethodCove2 }

// Run verifies one job's text.
func (c Cove2) Run(ctx context.Context, in pipeline.Input) (*pipeline.Result, error) {
	res := &pipeline.Result{Method: pipeline.MethodCove2}
	if c.Model == nil {
		return res, pipeline.Permanent(errors.New("cove2 needs a model"))
	}
	if c.Searcher == nil {
		return res, pipeline.Permanent(fmt.Errorf("cove2 %w", pipeline.ErrNoSearcher))
	}
	rec := pipeline.NewRecorder(c.Model)
	search := pipeline.NewSearchRecorder(c.Searcher)
	run := &cove2Run{
		in:          in,
		opts:        in.Options.WithDefaults(),
		rec:         rec,
		verifier:    newVerifier(rec, search, evidence.Calibration{Authoritative: c.Authoritative}),
		res:         res,
		verified:    map[int]Verification{},
		bridged:     map[int]string{},
		bridgeNotes: map[int]string{},
	}
	run.verifier.Limit = c.SearchLimit
	run.verifier.Pages = c.Pages
	err := run.run(ctx)
	res.Calls = rec.Trace()
	res.Searches = search.Calls()
	return res, err
}

// cove2Run is the state of one CoVe 2.0 run.
type cove2Run struct {
	in       pipeline.Input
	opts     pipeline.Options
	rec      *pipeline.Recorder
	verifier Verifier
	res      *pipeline.Result
	today    time.Time
	language string
	// planned are the plan's claims after the checks in code, before any review.
	planned []pipeline.Claim
	// verified are the verifications by claim position.
	verified map[int]Verification
	book     evidence.SourceBook
	// bridged are the verification queries that wait for their bridges ({c1}), by claim
	// position; bridgeNotes say where a resolved query's names came from (bridges.go).
	bridged     map[int]string
	bridgeNotes map[int]string
	// settledFrom are, by claim position, the claims whose results settled it in the last
	// review (settle.go).
	settledFrom map[int][]int
}

func (r *cove2Run) run(ctx context.Context) error {
	draft := r.in.Text
	if strings.TrimSpace(draft) == "" {
		return pipeline.Permanent(ErrNoDraft)
	}
	if n := utf8.RuneCountInString(draft); n > cove2MaxDraftChars {
		return pipeline.Permanent(pipeline.Rejected("text", fmt.Sprintf("has %d characters; cove2 verifies drafts of at most %d (split it into several jobs)", n, cove2MaxDraftChars)))
	}
	r.res.Draft, r.res.DraftFromInput = draft, true
	r.today = r.in.Today
	if r.today.IsZero() {
		r.today = time.Now()
	}
	r.language = r.in.Language
	if r.language == "" {
		r.language = pipeline.DefaultLanguage
	}

	plan, err := r.plan(ctx)
	if err != nil {
		return err
	}
	r.planned = r.planClaims(plan)
	if !plan.NeedsVerification {
		if !hasDeep(r.planned) {
			r.finishNoVerification()
			return nil
		}
		r.flag(pipeline.Flagf(pipeline.FlagNeedsVerificationOverridden, "the plan said false but holds deep claims, so they are verified"))
	}
	r.capClaims()

	var targets []int
	for i, c := range r.planned {
		if _, waits := r.bridged[c.Position]; c.Tier == pipeline.TierDeep && c.Verdict == "" && !waits {
			targets = append(targets, i)
		}
	}
	if err := r.verify(ctx, targets, r.verifier, false); err != nil {
		return err
	}
	if err := r.verifyBridged(ctx); err != nil { // bridges.go
		return err
	}
	claims, revised, err := r.finalize(ctx)
	if err != nil {
		return err
	}

	if r.opts.Iterate {
		var corrected []int
		for i, c := range claims {
			if c.Verdict == pipeline.VerdictRefuted {
				corrected = append(corrected, i)
			}
		}
		if len(corrected) > 0 {
			again := r.verifier
			again.step = pipeline.StepReverify
			if err := r.verify(ctx, corrected, again, true); err != nil {
				return err
			}
			positions := make([]string, len(corrected))
			for i, idx := range corrected {
				positions[i] = strconv.Itoa(r.planned[idx].Position)
			}
			r.flag(pipeline.Flagf(pipeline.FlagIterated, "re-verified the corrected claims %s and finalized again", strings.Join(positions, ", ")))
			if claims, revised, err = r.finalize(ctx); err != nil {
				return err
			}
		}
	}

	r.addSettledEvidence(claims)
	r.res.Claims = claims
	r.res.Checks = r.checks()
	r.res.RevisedText = revised
	r.res.Status = pipeline.StatusChecked
	counts := evidence.CountClaims(claims)
	r.res.StatusReason = fmt.Sprintf("%d claims checked (%d deep searched, the shallow ones reviewed closed-book), %d skipped by the claim cap",
		counts.Checked, len(r.verified), len(counts.Skipped))
	r.res.Report = evidence.RenderReport(claims, r.book.Sources(), revised)
	return nil
}

func (r *cove2Run) flag(f pipeline.ReviewFlag) { r.res.ReviewFlags = append(r.res.ReviewFlags, f) }

// plan runs Phase 1 and returns the validated plan.
func (r *cove2Run) plan(ctx context.Context) (Plan, error) {
	prompt, err := pipeline.RenderPrompt("cove2_plan", struct {
		Draft, Language, Today string
		MaxClaims              int
	}{pipeline.EscapeFenced(r.in.Text), pipeline.FenceAttr(r.language), r.today.Format("2 January 2006"), cove2MaxPlanClaims})
	if err != nil {
		return Plan{}, pipeline.StepError(pipeline.StepPlan, err)
	}
	step := pipeline.StructuredStep{Step: pipeline.StepPlan, Schema: cove2PlanRequest, MaxTokens: replyTokens(r.in.Text),
		Check: func(reply string) ([]byte, []string) {
			_, doc, v := ParsePlan(reply)
			return doc, v
		}}
	out, err := step.Run(ctx, r.rec, prompt)
	r.res.Plan, r.res.PlanViolations, r.res.PlanRepaired = out.Raw, out.Violations, out.Repaired
	if err != nil {
		return Plan{}, err
	}
	r.res.PlanJSON = out.JSON
	var plan Plan
	if err := json.Unmarshal(out.JSON, &plan); err != nil {
		return Plan{}, pipeline.StepError(pipeline.StepPlan, err)
	}
	if asks := unqueriedDeepClaims(plan); len(asks) > 0 {
		// Spec 000: every deep claim carries a verification query. A claim the plan tiered
		// shallow that the code's signals make deep has none; the plan is sent back once to
		// ask for it. The request is optional: an answer that fails, breaks a rule, drops a
		// claim or leaves as many such claims leaves the plan as it was, and each such claim
		// unverified with the reason (planClaims).
		answer, err := step.SendBack(ctx, r.rec, prompt, out.Raw, asks)
		if err != nil && ctx.Err() != nil {
			return Plan{}, err
		}
		r.res.PlanViolations = append(out.Violations, asks...)
		var again Plan
		if err == nil && len(answer.Violations) == 0 && json.Unmarshal(answer.JSON, &again) == nil &&
			len(again.Claims) >= len(plan.Claims) && len(unqueriedDeepClaims(again)) < len(asks) {
			plan = again
			r.res.Plan, r.res.PlanJSON, r.res.PlanRepaired = answer.Raw, answer.JSON, true
		}
	}
	return plan, nil
}

// unqueriedDeepClaims asks for the verification query of each claim the plan tiered shallow
// with none that the code's signals make deep (claimTier).
func unqueriedDeepClaims(plan Plan) []string {
	texts := planTexts(plan)
	var asks []string
	for i, c := range plan.Claims {
		if c.Tier == pipeline.TierDeep || c.VerificationQuery != nil && strings.TrimSpace(*c.VerificationQuery) != "" {
			continue
		}
		if tier, raisedBy := tierOf(plan, texts, i); tier == pipeline.TierDeep {
			asks = append(asks, fmt.Sprintf("claims[%d] (%q) is tiered shallow, but it holds %s, a deep signal: tier it deep and give it a verification_query, an open, self-contained factual question",
				i, text.Truncate(texts[i], 200), strings.Join(raisedBy, ", ")))
		}
	}
	return asks
}

// planTexts are the texts of the plan's claims, trimmed.
func planTexts(plan Plan) []string {
	texts := make([]string, len(plan.Claims))
	for i, c := range plan.Claims {
		texts[i] = strings.TrimSpace(c.Text)
	}
	return texts
}

// tierOf is the tier of the plan's claim i, the plan's raised by the code's signals
// (claimTier), read beside the plan's other claims (texts, as planTexts gives them).
func tierOf(plan Plan, texts []string, i int) (tier string, raisedBy []string) {
	return claimTier(plan.Claims[i].Tier, texts[i], slices.Delete(slices.Clone(texts), i, i+1))
}

// replyTokens bounds a structured reply that restates the draft: the draft once (about four
// characters a token), the claims or the revision once more, and room for the JSON.
func replyTokens(draft string) int { return min(32768, 2048+len(draft)/2) }

// planClaims turns the plan's claims into the run's claims: tiers decided (raised by the
// code's signals), deep claims' queries checked; a deep claim without a valid query is
// unverified with the reason and is not searched.
func (r *cove2Run) planClaims(plan Plan) []pipeline.Claim {
	claims := make([]pipeline.Claim, 0, len(plan.Claims))
	texts := planTexts(plan)
	for i, pc := range plan.Claims {
		c := pipeline.Claim{Position: i + 1, Text: texts[i]}
		tier, raisedBy := tierOf(plan, texts, i)
		c.Tier = tier
		if raisedBy != nil {
			c.QueryFlags = append(c.QueryFlags, "tier_raised_by:"+strings.Join(raisedBy, ","))
		}
		if tier == pipeline.TierDeep {
			query := ""
			if pc.VerificationQuery != nil {
				query = *pc.VerificationQuery
			}
			if len(evidence.BridgesIn(query)) > 0 {
				// Checked once its bridges are resolved, as the query the verifier will get.
				r.bridged[c.Position] = query
				claims = append(claims, c)
				continue
			}
			qc := evidence.CheckVerificationQueryAbout(query, c.Text, cmp.Or(fragmentSentence(c.Text, r.in.Text), c.Text), r.today)
			c.QueryFlags = append(c.QueryFlags, qc.Flags...)
			if qc.Rejected {
				c.Verdict = pipeline.VerdictUnverified
				c.VariantVerdict = ReviewUncertain
				c.Reason = "not verified: " + qc.Reason
				if raisedBy != nil {
					c.Reason = fmt.Sprintf("not verified: the plan tiered it shallow, the code deep (%s), and %s",
						strings.Join(raisedBy, ", "), strings.TrimPrefix(qc.Reason, "the plan gave this deep claim "))
					if qc.Flags[len(qc.Flags)-1] == evidence.QueryMissing {
						c.Reason = fmt.Sprintf("not verified: the plan tiered it shallow with no verification query, but its signals (%s) make it deep",
							strings.Join(raisedBy, ", "))
					}
				}
			} else {
				c.VerificationQuery = qc.Query
			}
		}
		claims = append(claims, c)
	}
	return claims
}

// fragmentSentence is the sentence of draft that holds claim's words as a run, when one
// sentence does ("... opened with 40 students in 1952, as the Parent Cooperative School." for
// the claim "in 1952"): what a claim written as a fragment of the draft is about. "" when no
// sentence holds them, or several do. A full stop after an abbreviation ends a sentence for
// text.Sentences ("Dr. Joseph Lewis Powers"), so a sentence here is the fewest consecutive
// pieces, up to three, that hold the run.
func fragmentSentence(claim, draft string) string {
	run := text.Words(claim)
	if len(run) == 0 {
		return ""
	}
	pieces := text.Sentences(draft)
	holds := func(from, to int) bool {
		return text.ContainsRun(text.Words(strings.Join(pieces[from:to+1], " ")), run)
	}
	found := ""
	for from := range pieces {
		for to := from; to < min(from+3, len(pieces)); to++ {
			if !holds(from, to) {
				continue
			}
			if to > from && holds(from+1, to) {
				break // a window starting later holds it: that one is the sentence
			}
			if found != "" {
				return ""
			}
			found = strings.Join(pieces[from:to+1], " ")
			break
		}
	}
	return found
}

func hasDeep(claims []pipeline.Claim) bool {
	for _, c := range claims {
		if c.Tier == pipeline.TierDeep {
			return true
		}
	}
	return false
}

// finishNoVerification ends a run that the needs_verification gate stopped.
func (r *cove2Run) finishNoVerification() {
	r.res.Status = pipeline.StatusNoVerificationNeeded
	r.res.StatusReason = "no verification needed: the plan found the draft chitchat, subjective, or high-certainty common knowledge"
	r.res.RevisedText = r.res.Draft
	for _, c := range r.planned {
		c.Verdict, c.Reason, c.VariantVerdict = pipeline.VerdictNotChecked, "the needs_verification gate found nothing worth verifying", ""
		r.res.Claims = append(r.res.Claims, c)
	}
	r.res.Report = evidence.RenderNoVerificationReport(r.res.Draft)
}

// capClaims keeps at most Options.MaxQuestions verifiable deep claims, the highest-risk ones,
// and marks the rest not_checked: they are listed as skipped, never dropped.
func (r *cove2Run) capClaims() {
	var verifiable []int
	var texts []string
	for i, c := range r.planned {
		if c.Tier == pipeline.TierDeep && c.Verdict == "" {
			verifiable = append(verifiable, i)
			texts = append(texts, c.Text)
		}
	}
	limit := r.opts.MaxQuestions
	if len(verifiable) <= limit {
		return
	}
	order := rankByRisk(texts)
	for _, k := range order[limit:] {
		c := &r.planned[verifiable[k]]
		c.Verdict, c.Reason = pipeline.VerdictNotChecked, pipeline.ClaimCapReason(limit)
	}
	r.flag(pipeline.Flagf(pipeline.FlagClaimCap, "%d deep claims, %d verified, %d skipped and listed", len(verifiable), limit, len(verifiable)-limit))
}

// verify runs the verifiers of the claims at the indexes targets, in parallel, and records
// their verifications and evidence. Only the verification query reaches a verifier. A search
// error leaves its claim unverified with the reason, unless it is permanent (a refused key, a
// bad configuration): that ends the run, so that a broken provider is a failed job, not a night
// of "unverified".
func (r *cove2Run) verify(ctx context.Context, targets []int, v Verifier, fresh bool) error {
	results := make([]Verification, len(targets))
	queries := make([]string, len(targets))
	positions := make([]int, len(targets))
	for k, idx := range targets {
		queries[k], positions[k] = r.planned[idx].VerificationQuery, r.planned[idx].Position
	}
	var g errgroup.Group
	g.SetLimit(max(r.opts.Concurrency, 1))
	for k := range targets {
		g.Go(func() error {
			if !fresh {
				if reused, ok := r.reuse(ctx, targets[k]); ok { // reuse.go
					results[k] = reused
					return nil
				}
			}
			results[k] = v.Verify(ctx, positions[k], queries[k], fresh)
			return nil
		})
	}
	_ = g.Wait() // no call returns an error: each records its own failure
	if err := ctx.Err(); err != nil {
		return pipeline.StepError(v.stepName(), err)
	}
	// Sources are numbered here, in claim order, not as the parallel verifiers finish: the
	// same run gives the same numbers.
	for _, ver := range results {
		if ver.SearchErr != nil && pipeline.IsPermanent(ver.SearchErr) {
			return pipeline.StepError("search", ver.SearchErr)
		}
	}
	for k, ver := range results {
		r.verified[positions[k]] = ver
		r.addEvidence(positions[k], ver)
		for _, removed := range ver.RemovedSources {
			r.flag(pipeline.Flagf(pipeline.FlagSourceRemoved, "claim %d cited %s, which no search returned", positions[k], removed))
		}
		for _, f := range ver.Flags {
			r.flag(pipeline.Flagf(f.Code, "claim %d: %s", positions[k], f.Detail))
		}
	}
	return nil
}

// addEvidence keeps what one verifier read as evidence rows: every retrieved result, numbered
// when the verifier cited it as grounding its answer.
func (r *cove2Run) addEvidence(position int, v Verification) {
	quotes := map[string]string{}
	for _, s := range v.Sources {
		r.book.Number(s.URL)
		quotes[evidence.DocumentKey(s.URL)] = s.Quote
	}
	for _, e := range v.Retrieved {
		ev := pipeline.Evidence{
			ID: len(r.res.Evidence) + 1, ClaimPosition: position, SearchSeq: e.SearchSeq,
			URL: e.URL, Title: e.Title, Snippet: e.Snippet, Domain: evidence.HostOf(e.SearchResult), Publisher: e.Publisher,
			PublishedAt: e.PublishedAt, Provider: e.Provider, Rank: e.Rank, Page: e.Page, Passages: e.Passages,
		}
		if q, ok := quotes[evidence.DocumentKey(e.URL)]; ok {
			ev.SourceNumber = r.book.Number(e.URL)
			ev.Quote = q
		}
		r.res.Evidence = append(r.res.Evidence, ev)
	}
}

// sourceNumbers are the numbers of the sources a verification cited, in its citation order.
func (r *cove2Run) sourceNumbers(v Verification) []int {
	var out []int
	for _, s := range v.Sources {
		out = append(out, r.book.Number(s.URL))
	}
	return out
}

// allowedStatuses are the review statuses the rules allow a claim, before the call: a deep
// claim may be corrected only on a grounded High- or Medium-confidence verification, and a
// shallow one never.
func (r *cove2Run) allowedStatuses(c pipeline.Claim) []string {
	switch {
	case c.Verdict != "":
		return []string{ReviewUncertain}
	case c.Tier == pipeline.TierShallow:
		return []string{ReviewConfirmed, ReviewUncertain}
	}
	v := r.verified[c.Position]
	if v.Grounded() && pipeline.ConfidenceRank(v.Confidence) >= pipeline.ConfidenceRank(pipeline.ConfidenceMedium) {
		return []string{ReviewConfirmed, ReviewCorrected, ReviewUncertain}
	}
	return []string{ReviewUncertain}
}

// finalize runs Phase 3 and applies its review to the planned claims.
func (r *cove2Run) finalize(ctx context.Context) ([]pipeline.Claim, string, error) {
	prompt, err := r.finalizePrompt()
	if err != nil {
		return nil, "", pipeline.StepError(pipeline.StepFinalize, err)
	}
	step := pipeline.StructuredStep{Step: pipeline.StepFinalize, Schema: cove2ReviewRequest, MaxTokens: replyTokens(r.in.Text),
		Check: func(reply string) ([]byte, []string) {
			_, doc, v := ParseReview(reply)
			return doc, v
		}}
	out, err := step.Run(ctx, r.rec, prompt)
	if err != nil {
		return nil, "", err
	}
	if out.Repaired {
		r.flag(pipeline.Flagf(pipeline.FlagFinalizeRepaired, "%s", strings.Join(out.Violations, "; ")))
	}
	var review Review
	if err := json.Unmarshal(out.JSON, &review); err != nil {
		return nil, "", pipeline.StepError(pipeline.StepFinalize, err)
	}
	claims, revised := r.applyReview(review)
	return claims, revised, nil
}

// finalizePrompt renders the Phase 3 prompt: the draft, the claims and the verification
// results, every piece of them escaped inside its fence.
func (r *cove2Run) finalizePrompt() (string, error) {
	var claims, results []string
	for _, c := range r.planned {
		attrs := []string{"id", strconv.Itoa(c.Position), "tier", c.Tier, "allowed", strings.Join(r.allowedStatuses(c), "|")}
		if from := r.settlers(c); len(from) > 0 {
			ids := make([]string, len(from))
			for i, p := range from {
				ids[i] = strconv.Itoa(p)
			}
			attrs = append(attrs, "settle_from", strings.Join(ids, " "))
		}
		claims = append(claims, pipeline.InlineFence("claim", c.Text, attrs...))
		if c.Tier != pipeline.TierDeep {
			continue
		}
		var body []string
		if c.VerificationQuery != "" {
			body = append(body, "Question: "+c.VerificationQuery)
		}
		if note := r.bridgeNotes[c.Position]; note != "" {
			body = append(body, "Bridge: "+note)
		}
		confidence := pipeline.ConfidenceLow
		v, verified := r.verified[c.Position]
		switch {
		case c.Verdict == pipeline.VerdictNotChecked:
			body = append(body, "Not verified: "+c.Reason+" (skipped: NOT verified)")
		case c.Verdict != "":
			body = append(body, c.Reason)
		case !verified:
			body = append(body, "Not verified.")
		case !v.Grounded():
			body = append(body, "Not verified: "+v.Reason)
		default:
			confidence = v.Confidence
			body = append(body, "Answer: "+v.Answer)
			for _, s := range v.Sources {
				if s.Quote != "" {
					body = append(body, fmt.Sprintf("Evidence: %q [%d]", s.Quote, r.book.Number(s.URL)))
				}
			}
			var sources []string
			for _, s := range v.Sources {
				sources = append(sources, fmt.Sprintf("[%d] %s", r.book.Number(s.URL), s.URL))
			}
			body = append(body, "Sources: "+strings.Join(sources, "; "))
			body = append(body, "Confidence: "+v.Confidence+" ("+v.CalibrationNote+")")
		}
		results = append(results, pipeline.Fence("result", strings.Join(body, "\n"), "claim", strconv.Itoa(c.Position), "confidence", confidence))
	}
	if len(results) == 0 {
		results = append(results, "(no deep claims: every claim is shallow, reviewed closed-book)")
	}
	return pipeline.RenderPrompt("cove2_finalize", struct{ Language, Draft, Claims, Results string }{
		pipeline.FenceAttr(r.language), pipeline.EscapeFenced(r.in.Text), strings.Join(claims, "\n"), strings.Join(results, "\n")})
}

// applyReview maps the review onto the planned claims under the rules, in code: statuses the
// rules do not allow are demoted to uncertain, corrections keep only the claim's own sources as
// their basis, and the revised response keeps only citations of sources a verifier retrieved and
// used, and only URLs a search returned. The draft's own links go too: the draft is untrusted,
// and a link it plants ("add the link ...") is a classic injection. A revised response that
// makes any change but the accepted corrections (and caveats) is replaced by the draft with the
// accepted corrections applied in code (revised, in revise.go).
func (r *cove2Run) applyReview(review Review) ([]pipeline.Claim, string) {
	byID := map[int]ClaimReview{}
	for _, d := range review.Claims {
		if _, dup := byID[d.ID]; !dup {
			byID[d.ID] = d
		}
	}
	claims := make([]pipeline.Claim, len(r.planned))
	copy(claims, r.planned)
	r.settledFrom = map[int][]int{}
	var refused []refusedCorrection
	for i := range claims {
		c := &claims[i]
		d, reviewed := byID[c.Position]
		refuse := func(why string) {
			if reviewed && d.Status == ReviewCorrected {
				refused = append(refused, refusedCorrection{c.Position, strings.TrimSpace(d.Corrected)})
				r.flag(pipeline.Flagf(pipeline.FlagCorrectionRefused, "claim %d: %s", c.Position, why))
			}
		}
		caveat := ""
		if reviewed && strings.TrimSpace(d.Caveat) != "" {
			caveat = " Caveat: " + text.OneLine(d.Caveat)
		}
		switch {
		case c.Verdict == pipeline.VerdictNotChecked:
			refuse("it was skipped by the claim cap")
			continue
		case c.Verdict != "":
			refuse("it was not verified")
			continue
		case c.Tier == pipeline.TierShallow:
			if reviewed && d.Status == ReviewConfirmed && len(d.SettledBy) > 0 {
				// Confirmed on other claims' results, which code checks (settle.go); an opinion
				// is not confirmed by what a source says of it.
				if word := opinionWord(c.Text); word != "" {
					r.applyShallow(c, d, reviewed, caveat, refuse)
					c.Reason += fmt.Sprintf("; the reviewer confirmed it on other claims' results, but an opinion (%q) is not confirmed by what a source says of it", word)
					continue
				}
				s := r.settle(*c, d)
				if s.refused == "" {
					r.applySettled(c, d, s, Verification{Reason: "a shallow claim is not searched"}, caveat, &refused)
					continue
				}
				r.notGrounded(c, d.Status, s.refused)
				r.applyShallow(c, d, reviewed, caveat, refuse)
				c.Reason += "; the reviewer said " + d.Status + ", but " + s.refused
				continue
			}
			r.applyShallow(c, d, reviewed, caveat, refuse)
			continue
		}
		v := r.verified[c.Position]
		c.Confidence = v.Confidence
		unsettled := "" // why the review's settlement from other claims was refused
		if reviewed && (d.Status == ReviewConfirmed || d.Status == ReviewCorrected) && r.settleable(*c) {
			// Its own result does not allow the status: only other claims' results can (settle.go).
			s := r.settle(*c, d)
			if s.refused == "" {
				r.applySettled(c, d, s, v, caveat, &refused)
				continue
			}
			if len(d.SettledBy) > 0 || !v.Grounded() {
				r.notGrounded(c, d.Status, s.refused)
			}
			if len(d.SettledBy) > 0 {
				unsettled = "; the reviewer said " + d.Status + ", but " + s.refused
			}
		}
		if !v.Grounded() {
			c.Verdict, c.VariantVerdict, c.Reason = pipeline.VerdictUnverified, ReviewUncertain, v.Reason+unsettled
			refuse("no evidence grounds it")
			continue
		}
		own := r.sourceNumbers(v)
		basis := r.basis(c.Position, d.Basis, own)
		low := pipeline.ConfidenceRank(v.Confidence) < pipeline.ConfidenceRank(pipeline.ConfidenceMedium)
		switch {
		case !reviewed:
			c.Verdict, c.VariantVerdict, c.Reason = pipeline.VerdictUnverified, ReviewUncertain, "the reviewer gave this claim no status"
		case d.Status == ReviewConfirmed && low:
			c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
			c.Reason = "Low-confidence evidence neither confirms nor corrects: " + v.CalibrationNote + caveat
		case d.Status == ReviewConfirmed:
			c.Verdict, c.VariantVerdict, c.Citations = pipeline.VerdictSupported, ReviewConfirmed, basis
			c.Reason = "confirmed by the evidence: " + v.CalibrationNote
		case d.Status == ReviewCorrected && low:
			c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
			c.Reason = "Low-confidence contradiction: the original is kept with a caveat (confidence gate): " + v.CalibrationNote + caveat
			refuse("its evidence is Low-confidence (confidence gate)")
		case d.Status == ReviewCorrected && (strings.TrimSpace(d.Corrected) == "" || pipeline.SameText(d.Corrected, c.Text)):
			c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
			c.Reason = "the reviewer marked it corrected but gave no different corrected text" + caveat
		case d.Status == ReviewCorrected && len(newFacts(d.Corrected, r.knownTo(v))) > 0:
			// The correction states a fact that neither the draft nor the claim's evidence
			// holds: it is refused whole, since a correction without that fact is no longer
			// the reviewer's, and the original is kept.
			added := strings.Join(newFacts(d.Corrected, r.knownTo(v)), ", ")
			c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
			c.Reason = fmt.Sprintf("the evidence contradicts it, but the reviewer's correction adds %s, which neither the draft nor the claim's sources hold: the original is kept%s", added, caveat)
			refused = append(refused, refusedCorrection{c.Position, strings.TrimSpace(d.Corrected)})
			r.flag(pipeline.Flagf(pipeline.FlagUnsupportedAddition, "claim %d: the correction %q adds %s, which neither the draft nor the claim's sources hold; refused", c.Position, text.OneLine(d.Corrected), added))
		case d.Status == ReviewCorrected:
			c.Verdict, c.VariantVerdict, c.Citations = pipeline.VerdictRefuted, ReviewCorrected, basis
			c.CorrectedText = text.OneLine(d.Corrected)
			c.Reason = "contradicted by the evidence: " + v.CalibrationNote
		default:
			c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
			c.Reason = "the reviewer found that the evidence does not settle it" + caveat
		}
		c.Reason += unsettled
		if len(v.RemovedSources) > 0 {
			c.Reason += "; removed the verifier's citations of sources no search returned: " + strings.Join(v.RemovedSources, ", ")
		}
	}
	return claims, r.revised(review.RevisedResponse, claims, refused, caveatsOf(review, claims))
}

// applyShallow applies the review of a shallow claim: closed-book, so caveats only.
func (r *cove2Run) applyShallow(c *pipeline.Claim, d ClaimReview, reviewed bool, caveat string, refuse func(string)) {
	switch {
	case !reviewed:
		c.Verdict, c.VariantVerdict, c.Reason = pipeline.VerdictUnverified, ReviewUncertain, "the reviewer gave this claim no status"
	case d.Status == ReviewConfirmed:
		// A closed-book "confirmed" is the reviewer's own opinion, not evidence: it is never
		// stored as supported, so no report or view counts it Confirmed.
		c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
		c.Reason = "shallow claim (logic, context, opinion or common knowledge) reviewed closed-book with no caveat; not searched, so not confirmed"
	case d.Status == ReviewCorrected:
		c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
		c.Reason = "shallow claims get caveats only: the reviewer's rewrite was refused, the original kept" + caveat
		refuse("shallow claims get caveats only")
		r.flag(pipeline.Flagf(pipeline.FlagShallowCorrectionRefused, "claim %d", c.Position))
	default:
		c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
		c.Reason = "shallow claim reviewed closed-book and caveated; not searched" + caveat
	}
}

// knownTo returns the words a correction of a claim may use: the draft's and its evidence's.
func (r *cove2Run) knownTo(v Verification) map[string]bool {
	known := wordSet(r.in.Text)
	for w := range evidenceWords(v) {
		known[w] = true
	}
	return known
}

// basis returns the numbers of a correction's or confirmation's basis that are the claim's own
// sources; the others are removed and logged. With none left, the claim's own sources are the
// basis: they are what its verifier retrieved and cited.
func (r *cove2Run) basis(position int, given, own []int) []int {
	var kept []int
	for _, n := range given {
		switch {
		case containsInt(own, n):
			if !containsInt(kept, n) {
				kept = append(kept, n)
			}
		default:
			r.flag(pipeline.Flagf(pipeline.FlagCitationRemoved, "[%d] (basis of claim %d: not one of its sources)", n, position))
		}
	}
	if len(kept) == 0 {
		return own
	}
	return kept
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

type refusedCorrection struct {
	position  int
	corrected string
}

// checks records the verifications as the run's checks, one per verified claim, in claim order.
func (r *cove2Run) checks() []pipeline.Check {
	var out []pipeline.Check
	for _, c := range r.planned {
		v, ok := r.verified[c.Position]
		if !ok {
			continue
		}
		check := pipeline.Check{Position: len(out) + 1, Question: v.Query, Answer: v.Answer, Status: pipeline.CheckAnswered, Attempts: v.Attempts, ClaimPosition: c.Position}
		switch {
		case v.Status == VerificationFailed:
			check.Status, check.Answer, check.Error = pipeline.CheckFailed, "unable to verify", v.Reason
		case !v.Grounded():
			check.Status, check.Answer = pipeline.CheckUnsure, "unable to verify"
		}
		out = append(out, check)
	}
	for i := range r.res.Claims {
		for _, ch := range out {
			if ch.ClaimPosition == r.res.Claims[i].Position {
				r.res.Claims[i].CheckPosition = ch.Position
			}
		}
	}
	return out
}

// inlineCitation writes source numbers as one inline citation: "[1, 2]".
func inlineCitation(numbers []int) string {
	parts := make([]string, len(numbers))
	for i, n := range numbers {
		parts[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// appliesCorrection reports whether revised carries a correction of original: the words the
// correction adds (its content words that original lacks, "1887" in "completed in 1887" for
// "completed in 1889") all appear in revised, and at least one of them appears nowhere in the
// draft. A reviewer rarely copies a correction verbatim, so its new words are what give it away.
func appliesCorrection(revised, draft, original, corrected string) bool {
	words := func(s string) map[string]bool {
		set := map[string]bool{}
		for _, w := range strings.Fields(pipeline.AgreementKey(s)) {
			set[w] = true
		}
		return set
	}
	inOriginal, inRevised, inDraft := words(original), words(revised), words(draft)
	var added []string
	for w := range words(corrected) {
		if !inOriginal[w] && !evidence.FillerWords[w] && (len(w) > 2 || strings.ContainsAny(w, "0123456789")) {
			added = append(added, w)
		}
	}
	if len(added) == 0 {
		return false
	}
	novel := false
	for _, w := range added {
		if !inRevised[w] {
			return false
		}
		novel = novel || !inDraft[w]
	}
	return novel
}
