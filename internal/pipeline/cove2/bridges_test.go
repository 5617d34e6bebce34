package cove2

import (
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// A verifier question can carry a resolved bridge (issue 23): claim 2's verification query
// writes {c1} for claim 1's answer, and code puts in the name claim 1's verifier read from a
// passage of a source it cited, before claim 2's verifier runs. The verifier of claim 2 gets the
// question with the name, and nothing else: no placeholder, no draft, no other claim.
const (
	slipDraft    = "The actor who played Detective Chester Lake played Slipknot in Suicide Squad."
	slip1        = "An actor played Detective Chester Lake"
	slip2        = "The actor who played Detective Chester Lake played Slipknot in Suicide Squad"
	qSlip1       = "Who played Detective Chester Lake?"
	qSlip2       = "Which character did {c1} play in Suicide Squad?"
	qSlip2Bridge = "Which character did Adam Beach play in Suicide Squad?"
)

var (
	beachPage = pipelinetest.SearchResult("https://en.wikipedia.org/wiki/Adam_Beach", "Wikipedia",
		"Adam Beach played Detective Chester Lake in Law & Order: Special Victims Unit.")
	squadPage = pipelinetest.SearchResult("https://www.imdb.com/title/suicide-squad", "IMDb",
		"Suicide Squad (2016), written and directed by David Ayer. Adam Beach plays Slipknot.")
)

func slipScript(answer1 string) cove2Script {
	return cove2Script{
		plan: cove2PlanReply(true, deepClaim(slip1, qSlip1), deepClaim(slip2, qSlip2)),
		verify: map[string]string{
			qSlip1:       verifierReply(answer1, "Adam Beach played Detective Chester Lake", "High", beachPage.URL),
			qSlip2Bridge: verifierReply("Slipknot", "Adam Beach plays Slipknot", "High", squadPage.URL),
		},
		results: map[string][]pipeline.SearchResult{qSlip1: {beachPage}, qSlip2Bridge: {squadPage}},
		finalize: cove2ReviewReply(slipDraft,
			ClaimReview{ID: 1, Status: ReviewConfirmed, Basis: []int{1}},
			ClaimReview{ID: 2, Status: ReviewConfirmed, Basis: []int{2}}),
	}
}

func TestCove2BridgeSubstitutedFromAGroundedFinding(t *testing.T) {
	t.Parallel()
	s := setupCove2(slipScript("Adam Beach"))
	res := mustRun(t, s, pipeline.Input{Text: slipDraft})

	c2 := claimAt(t, res, 2)
	if c2.VerificationQuery != qSlip2Bridge || !slices.Contains(c2.QueryFlags, queryBridgeResolved) {
		t.Errorf("claim 2's query: %q %v, want %q with %s", c2.VerificationQuery, c2.QueryFlags, qSlip2Bridge, queryBridgeResolved)
	}
	if c2.Verdict != pipeline.VerdictSupported || !slices.Equal(c2.Citations, []int{2}) {
		t.Errorf("claim 2: %+v", c2)
	}
	// Claim 2 was searched after claim 1, with the name; no search or prompt holds the placeholder.
	sent := s.search.Sent()
	if len(sent) != 2 || sent[0].Query != qSlip1 || sent[1].Query != qSlip2Bridge {
		t.Errorf("searches: %+v", sent)
	}
	verify := s.model.Sent(pipeline.StepVerify)
	if len(verify) != 2 {
		t.Fatalf("verify calls: %d", len(verify))
	}
	// The exact prompt claim 2's verifier got: the spec's template with the resolved question and
	// its own search's evidence, nothing else.
	want, err := RenderVerifierPrompt(qSlip2Bridge, []evidence.Retrieved{{SearchResult: withRank(squadPage, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if verify[1] != want {
		t.Errorf("claim 2's verifier prompt:\n%s\nwant\n%s", verify[1], want)
	}
	for _, p := range verify {
		for _, leak := range []string{"{c1}", slipDraft, slip1, slip2} {
			if strings.Contains(p, leak) {
				t.Errorf("a verifier prompt holds %q:\n%s", leak, p)
			}
		}
	}
	// The reviewer is told where the name came from.
	if f := s.model.Sent(pipeline.StepFinalize); len(f) != 1 || !strings.Contains(f[0], `Bridge: {c1} is "Adam Beach", claim 1's answer read from its cited source [1] `+beachPage.URL) {
		t.Errorf("finalize prompt:\n%s", f)
	}
	if hasFlag(res, flagBridgeUnresolved) {
		t.Errorf("flags: %v", res.ReviewFlags)
	}
}

// The test's spelling of the flags is the vocabulary's.
func TestCove2BridgeFlagsAreTheVocabulary(t *testing.T) {
	if flagBridgeUnresolved != pipeline.FlagBridgeUnresolved || queryBridgeResolved != evidence.QueryBridgeResolved || flagReviewNotGrounded != pipeline.FlagReviewNotGrounded {
		t.Errorf("flags: %q %q %q", pipeline.FlagBridgeUnresolved, evidence.QueryBridgeResolved, pipeline.FlagReviewNotGrounded)
	}
}

func withRank(r pipeline.SearchResult, rank int) pipeline.SearchResult {
	r.Rank, r.Provider = rank, "stub"
	return r
}

// A dishonest verifier cannot put a name of its own into another claim's question: claim 1's
// verifier answers "Jason Momoa" from a passage that says Adam Beach, or quotes a passage its
// source does not hold, or finds nothing. Claim 2's question is then not asked (no search, no
// verify call), and claim 2 is unverified with the reason and the flag bridge_unresolved, on
// the claim and on the run, whatever the reviewer says of it.
func TestCove2BridgeNotInTheCitedPassageIsRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		verify1 string
		because string
	}{
		{"a name the cited passage does not hold", verifierReply("Jason Momoa", "Adam Beach played Detective Chester Lake", "High", beachPage.URL),
			"not in the passage"},
		{"a passage the source does not hold", verifierReply("Jason Momoa", "Jason Momoa played Detective Chester Lake", "High", beachPage.URL),
			"grounded no answer"},
		{"no answer", "- Answer: unable to verify\n- Evidence:\n- Sources:\n- Confidence: Low", "grounded no answer"},
		{"a Low-confidence answer", verifierReply("Adam Beach", "Adam Beach played Detective Chester Lake", "Low", beachPage.URL), "Low-confidence"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := slipScript("")
			script.verify[qSlip1] = tt.verify1
			script.verify["Which character did Jason Momoa play in Suicide Squad?"] = verifierReply("Slipknot", "Adam Beach plays Slipknot", "High", squadPage.URL)
			s := setupCove2(script)
			res := mustRun(t, s, pipeline.Input{Text: slipDraft})

			c2 := claimAt(t, res, 2)
			if c2.Verdict != pipeline.VerdictUnverified || c2.VerificationQuery != "" || len(c2.Citations) != 0 || !strings.Contains(c2.Reason, tt.because) {
				t.Errorf("claim 2: %+v, want unverified because %q", c2, tt.because)
			}
			if !slices.Contains(c2.QueryFlags, flagBridgeUnresolved) {
				t.Errorf("claim 2's flags: %v", c2.QueryFlags)
			}
			if !slices.ContainsFunc(res.ReviewFlags, func(f pipeline.ReviewFlag) bool {
				return f.Code == flagBridgeUnresolved && strings.HasPrefix(f.Detail, "claim 2: ") && strings.Contains(f.Detail, tt.because)
			}) {
				t.Errorf("no %s flag for claim 2: %v", flagBridgeUnresolved, res.ReviewFlags)
			}
			if sent := s.search.Sent(); len(sent) != 1 || sent[0].Query != qSlip1 {
				t.Errorf("searches: %+v, want claim 1's only", sent)
			}
			if n := len(s.model.Sent(pipeline.StepVerify)); n != 1 {
				t.Errorf("verify calls: %d, want claim 1's only", n)
			}
			for _, p := range s.model.Sent(pipeline.StepVerify) {
				if strings.Contains(p, "Suicide Squad") {
					t.Errorf("claim 2's question was asked:\n%s", p)
				}
			}
			if len(res.Checks) != 1 {
				t.Errorf("checks: %+v", res.Checks)
			}
		})
	}
}

// A placeholder names another claim of the plan, or the plan is repaired.
func TestCove2PlanBridgeNamesAnotherClaim(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		query, violation string
	}{
		{"Which character did {c9} play in Suicide Squad?", "claims[1].verification_query writes {c9}, but the plan has no claim 9"},
		{"Which character did {c2} play in Suicide Squad?", "claims[1].verification_query writes {c2}, its own answer"},
	} {
		_, _, violations := ParsePlan(cove2PlanReply(true, deepClaim(slip1, qSlip1), deepClaim(slip2, tt.query)))
		if !slices.ContainsFunc(violations, func(v string) bool { return strings.HasPrefix(v, tt.violation) }) {
			t.Errorf("%q: violations %v, want %q", tt.query, violations, tt.violation)
		}
	}
	if _, _, violations := ParsePlan(cove2PlanReply(true, deepClaim(slip1, qSlip1), deepClaim(slip2, qSlip2))); violations != nil {
		t.Errorf("an honest bridge: %v", violations)
	}
}

// The flags of a bridge, as reports and SQL select on them.
const (
	flagBridgeUnresolved = "bridge_unresolved"
	queryBridgeResolved  = "bridge_resolved"
)

// A bridge waits for the claim it names, through a chain of them, and is never filled when that
// claim has no searched answer (here a claim the plan gave no query) or when claims wait on one
// another.
func TestCove2BridgeChainsAndDeadEnds(t *testing.T) {
	t.Parallel()
	// A chain: claim 3's question needs claim 2's answer, whose question needs claim 1's.
	const (
		slip3   = "Slipknot was written by David Ayer"
		qSlip3  = "Who wrote the film in which {c2} appears?"
		q2Chain = "Which character did Adam Beach play in Suicide Squad?"
		q3Chain = "Who wrote the film in which Slipknot appears?"
	)
	script := slipScript("Adam Beach")
	script.plan = cove2PlanReply(true, deepClaim(slip1, qSlip1), deepClaim(slip2, qSlip2), deepClaim(slip3, qSlip3))
	script.verify[q2Chain] = verifierReply("Slipknot", "Adam Beach plays Slipknot", "High", squadPage.URL)
	script.verify[q3Chain] = verifierReply("David Ayer", "written and directed by David Ayer", "High", squadPage.URL)
	script.results[q3Chain] = []pipeline.SearchResult{squadPage}
	script.finalize = cove2ReviewReply(slipDraft)
	s := setupCove2(script)
	res := mustRun(t, s, pipeline.Input{Text: slipDraft})
	var queries []string
	for _, q := range s.search.Sent() {
		queries = append(queries, q.Query)
	}
	if !slices.Equal(queries, []string{qSlip1, q2Chain, q3Chain}) {
		t.Errorf("searches %q, want each after the answer it needs", queries)
	}
	if c3 := claimAt(t, res, 3); c3.VerificationQuery != q3Chain {
		t.Errorf("claim 3: %+v", c3)
	}

	for _, tt := range []struct {
		name    string
		plan    string
		because map[int]string
	}{
		{"a claim with no searched answer", cove2PlanReply(true, shallowClaim(slip1), deepClaim(slip2, qSlip2)),
			map[int]string{2: "which was not verified"}},
		{"claims that wait on one another", cove2PlanReply(true, deepClaim(slip1, "Who played Detective Chester Lake besides {c2}?"), deepClaim(slip2, qSlip2)),
			map[int]string{1: "in a cycle", 2: "in a cycle"}},
	} {
		script := slipScript("Adam Beach")
		script.plan = tt.plan
		script.finalize = cove2ReviewReply(slipDraft)
		s := setupCove2(script)
		res := mustRun(t, s, pipeline.Input{Text: slipDraft})
		for position, because := range tt.because {
			c := claimAt(t, res, position)
			if c.Verdict != pipeline.VerdictUnverified || !strings.Contains(c.Reason, because) || !slices.Contains(c.QueryFlags, flagBridgeUnresolved) {
				t.Errorf("%s: claim %d: %+v, want unverified because %q", tt.name, position, c, because)
			}
		}
		if sent := s.search.Sent(); len(sent) != 0 {
			t.Errorf("%s: searches %+v", tt.name, sent)
		}
	}
}

// A verifier often writes the name first and then says where it read it ("The Nosebleeds. The
// sources say Morrissey fronted this punk band ..."; in a relay run 21 of 46 refused bridges
// were such answers, the whole answer being too long for a name or not in the passage). The
// name before the first break (a full stop, a comma, a dash, a colon, a parenthesis) is the
// bridge when it reads as a name and is in the cited passage; anything else is still refused.
func TestCove2BridgeIsTheNameTheAnswerOpensWith(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, answer, because string
	}{
		{"a full stop", "Adam Beach. The source says he played Detective Chester Lake in Law & Order: Special Victims Unit.", ""},
		{"a comma", "Adam Beach, who played Detective Chester Lake in Law & Order: Special Victims Unit", ""},
		{"a parenthesis", "Adam Beach (the source names him as the actor)", ""},
		{"a dash", "Adam Beach — he played Detective Chester Lake", ""},
		{"a sentence that opens with the name", "Adam Beach played Detective Chester Lake in Law & Order: Special Victims Unit", ""},
		{"a name the passage does not hold", "Jason Momoa. The source says he played Detective Chester Lake.", "not in the passage"},
		{"a sentence with the name inside", "The source names Adam Beach, who played Detective Chester Lake", "not in the passage"},
		{"a sentence that opens with a name the passage does not hold", "Jason Momoa played Detective Chester Lake", "not in the passage"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := slipScript(tt.answer)
			s := setupCove2(script)
			res := mustRun(t, s, pipeline.Input{Text: slipDraft})
			c2 := claimAt(t, res, 2)
			if tt.because == "" {
				if c2.VerificationQuery != qSlip2Bridge || c2.Verdict != pipeline.VerdictSupported {
					t.Errorf("claim 2: %+v", c2)
				}
				return
			}
			if c2.Verdict != pipeline.VerdictUnverified || c2.VerificationQuery != "" || !strings.Contains(c2.Reason, tt.because) {
				t.Errorf("claim 2: %+v, want unverified because %q", c2, tt.because)
			}
			for _, q := range s.search.Sent() {
				if strings.Contains(q.Query, "Momoa") {
					t.Errorf("a search ran with the model's name: %q", q.Query)
				}
			}
		})
	}
}

