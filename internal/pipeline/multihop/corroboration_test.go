package multihop

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

// Scripted dishonest judges against the rules of corroboration, each asserting what the
// judgement keeps: verdict, confidence, the sources that stand, their passages and the flags.
func TestJudgeCorroboration(t *testing.T) {
	t.Parallel()
	blog := hit("https://someblog.example/post", "Some Blog", "APOE4 is the strongest genetic risk factor for late-onset Alzheimer's disease.", nil)
	given := []evidence.Retrieved{{SearchResult: srcNature}, {SearchResult: srcBMJ}, {SearchResult: blog}}
	const (
		naturePassage = "the strongest genetic risk factor for late-onset Alzheimer's"
		bmjPassage    = "APOE4 carriers had a lower incidence of several cancers"
	)
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	tests := []struct {
		name, reply, verdict, confidence string
		cited                            []int
		flags                            []string
		reason                           string
	}{
		{"honest: two independent agreeing sources with real passages",
			judgeCites("supported", "High", "Both agree.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, sup}),
			pipeline.VerdictSupported, pipeline.ConfidenceHigh, []int{0, 1}, nil, "Both agree."},
		{"one blog claimed High",
			judgeCites("supported", "High", "The blog says so.", "", judgeCitation{3, "strongest genetic risk factor", sup}),
			pipeline.VerdictSupported, pipeline.ConfidenceMedium, []int{2}, []string{pipeline.FlagSingleSource}, "The blog says so."},
		{"a quote that is in no source",
			judgeCites("supported", "High", "Both agree.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, "APOE4 cures every cancer known to medicine", sup}),
			pipeline.VerdictSupported, pipeline.ConfidenceMedium, []int{0}, []string{pipeline.FlagQuoteNotInSource, pipeline.FlagSingleSource}, "Both agree."},
		{"a passage of source 1 cited for source 2",
			judgeCites("supported", "High", "Both agree.", "", judgeCitation{2, naturePassage, sup}),
			pipeline.VerdictUnverified, pipeline.ConfidenceLow, nil, []string{pipeline.FlagQuoteNotInSource}, "cited no source it was given with a passage"},
		{"a citation of a source not shown",
			judgeCites("supported", "High", "Both agree.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{7, "anything at all that is long", sup}),
			pipeline.VerdictSupported, pipeline.ConfidenceMedium, []int{0}, []string{pipeline.FlagSingleSource}, "Both agree."},
		{"two sources with conflicting stances",
			judgeCites("supported", "High", "Mostly agree.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, ref}),
			pipeline.VerdictUnverified, pipeline.ConfidenceLow, []int{0, 1}, []string{pipeline.FlagSourcesConflict}, "conflict"},
		{"refuted on a confirming source and a contradicting one is never High",
			judgeCites("refuted", "High", "One names him, the other says he did not.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, ref}),
			pipeline.VerdictRefuted, pipeline.ConfidenceMedium, []int{0, 1}, []string{pipeline.FlagSourcesConflict, pipeline.FlagSingleSource}, "One names him"},
		{"partly supported on conflicting sources is never High",
			judgeCites("partly_supported", "High", "Half.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, ref}),
			pipeline.VerdictPartlySupported, pipeline.ConfidenceMedium, []int{0, 1}, []string{pipeline.FlagSourcesConflict}, "Half."},
		{"supported at Low",
			judgeCites("supported", "Low", "Weak.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, sup}),
			pipeline.VerdictUnverified, pipeline.ConfidenceLow, []int{0, 1}, nil, "only at Low confidence"},
		{"supported with no confidence",
			judgeCites("supported", "", "Sure.", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, sup}),
			pipeline.VerdictUnverified, pipeline.ConfidenceLow, []int{0, 1}, nil, "only at Low confidence"},
		{"supported citing only refuting sources",
			judgeCites("supported", "High", "Odd.", "", judgeCitation{1, naturePassage, ref}),
			pipeline.VerdictUnverified, pipeline.ConfidenceLow, []int{0}, nil, "no source it cited supports"},
		{"old reply format: numbers and quotes, attributed to the source that holds each quote",
			judgeJSON("supported", []int{1, 2}, "High", "Both agree.", "", "lower incidence of several cancers", naturePassage),
			pipeline.VerdictSupported, pipeline.ConfidenceHigh, []int{0, 1}, nil, "Both agree."},
	}
	j := judge{grounding: DefaultGrounding}
	for _, tt := range tests {
		got := j.groundVerdict(tt.reply, given)
		var codes []string
		for _, f := range got.flags {
			codes = append(codes, f.Code)
		}
		if got.Verdict != tt.verdict || got.Confidence != tt.confidence || !slices.Equal(got.cited, tt.cited) ||
			!slices.Equal(codes, tt.flags) || !strings.Contains(got.Reason, tt.reason) {
			t.Errorf("%s:\n got %s %s citing %v flags %v (%s)\nwant %s %s citing %v flags %v (%q)", tt.name,
				got.Verdict, got.Confidence, got.cited, got.flags, got.Reason, tt.verdict, tt.confidence, tt.cited, tt.flags, tt.reason)
		}
		for _, i := range got.cited {
			if !evidence.PassageIn(got.quotes[i], evidence.SourceText(given[i])) {
				t.Errorf("%s: source %d keeps the passage %q, which it does not hold", tt.name, i+1, got.quotes[i])
			}
		}
	}
}

// A supported verdict at Low confidence is no confirmation: the engine demotes it to unverified,
// as cove2 does, so that no report or view counts it as Confirmed.
func TestJudgeSupportedAtLowIsNotConfirmed(t *testing.T) {
	t.Parallel()
	given := []evidence.Retrieved{{SearchResult: srcNature}, {SearchResult: srcNIH}}
	j := judge{grounding: DefaultGrounding}
	got := j.groundVerdict(judgeJSON("supported", []int{1, 2}, "Low", "Weak.", "", "strongest genetic risk factor", "increases the risk of Alzheimer"), given)
	if got.Verdict == pipeline.VerdictSupported {
		t.Errorf("supported at %s kept: %+v", got.Confidence, got)
	}
}

// A contradiction at Low confidence, of the whole claim or a part of it, corrects nothing (CoVe
// 2.0's confidence gate: "count it under Uncertain"): the claim is unverified and no correction
// is stored. A real judge marked "Locomotives of the NZR WD class were sold to Ohai Railway Board
// for private use" partly supported at Low (the page names one locomotive sold), and, kept as
// partly supported, it made its true statement refuted.
func TestJudgeContradictionAtLowCorrectsNothing(t *testing.T) {
	t.Parallel()
	given := []evidence.Retrieved{{SearchResult: srcNature}, {SearchResult: srcBMJ}}
	const (
		naturePassage = "the strongest genetic risk factor for late-onset Alzheimer's"
		bmjPassage    = "APOE4 carriers had a lower incidence of several cancers"
	)
	reply := func(verdict string) string {
		cites := []judgeCitation{{2, bmjPassage, evidence.StanceRefutes}}
		if verdict == pipeline.VerdictPartlySupported {
			cites = append(cites, judgeCitation{1, naturePassage, evidence.StanceSupports})
		}
		raw := []json.RawMessage{}
		for _, c := range cites {
			b, _ := json.Marshal(c)
			raw = append(raw, b)
		}
		b, _ := json.Marshal(judgeReply{Verdict: verdict, Citations: raw, Reason: "Perhaps.", SupportedPart: "APOE4 is a risk factor",
			Correction: "APOE4 lowers cancer incidence.", Confidence: "Low"})
		return string(b)
	}
	j := judge{grounding: DefaultGrounding}
	for _, verdict := range []string{pipeline.VerdictPartlySupported, pipeline.VerdictRefuted} {
		got := j.groundVerdict(reply(verdict), given)
		if got.Verdict != pipeline.VerdictUnverified || got.Correction != "" || !strings.Contains(got.Reason, "only at Low confidence") {
			t.Errorf("%s at Low: stored %s, correction %q (%s)", verdict, got.Verdict, got.Correction, got.Reason)
		}
	}
}

// "Partly supported" is a finding that part of a claim is false: a judge that confirms part of
// the claim and finds nothing on the rest (seen with a real model: "Tom Hardy is an American
// actor", the sources saying he is an actor and nothing of his nationality) has not shown the
// claim partly false, so the claim is unverified, the confirmed part kept. A contradicted rest
// (a correction, or a source cited as refuting) keeps the verdict.
func TestPartlySupportedNeedsAContradiction(t *testing.T) {
	t.Parallel()
	given := []evidence.Retrieved{{SearchResult: srcNature}, {SearchResult: srcBMJ}}
	const (
		naturePassage = "the strongest genetic risk factor for late-onset Alzheimer's"
		bmjPassage    = "APOE4 carriers had a lower incidence of several cancers"
	)
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	partly := func(confidence, correction string, cites ...judgeCitation) string {
		raw := []json.RawMessage{}
		for _, c := range cites {
			b, _ := json.Marshal(c)
			raw = append(raw, b)
		}
		b, _ := json.Marshal(judgeReply{Verdict: "partly_supported", Citations: raw, Reason: "Half.", SupportedPart: "APOE4 is a risk factor",
			Correction: correction, Confidence: confidence, Missing: "APOE4 cancer incidence"})
		return string(b)
	}
	tests := []struct {
		name, reply, verdict string
	}{
		{"the rest not covered", partly("Medium", "", judgeCitation{1, naturePassage, sup}), pipeline.VerdictUnverified},
		// At Low too: the confidence gate is for a contradiction, and there is none to gate. A
		// relay judge's "Park Soo-young is Korean" for "... is South Korean", at Low, was stored
		// as "the evidence contradicts part of the claim only at Low confidence", its confirmed
		// part dropped, and it got no second look.
		{"the rest not covered, at Low", partly("Low", "", judgeCitation{1, naturePassage, sup}), pipeline.VerdictUnverified},
		{"the rest corrected", partly("Medium", "APOE4 lowers cancer incidence.", judgeCitation{1, naturePassage, sup}), pipeline.VerdictPartlySupported},
		{"a refuting source", partly("Medium", "", judgeCitation{1, naturePassage, sup}, judgeCitation{2, bmjPassage, ref}), pipeline.VerdictPartlySupported},
	}
	j := judge{grounding: DefaultGrounding}
	for _, tt := range tests {
		got := j.groundVerdict(tt.reply, given)
		if got.Verdict != tt.verdict || got.SupportedPart != "APOE4 is a risk factor" || got.VariantVerdict != "partly_supported" {
			t.Errorf("%s: got %s (%s), supported part %q, the judge's verdict %q; want %s", tt.name, got.Verdict, got.Reason, got.SupportedPart, got.VariantVerdict, tt.verdict)
		}
		if tt.verdict == pipeline.VerdictUnverified && (!strings.Contains(got.Reason, "nothing on the rest") || strings.Contains(got.Reason, "contradicts") ||
			got.Confidence != pipeline.ConfidenceLow || got.missing == "" || len(got.cited) != 1) {
			t.Errorf("%s: reason %q, confidence %s, missing %q", tt.name, got.Reason, got.Confidence, got.missing)
		}
	}
}
