package multihop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// Scripted-model tests of the second look at a partial confirmation (issue 23).

// secondLookMarker is in the judge prompt of a second look only.
const secondLookMarker = "A first reading of these sources found this part of the claim confirmed"

// c2's first judge confirms that Adam Beach plays Slipknot and finds "in Suicide Squad" not
// covered, citing its own source only; the second look is scripted by second.
func secondLookModel(t testing.TB, second string) *pipelinetest.StubModel {
	return secondLookModelAt(t, pipeline.ConfidenceMedium, second)
}

// secondLookModelAt is secondLookModel with the first judge's confidence.
func secondLookModelAt(t testing.TB, firstConfidence, second string) *pipelinetest.StubModel {
	return firstReadingModel(t, partialReading(t, firstConfidence), secondLookMarker, second)
}

// partialReading is c2's first judge, at confidence, confirming that Adam Beach plays Slipknot
// and finding "in Suicide Squad" not covered, citing its own source only.
func partialReading(t testing.TB, confidence string) string {
	first := judgeReplyJSON(t, "partly_supported", confidence, "Suicide Squad cast", nil, judgeCitation{1, "Adam Beach plays Slipknot", evidence.StanceSupports})
	return strings.Replace(first, `"supported_part":""`, `"supported_part":"Adam Beach plays Slipknot."`, 1)
}

// firstReadingModel is the Slipknot run with c1 confirmed naming Adam Beach, c2's first judge
// replying first, and the prompt holding marker (a second look) replying second.
func firstReadingModel(t testing.TB, first, marker, second string) *pipelinetest.StubModel {
	model := planModel(t, slipknotPlan(), map[string]string{
		"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
			&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
			judgeCitation{1, "Adam Beach played Detective Chester Lake", evidence.StanceSupports}),
		resolvedSlipknot: first,
	})
	model.Rules = append([]pipelinetest.StubRule{{Contains: marker, Reply: second}}, model.Rules...)
	return model
}

// The second look gets the claim, the part the first reading confirmed, and only the source
// that reading cited, renumbered; it finds the rest stated ("Suicide Squad (2016) ... Adam Beach
// plays Slipknot") and the claim is supported, citing that source.
func TestSecondLookConfirmsAPartialConfirmation(t *testing.T) {
	t.Parallel()
	model := secondLookModel(t, judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "Suicide Squad (2016), written and directed by David Ayer. Adam Beach plays Slipknot", evidence.StanceSupports}))
	res, err := Multihop{Model: model, Searcher: slipknotSearcher()}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Verdict != pipeline.VerdictSupported || c2.Confidence != pipeline.ConfidenceMedium || !strings.Contains(c2.Reason, "second look") || !slices.Equal(c2.Citations, []int{2}) { // stored numbers: c1's source is 1
		t.Errorf("claim 2: %+v", c2)
	}
	var looks []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, secondLookMarker) {
			looks = append(looks, p)
		}
	}
	want, err := renderJudgePrompt(resolvedSlipknot, []evidence.Retrieved{stubSource(srcSlipknot, "")}, DefaultGrounding, "", false, "Adam Beach plays Slipknot.")
	if err != nil {
		t.Fatal(err)
	}
	if len(looks) != 1 || looks[0] != want {
		t.Fatalf("second looks (%d):\n%s\nwant\n%s", len(looks), strings.Join(looks, "\n----\n"), want)
	}
	if strings.Contains(looks[0], srcLake.Snippet) || strings.Contains(looks[0], slipknotStatement) || strings.Contains(looks[0], "An actor played") {
		t.Errorf("the second look holds a source its first reading did not cite, or another claim's text:\n%s", looks[0])
	}
}

// A partial confirmation the first judge gave at Low gets its second look too: Low gates a
// contradiction, and it has none (a relay judge said Low of "Park Soo-young is Korean" for
// "... is South Korean"; the same reading at Medium was looked at again).
func TestSecondLookAfterAPartialConfirmationAtLow(t *testing.T) {
	t.Parallel()
	model := secondLookModelAt(t, pipeline.ConfidenceLow, judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "Suicide Squad (2016), written and directed by David Ayer. Adam Beach plays Slipknot", evidence.StanceSupports}))
	res, err := Multihop{Model: model, Searcher: slipknotSearcher()}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	looks := 0
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, secondLookMarker) && strings.Contains(p, "Adam Beach plays Slipknot.") {
			looks++
		}
	}
	if c2 := res.Claims[1]; looks != 1 || c2.Verdict != pipeline.VerdictSupported || c2.Confidence != pipeline.ConfidenceMedium || !strings.Contains(c2.Reason, "second look") {
		t.Errorf("%d second looks; claim 2: %+v", looks, c2)
	}
}

