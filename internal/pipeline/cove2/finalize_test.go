package cove2

import (
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
	"github.com/corroborate/corroborate/internal/testenv"
)

// The revised response obeys the review (issue 12, rule 8): the draft changes only where a
// claim was corrected on a High- or Medium-confidence contradiction. Each case is a dishonest
// reviewer; what is asserted is the stored revised text, the claims and the flags.

// eiffelRevised is the revised response of the Eiffel run, built from the draft: the height
// corrected on [1, 2], the completion confirmed on [3], the shallow sentence untouched.
const eiffelRevised = "The Eiffel Tower is 330 metres tall [1, 2] and was completed in 1889 [3]. Being in Paris, it draws many visitors."

func finalizeWith(revised string, claims ...ClaimReview) cove2Script {
	s := eiffelScript()
	s.finalize = cove2ReviewReply(revised, claims...)
	return s
}

var (
	correctHeight   = ClaimReview{ID: 1, Status: ReviewCorrected, Corrected: "The Eiffel Tower is 330 metres tall", Basis: []int{1, 2}}
	confirmComplete = ClaimReview{ID: 2, Status: ReviewConfirmed, Basis: []int{3}}
	confirmShallow  = ClaimReview{ID: 3, Status: ReviewConfirmed}
)

// A reviewer that rewrites what its review left alone: claim 2 confirmed and the shallow claim
// confirmed, yet both are changed in its text. The changes are reverted.
func TestCove2RevisedRevertsChangesTheReviewDidNotMake(t *testing.T) {
	t.Parallel()
	s := setupCove2(finalizeWith("The Eiffel Tower is 330 metres tall [1, 2] and was finished long ago [3]. Being in Paris, it draws few visitors.",
		correctHeight, confirmComplete, confirmShallow))
	res := mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	if res.RevisedText != eiffelRevised {
		t.Errorf("revised:\n got %q\nwant %q", res.RevisedText, eiffelRevised)
	}
	if !hasFlag(res, pipeline.FlagRevisedResponseReverted) {
		t.Errorf("no %s flag: %v", pipeline.FlagRevisedResponseReverted, res.ReviewFlags)
	}
}

// A reviewer that adds a number no source has, in its revised text and in a correction: the
// number never reaches the stored text, the correction that carries it is refused, and both are
// flagged unsupported_addition.
func TestCove2RevisedDropsUnsupportedAdditions(t *testing.T) {
	t.Parallel()
	s := setupCove2(finalizeWith("The Eiffel Tower is 330 metres tall [1, 2], weighs 7,300 tonnes, and was completed in 1889 [3]. Being in Paris, it draws many visitors.",
		correctHeight, confirmComplete, confirmShallow))
	res := mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	if res.RevisedText != eiffelRevised || strings.Contains(res.Report, "7,300") {
		t.Errorf("revised:\n got %q\nwant %q", res.RevisedText, eiffelRevised)
	}
	if !hasFlag(res, pipeline.FlagUnsupportedAddition+": ") || !hasFlag(res, pipeline.FlagUnsupportedAddition) {
		t.Errorf("no %s flag: %v", pipeline.FlagUnsupportedAddition, res.ReviewFlags)
	}

	// The correction itself invents the figure: the evidence says 330, the reviewer writes 324.
	s = setupCove2(finalizeWith("The Eiffel Tower is 324 metres tall [1, 2] and was completed in 1889 [3]. Being in Paris, it draws many visitors.",
		ClaimReview{ID: 1, Status: ReviewCorrected, Corrected: "The Eiffel Tower is 324 metres tall", Basis: []int{1, 2}}, confirmComplete, confirmShallow))
	res = mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	for _, where := range []string{res.RevisedText, res.Report} {
		if strings.Contains(where, "324") {
			t.Errorf("a figure no source holds reached the output:\n%s", where)
		}
	}
	h := claimAt(t, res, 1)
	if h.Verdict == pipeline.VerdictRefuted || h.CorrectedText != "" || !strings.Contains(h.Reason, "324") {
		t.Errorf("the correction with an invented figure is refused: %+v", h)
	}
	if !slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
		return f.Code == pipeline.FlagUnsupportedAddition && strings.Contains(f.Detail, "claim 1") && strings.Contains(f.Detail, "324")
	}) {
		t.Errorf("no %s flag for claim 1: %v", pipeline.FlagUnsupportedAddition, res.ReviewFlags)
	}
	if want := "The Eiffel Tower is 300 metres tall and was completed in 1889 [3]. Being in Paris, it draws many visitors."; res.RevisedText != want {
		t.Errorf("revised:\n got %q\nwant %q", res.RevisedText, want)
	}
}