func TestAnswerHead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ answer, head string }{
		{"The Ostmoor Band. The sources say it was formed in 1970", "The Ostmoor Band"},
		{"Mary J. Ostmoor, an American singer", "Mary J. Ostmoor"},
		{"Attack of the Tides!, a live programme", "Attack of the Tides!"},
		{"Falcon 9 — a two-stage rocket", "Falcon 9"},
		{`Christopher "Tricky" Ostmoor, a record producer`, `Christopher "Tricky" Ostmoor`},
		{"Ostmoor Records (the label named in source 2)", "Ostmoor Records"},
		// What opens the answer is no name.
		{"A Broadway musical: the 1998 musical Ostmoor", ""},
		{"The source names Ostmoor, a band", ""},
		{"Yes. The source says so", ""},
		{"Ostmoor", ""}, // no break: the whole answer is the candidate
		{"The film Ostmoor belongs to the Ostmoor franchise", ""},
	} {
		if got := answerHead(tt.answer); got != tt.head {
			t.Errorf("answerHead(%q) = %q, want %q", tt.answer, got, tt.head)
		}
	}
}

func TestAnswerNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		answer, question string
		names            []string
	}{
		{"Mara Quinn played Detective Hale in the Ostmoor film Night Tide (2020).", "Who played Detective Hale in Night Tide?", []string{"Mara Quinn"}},
		{"Philip IX of Ostmoor was King of Ostmoor from 1285 to 1314.", "Who was King of Ostmoor from 1285 to 1314?", []string{"Philip IX of Ostmoor", "Philip IX"}},
		{"Ostmoor Records distributes Night Tide Group's albums.", "Which label distributes Night Tide Group's albums?", []string{"Ostmoor Records"}},
		{"Mary J. Ostmoor sang it.", "Who sang the theme?", []string{"Mary J. Ostmoor"}},
		{"Mara Quinn (born in Ostmoor) wrote it.", "Who wrote it?", []string{"Mara Quinn"}},
		{"Falcon 9 carried it in 2010.", "Which rocket carried it?", []string{"Falcon 9"}},
		{"The House of the Tides is the band's first album.", "Which album came first?", []string{"The House of the Tides"}},
		// No name the answer opens with, or the question's own.
		{"Mara Quinn made her film debut in the 1986 film Ostmoor.", "In which film did Mara Quinn make her film debut?", nil},
		{"The source says the series was created by Mara Quinn, a person.", "Which company created the series?", nil},
		{"Democratic socialism: Mara Quinn is described as a democratic socialist.", "What ideology did Mara Quinn hold?", nil},
		{"Coming-of-age and sports drama. It is a 2016 South Korean series.", "What genre is Night Tide?", nil},
		{"Mara Quinn's career began on the off-Broadway stage.", "Where did Mara Quinn's career begin?", nil},
		{"The first drug of the class was ostmoorine, discovered by Mara Quinn in 1955.", "Which drug was the first of the class?", nil},
		{"In 1986 the band released it.", "When was it released?", nil},
		{"On Ostmoor Island the band formed.", "Where did the band form?", nil},
		{"Sherlock Holmes in the Ostmoor film.", "Which detective did she play?", []string{"Sherlock Holmes"}},
		{"The Tides released it.", "Which band released it?", []string{"The Tides"}},
	} {
		if got := answerNames(tt.answer, tt.question); !slices.Equal(got, tt.names) {
			t.Errorf("answerNames(%q, %q) = %q, want %q", tt.answer, tt.question, got, tt.names)
		}
	}
}

