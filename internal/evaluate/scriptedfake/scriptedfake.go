// Package scriptedfake is `evaluate --model scripted-fake`: an OpenAI-compatible server that
// answers every prompt of multihop and of the CoVe variants in its expected shape, decided by the
// prompt alone, so that the evaluation harness runs end to end with no model. Its figures measure
// the harness, never a model (docs/evaluation.md, "The scripted fake").
//
// It finds its way in a prompt by markers of the templates in internal/pipeline/prompts, copied
// here because the pipeline does not export them.
package scriptedfake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Name is the model name that makes `evaluate verdicts` start the scripted fake instead of
// calling an endpoint. Its figures measure the harness, never a model: every report says so.
const Name = "scripted-fake"

// Server is an OpenAI-compatible server (real HTTP, spoken to by the real openai-go
// client through llm.New) that answers every prompt of multihop and of the CoVe variants in the
// shape its method expects, so that `evaluate verdicts` drives the worker's pipeline end to end
// with no model. It sees only the prompts the pipeline sends: it cannot read a gold label, and
// what it answers is decided by the prompt alone:
//
//   - a multihop plan: the statement split at its clause joins into claims (each its own span),
//     each with a chain of two hops (its capitalised words and numbers, then its other content
//     words), checked with multihop.ValidatePlan; the whole statement as one claim when the
//     split breaks a rule;
//   - a multihop judge: the share of the claim's content words found in its best source:
//     at least 0.75 supported, at least 0.4 refuted, else unverified, citing a passage copied
//     from that source;
//   - CoVe: one question per clause of the draft; a question whose hash is 0 modulo 5 answered
//     "unsure", the others "Yes."; the revision keeps the draft unless its hash is 0 modulo 3.
//
// The choices are arbitrary and deterministic: they exercise every verdict path of the pipeline
// and the report, and measure nothing.
type Server struct {
	srv *httptest.Server
}