// A second look can confirm and nothing else: a dishonest one that refutes, cites a source it
// was not shown, quotes what its source does not say, or confirms at Low leaves the first
// judgement (unverified, a partial confirmation's confirmed part kept); one that claims High on a
// single source is held to Medium. So for both looks: at a partial confirmation and at a
// confirmation given at Low.
func TestSecondLookCannotRefuteOrSmuggle(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	tests := []struct {
		name, second, verdict, confidence string
	}{
		{"refutes", judgeCites("refuted", "High", "scripted", "Adam Beach plays Deadshot", judgeCitation{1, "Adam Beach plays Slipknot", ref}), pipeline.VerdictUnverified, pipeline.ConfidenceLow},
		{"cites a source it was not shown", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{2, "Adam Beach played Detective Chester Lake", sup}), pipeline.VerdictUnverified, pipeline.ConfidenceLow},
		{"quotes what no source says", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot in Suicide Squad", sup}), pipeline.VerdictUnverified, pipeline.ConfidenceLow},
		{"confirms at Low", judgeReplyJSON(t, "supported", "Low", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}), pipeline.VerdictUnverified, pipeline.ConfidenceLow},
		{"claims High on one source", judgeReplyJSON(t, "supported", "High", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}), pipeline.VerdictSupported, pipeline.ConfidenceMedium},
	}
	readings := []struct {
		name           string
		model          func(testing.TB, string) *pipelinetest.StubModel
		variant, first string // the first judgement kept: its verdict, and words of its reason
	}{
		{"partial confirmation", secondLookModel, pipeline.VerdictPartlySupported, "confirm part of the claim"},
		{"confirmation at Low", lowConfirmationModel, pipeline.VerdictSupported, "only at Low confidence"},
	}
	for _, reading := range readings {
		for _, tt := range tests {
			t.Run(reading.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				res, err := Multihop{Model: reading.model(t, tt.second), Searcher: slipknotSearcher()}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
				if err != nil {
					t.Fatal(err)
				}
				c2 := res.Claims[1]
				if c2.Verdict != tt.verdict || c2.Confidence != tt.confidence || c2.CorrectedText != "" || strings.Contains(res.RevisedText, "Deadshot") {
					t.Errorf("claim 2: %+v", c2)
				}
				if tt.verdict == pipeline.VerdictUnverified && (c2.VariantVerdict != reading.variant || !strings.Contains(c2.Reason, reading.first)) {
					t.Errorf("claim 2 lost its first judgement: %+v", c2)
				}
				if tt.name == "quotes what no source says" && !slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool { return f.Code == pipeline.FlagQuoteNotInSource }) {
					t.Errorf("the second look's quote is not flagged: %v", res.ReviewFlags)
				}
			})
		}
	}
}

// Only a partial confirmation with nothing contradicted gets a second look: not a claim the
// sources contradict in part, not one they leave unverified, not a claim later claims bridge
// to (the provisional bridge reads those again).
func TestNoSecondLookWithoutAPartialConfirmation(t *testing.T) {
	t.Parallel()
	sup, ref := evidence.StanceSupports, evidence.StanceRefutes
	for _, first := range []string{
		judgeCites("partly_supported", "Medium", "scripted", "Adam Beach plays Deadshot in Suicide Squad", judgeCitation{1, "Adam Beach plays Slipknot", ref}),
		judgeReplyJSON(t, "unverified", "Low", "", nil),
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}),
	} {
		model := planModel(t, slipknotPlan(), map[string]string{
			"An actor played Detective Chester Lake": judgeReplyJSON(t, "supported", "Medium", "",
				&judgeAnswer{Value: "Adam Beach", Source: 1, Passage: "Adam Beach played Detective Chester Lake"},
				judgeCitation{1, "Adam Beach played Detective Chester Lake", sup}),
			resolvedSlipknot: first,
		})
		checkNoLook(t, model, secondLookMarker, first)
	}
}

// lowLookMarker is in the judge prompt of a second look at a confirmation given at Low only.
const lowLookMarker = "A first reading of these sources confirmed the claim at Low confidence"