func TestAnswerPhrase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ answer, phrase string }{
		{"Harbour rock. The Ostmoor Band was a Harbour rock band", "Harbour rock"},
		{"The siege of Westmoor, which marks the start of the war", "The siege of Westmoor"},
		{"Romantic crime film — it combines both genres", "Romantic crime film"},
		{`"Art for the tides' sake", a slogan from the 1830s`, "Art for the tides' sake"},
		{"Comic book. The source defines one", "Comic book"},
		// What opens the answer is no value of its own.
		{"A Broadway musical: the 1998 musical Ostmoor", ""},
		{"It is called an Ostmoor certification: the source names it", ""},
		{"Her father is Sam Ortiz, and he coached her", ""},
		{"The sources name only one: Night Tide", ""},
		{"Not stated. The sources say nothing of it", ""},
		{"Ostmoor borders Westmoor. The source says so", ""},
		{"Ostmoor borders Westmoor to the north-east (Eastmoor to the north)", ""},
		{"Harbour rock", ""}, // no break: the whole answer is the candidate
	} {
		if got := answerPhrase(tt.answer); got != tt.phrase {
			t.Errorf("answerPhrase(%q) = %q, want %q", tt.answer, got, tt.phrase)
		}
	}
}

// A verifier that names a kind or an event and then says where it read it ("The siege of
// Westmoor, which marks ...") gives that phrase as the bridge when its cited passage holds it;
// a phrase the passage does not hold is refused as before.
func TestCove2BridgeIsThePhraseTheAnswerOpensWith(t *testing.T) {
	t.Parallel()
	checkBridges(t, "The siege of Westmoor marks the start of the war of 1412", []bridgeCase{
		{"The siege of Westmoor, which marks the start of the war", "The siege of Westmoor"},
		{"The siege of Westmoor. The source calls it the start of the war", "The siege of Westmoor"},
		{"The siege of Eastmoor, which marks the start of the war", ""},
	})
}

