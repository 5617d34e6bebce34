package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corroborate/corroborate/examples"
	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/llm"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
)

// The demo's replay (examples/replay.json) is a recording of the project's own pipeline: the demo
// itself (a throwaway PostgreSQL loaded with examples/archive.jsonl, in-process NATS, the worker
// and every method) run against demoScript, a scripted model, with every prompt it was asked and
// the reply it gave written down. Nothing in the file is written by hand. To record it again
// after a prompt, a method or an example changed:
//
//	go test ./cmd/worker -run TestDemoReplayIsRecordedFromThePipeline -update-replay
var updateReplay = flag.Bool("update-replay", false, "record examples/replay.json again from the pipeline (TestDemoReplayIsRecordedFromThePipeline)")

// demoConfig is the configuration `worker demo` runs with when nothing is configured: no
// DATABASE_URL, NATS_URL or model, whatever this test's environment says.
func demoConfig(t *testing.T) Config {
	t.Helper()
	for _, v := range []string{"DATABASE_URL", "NATS_URL", "OPENAI_API_KEY", "OPENAI_API_KEY_FILE", "OPENAI_BASE_URL", "CORROBORATE_SEARCH", "CORROBORATE_METRICS_ADDR"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	var cfg Config
	fs := envflag.New("worker", "")
	fs.SetOutput(io.Discard)
	cfg.flags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	cfg.Dev, cfg.ExitWhenIdle = true, true
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// replayRecorder is the scripted model the recording runs against: it answers each request
// with demoScript and keeps what it was asked and what it answered.
type replayRecorder struct {
	mu    sync.Mutex
	rules []llm.ReplayRule
}

func (r *replayRecorder) Complete(_ context.Context, req pipeline.ModelRequest) (pipeline.ModelReply, error) {
	about, reply, ok := demoScript(req)
	if !ok {
		return pipeline.ModelReply{}, pipeline.Permanent(fmt.Errorf("the demo's script has no reply for this %s prompt:\n%s", req.Step, req.Prompt))
	}
	r.mu.Lock()
	r.rules = append(r.rules, llm.ReplayRule{About: about, Step: req.Step, PromptSHA256: llm.PromptSHA256(req.Prompt), Reply: reply})
	r.mu.Unlock()
	return pipeline.ModelReply{Text: reply, Model: "scripted", FinishReason: "stop",
		PromptTokens: int64(len(req.Prompt)+3) / 4, CompletionTokens: int64(len(reply)+3) / 4}, nil
}

// file is the recording as examples/replay.json holds it: the rules sorted by example, step and
// prompt (two workers answer in no fixed order), each prompt once.
func (r *replayRecorder) file() ([]byte, error) {
	r.mu.Lock()
	rules := slices.Clone(r.rules)
	r.mu.Unlock()
	slices.SortFunc(rules, func(a, b llm.ReplayRule) int {
		return strings.Compare(a.About+"\x00"+a.Step+"\x00"+a.PromptSHA256, b.About+"\x00"+b.Step+"\x00"+b.PromptSHA256)
	})
	rules = slices.CompactFunc(rules, func(a, b llm.ReplayRule) bool { return a == b })
	var buf bytes.Buffer
	buf.WriteString("{\n  \"about\": " + strconv.Quote("Model replies recorded from the project's own pipeline by `go test ./cmd/worker -run TestDemoReplayIsRecordedFromThePipeline -update-replay`: the demo (examples/statements.jsonl over examples/archive.jsonl in a fresh database) run against the scripted model of cmd/worker/demo_test.go. `make demo` replays them when no model is configured: a REPLAY, not a verification. Each rule answers the one prompt of its step whose SHA-256 it records. Do not edit by hand: record again.") + ",\n  \"rules\": [\n")
	for i, rule := range rules {
		raw, err := json.Marshal(rule)
		if err != nil {
			return nil, err
		}
		buf.WriteString("    ")
		buf.Write(raw)
		if i < len(rules)-1 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("  ]\n}\n")
	return buf.Bytes(), nil
}

// The replay is what the pipeline does now: the demo run against the scripted model records
// exactly examples/replay.json (else the test says how to record it again), and every run ends
// done.
func TestDemoReplayIsRecordedFromThePipeline(t *testing.T) {
	cfg := demoConfig(t)
	rec := &replayRecorder{}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := runDemo(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &out, rec); err != nil {
		t.Fatalf("the demo against the scripted model: %v\n%s", err, out.String())
	}
	recorded, err := rec.file()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "examples", "replay.json")
	if *updateReplay {
		if err := os.WriteFile(path, recorded, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s (%d bytes)", path, len(recorded))
		return
	}
	if !bytes.Equal(recorded, examples.Replay) {
		t.Fatalf("examples/replay.json is not what the pipeline records now (a prompt, a method or an example changed): record it again with\n" +
			"  go test ./cmd/worker -run TestDemoReplayIsRecordedFromThePipeline -update-replay")
	}
}

// The demo as `make demo` runs it with no model: the replay, said loudly; the CoVe examples, the
// multihop run and the cove2 run over the bundled archive all done; claim verdicts with the
// title and URL of each cited source; the next commands.
func TestDemoReplaysEveryMethod(t *testing.T) {
	cfg := demoConfig(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := demo(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &out); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"REPLAY: no model was configured",
		"Loaded 9 documents of examples/archive.jsonl",
		"[demo-eiffel]", "method cove-factored, model offline-replay, run done",
		"[demo-hubble]", "method multihop, model offline-replay, run done",
		"  claim 1: The Hubble Space Telescope was launched in 1990\n    verdict: supported, High confidence\n    source: ",
		"    correction: The Hubble Space Telescope orbits the Earth at an altitude of about 540 kilometres\n",
		"(https://www.sky-almanac.example/telescopes/hubble)",
		"[demo-kilimanjaro]", "method cove2, model offline-replay, run done",
		"(https://atlas.highpoints.example/africa/kilimanjaro)",
		"go run ./cmd/report html --out report", "go run ./cmd/report serve",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(got)
	}
}

// The demo runs on its own date, not the machine's: with the worker's clock a year past the date
// the replay was recorded for (an injected clock), every method still finds its recorded replies,
// and the output says which date the demo took as today. It failed when the prompts carried the
// machine's date (the day after the recording, make demo exited 2).
func TestDemoPassesOnAnyDate(t *testing.T) {
	recorded, err := time.Parse(time.DateOnly, examples.Date)
	if err != nil {
		t.Fatalf("examples.Date %q: %v", examples.Date, err)
	}
	cfg := demoConfig(t)
	yearAhead := recorded.AddDate(1, 0, 1).Add(9 * time.Hour)
	began := time.Now()
	cfg.now = func() time.Time { return yearAhead.Add(time.Since(began)) }
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := demo(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), &out); err != nil {
		t.Fatalf("demo with the clock at %s: %v\n%s", yearAhead.Format(time.DateOnly), err, out.String())
	}
	for _, want := range []string{
		"The demo takes " + recorded.Format("2 January 2006") + " as today, the date its examples and recorded replies were written for",
		"[demo-kilimanjaro]", "method cove2, model offline-replay, run done",
		"[demo-hubble]", "method multihop, model offline-replay, run done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo's output lacks %q\n%s", want, out.String())
		}
	}
}