// lowConfirmationModel is c2's first judge confirming the claim at Low ("the page's wording is
// loose"), citing its own source; the second look is scripted by second.
func lowConfirmationModel(t testing.TB, second string) *pipelinetest.StubModel {
	first := judgeReplyJSON(t, "supported", "Low", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", evidence.StanceSupports})
	return firstReadingModel(t, first, lowLookMarker, second)
}

// A confirmation given at Low is no confirmation (the confidence gate), yet relay judges gave
// it of claims their source states in so many words, hedging on the page's wording ("Alan Alda
// is a six-time Emmy Award recipient ... its wording is loose"): 21 of 1,184 judge replies of
// session 45's cohort, the first unverified claim of 6 of its 38 misses. It gets a second look,
// with the sources its first reading cited, told that Low counts as unverified and when Low is
// the answer; a confirmation at Medium is stored, with the second look named in its reason.
func TestSecondLookAtAConfirmationGivenAtLow(t *testing.T) {
	t.Parallel()
	model := lowConfirmationModel(t, judgeReplyJSON(t, "supported", "Medium", "", nil,
		judgeCitation{1, "Adam Beach plays Slipknot", evidence.StanceSupports}))
	res, err := Multihop{Model: model, Searcher: slipknotSearcher()}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Verdict != pipeline.VerdictSupported || c2.Confidence != pipeline.ConfidenceMedium || !strings.Contains(c2.Reason, "second look") || !slices.Equal(c2.Citations, []int{2}) {
		t.Errorf("claim 2: %+v", c2)
	}
	var looks []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, lowLookMarker) {
			looks = append(looks, p)
		}
	}
	if len(looks) != 1 || strings.Contains(looks[0], secondLookMarker) || strings.Contains(looks[0], srcLake.Snippet) ||
		strings.Contains(looks[0], slipknotStatement) || !strings.Contains(looks[0], srcSlipknot.Snippet) {
		t.Fatalf("second looks (%d), want one with claim 2's cited source alone:\n%s", len(looks), strings.Join(looks, "\n----\n"))
	}
}

// Only a confirmation given at Low gets the look at Low: not one given at Medium, not a claim
// its judge left unverified. (What that look may decide is in TestSecondLookCannotRefuteOrSmuggle.)
func TestNoSecondLookAtLowWithoutAConfirmationAtLow(t *testing.T) {
	t.Parallel()
	sup := evidence.StanceSupports
	for _, first := range []string{
		judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}),
		judgeReplyJSON(t, "unverified", "Low", "", nil),
	} {
		model := lowConfirmationModel(t, "{}")
		model.Rules = append([]pipelinetest.StubRule{judgeRuleFor(resolvedSlipknot, first)}, model.Rules...)
		checkNoLook(t, model, lowLookMarker, first)
	}
}

// contradictionLookMarker is in the judge prompt of a second look at a contradiction given at
// Low only.
const contradictionLookMarker = "A first reading of these sources contradicted the claim at Low confidence"

// lowContradictionModel is c2's first judge contradicting the claim at Low, citing its own
// source as refuting it; the second look at the contradiction is scripted by second.
func lowContradictionModel(t testing.TB, second string) *pipelinetest.StubModel {
	first := judgeReplyJSON(t, "refuted", "Low", "", nil, judgeCitation{1, "written and directed by David Ayer", evidence.StanceRefutes})
	return firstReadingModel(t, first, contradictionLookMarker, second)
}

// A contradiction given at Low corrects nothing (the confidence gate), yet relay judges gave it
// of claims their one source contradicts in so many words or by one plain step, hedging on the
// step ("the sources date the start of his career to the 1980s rather than the 1970s, though only
// by this inference"): 9 claims of session 49's thirteenth cohort, all of false statements, 7 of
// them left unverified (exfever-5983's the only unverified claim of its statement). It gets a
// second look, with the sources its first reading cited, told that a contradiction at Low
// corrects nothing and when Low is the answer; a contradiction at Medium or above, grounded as
// any verdict is, is stored with the second look named in its reason. Nothing else the look
// says counts: a confirmation, a contradiction at Low again, a quote no source holds (flagged).
func TestSecondLookAtAContradictionGivenAtLow(t *testing.T) {
	t.Parallel()
	ref := evidence.StanceRefutes
	for _, tc := range []contradictionLookCase{
		{"contradicted at Medium", judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "written and directed by David Ayer", ref}), pipeline.VerdictRefuted, false, []int{2}},
		{"contradicted at Low again", judgeReplyJSON(t, "refuted", "Low", "", nil, judgeCitation{1, "written and directed by David Ayer", ref}), pipeline.VerdictUnverified, false, nil},
		{"a quote no source holds", judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "directed by Zack Snyder", ref}), pipeline.VerdictUnverified, true, nil},
		{"confirmed instead", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", evidence.StanceSupports}), pipeline.VerdictUnverified, false, nil},
	} {
		checkContradictionLook(t, tc, lowContradictionModel(t, tc.look), contradictionLookMarker, "second look", []string{secondLookMarker, lowLookMarker}, nil)
	}
}