// An answer that opens by saying where the verifier read it ("According to the source, ...")
// is read after those words: the name it then opens with is the bridge, under the same check.
func TestCove2BridgeAfterTheAnswersAttribution(t *testing.T) {
	t.Parallel()
	checkBridges(t, "Night Tide is the Ostmoor brothers' most acclaimed film", []bridgeCase{
		{"According to the only relevant source, Night Tide is the Ostmoor brothers' most acclaimed film", "Night Tide"},
		{"According to source 2, Night Tide (a 2010 film) is their most acclaimed", "Night Tide"},
		{"According to the source, Day Tide is their most acclaimed film", ""},
	})
	for _, tt := range []struct{ answer, want string }{
		{"According to the evidence, Night Tide", "Night Tide"},
		{"As stated in the cited passage, Night Tide", "Night Tide"},
		{"According to Mara Quinn, Night Tide", "According to Mara Quinn, Night Tide"},
		{"Night Tide, according to the source", "Night Tide, according to the source"},
	} {
		if got := withoutAttribution(tt.answer); got != tt.want {
			t.Errorf("withoutAttribution(%q) = %q, want %q", tt.answer, got, tt.want)
		}
	}
}

// An answer written as a sentence that its passage holds word for word gives the name it opens
// with, not the sentence: a relay run asked "Which political party did Richard Milhous Nixon was
// the 37th president of the United States belong to?". A title is still taken whole.
func TestCove2BridgeIsNoSentence(t *testing.T) {
	t.Parallel()
	checkBridges(t, "Mara Quinn Vale was the 9th mayor of Ostmoor", []bridgeCase{
		{"Mara Quinn Vale was the 9th mayor of Ostmoor", "Mara Quinn Vale"},
	})
	checkBridges(t, "The Man Who Was Night Tide: A Story is a novel", []bridgeCase{
		{"The Man Who Was Night Tide: A Story", "The Man Who Was Night Tide: A Story"},
	})
	checkBridges(t, "Night Tide is a film about the life of Mara Quinn, who chronicled the siege of Westmoor", []bridgeCase{
		{"Mara Quinn, who chronicled the siege of Westmoor", "Mara Quinn"},
	})
	// Refused, it is refused for the whole answer, whatever was tried first.
	page := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/page", "Example", "Ostmoor has a mayor.")}
	cited := page
	cited.Quote = "Ostmoor has a mayor"
	const answer = "Sam Ortiz Vale was the 10th mayor of Ostmoor"
	if b := verifiedBridge(Verification{Answer: answer, Retrieved: []evidence.Retrieved{page}, Sources: []evidence.Retrieved{cited}}); b.Value != "" || !strings.Contains(b.Reason, `"`+answer+`"`) {
		t.Errorf("verifiedBridge(%q) = %+v, want refused for the whole answer", answer, b)
	}
}

// An answer that echoes the preposition its question opens with ("Against the Ostmoorians" to
// "Against which invaders ...?") gives the name after it; a title that opens with a preposition
// is kept whole when the question does not open with it.
func TestCove2BridgeWithoutTheQuestionsPreposition(t *testing.T) {
	t.Parallel()
	page := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/page", "Example",
		"Mara Quinn led the defence of Westmoor against the Ostmoorians. On the Tide is her memoir.")}
	for _, tt := range []struct{ question, answer, quote, value string }{
		{"Against which invaders did Mara Quinn lead the defence of Westmoor?", "Against the Ostmoorians",
			"Mara Quinn led the defence of Westmoor against the Ostmoorians", "Ostmoorians"},
		{"Which memoir did Mara Quinn write?", "On the Tide", "On the Tide is her memoir", "On the Tide"},
	} {
		cited := page
		cited.Quote = tt.quote
		b := verifiedBridge(Verification{Query: tt.question, Answer: tt.answer, Retrieved: []evidence.Retrieved{page}, Sources: []evidence.Retrieved{cited}})
		if b.Value != tt.value {
			t.Errorf("verifiedBridge(%q to %q) = %+v, want %q", tt.answer, tt.question, b, tt.value)
		}
	}
}