// Start starts the scripted fake on loopback; Close stops it.
func Start() *Server {
	f := &Server{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// URL is the base URL to configure the client with.
func (f *Server) URL() string { return f.srv.URL + "/v1" }

// Close stops the server.
func (f *Server) Close() { f.srv.Close() }

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	req, refusal, ok := llmtest.DecodeRequest(r)
	if !ok {
		llmtest.WriteResponse(w, req, refusal)
		return
	}
	text, err := Answer(req.Prompt)
	if err != nil {
		llmtest.WriteResponse(w, req, llmtest.Response{Status: http.StatusBadRequest,
			Body: llmtest.ErrorBody("evaluate's scripted fake: "+err.Error(), "invalid_request_error", "")})
		return
	}
	llmtest.WriteResponse(w, req, llmtest.Response{Text: text})
}

var (
	// clauseJoin splits a statement into clauses: ", and", "; ", " and " before a verb-led
	// clause is too fine a cut for a fake; these three keep most spans whole.
	clauseJoin = regexp.MustCompile(`,? and |; |, while |, which `)
	fineJoin   = regexp.MustCompile(`,? and |; |, | but | as well as `)
)

// Answer is the scripted fake's reply to prompt. It tells the prompts apart by pipeline's
// markers and reads them with pipeline's patterns, defined beside the prompts and tested
// against them.
func Answer(prompt string) (string, error) {
	switch {
	case strings.Contains(prompt, pipeline.MarkerMultihopPlan):
		m := pipeline.PromptStatement.FindStringSubmatch(prompt)
		if m == nil {
			return "", fmt.Errorf("a multihop plan prompt without its statement")
		}
		maxHops := pipeline.DefaultMaxHops
		if h := pipeline.PromptMaxHops.FindStringSubmatch(prompt); h != nil {
			maxHops, _ = strconv.Atoi(h[1])
		}
		return fakePlan(m[1], maxHops), nil
	case strings.Contains(prompt, pipeline.MarkerMultihopJudge):
		m := pipeline.PromptClaim.FindStringSubmatch(prompt)
		if m == nil {
			return "", fmt.Errorf("a judge prompt without its claim")
		}
		return fakeJudgement(m[1], pipeline.PromptSource.FindAllStringSubmatch(prompt, -1)), nil
	// Revisions and cross-checks first: they quote the questions that other markers match.
	case strings.Contains(prompt, pipeline.MarkerFinalAnswer):
		return "Final answer from the consistent claims.", nil
	case strings.Contains(prompt, pipeline.MarkerRevise):
		d := pipeline.PromptDraft.FindStringSubmatch(prompt)
		if d == nil {
			return "", fmt.Errorf("a revise prompt without its draft")
		}
		draft := strings.TrimSpace(d[1])
		if fakeHash(draft)%3 == 0 {
			clauses := fakeClauses(draft)
			return strings.Join(clauses[:max(len(clauses)-1, 1)], ", and ") + " (revised)", nil
		}
		return draft, nil
	case strings.Contains(prompt, pipeline.MarkerCrossCheck):
		return "CONSISTENT", nil
	case strings.Contains(prompt, pipeline.MarkerPlan):
		d := pipeline.PromptDraft.FindStringSubmatch(prompt)
		if d == nil {
			return "", fmt.Errorf("a plan prompt without its draft")
		}
		var qs []string
		for _, c := range fakeClauses(d[1]) {
			qs = append(qs, "Is it true that "+strings.TrimSuffix(c, ".")+"?")
		}
		return strings.Join(qs, "\n"), nil
	case strings.Contains(prompt, pipeline.MarkerJointPlan):
		d := pipeline.PromptDraft.FindStringSubmatch(prompt)
		if d == nil {
			return "", fmt.Errorf("a plan prompt without its draft")
		}
		var lines []string
		for _, c := range fakeClauses(d[1]) {
			q := "Is it true that " + strings.TrimSuffix(c, ".") + "?"
			lines = append(lines, "Q: "+q, "A: "+fakeVerify(q))
		}
		return strings.Join(lines, "\n"), nil
	case strings.Contains(prompt, pipeline.MarkerFactorRevisePlan):
		d := pipeline.PromptDraft.FindStringSubmatch(prompt)
		if d == nil {
			return "", fmt.Errorf("a plan prompt without its draft")
		}
		var lines []string
		for _, c := range fakeClauses(d[1]) {
			lines = append(lines, "Claim: "+c, "Question: Is it true that "+strings.TrimSuffix(c, ".")+"?")
		}
		return strings.Join(lines, "\n"), nil
	case strings.Contains(prompt, pipeline.MarkerVerifyAll):
		var lines []string
		for _, q := range pipeline.PromptNumberedQuestion.FindAllStringSubmatch(prompt, -1) {
			lines = append(lines, q[1]+". "+fakeVerify(q[2]))
		}
		return strings.Join(lines, "\n"), nil
	case strings.Contains(prompt, pipeline.MarkerVerify):
		q := pipeline.PromptQuestion.FindStringSubmatch(prompt)
		if q == nil {
			return "unsure", nil
		}
		return fakeVerify(q[1]), nil
	}
	return "", fmt.Errorf("no scripted answer for this prompt (the fake answers multihop and the CoVe variants; cove2 needs a model)")
}

func fakeHash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(strings.TrimSpace(s)))
	return h.Sum32()
}

func fakeVerify(question string) string {
	if fakeHash(question)%5 == 0 {
		return "unsure"
	}
	return "Yes."
}

// fakeClauses splits text at its clause joins, dropping empty pieces.
func fakeClauses(text string) []string {
	var out []string
	for _, c := range clauseJoin.Split(strings.TrimSpace(text), -1) {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return []string{strings.TrimSpace(text)}
	}
	return out
}