// checkNoLook runs the Slipknot statement with model and reports each judge prompt that holds
// marker, a look that after (the first reading, or the case) should not have asked for.
func checkNoLook(t *testing.T, model *pipelinetest.StubModel, marker, after string) {
	t.Helper()
	if _, err := (Multihop{Model: model, Searcher: slipknotSearcher()}).Run(context.Background(), pipeline.Input{Text: slipknotStatement}); err != nil {
		t.Fatal(err)
	}
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, marker) {
			t.Errorf("a look (%q) after %s", marker, after)
		}
	}
}

// contradictionLookCase is what a look at a contradiction replies (look), and what claim 2
// then stores: its verdict, whether a quote is flagged, and the citations of a contradiction.
type contradictionLookCase struct {
	name    string
	look    string
	verdict string
	flagged bool
	cited   []int
}

// checkContradictionLook runs the Slipknot statement with model and checks what claim 2
// stores against tc (a contradiction with reasonWords in its reason), and that one judge prompt
// holds marker, with claim 2's cited source and the words of holds, and neither the other
// source, the statement, nor any of notWith.
func checkContradictionLook(t *testing.T, tc contradictionLookCase, model *pipelinetest.StubModel, marker, reasonWords string, notWith, holds []string) pipeline.Claim {
	t.Helper()
	res, err := Multihop{Model: model, Searcher: slipknotSearcher()}.Run(context.Background(), pipeline.Input{Text: slipknotStatement})
	if err != nil {
		t.Fatal(err)
	}
	c2 := res.Claims[1]
	if c2.Verdict != tc.verdict || tc.cited != nil && (!slices.Equal(c2.Citations, tc.cited) || c2.Confidence != pipeline.ConfidenceMedium || !strings.Contains(c2.Reason, reasonWords)) {
		t.Errorf("%s: claim 2 stored %s at %s citing %v (%s), want %s", tc.name, c2.Verdict, c2.Confidence, c2.Citations, c2.Reason, tc.verdict)
	}
	if flagged := slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool { return f.Code == pipeline.FlagQuoteNotInSource }); flagged != tc.flagged {
		t.Errorf("%s: quote_not_in_source flagged %v, want %v: %+v", tc.name, flagged, tc.flagged, res.ReviewFlags)
	}
	var looks []string
	for _, p := range model.Sent(pipeline.StepJudge) {
		if strings.Contains(p, marker) {
			looks = append(looks, p)
		}
	}
	confined := len(looks) == 1 && !strings.Contains(looks[0], srcLake.Snippet) && !strings.Contains(looks[0], slipknotStatement) && strings.Contains(looks[0], srcSlipknot.Snippet)
	for _, words := range notWith {
		confined = confined && !strings.Contains(looks[0], words)
	}
	for _, words := range holds {
		confined = confined && strings.Contains(looks[0], words)
	}
	if !confined {
		t.Fatalf("%s: looks (%d), want one with claim 2's cited source alone:\n%s", tc.name, len(looks), strings.Join(looks, "\n----\n"))
	}
	return c2
}

// Only a contradiction given at Low gets the look at a contradiction: not one given at Medium
// (it stands), not a partial confirmation at Low that contradicts nothing (it gets the look at
// its confirmed part), not a claim its judge left unverified.
func TestNoContradictionLookWithoutAContradictionAtLow(t *testing.T) {
	t.Parallel()
	ref, sup := evidence.StanceRefutes, evidence.StanceSupports
	for _, first := range []string{
		judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "written and directed by David Ayer", ref}),
		judgeReplyJSON(t, "partly_supported", "Low", "Suicide Squad cast", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}),
		judgeReplyJSON(t, "unverified", "Low", "", nil),
	} {
		model := lowContradictionModel(t, "{}")
		model.Rules = append([]pipelinetest.StubRule{judgeRuleFor(resolvedSlipknot, first)}, model.Rules...)
		checkNoLook(t, model, contradictionLookMarker, first)
	}
}