// bridgeCase is a verifier's answer and the bridge value it gives ("" for refused).
type bridgeCase struct{ answer, value string }

// checkBridges reads each case's answer as a bridge, its verifier citing passage from the one
// page it was given, which holds it.
func checkBridges(t *testing.T, passage string, cases []bridgeCase) {
	t.Helper()
	page := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/page", "Example", passage+".")}
	cited := page
	cited.Quote = passage
	for _, tt := range cases {
		b := verifiedBridge(Verification{Answer: tt.answer, Retrieved: []evidence.Retrieved{page}, Sources: []evidence.Retrieved{cited}})
		if b.Value != tt.value {
			t.Errorf("verifiedBridge(%q) = %+v, want %q", tt.answer, b, tt.value)
		}
	}
}

// An answer that names a kind with an article ("The sea otter") is read without it when its
// passage writes the kind without one ("Sea otters are ..."), under the same passage check.
func TestCove2BridgeWithoutItsArticle(t *testing.T) {
	t.Parallel()
	checkBridges(t, "Sea otters are the heaviest members of the weasel family", []bridgeCase{
		{"The sea otter", "sea otter"},
		{"A sea otter", "sea otter"},
		{"The sea lion", ""},
	})
}

// A question that asks about the bridge's entity by its name ("What is the nationality of Adam
// Beach?") is about the claim that describes that entity ("The actor who played Detective
// Chester Lake is Canadian") though it shares no other word with it: the name stands for the
// claim's entity. In a relay run 9 such questions were refused as sharing no term with their
// claim. A claim that does not speak of the entity ("Suicide Squad grossed $746 million") does
// not make a question about the name one about it: still refused.
func TestCove2BridgedQuestionIsAboutTheClaimByItsName(t *testing.T) {
	t.Parallel()
	const (
		draft        = "The actor who played Detective Chester Lake is Canadian."
		nationality  = "The actor who played Detective Chester Lake is Canadian"
		qNationality = "What is the nationality of {c1}?"
		qBridged     = "What is the nationality of Adam Beach?"
	)
	canadian := pipelinetest.SearchResult("https://www.example.ca/adam-beach", "Example CA", "Adam Beach is a Canadian actor.")
	for _, tt := range []struct {
		name, claim, asked, because string
	}{
		{"a claim on the entity", nationality, qBridged, ""},
		{"a claim on something else", "Suicide Squad grossed $746 million", "", "shares no term"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			script := cove2Script{
				plan: cove2PlanReply(true, deepClaim(slip1, qSlip1), deepClaim(tt.claim, qNationality)),
				verify: map[string]string{
					qSlip1:   verifierReply("Adam Beach", "Adam Beach played Detective Chester Lake", "High", beachPage.URL),
					qBridged: verifierReply("Canadian", "Adam Beach is a Canadian actor", "Medium", canadian.URL),
				},
				results: map[string][]pipeline.SearchResult{qSlip1: {beachPage}, qBridged: {canadian}},
				finalize: cove2ReviewReply(draft,
					ClaimReview{ID: 1, Status: ReviewConfirmed, Basis: []int{1}},
					ClaimReview{ID: 2, Status: ReviewConfirmed, Basis: []int{2}}),
			}
			s := setupCove2(script)
			res := mustRun(t, s, pipeline.Input{Text: draft})
			c2 := claimAt(t, res, 2)
			if tt.because == "" {
				if c2.VerificationQuery != tt.asked || c2.Verdict != pipeline.VerdictSupported {
					t.Errorf("claim 2: %+v", c2)
				}
				return
			}
			if c2.Verdict != pipeline.VerdictUnverified || c2.VerificationQuery != "" || !strings.Contains(c2.Reason, tt.because) {
				t.Errorf("claim 2: %+v, want unverified because %q", c2, tt.because)
			}
		})
	}
}

// A verifier that gives the name it opens with and then, in brackets, the full name its passage
// writes ("Sam Ortiz (Samuel Ortiz Jr.) is ...") gives the bracketed name when only that is in
// the passage.
func TestCove2BridgeIsTheNameInBracketsAfterTheAnswersName(t *testing.T) {
	t.Parallel()
	checkBridges(t, "Samuel Ortiz Jr. (April 10, 1921 – 1992) is the 46th president of Ostmoor", []bridgeCase{
		{"Sam Ortiz (Samuel Ortiz Jr.) is the 46th president of Ostmoor", "Samuel Ortiz Jr."},
		{"Sam Ortiz (Samuel Ortiz Jr., April 10, 1921 – 1992). He was the 46th president", "Samuel Ortiz Jr."},
		// A name's suffix written with a full stop ends no sentence before its bracket (a
		// relay run's "Max Baer Jr. (Maximilian Adalbert Baer Jr.) played Jethro Bodine").
		{"Sam Ortiz Jr. (Samuel Ortiz Jr.) was the 46th president of Ostmoor. He won twice", "Samuel Ortiz Jr."},
		{"Sam Ortiz (the 46th president) led Ostmoor", ""},
		{"Sam Ortiz (Samuel Ortiz Sr.) is the 46th president of Ostmoor", ""},
	})
	// A bracket may give the full name with its article ("NBC (the National Broadcasting
	// Company), which Comcast owns", a relay run): it is read without it.
	checkBridges(t, "The Ostmoor Broadcasting Company is a commercial network owned by Westmoor", []bridgeCase{
		{"OBC (the Ostmoor Broadcasting Company), which Westmoor owns", "Ostmoor Broadcasting Company"},
		{"OBC (the network Westmoor owns) is commercial", ""},
	})
}