// A reviewer whose revised text drops the draft ("x" for the whole statement): refused, the
// draft with the accepted corrections is kept, and the run is flagged.
func TestCove2RevisedThatDropsTheDraftIsRefused(t *testing.T) {
	t.Parallel()
	for _, revised := range []string{"x", "The Eiffel Tower is 330 metres tall [1, 2]."} {
		s := setupCove2(finalizeWith(revised, correctHeight, confirmComplete, confirmShallow))
		res := mustRun(t, s, pipeline.Input{Text: eiffelDraft})
		if res.RevisedText != eiffelRevised {
			t.Errorf("reply %q: revised\n got %q\nwant %q", revised, res.RevisedText, eiffelRevised)
		}
		if !hasFlag(res, pipeline.FlagRevisedResponseRefused) {
			t.Errorf("reply %q: no %s flag: %v", revised, pipeline.FlagRevisedResponseRefused, res.ReviewFlags)
		}
	}
}

// A shallow claim is reviewed closed-book: a reviewer's "confirmed" is no evidence, so it is
// never stored as supported nor counted Confirmed.
func TestCove2ShallowConfirmationIsNotConfirmed(t *testing.T) {
	t.Parallel()
	s := setupCove2(eiffelScript())
	res := mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	sh := claimAt(t, res, 3)
	if sh.Verdict == pipeline.VerdictSupported || sh.VariantVerdict == ReviewConfirmed || sh.Reason == "" || len(sh.Citations) != 0 {
		t.Errorf("shallow claim: %+v", sh)
	}
	if got := evidence.CountClaims(res.Claims); got.Confirmed != 1 || got.Checked != 3 {
		t.Errorf("counts: %+v, want 1 confirmed (the deep claim with evidence) of 3 checked", got)
	}
	if !strings.Contains(res.Report, "- Checked: 3 | Confirmed: 1 | Corrected: 1 | Uncertain: 1\n") {
		t.Errorf("report:\n%s", res.Report)
	}
}

// The honest reviewer: the High-confidence correction lands in the revised text with its
// citation, even when the claim's text is not verbatim in the draft, and nothing is flagged.
func TestCove2HonestCorrectionLands(t *testing.T) {
	t.Parallel()
	s := setupCove2(eiffelScript())
	res := mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	if res.RevisedText != eiffelRevised {
		t.Errorf("revised:\n got %q\nwant %q", res.RevisedText, eiffelRevised)
	}
	for _, f := range res.ReviewFlags {
		switch f.Code {
		case pipeline.FlagRevisedResponseRefused, pipeline.FlagRevisedResponseReverted, pipeline.FlagUnsupportedAddition, pipeline.FlagCorrectionNotInText:
			t.Errorf("an honest review is flagged: %v", f)
		}
	}

	// The claim is the plan's paraphrase, not the draft's words: the reviewer's text, whose only
	// change is the accepted correction, is used; when the reviewer's text is refused, the
	// correction built in code follows its sentence.
	script := eiffelScript()
	script.plan = cove2PlanReply(true, deepClaim("The height of the Eiffel Tower is 300 metres", qHeight), deepClaim(eiffelC, qCompleted), shallowClaim(eiffelS))
	paraphrased := ClaimReview{ID: 1, Status: ReviewCorrected, Corrected: "The height of the Eiffel Tower is 330 metres", Basis: []int{1, 2}}
	for _, c := range []struct{ reply, want string }{
		{eiffelRevised, eiffelRevised},
		{"x", "The Eiffel Tower is 300 metres tall and was completed in 1889 (corrected: The height of the Eiffel Tower is 330 metres) [1, 2] [3]. Being in Paris, it draws many visitors."},
	} {
		script.finalize = cove2ReviewReply(c.reply, paraphrased, confirmComplete, confirmShallow)
		res = mustRun(t, setupCove2(script), pipeline.Input{Text: eiffelDraft})
		if res.RevisedText != c.want {
			t.Errorf("reply %q: revised\n got %q\nwant %q", c.reply, res.RevisedText, c.want)
		}
		if h := claimAt(t, res, 1); h.Verdict != pipeline.VerdictRefuted || !slices.Equal(h.Citations, []int{1, 2}) {
			t.Errorf("corrected claim: %+v", h)
		}
	}
}

// Caveats are what the spec asks for shallow and Low-confidence claims: a reviewer's text that
// adds an uncertain claim's caveat is used; a caveat that states a new fact is not.
func TestCove2RevisedKeepsCaveats(t *testing.T) {
	t.Parallel()
	caveated := ClaimReview{ID: 3, Status: ReviewUncertain, Caveat: "whether being in Paris is why is not established"}
	s := setupCove2(finalizeWith("The Eiffel Tower is 330 metres tall [1, 2] and was completed in 1889 [3]. Being in Paris, it draws many visitors "+
		"(whether being in Paris is why is not established).", correctHeight, confirmComplete, caveated))
	res := mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	want := "The Eiffel Tower is 330 metres tall [1, 2] and was completed in 1889 [3]. Being in Paris, it draws many visitors (whether being in Paris is why is not established)."
	if res.RevisedText != want || hasFlag(res, pipeline.FlagRevisedResponseReverted) {
		t.Errorf("revised:\n got %q\nwant %q\nflags %v", res.RevisedText, want, res.ReviewFlags)
	}

	invented := ClaimReview{ID: 3, Status: ReviewUncertain, Caveat: "visitor numbers fell to 5,800,000 in 2024"}
	s = setupCove2(finalizeWith("The Eiffel Tower is 330 metres tall [1, 2] and was completed in 1889 [3]. Being in Paris, it draws many visitors "+
		"(visitor numbers fell to 5,800,000 in 2024).", correctHeight, confirmComplete, invented))
	res = mustRun(t, s, pipeline.Input{Text: eiffelDraft})
	if res.RevisedText != eiffelRevised || !hasFlag(res, pipeline.FlagUnsupportedAddition) {
		t.Errorf("revised:\n got %q\nwant %q\nflags %v", res.RevisedText, eiffelRevised, res.ReviewFlags)
	}
}