// demoScript is the scripted model of the recording: the reply to each prompt of the bundled
// examples, and which example it is for. The CoVe examples are answered by their step and a
// text of the prompt; the open-book ones from what their prompts hold (a judge or verifier cites
// the sources of its prompt that state the answer, with a passage copied from each).
func demoScript(req pipeline.ModelRequest) (about, reply string, ok bool) {
	for _, s := range coveScript {
		if s.step == req.Step && strings.Contains(req.Prompt, s.contains) {
			return s.about, s.reply, true
		}
	}
	switch {
	case req.Step == pipeline.StepPlan && strings.Contains(req.Prompt, pipeline.MarkerMultihopPlan) && strings.Contains(req.Prompt, hubbleStatement):
		return "demo-hubble", mustMarshal(hubblePlan()), true
	case req.Step == pipeline.StepJudge:
		claim := pipeline.PromptClaim.FindStringSubmatch(req.Prompt)
		if claim == nil {
			return "", "", false
		}
		for _, j := range hubbleJudge {
			if !strings.Contains(claim[1], j.claim) {
				continue
			}
			var cites []map[string]any
			for _, s := range containing(sourcesIn(req.Prompt), j.sourcesWith) {
				cites = append(cites, map[string]any{"source": s.n, "passage": sentenceWith(s.txt, j.sourcesWith), "stance": j.stance})
			}
			reply := map[string]any{"verdict": j.verdict, "citations": cites, "reason": j.reason,
				"supported_part": "", "correction": j.correction, "confidence": "High"}
			if len(cites) == 0 {
				reply = map[string]any{"verdict": pipeline.VerdictUnverified, "citations": []any{}, "reason": "No source states it.",
					"supported_part": "", "correction": "", "confidence": "Low"}
			}
			return "demo-hubble", mustMarshal(reply), true
		}
	case req.Step == pipeline.StepPlan && strings.Contains(req.Prompt, pipeline.MarkerCove2Plan) && strings.Contains(req.Prompt, kilimanjaroStatement):
		return "demo-kilimanjaro", mustMarshal(kilimanjaroPlan()), true
	case req.Step == pipeline.StepVerify && strings.Contains(req.Prompt, pipeline.MarkerCove2Verify):
		q := promptQuestion.FindStringSubmatch(req.Prompt)
		if q == nil {
			return "", "", false
		}
		for _, v := range kilimanjaroVerify {
			if !strings.Contains(q[1], v.question) {
				continue
			}
			cited := containing(sourcesIn(req.Prompt), v.sourcesWith)
			if len(cited) == 0 {
				return "demo-kilimanjaro", "- Answer: unable to verify", true
			}
			var quotes, urls []string
			for _, c := range cited {
				quotes = append(quotes, strconv.Quote(sentenceWith(c.txt, v.sourcesWith)))
				urls = append(urls, c.url)
			}
			return "demo-kilimanjaro", fmt.Sprintf("- Answer: %s\n- Evidence: %s\n- Sources: %s\n- Confidence: High",
				v.answer, strings.Join(quotes, " "), strings.Join(urls, ", ")), true
		}
	case req.Step == pipeline.StepFinalize && strings.Contains(req.Prompt, kilimanjaroStatement):
		sources := finalizeSources(req.Prompt)
		return "demo-kilimanjaro", mustMarshal(cove2.Review{
			Claims: []cove2.ClaimReview{
				{ID: 1, Status: cove2.ReviewConfirmed, Basis: sources[1]},
				{ID: 2, Status: cove2.ReviewCorrected, Corrected: "Mount Kilimanjaro rises 5,895 metres above sea level", Basis: sources[2]},
			},
			RevisedResponse: fmt.Sprintf("Mount Kilimanjaro is the highest mountain in Africa %s and rises 5,895 metres above sea level %s.",
				citation(sources[1]), citation(sources[2])),
		}), true
	}
	return "", "", false
}