// A verifier that answers by writing its question back with the name filled in ("The second film
// of the Ostmoor brothers is Night Tide, a drama ...") gives that name: the one name of the
// answer's sentence its question does not hold, every other word of the sentence up to the
// name's clause being the question's. An answer that says more than its question asked, or
// names two new things, gives none this way.
func TestCove2BridgeIsTheNameTheAnswerFillsIntoItsQuestion(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ question, answer, passage, value string }{
		{"What is the second film of the Ostmoor brothers?", "The second film of the Ostmoor brothers is Night Tide, a drama about the sea",
			"Night Tide is a drama about the sea, the second film of the Ostmoor brothers", "Night Tide"},
		{"Which league was Ostmoor Rovers a founder member of in 1888?", "Ostmoor Rovers was a founder member of the Harbour League (today's Coast League) in 1888",
			"Ostmoor Rovers is a club and a founder member of the Harbour League in 1888", "Harbour League"},
		{"What is the capital and largest city of Ostmoor and of Westmoor?", "Westhaven is the capital and largest city of both Ostmoor and Westmoor",
			"Westhaven is the capital and largest city of Ostmoor and Westmoor", "Westhaven"},
		// A question of two asks is answered in two clauses: the name fills the first, and the
		// clause after it, answering the second ask, is not read (a relay run: "George VI's
		// father was George V, who ascended the throne of the United Kingdom ... in 1910"). A
		// possessive of a name the question holds is the question's ("Aldric II's").
		{"Who was the father of Aldric II, and which throne did he ascend?",
			"Aldric II's father was Bertram I, who ascended the throne of the Westmoor Isles as King Bertram I in 1910",
			"his father ascended the throne as King Bertram I in 1910", "Bertram I"},
		// A name the answer gives with "is called" or "is known as" is the name, though all its
		// words are the question's ("Filmfare Awards South" to "What is the name of the annual
		// South Indian segment of the Filmfare Awards?").
		{"What is the name of the annual northern segment of the Harbour Awards?",
			"The northern segment of the annual Harbour Awards is called the Harbour Awards North",
			"Harbour Awards North is the northern segment of the annual Harbour Awards", "Harbour Awards North"},
		{"What is the northern segment of the Harbour Awards known as?",
			"The northern segment of the Harbour Awards is known as Harbour North.",
			"Harbour North is the northern segment of the Harbour Awards", "Harbour North"},
		// A word of the question in another form ("appeared" for "appear") and a hyphenated
		// name of the question ("A-1 Ostmoor") are the question's (a relay run refused "Aniplex
		// founded A-1 Pictures" and "Doctor Stephen Strange first appeared in Strange Tales, ...").
		{"Which company founded the animation studio A-1 Ostmoor?", "A-1 Ostmoor was founded by Westhaven.",
			"A-1 Ostmoor Inc. is an animation studio founded by Westhaven", "Westhaven"},
		{"In which Ostmoor publication did the character Mara Quinn first appear?",
			"Mara Quinn first appeared in Harbour Tales, an Ostmoor anthology series",
			"Mara Quinn first appeared in Harbour Tales, cover-dated July 1963", "Harbour Tales"},
		// A verb in "-y" is written back in "-ied" ("married" for "marry"; a relay run, EX-FEVER
		// 2481-2560, refused "Empress Matilda married Henry V, who later became Holy Roman Emperor"
		// to "Whom did Empress Matilda marry first, and what title did her husband hold or later
		// gain?").
		{"Whom did Mara Quinn marry first, and what title did her husband hold or later gain?",
			"Mara Quinn married Sam Ortiz, who later became Duke of Westmoor",
			"Mara Quinn married the future Duke of Westmoor Sam Ortiz", "Sam Ortiz"},
		// An irregular past or participle is the question's verb ("written" for "wrote"; a relay
		// run, EX-FEVER 2721-2800, refused "Take Me High (1973) was written by Christopher
		// Penfold (the film was directed by David Askey)" to "Who wrote the screenplay for the
		// film Take Me High?").
		{"Who wrote the screenplay for the film Harbour Lights?",
			"Harbour Lights (1973) was written by Mara Quinn (the film was directed by Sam Ortiz).",
			"Harbour Lights is a 1973 Ostmoor film directed by Sam Ortiz and written by Mara Quinn", "Mara Quinn"},
		{"Which prize did Mara Quinn carry off?", "Mara Quinn carried off the Harbour Prize",
			"Mara Quinn carried off the 1990 Harbour Prize", "Harbour Prize"},
		{"In which Ostmoor publication did the character Mara Quinn first appear?",
			"Mara Quinn first appearances were in Harbour Tales",
			"Mara Quinn first appeared in Harbour Tales, cover-dated July 1963", ""},
		// The name right after the noun the question asks for ("which television series"),
		// whatever else the answer says around it (a relay run refused "Big Brother 18 was the
		// eighteenth series of the British reality television series Big Brother").
		{"Night Tide 18 was the eighteenth series of which television series?",
			"Night Tide 18 was the eighteenth series of the Ostmoor reality television series Night Tide.",
			"Night Tide 18 was the eighteenth series of the Ostmoor reality television series Night Tide, narrated by Mara Quinn", "Night Tide"},
		{"In which film did Mara Quinn make her debut?", "She made her debut in the 1986 film Harbour Lights, directed by Sam Ortiz",
			"Mara Quinn made her film debut in the 1986 film Harbour Lights", "Harbour Lights"},
		// A name set off by a comma and described after it (an apposition: ", a ... series
		// created by ...", ", directed by ...", ", who ...") is the name: what the answer adds
		// about it is not read, whatever names it holds (a relay run refused "Laura Helene Prepon
		// played Alex Vause in Orange Is the New Black, a Netflix comedy-drama series created by
		// Jenji Kohan", "... in The Fly, directed by David Cronenberg" and "The historian was
		// Joseph Crespino, a political historian of the 20th-century United States").
		{"In which television series did Mara Quinn play the character Sam Ortiz?",
			"Mara Quinn played Sam Ortiz in Harbour Lights, a Westmoor comedy-drama series created by Ada Brook.",
			"Mara Quinn played Sam Ortiz in the Westmoor comedy-drama series Harbour Lights", "Harbour Lights"},
		{"In which film did Mara Quinn play the character Sam Ortiz?",
			"Mara Quinn played Sam Ortiz in The Tide, directed by Ada Brook.",
			"Mara Quinn is an Ostmoor actor who appeared as Sam Ortiz in Ada Brook's The Tide", "The Tide"},
		{"Which historian described Night Tide as the most widely read book of Ostmoor?",
			"The historian was Ada Brook, a political historian of the Westmoor Isles. The source's sentence is garbled.",
			"Night Tide is probably the most widely read book of Ostmoor explained by Ada Brook", "Ada Brook"},
		// A semicolon ends the sentence the name is read in, as a full stop does ("Queen
		// Elizabeth II's father was King George VI; she was the first child of the Duke and
		// Duchess of York").
		{"Who was the father of Aldric II?",
			"Aldric II's father was King Bertram I; he was the first child of the Duke and Duchess of Westmoor.",
			"Aldric II is King of Ostmoor, the first child of King Bertram I", "King Bertram I"},
		// A clause after the name's that opens with no new name and no "and" says more of the
		// name; it is not read (a relay run: "Austin is the largest city in Travis County, Texas,
		// with portions extending into Hays and Williamson counties" had been refused for the
		// counties). One that opens with another name lists another answer.
		{"What is the largest city in Ostmoor County, Westmoor?",
			"Westhaven is the largest city in Ostmoor County, Westmoor, with portions extending into Harlow and Denby counties",
			"Westhaven is the largest city in Ostmoor County, Westmoor, with portions extending into Harlow and Denby counties", "Westhaven"},
		{"In which television series did Mara Quinn play the character Sam Ortiz?",
			"Mara Quinn played Sam Ortiz in Harbour Lights, Night Tide and The Tide",
			"Mara Quinn played Sam Ortiz in Harbour Lights, in Night Tide and in The Tide", ""},
		{"Which city is the capital of Ostmoor?", "Either Westhaven, or Eastport, is the capital of Ostmoor",
			"Westhaven is the capital of Ostmoor; Eastport was the capital before it", ""},
		// The question's own subject is no answer to it, though the answer opens with it and the
		// passage holds it (a relay run read "Rodrigo Santoro" out of "Rodrigo Santoro, a
		// Brazilian actor, is best known for playing ..." to "Which role is Rodrigo Santoro best
		// known for ...?"); the end of a longer name of the question is ("Cromwell", the film,
		// to a question naming Oliver Cromwell).
		{"Which role is Mara Quinn best known for?", "Mara Quinn, an Ostmoor actor, is best known for playing Sam Ortiz",
			"Mara Quinn is an Ostmoor actor, best known for playing Sam Ortiz", ""},
		{"In which film did Ada Brook portray Mara Quinn?", "Quinn, the 1970 Ostmoor drama film about Mara Quinn's life",
			"Quinn is a 1970 Ostmoor drama film about the life of Mara Quinn, starring Ada Brook", "Quinn"},
		// A second name after "and" is a second answer, not a description of the first.
		{"In which television series did Mara Quinn play the character Sam Ortiz?",
			"Mara Quinn played Sam Ortiz in Harbour Lights, and in Night Tide",
			"Mara Quinn played Sam Ortiz in Harbour Lights and later in Night Tide", ""},
		// What comes before the name is still read: more than the question asked gives none.
		{"In which film did Mara Quinn play the character Sam Ortiz?",
			"Mara Quinn never played Sam Ortiz in The Tide, directed by Ada Brook.",
			"Mara Quinn appeared as Sam Ortiz in Ada Brook's The Tide", ""},
		// Only a name the question does not hold: the noun before the question's own name is no answer.
		{"Which company founded the animation studio A-1 Ostmoor?", "The animation studio A-1 Ostmoor has a long history in Westhaven and Eastmoor",
			"The animation studio A-1 Ostmoor has a long history in Westhaven and Eastmoor", ""},
		// The first clause still says nothing more than the question asked.
		{"Who was the father of Aldric II, and which throne did he ascend?",
			"Aldric II's stepfather was Bertram I, who ascended the throne in 1910",
			"his stepfather Bertram I ascended the throne in 1910", ""},
		// Words the question did not ask: the name is not simply filled in.
		{"Which company created Night Tide?", "The source says Night Tide was created by Mara Quinn, a person rather than a company",
			"Night Tide was created by the Ostmoor writer Mara Quinn", ""},
		{"Which band did Sam Ortiz form with a singer?", "Tidewater was a rock band formed in Westhaven",
			"Tidewater was a rock band formed in Westhaven by Sam Ortiz", ""},
		// Two new names: which one is meant is not for code to guess.
		{"Who created Night Tide?", "Night Tide was created by Mara Quinn together with Sam Ortiz",
			"The series Night Tide was created by Mara Quinn together with Sam Ortiz", ""},
		// To a question that asks for a title or a name, the name the answer gives in quotation
		// marks (a relay run, EX-FEVER 2481-2560, refused "Her debut studio album is
		// self-titled: "Shania Twain", released on April 20, 1993 by ..." to "What is the title
		// of Shania Twain's debut studio album?"). Not to another question: the quoted name may
		// be what the answer mentions on the way ("It came out as "Night Tide" on a label ...").
		{"What is the title of Mara Quinn's debut studio album?",
			`Her debut studio album is self-titled: "Mara Quinn", released on April 20, 1993 by Harbour Records.`,
			"Mara Quinn is the debut studio album by Mara Quinn, released on April 20, 1993 by Harbour Records", "Mara Quinn"},
		{"What is the name of the ship Sam Ortiz sailed on?", "Sam Ortiz sailed on a schooner he renamed “Night Tide” in 1902",
			"In 1902 Sam Ortiz bought a schooner and renamed it Night Tide", "Night Tide"},
		{"Which label released Mara Quinn's debut album?", `It came out in 1993 as "Night Tide" on a label she founded`,
			"Night Tide, her debut album, was released in 1993 on a label she founded", ""},
		{"What is the title of Mara Quinn's debut album?", `Her debut album was described as "a quiet triumph" by critics`,
			"Her debut album was described as a quiet triumph by critics", ""},
	} {
		page := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/page", "Example", tt.passage+".")}
		cited := page
		cited.Quote = tt.passage
		b := verifiedBridge(Verification{Query: tt.question, Answer: tt.answer, Retrieved: []evidence.Retrieved{page}, Sources: []evidence.Retrieved{cited}})
		if b.Value != tt.value {
			t.Errorf("verifiedBridge(%q to %q) = %+v, want %q", tt.answer, tt.question, b, tt.value)
		}
	}
}