// fakeFineClauses splits a text at every comma and "and" too: the fallback when a coarser claim
// joins two facts.
func fakeFineClauses(claim string) []string {
	var out []string
	for _, c := range fineJoin.Split(strings.TrimSpace(claim), -1) {
		if c = strings.TrimSpace(c); len(text.ContentWords(c, "en")) >= 2 {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return []string{strings.TrimSpace(claim)}
	}
	return out
}

// fakePlan is a plan for statement: the clause split when it passes every rule, else the whole
// statement as one claim (which the repair round, if that breaks a rule too, sees again).
func fakePlan(statement string, maxHops int) string {
	pc := multihop.PlanContext{Statement: statement, MaxHops: maxHops, Language: "en"}
	var last []byte
	for _, spans := range [][]string{fakeClauses(statement), fakeFineClauses(statement), {strings.TrimSpace(statement)}} {
		p := fakePlanOf(spans, maxHops)
		raw, _ := json.Marshal(p)
		last = raw
		if _, violations := multihop.ValidatePlan(string(raw), pc); len(violations) == 0 {
			return string(raw)
		}
	}
	return string(last)
}

func fakePlanOf(spans []string, maxHops int) multihop.Plan {
	spans = spans[:min(len(spans), 20)] // the schema's bound
	p := multihop.Plan{PlanID: "scripted-fake", Claims: []multihop.PlanClaim{}, QueryChains: []multihop.QueryChain{},
		CrossValidationPairs: []multihop.CrossValidationPair{}, CrossValidationQueries: []multihop.CrossValidationQuery{}, ExecutionOrder: []string{}}
	for i, span := range spans {
		id := multihop.ClaimID(i)
		text := strings.TrimSuffix(span, ".")
		entities, rest := fakeQueryWords(text)
		p.Claims = append(p.Claims, multihop.PlanClaim{ClaimID: id, ClaimText: text, SourceSpan: span, Entities: entities,
			Verifiable: true, Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
			SubQueries: []string{strings.Join(append(entities, "overview"), " ")}, SourceIndependenceScore: 0.5})
		hops := []string{strings.Join(entities, " "), strings.Join(rest, " ")}
		if len(entities) == 0 || len(rest) == 0 {
			hops = []string{strings.Join(append(entities, rest...), " ") + " encyclopedia"}
		}
		ch := multihop.QueryChain{ClaimID: id}
		for j, q := range hops[:min(len(hops), max(maxHops, 1))] {
			if strings.TrimSpace(q) == "" {
				continue
			}
			ch.Hops = append(ch.Hops, multihop.PlanHop{HopNumber: len(ch.Hops) + 1, Query: q,
				TargetSourceType: []string{"encyclopedia", "news report"}[j%2], ExpectedEvidenceType: "fact"})
		}
		p.QueryChains = append(p.QueryChains, ch)
		p.ExecutionOrder = append(p.ExecutionOrder, id)
	}
	if len(p.Claims) >= 2 {
		a, _ := fakeQueryWords(p.Claims[0].ClaimText)
		b, rb := fakeQueryWords(p.Claims[1].ClaimText)
		q := strings.Join(append(append(a, b...), rb...), " ") + " relationship"
		p.CrossValidationPairs = append(p.CrossValidationPairs, multihop.CrossValidationPair{ClaimAID: "c1", ClaimBID: "c2", Relationship: "stated together"})
		p.CrossValidationQueries = append(p.CrossValidationQueries, multihop.CrossValidationQuery{QueryText: q, TargetClaimIndices: []int{0, 1}})
	}
	return p
}

// fakeQueryWords splits a claim's words into its capitalised words and numbers (entities,
// dates) and its other content words.
func fakeQueryWords(claim string) (entities, rest []string) {
	entities, rest = []string{}, []string{}
	defer func() { entities = entities[:min(len(entities), 12)] }()
	for _, w := range strings.Fields(claim) {
		w = strings.Trim(w, ".,;:!?()\"'“”‘’")
		if w == "" {
			continue
		}
		r := []rune(w)[0]
		switch {
		case len(text.ContentWords(w, "en")) == 0:
			// a function word: neither
		case unicode.IsDigit(r) || unicode.IsUpper(r):
			entities = append(entities, w)
		default:
			rest = append(rest, w)
		}
	}
	return entities, rest
}

// fakeJudgement judges claim by the share of its content words in its best source; sources
// are the matches of pipeline.PromptSource (number, URL, text).
func fakeJudgement(claim string, sources [][]string) string {
	want := text.ContentWords(claim, "en")
	best, bestShare := -1, 0.0
	for i, s := range sources {
		have := map[string]bool{}
		for _, t := range text.ContentWords(s[3], "en") {
			have[t] = true
		}
		n := 0
		for _, t := range want {
			if have[t] {
				n++
			}
		}
		if len(want) > 0 && float64(n)/float64(len(want)) > bestShare {
			best, bestShare = i, float64(n)/float64(len(want))
		}
	}
	reply := map[string]any{"verdict": pipeline.VerdictUnverified, "citations": []any{}, "reason": "No source covers the claim's words.",
		"supported_part": "", "correction": "", "confidence": "Low"}
	if best >= 0 && bestShare >= 0.4 {
		n, _ := strconv.Atoi(sources[best][1])
		words := strings.Fields(sources[best][3])
		passage := strings.Join(words[:min(len(words), 6)], " ")
		verdict, stance := pipeline.VerdictSupported, "supports"
		if bestShare < 0.75 {
			verdict, stance = pipeline.VerdictRefuted, "refutes"
			reply["correction"] = passage
		}
		reply["verdict"], reply["confidence"] = verdict, "Medium"
		reply["reason"] = fmt.Sprintf("Source %d holds %.0f%% of the claim's words (the scripted fake's rule).", n, 100*bestShare)
		reply["citations"] = []any{map[string]any{"source": n, "passage": passage, "stance": stance}}
	}
	raw, _ := json.Marshal(reply)
	return string(raw)
}