// sentenceWith is the sentence of text that holds want: a passage copied word for word from
// the source, as an honest judge quotes.
func sentenceWith(text, want string) string {
	for _, s := range strings.SplitAfter(text, ". ") {
		if strings.Contains(s, want) {
			return strings.TrimSuffix(strings.TrimSpace(s), ".")
		}
	}
	return want
}

func mustMarshal(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// The multihop example: a launch year the archive confirms, an altitude it refutes.
const (
	hubbleLaunched  = "The Hubble Space Telescope was launched in 1990"
	hubbleOrbitSpan = "it orbits the Earth at an altitude of about 1,500 kilometres"
	hubbleOrbit     = "The Hubble Space Telescope orbits the Earth at an altitude of about 1,500 kilometres"
	hubbleStatement = hubbleLaunched + ", and " + hubbleOrbitSpan + "."
)

func hubblePlan() multihop.Plan {
	return multihop.Plan{
		PlanID: "hubble",
		Claims: []multihop.PlanClaim{
			{ClaimID: "c1", ClaimText: hubbleLaunched, SourceSpan: hubbleLaunched,
				Entities: []string{"Hubble Space Telescope", "1990"}, Verifiable: true, Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Hubble Space Telescope launch date", "space shuttle Discovery deployed Hubble"}, SourceIndependenceScore: 0.9},
			{ClaimID: "c2", ClaimText: hubbleOrbit, SourceSpan: hubbleOrbitSpan,
				Entities: []string{"Hubble Space Telescope", "1,500 kilometres"}, Verifiable: true, Interpretations: []multihop.Interpretation{}, DependsOn: []string{},
				SubQueries: []string{"Hubble orbit altitude kilometres", "Hubble height above Earth"}, SourceIndependenceScore: 0.8},
		},
		QueryChains: []multihop.QueryChain{
			{ClaimID: "c1", Hops: []multihop.PlanHop{
				{HopNumber: 1, Query: "Hubble Space Telescope launch April 1990", TargetSourceType: "news report", ExpectedEvidenceType: "date of an event"},
				{HopNumber: 2, Query: "Discovery shuttle crew deployed Hubble telescope", TargetSourceType: "news archive", ExpectedEvidenceType: "date of an event"},
			}},
			{ClaimID: "c2", Hops: []multihop.PlanHop{
				{HopNumber: 1, Query: "Hubble orbit altitude kilometres", TargetSourceType: "reference work", ExpectedEvidenceType: "official figure"},
				{HopNumber: 2, Query: "Hubble orbits above surface of the Earth", TargetSourceType: "science publication", ExpectedEvidenceType: "official figure"},
			}},
		},
		CrossValidationPairs:   []multihop.CrossValidationPair{{ClaimAID: "c1", ClaimBID: "c2", Relationship: "both describe the same telescope"}},
		CrossValidationQueries: []multihop.CrossValidationQuery{{QueryText: "Hubble telescope figures launched 1990 orbit", TargetClaimIndices: []int{0, 1}}},
		ExecutionOrder:         []string{"c1", "c2"},
	}
}

var hubbleJudge = []struct {
	claim, sourcesWith, verdict, stance, reason, correction string
}{
	{claim: hubbleLaunched, sourcesWith: "1990", verdict: pipeline.VerdictSupported, stance: "supports",
		reason: "The sources date the launch to April 1990."},
	{claim: "1,500 kilometres", sourcesWith: "540 kilometres", verdict: pipeline.VerdictRefuted, stance: "refutes",
		reason:     "The sources give an altitude of about 540 kilometres, not 1,500.",
		correction: "The Hubble Space Telescope orbits the Earth at an altitude of about 540 kilometres"},
}

// The cove2 example: a draft with one claim the archive confirms and one it corrects.
const (
	kilimanjaroStatement = "Mount Kilimanjaro is the highest mountain in Africa and rises 4,895 metres above sea level."
)

func kilimanjaroPlan() cove2.Plan {
	return cove2.Plan{Draft: kilimanjaroStatement, NeedsVerification: true, Claims: []cove2.PlanClaim{
		deepClaim("Mount Kilimanjaro is the highest mountain in Africa", "Which is the highest mountain in Africa?"),
		deepClaim("Mount Kilimanjaro rises 4,895 metres above sea level", "How many metres above sea level is the summit of Mount Kilimanjaro?"),
	}}
}

var kilimanjaroVerify = []struct{ question, answer, sourcesWith string }{
	{question: "highest mountain in Africa", answer: "Mount Kilimanjaro", sourcesWith: "highest mountain in Africa"},
	{question: "above sea level", answer: "5,895 metres", sourcesWith: "5,895"},
}

// coveScript answers the cove-factored examples: each reply is given to the prompt of its step
// that holds its text.
var coveScript = []struct{ about, step, contains, reply string }{
	{"demo-newyork", pipeline.StepDraft, "Name some politicians who were born in New York.", "Hillary Clinton, Donald Trump, Theodore Roosevelt"},

	{"demo-eiffel", pipeline.StepPlan, "<draft>The Eiffel Tower was completed in 1887 and stands in Lyon.</draft>", "When was the Eiffel Tower completed?\nIn which city does the Eiffel Tower stand?"},
	{"demo-newyork", pipeline.StepPlan, "<draft>Hillary Clinton, Donald Trump, Theodore Roosevelt</draft>", "Where was Hillary Clinton born?\nWhere was Donald Trump born?\nWhere was Theodore Roosevelt born?"},
	{"demo-curie", pipeline.StepPlan, "<draft>Marie Curie won two Nobel Prizes", "How many Nobel Prizes did Marie Curie win?\nIn which fields did Marie Curie win Nobel Prizes?"},
	{"demo-greatwall", pipeline.StepPlan, "<draft>The Great Wall of China is visible", "Can the Great Wall of China be seen from the Moon with the naked eye?"},
	{"demo-everest", pipeline.StepPlan, "<draft>Mount Everest is 8,849 metres tall", "How tall is Mount Everest?\nWhich countries does Mount Everest lie between?"},
	{"demo-boiling", pipeline.StepPlan, "<draft>At sea level, water boils at 90 degrees Celsius.</draft>", "At what temperature does water boil at sea level?"},

	{"demo-eiffel", pipeline.StepVerify, "When was the Eiffel Tower completed?", "1889"},
	{"demo-eiffel", pipeline.StepVerify, "In which city does the Eiffel Tower stand?", "Paris"},
	{"demo-newyork", pipeline.StepVerify, "Where was Hillary Clinton born?", "Chicago"},
	{"demo-newyork", pipeline.StepVerify, "Where was Donald Trump born?", "Queens, New York City"},
	{"demo-newyork", pipeline.StepVerify, "Where was Theodore Roosevelt born?", "Manhattan, New York City"},
	{"demo-curie", pipeline.StepVerify, "How many Nobel Prizes did Marie Curie win?", "Two"},
	{"demo-curie", pipeline.StepVerify, "In which fields did Marie Curie win Nobel Prizes?", "Physics (1903) and chemistry (1911)"},
	{"demo-greatwall", pipeline.StepVerify, "Can the Great Wall of China be seen from the Moon", "No; it is not visible to the naked eye from the Moon"},
	{"demo-everest", pipeline.StepVerify, "How tall is Mount Everest?", "8,849 metres"},
	{"demo-everest", pipeline.StepVerify, "Which countries does Mount Everest lie between?", "unsure"},
	{"demo-boiling", pipeline.StepVerify, "At what temperature does water boil at sea level?", "100 degrees Celsius"},

	{"demo-eiffel", pipeline.StepRevise, "<draft>The Eiffel Tower was completed in 1887 and stands in Lyon.</draft>", "The Eiffel Tower was completed in 1889 and stands in Paris."},
	{"demo-newyork", pipeline.StepRevise, "<draft>Hillary Clinton, Donald Trump, Theodore Roosevelt</draft>", "Donald Trump, Theodore Roosevelt"},
	{"demo-curie", pipeline.StepRevise, "<draft>Marie Curie won two Nobel Prizes", "Marie Curie won two Nobel Prizes, one in physics and one in chemistry."},
	{"demo-greatwall", pipeline.StepRevise, "<draft>The Great Wall of China is visible", "The Great Wall of China is not visible from the Moon with the naked eye."},
	{"demo-everest", pipeline.StepRevise, "<draft>Mount Everest is 8,849 metres tall", "Mount Everest is 8,849 metres tall and lies on the border between Nepal and China."},
	{"demo-boiling", pipeline.StepRevise, "<draft>At sea level, water boils at 90 degrees Celsius.</draft>", "At sea level, water boils at 100 degrees Celsius."},
}