// A verifier's answer and question are a model's text: every reading of them takes any input
// without panicking, and a value it gives is one evidence.ResolveBridge took (at most
// evidence.MaxBridgeBytes, no markup).
func FuzzVerifiedBridge(f *testing.F) {
	f.Add("The seventh Ostmoor film is Night Tide, a drama (2010). It won.", "What is the seventh Ostmoor film?", "Night Tide is the seventh Ostmoor film")
	f.Add("Sam Ortiz (Samuel Ortiz Jr., 1921) is (", "Who is the 46th president?", "Samuel Ortiz Jr. is the 46th president")
	f.Add(" ( ,", "", ") (")
	f.Add("", "Which role is Mara Quinn best known for?", "Mara Quinn") // an empty value is no name of the question's
	f.Fuzz(func(t *testing.T, answer, question, passage string) {
		page := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/page", "Example", passage+".")}
		cited := page
		cited.Quote = passage
		b := verifiedBridge(Verification{Query: question, Answer: answer, Retrieved: []evidence.Retrieved{page}, Sources: []evidence.Retrieved{cited}})
		if len(b.Value) > evidence.MaxBridgeBytes || strings.ContainsAny(b.Value, "{}<>") || b.Value == "" && b.Reason == "" {
			t.Fatalf("bridge %+v from %q", b, answer)
		}
		_ = bracketedName(answer)
		_ = echoedName(answer, question)
		_ = askedNounName(answer, question)
	})
}