// restLookMarker is in the judge prompt of a look at the rest of a partial confirmation only.
const restLookMarker = "A first reading of these sources confirmed this part of the claim and found the rest not covered"

// restLookModel is the Slipknot run with c2's first judge confirming that Adam Beach plays
// Slipknot and finding "in Suicide Squad" not covered, citing its own source only; the second
// look at that part reads it so again, and the look at the rest is scripted by rest.
func restLookModel(t testing.TB, rest string) *pipelinetest.StubModel {
	first := partialReading(t, pipeline.ConfidenceMedium)
	model := firstReadingModel(t, first, restLookMarker, rest)
	model.Rules = append([]pipelinetest.StubRule{{Contains: secondLookMarker, Reply: first}}, model.Rules...)
	return model
}

// A partial confirmation that contradicts nothing is unverified, and its second look can only
// confirm; relay judges gave it of claims whose source states the rest otherwise and that they
// would not call contradicted ("they name Sony/ATV Music Publishing as the company and never
// mention Air Deluxe Music Group", exfever-5909 in session 50's fifteenth cohort: 52 such claims
// in 311 statements, 32 of them in false statements). When the look at the part confirms
// nothing, a look at the rest gets the claim, the confirmed part and only the sources the first
// reading cited, told that a fact stated otherwise contradicts and a fact the sources do not
// mention contradicts nothing; a contradiction at Medium or above, grounded as any verdict is,
// is stored with the look named in its reason. Nothing else it says counts: a confirmation, a
// contradiction at Low, a quote no source holds (flagged), unverified.
func TestLookAtTheRestOfAPartialConfirmation(t *testing.T) {
	t.Parallel()
	ref, sup := evidence.StanceRefutes, evidence.StanceSupports
	for _, tc := range []contradictionLookCase{
		{"contradicted at Medium", judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "written and directed by David Ayer", ref}), pipeline.VerdictRefuted, false, []int{2}},
		{"contradicted at Low", judgeReplyJSON(t, "refuted", "Low", "", nil, judgeCitation{1, "written and directed by David Ayer", ref}), pipeline.VerdictUnverified, false, nil},
		{"a quote no source holds", judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "directed by Zack Snyder", ref}), pipeline.VerdictUnverified, true, nil},
		{"confirmed instead", judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup}), pipeline.VerdictUnverified, false, nil},
		{"not mentioned", judgeReplyJSON(t, "unverified", "Low", "", nil), pipeline.VerdictUnverified, false, nil},
	} {
		c2 := checkContradictionLook(t, tc, restLookModel(t, tc.look), restLookMarker, "look at the rest", []string{secondLookMarker, contradictionLookMarker}, []string{"Adam Beach plays Slipknot."})
		if tc.cited == nil && (c2.VariantVerdict != pipeline.VerdictPartlySupported || !strings.Contains(c2.Reason, "confirm part of the claim")) {
			t.Errorf("%s: claim 2 lost its first judgement: %+v", tc.name, c2)
		}
	}
}

// A partial confirmation the second look at its part confirms gets no look at its rest, nor
// does a claim its judge left unverified, contradicted at Medium, or confirmed in part at Medium
// with a correction (a contradiction, which stands).
func TestNoLookAtTheRestWithoutAnUncoveredRest(t *testing.T) {
	t.Parallel()
	ref, sup := evidence.StanceRefutes, evidence.StanceSupports
	confirmed := restLookModel(t, "{}")
	confirmed.Rules[0].Reply = judgeReplyJSON(t, "supported", "Medium", "", nil, judgeCitation{1, "Adam Beach plays Slipknot", sup})
	for name, model := range map[string]*pipelinetest.StubModel{
		"the part confirmed":     confirmed,
		"unverified":             firstReadingModel(t, judgeReplyJSON(t, "unverified", "Low", "", nil), restLookMarker, "{}"),
		"contradicted at Medium": firstReadingModel(t, judgeReplyJSON(t, "refuted", "Medium", "", nil, judgeCitation{1, "written and directed by David Ayer", ref}), restLookMarker, "{}"),
		"corrected at Medium":    firstReadingModel(t, strings.Replace(partialReading(t, pipeline.ConfidenceMedium), `"correction":""`, `"correction":"Adam Beach played Slipknot in another film"`, 1), restLookMarker, "{}"),
	} {
		checkNoLook(t, model, restLookMarker, name)
	}
}