// The report of a cove2 run follows spec 000's template text itself, not only its golden file.
func TestCove2ReportFollowsSpecTemplate(t *testing.T) {
	t.Parallel()
	template, err := pipelinetest.ReportTemplate(testenv.ReadSpec(t, "000_062d78d26b120756.txt"))
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, setupCove2(eiffelScript()), pipeline.Input{Text: eiffelDraft})
	for _, p := range pipelinetest.CheckReportFormat(template, res.Report, false) {
		t.Errorf("%s\n%s", p, res.Report)
	}
}

// A correction that writes a known name in another form adds no fact: the possessive of a name
// the sources hold ("Westmoor's" for "Westmoor"), the singular of a plural the draft wrote
// ("Oscar" for "Oscars"). In a relay run (EX-FEVER 2241-2320) two Medium contradictions were
// refused so ("Ryder's", "Hathaway's, Oscar") and their statements left unverified. A name in
// none of those forms is still a new fact, and so is a year for the draft's decade.
func TestNewFactsReadsAnotherFormOfAKnownWord(t *testing.T) {
	t.Parallel()
	known := wordSet("Mara Quinn won two Oscars in the 1990s. Westmoor is a trucking company based in Ostmoor County.")
	for _, tc := range []struct {
		correction string
		want       []string
	}{
		{"The county of Westmoor's headquarters is Ostmoor County", nil},
		{"The accolades of Mara Quinn's include an Oscar", nil},
		{"The county of Westmoor's headquarters is Harlow County", []string{"Harlow"}},
		{"She won an Oscar in 1994", []string{"1994"}},
		{"The accolades of Ada Brook's include an Oscar", []string{"Ada", "Brook's"}},
	} {
		if got := newFacts(tc.correction, known); !slices.Equal(got, tc.want) {
			t.Errorf("newFacts(%q) = %q, want %q", tc.correction, got, tc.want)
		}
	}
}

// A hyphen joins words without adding a fact: a relay run's correction "... was the scene of
// Taliban-fanned demonstrations" was refused as adding "Taliban-fanned" where its source wrote
// "Taliban fanned", and "King Seon's reign from 818 to 830" as adding "818, 830" where the
// source wrote "(818-830)". A compound with a word no text holds is still new.
func TestNewFactsReadsTheWordsAHyphenJoins(t *testing.T) {
	t.Parallel()
	known := wordSet("Ostmoor was the theatre of Westmoor fanned demonstrations. Under King Arlen's reign (818-830) the tribes were submitted.")
	for _, tc := range []struct {
		correction string
		want       []string
	}{
		{"Ostmoor was the scene of Westmoor-fanned demonstrations", nil},
		{"King Arlen's reign ran from 818 to 830", nil},
		{"King Arlen's reign was 818-830", nil},
		{"Ostmoor was the scene of Harlow-fanned demonstrations", []string{"Harlow-fanned"}},
		{"King Arlen's reign ran from 818 to 840", []string{"840"}},
		{"King Arlen's reign was 818-840", []string{"818-840"}},
	} {
		if got := newFacts(tc.correction, known); !slices.Equal(got, tc.want) {
			t.Errorf("newFacts(%q) = %q, want %q", tc.correction, got, tc.want)
		}
	}
}

// A correction may state what the verifier was shown of a source's page, not its snippet
// alone: a relay run's correction "... an abridged acoustic version was occasionally performed
// during the 1977 U.S. tour" was refused as adding "1977" and "U", which the page's passage
// below the snippet held. A word the verifier was not shown is still a new fact.
func TestCorrectionMayStateWhatThePagePassagesHold(t *testing.T) {
	t.Parallel()
	song := evidence.Retrieved{
		SearchResult: pipelinetest.SearchResult("https://en.wikipedia.org/wiki/Ostmoor_Days", "Wikipedia", `"Ostmoor Days" is a song by the band Westmoor.`),
		Passages:     []pipeline.Passage{{Text: "An acoustic version was performed during the 1977 U.S. tour."}},
	}
	known := formsOf(evidenceWords(Verification{Sources: []evidence.Retrieved{song}}))
	if added := factsNotIn(`"Ostmoor Days" was performed during the 1977 U.S. tour.`, known); len(added) != 0 {
		t.Errorf("the passage's facts read as new: %v", added)
	}
	if added := factsNotIn(`"Ostmoor Days" was performed during the 1978 tour of Canada.`, known); !slices.Equal(added, []string{"1978", "Canada"}) {
		t.Errorf("new facts: %v", added)
	}
}