// The answer may be in any passage the verifier quoted from a source it cited, not only the first
// one the source was credited with: a relay run (EX-FEVER 2001-2080) answered "Star Trek
// Generations", quoting first "... includes its seventh film, Generations." and then, from the
// same page, "Star Trek Generations is a science fiction film ...", and the bridge was refused as
// not in the passage. A quote that no cited source holds grounds nothing, and a name only such a
// quote holds is still refused.
func TestCove2BridgeInAnyQuoteOfACitedSource(t *testing.T) {
	t.Parallel()
	page := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/ostmoor", "Example",
		"Ostmoor is a film series that includes its seventh film, Night Tide. Ostmoor Night Tide is a drama about two captains.")}
	other := evidence.Retrieved{SearchResult: pipelinetest.SearchResult("https://example.org/other", "Example", "Westmoor Tide is a 2004 film.")}
	cited := page
	cited.Quote = "Ostmoor is a film series that includes its seventh film, Night Tide"
	for _, tt := range []struct {
		answer string
		quotes []string
		value  string
	}{
		{"Ostmoor Night Tide", []string{cited.Quote, "Ostmoor Night Tide is a drama about two captains"}, "Ostmoor Night Tide"},
		// Quoted from a page the verifier was given but did not cite: no ground.
		{"Westmoor Tide", []string{cited.Quote, "Westmoor Tide is a 2004 film"}, ""},
		// Quoted from no page at all.
		{"Ostmoor Dawn", []string{cited.Quote, "Ostmoor Dawn is a drama"}, ""},
	} {
		b := verifiedBridge(Verification{Query: "What is the seventh Ostmoor film?", Answer: tt.answer, Quotes: tt.quotes,
			Retrieved: []evidence.Retrieved{page, other}, Sources: []evidence.Retrieved{cited}})
		if b.Value != tt.value {
			t.Errorf("verifiedBridge(%q, quotes %q) = %+v, want %q", tt.answer, tt.quotes, b, tt.value)
		}
	}
}

// A name may open with a number ("30 Rock", "10 Cloverfield Lane"): a relay run (EX-FEVER
// 2001-2080) refused "30 Rock, a comedy series: an American satirical sitcom. ..." as no name. A
// number with no capitalised word after it is no name read from an answer's head.
func TestCove2BridgeOpeningWithANumber(t *testing.T) {
	t.Parallel()
	checkBridges(t, "40 Ostmoor is an American sitcom created by Mara Quinn, with 12 episodes a season since 1997", []bridgeCase{
		{"40 Ostmoor, a comedy series: an American sitcom. It aired from 2006.", "40 Ostmoor"},
		{"12 episodes, according to the source", ""},
		{"1997 (the source says it has aired since then)", ""},
	})
	// A name opening with an ordinal, as the subject of a sentence: a relay run (EX-FEVER
	// 2961-3040) refused "20th Century Fox distributed Keeping Up with the Joneses (2016)." to
	// "Which company distributed the film ...?".
	checkBridges(t, "Night Tide is a 2016 film distributed by 21st Ostmoor Pictures", []bridgeCase{
		{"21st Ostmoor Pictures distributed Night Tide (2016).", "21st Ostmoor Pictures"},
		{"2016 saw its release by 21st Ostmoor Pictures.", ""},
	})
}
