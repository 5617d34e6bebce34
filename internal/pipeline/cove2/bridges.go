package cove2

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// A verification query can carry a resolved bridge (issue 23). A claim may name an entity only by
// what another claim establishes ("The actor who played Detective Chester Lake played Slipknot in
// Suicide Squad"): its verification query then writes {c1} for claim 1's answer ("Which
// character did {c1} play in Suicide Squad?"), claims numbered from 1 in the plan's order. Such
// a query waits for claim 1's verification; code then puts in the answer claim 1's verifier gave,
// only when that verification is grounded at High or Medium confidence and the answer is in the
// passage of a source it cited (evidence.ResolveBridge, the check multihop's bridges use), and
// runs the query checks of any other query on the result. Otherwise the question is not asked:
// the claim is unverified with the reason and the flag bridge_unresolved, and nothing is ever
// filled in from a model's memory. The verifier gets the question with the name, as any other
// question: never the draft, the placeholder or another claim.

// bridgeViolations are the plan's placeholders that name no other claim of the plan.
func bridgeViolations(plan Plan) []string {
	var v []string
	for i, c := range plan.Claims {
		if c.VerificationQuery == nil {
			continue
		}
		for _, id := range evidence.BridgesIn(*c.VerificationQuery) {
			n, _ := strconv.Atoi(id[1:])
			switch {
			case n < 1 || n > len(plan.Claims):
				v = append(v, fmt.Sprintf("claims[%d].verification_query writes {%s}, but the plan has no claim %d (claims are numbered from 1 in the order listed)", i, id, n))
			case n == i+1:
				v = append(v, fmt.Sprintf("claims[%d].verification_query writes {%s}, its own answer: a placeholder stands for the answer of another claim", i, id))
			}
		}
	}
	return v
}

// verifyBridged resolves the bridges of the queries that wait for them, in waves: each wave
// verifies the claims whose bridges are all resolved from claims already verified, until none is
// left. A query whose bridge cannot be resolved is not asked.
func (r *cove2Run) verifyBridged(ctx context.Context) error {
	for len(r.bridged) > 0 {
		// A query decided in this pass leaves r.bridged only after the pass, so that a query
		// that needs its answer waits for the wave that verifies it.
		var wave, decided []int
		for idx := range r.planned {
			c := &r.planned[idx]
			raw, pending := r.bridged[c.Position]
			if !pending {
				continue
			}
			if c.Verdict != "" { // skipped by the claim cap: listed as such
				decided = append(decided, c.Position)
				continue
			}
			values, notes, why, ready := r.bridgeValues(c.Position, raw)
			if !ready {
				continue
			}
			decided = append(decided, c.Position)
			if why != "" {
				r.bridgeUnresolved(c, why)
				continue
			}
			query, _ := evidence.SubstituteBridges(raw, values)
			qc := evidence.CheckVerificationQuery(query, r.bridgedClaimTerms(c, raw, values), r.today)
			c.QueryFlags = append(c.QueryFlags, evidence.QueryBridgeResolved)
			c.QueryFlags = append(c.QueryFlags, qc.Flags...)
			if qc.Rejected {
				c.Verdict, c.VariantVerdict, c.Reason = pipeline.VerdictUnverified, ReviewUncertain, "not verified: "+qc.Reason
				continue
			}
			c.VerificationQuery = qc.Query
			r.bridgeNotes[c.Position] = strings.Join(notes, "; ")
			wave = append(wave, idx)
		}
		for _, p := range decided {
			delete(r.bridged, p)
		}
		if len(decided) == 0 {
			// What is left waits on itself: claims whose queries need each other's answers.
			for idx := range r.planned {
				c := &r.planned[idx]
				if _, pending := r.bridged[c.Position]; pending {
					r.bridgeUnresolved(c, "its question builds on answers that wait on its own, in a cycle")
				}
			}
			r.bridged = nil
			break
		}
		if err := r.verify(ctx, wave, r.verifier, false); err != nil {
			return err
		}
	}
	return nil
}

// bridgedClaimTerms is what a bridged query of c must share a term with to be about c: c's text,
// and each name the query was given for a claim whose text c shares a term with. Such a claim
// describes the entity c speaks of, so the name stands for words of c: "What is the nationality
// of John Simm?" is about "The actor best known for playing Sam Tyler in Life on Mars is
// English" when {c1} was "An actor is best known for playing Sam Tyler". In a relay run
// (EX-FEVER 881-960) 9 such questions were refused as sharing no term with their claim. A name
// given for a claim c does not speak of is no word of c's.
func (r *cove2Run) bridgedClaimTerms(c *pipeline.Claim, raw string, values map[string]string) string {
	terms := []string{c.Text}
	for _, id := range evidence.BridgesIn(raw) {
		n, _ := strconv.Atoi(id[1:])
		if n >= 1 && n <= len(r.planned) && evidence.SharesTerm(r.planned[n-1].Text, c.Text) {
			terms = append(terms, values[id])
		}
	}
	return strings.Join(terms, " ")
}

// bridgeValues reads the values of raw's placeholders from the verifications of the claims they
// name. ready is false while one of them still waits for its own bridges; why says why a value
// is refused ("" when all are resolved); notes say where each value came from.
func (r *cove2Run) bridgeValues(position int, raw string) (values map[string]string, notes []string, why string, ready bool) {
	values = map[string]string{}
	for _, id := range evidence.BridgesIn(raw) {
		n, _ := strconv.Atoi(id[1:])
		if _, pending := r.bridged[n]; pending && n != position {
			return nil, nil, "", false
		}
	}
	for _, id := range evidence.BridgesIn(raw) {
		n, _ := strconv.Atoi(id[1:])
		because := func(format string, args ...any) string {
			return fmt.Sprintf("its question builds on the answer of claim %d ({%s}), ", n, id) + fmt.Sprintf(format, args...)
		}
		if n < 1 || n > len(r.planned) || n == position {
			return nil, nil, because("which is no other claim of the plan"), true
		}
		dep := r.planned[n-1]
		v, verified := r.verified[n]
		switch {
		case dep.Tier != pipeline.TierDeep:
			return nil, nil, because("a shallow claim, reviewed closed-book: it has no searched answer"), true
		case dep.Verdict == pipeline.VerdictNotChecked:
			return nil, nil, because("which was skipped by the claim cap"), true
		case dep.Verdict != "" || !verified:
			return nil, nil, because("which was not verified (%s)", notVerifiedWhy(dep)), true
		case !v.Grounded():
			return nil, nil, because("whose verification grounded no answer (%s)", v.Reason), true
		case !strongEnough(v):
			return nil, nil, because("whose answer is Low-confidence (%s)", v.CalibrationNote), true
		}
		b := verifiedBridge(v)
		if b.Value == "" {
			return nil, nil, because("which is refused as a bridge: %s", b.Reason), true
		}
		values[id] = b.Value
		url := v.Retrieved[b.Source].URL
		notes = append(notes, fmt.Sprintf("{%s} is %q, claim %d's answer read from its cited source [%d] %s", id, b.Value, n, r.book.Number(url), url))
	}
	return values, notes, "", true
}

// verifiedBridge reads a verification's answer as a bridge value, the first of its candidates
// that is in a passage of one of the sources the verifier cited, any quote of the verifier's that
// the source's text holds (evidence.ResolveBridge): the
// whole answer; the name it opens with (answerHead, answerNames), the name in brackets after it
// (bracketedName), the short phrase (answerPhrase), the name it fills into its question
// (echoedName) or gives right after the noun its question asks for (askedNounName), read also
// after an opening "According to the source," (withoutAttribution) and
// after the preposition it echoes from its question (withoutEchoedPreposition); and each of
// them without an opening article. The whole answer comes last when it reads as a sentence or
// echoes the question's preposition. The reason of a refusal is the whole answer's at the first
// cited source.
func verifiedBridge(v Verification) evidence.Bridge {
	answer := strings.TrimRight(text.OneLine(v.Answer), " .;:")
	values := []string{answer}
	add := func(value string) {
		if value != "" && !slices.Contains(values, value) {
			values = append(values, value)
		}
	}
	unechoed := withoutEchoedPreposition(answer, v.Query)
	add(unechoed)
	for _, from := range []string{answer, withoutAttribution(answer), unechoed} {
		add(answerHead(from))
		add(bracketedName(from))
		for _, name := range answerNames(from, v.Query) {
			add(name)
		}
		add(answerPhrase(from))
		add(echoedName(from, v.Query))
		add(askedNounName(from, v.Query))
		add(quotedTitle(from, v.Query))
	}
	// An answer that reads as a sentence is never the value, though a passage may hold it word
	// for word: a question built on it would read "Which party did Richard Milhous Nixon was the
	// 37th president of the United States belong to?" (a relay run asked three such). One that
	// echoes its question's preposition is tried after the name that follows it.
	switch {
	case readsAsSentence(answer):
		values = values[1:]
	case unechoed != answer && len(values) > 1:
		values = append(values[1:], answer)
	}
	// The question's own subject is no answer to it, though an answer may open with it and its
	// passage hold it ("Rodrigo Santoro, a Brazilian actor, is best known for ..." to "Which role
	// is Rodrigo Santoro best known for ...?").
	values = slices.DeleteFunc(values, func(value string) bool { return questionsOwnName(v.Query, strings.Fields(value), true) })
	// A kind named with an article ("The sea otter") is read without it, as its passage may
	// write it ("Sea otters are ...").
	var bare []string
	for _, value := range values {
		if rest, ok := withoutArticle(value); ok {
			bare = append(bare, rest)
		}
	}
	values = append(values, bare...)
	var grounding []int
	for _, s := range v.Sources {
		key := evidence.DocumentKey(s.URL)
		grounding = append(grounding, slices.IndexFunc(v.Retrieved, func(g evidence.Retrieved) bool { return evidence.DocumentKey(g.URL) == key }))
	}
	resolve := func(value string, k int, passage string) evidence.Bridge {
		return evidence.ResolveBridge(evidence.BridgeAnswer{Value: value, Source: grounding[k] + 1, Passage: passage}, v.Retrieved, grounding, "verifier")
	}
	// The passages of a cited source: the one it was credited with, then every other quote of
	// the verifier's that its text holds (ResolveBridge checks that): a verifier quotes a page
	// more than once, and the name may be in its second quote ("... its seventh film,
	// Generations." and then "Star Trek Generations is a science fiction film ...").
	for _, value := range values {
		for k := range v.Sources {
			for _, passage := range append([]string{v.Sources[k].Quote}, v.Quotes...) {
				if b := resolve(value, k, passage); b.Value != "" {
					return b
				}
			}
		}
	}
	// Refused: for the whole answer at the first cited source, whatever was tried.
	if len(v.Sources) == 0 {
		return evidence.Bridge{Reason: "its verifier cited no source"}
	}
	refused := resolve(answer, 0, v.Sources[0].Quote)
	if refused.Value != "" {
		refused = evidence.Bridge{Reason: fmt.Sprintf("its verifier's answer %q reads as a sentence, not a name", text.Truncate(answer, 60))}
	}
	return refused
}

// bracketedName is the name in brackets right after the name an answer opens with, where the
// verifier gives the full name its passage writes ("Joe Biden (Joseph Robinette Biden Jr.) is the
// 46th president", its passage "Joseph Robinette Biden Jr. is ..."; a relay run, EX-FEVER
// 1361-1440): the bracket's words up to its first comma, without a lower-case "the" opening
// them ("NBC (the National Broadcasting Company)"), when they read as a name (readsAsName).
func bracketedName(answer string) string {
	end := headEnd(answer)
	if end <= 0 || !strings.HasPrefix(answer[end:], " (") || !readsAsName(strings.TrimSpace(answer[:end])) {
		return ""
	}
	inner := answer[end+len(" ("):]
	if i := strings.IndexAny(inner, ",)"); i >= 0 {
		inner = inner[:i]
	}
	inner = strings.TrimSpace(inner)
	inner = strings.TrimPrefix(inner, "the ") // "NBC (the National Broadcasting Company)"
	if !readsAsName(inner) {
		return ""
	}
	return inner
}

// echoedName is the name a verifier fills into its question when it answers by writing the
// question back: "The seventh Ostmoor film is Night Tide, a drama ..." to "What is the seventh
// Ostmoor film?", "Ostmoor Rovers was a founder member of the Harbour League in 1888" to "Which
// league was Ostmoor Rovers a founder member of in 1888?", "Westhaven is the capital and largest
// city of Ostmoor" to "What is the capital and largest city of Ostmoor?". In a relay run
// (EX-FEVER 1361-1440) 3 of the 10 answers cove2 refused as bridges were such. Read in the
// answer's first sentence, without what it puts in brackets: exactly one run of capitalised
// words (openingName) that has a word the question does not, and every content word of the
// sentence before it and after it up to its clause's end the question's. An answer that says
// more than the question asked ("The source says Night Tide was created by Mara Quinn"), or
// names two new things, gives none. Two readings more: to a question of two asks (secondAsk)
// the clause after the name that opens with "who", "which", "and" ... answers the second and
// is not read ("George VI's father was George V, who ascended ..."); and a name given after
// "called", "named" or "known as" is the name though all its words are the question's
// (calledName). A name set off by a comma and described after it ("in Orange Is the New Black,
// a Netflix comedy-drama series created by Jenji Kohan": describesName) ends what is read: the
// apposition says more of the name, whatever names it holds; so does a clause after the name's
// clause, once that clause has written the question back, unless it opens with a new name or
// "and" (opensAnotherAnswer). A semicolon ends the sentence as a full stop does. A candidate
// only, as answerHead's is.
func echoedName(answer, question string) string {
	if question == "" {
		return ""
	}
	asked, stop := questionWords(question), text.StopWords("en")
	sentence := answer
	for _, br := range []string{". ", "; "} { // the first sentence
		if i := breakAt(sentence, br); i >= 0 {
			sentence = sentence[:i]
		}
	}
	words := strings.Fields(bracketed.ReplaceAllString(sentence, ""))
	if len(words) > maxEchoWords {
		return "" // a question written back is short; and each word below reads the rest
	}
	var name []string
	from, to := -1, -1
	twoAsks := secondAsk.MatchString(question)
	for i := 0; i < len(words); i++ {
		if name != nil && twoAsks && i == clauseEnd(words, to) && i < len(words) && secondClauseOpeners[strings.ToLower(words[i])] {
			break // the name's clause answered the first ask; what follows answers the second
		}
		if name != nil && i == to && closesClause(words[to-1]) && describesName(words[i:]) {
			break // what follows the comma describes the name: it is not what was asked
		}
		if name != nil && i == clauseEnd(words, to) && i < len(words) && echoesAsked(words[:from], words[to:i], asked) && !opensAnotherAnswer(words[i:], asked) {
			break // the name's clause wrote the question back; what follows says more of the name
		}
		run := openingName(strings.Join(words[i:], " "))
		if len(run) == 0 || !slices.ContainsFunc(run, func(w string) bool { return !stop[strings.ToLower(w)] }) {
			continue // no name: "He was ...", "The seventh ..."
		}
		if namesUnasked(run, asked) {
			if name != nil || notNames[strings.ToLower(strings.Join(run, " "))] {
				return "" // two new names
			}
			name, from, to = run, i, i+len(run)
		}
		i += len(run) - 1
	}
	// A name given with "is called" or "is known as" is the name, though every word of it may be
	// the question's: "The South Indian segment of the annual Filmfare Awards is called the
	// Filmfare Awards South" to "What is the name of the annual South Indian segment of the
	// Filmfare Awards?" (a relay run). The words before it are read up to the verb.
	before := from
	if called, verbAt, calledTo := calledName(words); called != nil && (name == nil || calledTo == to) {
		name, before, to = called, verbAt, calledTo
	}
	if name == nil {
		return ""
	}
	// A content word right after the run goes on with it: "Pop music" gives no "Pop".
	if !closesClause(words[to-1]) && to < len(words) && !stop[strings.ToLower(strings.Trim(words[to], `"'“”‘’.`))] {
		return ""
	}
	end := clauseEnd(words, to)
	rest := strings.Join(words[:before], " ") + " " + strings.Join(words[to:end], " ")
	for _, w := range text.ContentWords(rest, "en") {
		if !askedWord(asked, w) {
			return ""
		}
	}
	return strings.Join(name, " ")
}

// echoesAsked reports whether the words around a name in its clause (before and after it) hold a
// content word of the question: the clause writes the question back.
func echoesAsked(before, after []string, asked map[string]bool) bool {
	return slices.ContainsFunc(text.ContentWords(strings.Join(before, " ")+" "+strings.Join(after, " "), "en"), func(w string) bool { return askedWord(asked, w) })
}

// opensAnotherAnswer reports whether the clause words open gives another answer rather than more
// of the name before it: it opens with "and", "or", "but" or "nor" ("... in Harbour Lights, and
// in Night Tide"), or with a name the question does not hold ("... in Harbour Lights, Night Tide
// and The Tide").
func opensAnotherAnswer(words []string, asked map[string]bool) bool {
	if coordinators[strings.ToLower(strings.Trim(words[0], ",;:"))] {
		return true
	}
	return namesUnasked(openingName(strings.Join(words, " ")), asked)
}

// namesUnasked reports whether a run of capitalised words (openingName) names something the
// question does not: it has a word that is neither the question's (askedWord) nor a small word
// inside a title.
func namesUnasked(run []string, asked map[string]bool) bool {
	return slices.ContainsFunc(run, func(w string) bool {
		lower := strings.ToLower(w)
		return !text.IsTitleMinorWord(lower) && !askedWord(asked, lower)
	})
}

// coordinators join a second answer to a first.
var coordinators = text.WordSet("and or but nor")

// quotedTitle is the name an answer gives in quotation marks to a question that asks for a title
// or a name ("What is the title of ...?", "What is the name of ...?"): "Her debut studio album
// is self-titled: "Shania Twain", released on April 20, 1993 by Polygram and Mercury Records" (a
// relay run, EX-FEVER 2481-2560, refused it as a sentence). The first quoted span (quotedText,
// the quotation marks the verifier's evidence lines are read by) that reads as a name
// (readsAsName). To another question a quoted name may be what the answer mentions on its way to
// the answer ("It came out as "Night Tide" on a label she founded" to "Which label ...?"), so
// none is read. A candidate only, as answerHead's is.
func quotedTitle(answer, question string) string {
	if !slices.ContainsFunc(text.Words(question), func(w string) bool { return w == "title" || w == "name" }) {
		return ""
	}
	for _, m := range quotedText.FindAllStringSubmatch(answer, -1) {
		if inner := strings.TrimSpace(m[1] + m[2] + m[3]); readsAsName(inner) {
			return inner
		}
	}
	return ""
}

// askedNounName is the name an answer gives right after the noun its question asks for, whatever
// else the answer says: "... of the British reality television series Big Brother" to "Big
// Brother 18 was the eighteenth series of which television series?" (a relay run refused it),
// "in the 1986 film Lucas" to "In which film did ...?". The noun is the question's words after
// "which" or "what" up to its first stop word; the name is the run of capitalised words
// (openingName) right after one of them in the answer, unless the question holds it as a name of
// its own ("Big Brother" stands in "Big Brother 18" as part of a longer name: that is no name of
// the question's). A candidate only, as answerHead's is.
func askedNounName(answer, question string) string {
	stop := text.StopWords("en")
	fields := strings.Fields(strings.ToLower(question))
	noun := map[string]bool{}
	for i, w := range fields {
		if w = strings.Trim(w, "?,.;:"); w != "which" && w != "what" {
			continue
		}
		for _, n := range fields[i+1:] {
			if n = strings.Trim(n, "?,.;:"); n == "" || stop[n] {
				break
			}
			noun[n] = true
		}
		break
	}
	if len(noun) == 0 {
		return ""
	}
	words := strings.Fields(answer)
	if len(words) > maxEchoWords {
		return ""
	}
	for i := 0; i+1 < len(words); i++ {
		if closesClause(words[i]) || !noun[strings.ToLower(words[i])] {
			continue
		}
		if run := openingName(strings.Join(words[i+1:], " ")); len(run) > 0 && !questionsOwnName(question, run, false) {
			return strings.Join(run, " ")
		}
	}
	return ""
}

// questionsOwnName reports whether question writes name as a name of its own: its words in a
// row, not followed by another capitalised word or a number that would make them part of a
// longer name ("Big Brother" in "Big Brother 18 was ..."). With whole, not the end of a longer
// name either ("Cromwell" in "Oliver Cromwell"; the question's first word, capitalised as a
// sentence's, opens no name).
func questionsOwnName(question string, name []string, whole bool) bool {
	if len(name) == 0 {
		return false
	}
	q := strings.Fields(question)
	for i := 0; i+len(name) <= len(q); i++ {
		match := true
		for k, w := range name {
			match = match && strings.EqualFold(strings.Trim(q[i+k], `?,.;:"'“”‘’()`), w)
		}
		if !match {
			continue
		}
		if whole && i > 1 && !closesClause(q[i-1]) && text.IsCapitalised(strings.Trim(q[i-1], `"'“”‘’(`)) {
			continue
		}
		last := q[i+len(name)-1]
		if i+len(name) == len(q) || strings.ContainsAny(last[len(last)-1:], "?,.;:") {
			return true
		}
		next := strings.Trim(q[i+len(name)], `"'“”‘’()`)
		if next == "" || !text.IsCapitalised(next) && !strings.ContainsAny(next[:1], "0123456789") {
			return true
		}
	}
	return false
}

// questionWords are the words of a question (text.Words), which askedWord reads an answer's
// words against.
func questionWords(question string) map[string]bool {
	asked := map[string]bool{}
	for _, w := range text.Words(question) {
		asked[w] = true
	}
	return asked
}

// askedWord reports whether w, a word of an answer, is the question's (asked holds its
// questionWords): each of its parts ("A-1" is "a" and "1"), as written or as an
// inflection of a question word of four letters or more ("appeared" for "appear", "founded" for
// "found", "married" for "marry"). A relay run refused "Aniplex founded A-1 Pictures" to "Which
// company founded the animation studio A-1 Pictures?", "Doctor Stephen Strange first appeared
// in Strange Tales, ..." to "... did Doctor Stephen Strange first appear?", and "Empress Matilda
// married Henry V, ..." to "Whom did Empress Matilda marry first, ...?".
func askedWord(asked map[string]bool, w string) bool {
	parts := text.Words(w)
	if len(parts) == 0 {
		return asked[w]
	}
	for _, part := range parts {
		if asked[part] || slices.ContainsFunc(inflections, func(in inflection) bool {
			stem := strings.TrimSuffix(part, in.ending)
			return stem != part && len(stem+in.base) >= 4 && asked[stem+in.base]
		}) || slices.ContainsFunc(irregularVerbs, func(forms []string) bool {
			return slices.Contains(forms, part) && slices.ContainsFunc(forms, func(f string) bool { return asked[f] })
		}) {
			continue
		}
		return false
	}
	return true
}

// irregularVerbs are the forms of verbs whose past tense or participle is no inflection
// askedWord reads: "Take Me High was written by ..." answers "Who wrote ...?" (a relay run,
// EX-FEVER 2721-2800, refused it).
var irregularVerbs = [][]string{
	{"write", "writes", "wrote", "written"}, {"sing", "sings", "sang", "sung"}, {"begin", "begins", "began", "begun"},
	{"take", "takes", "took", "taken"}, {"give", "gives", "gave", "given"}, {"win", "wins", "won"},
	{"lead", "leads", "led"}, {"make", "makes", "made"}, {"draw", "draws", "drew", "drawn"},
	{"grow", "grows", "grew", "grown"}, {"fight", "fights", "fought"}, {"build", "builds", "built"},
	{"buy", "buys", "bought"}, {"sell", "sells", "sold"}, {"hold", "holds", "held"},
	{"speak", "speaks", "spoke", "spoken"}, {"choose", "chooses", "chose", "chosen"},
	{"become", "becomes", "became"}, {"teach", "teaches", "taught"}, {"run", "runs", "ran"},
	{"bear", "bears", "bore", "born", "borne"}, {"fly", "flies", "flew", "flown"},
	{"see", "sees", "saw", "seen"}, {"know", "knows", "knew", "known"}, {"throw", "throws", "threw", "thrown"},
	{"leave", "leaves", "left"}, {"lose", "loses", "lost"}, {"meet", "meets", "met"}, {"find", "finds", "found"},
}

// An inflection is an ending askedWord reads an answer's word under: the word without ending,
// with base in its place, is the question's word ("married" without "ied", with "y": "marry").
type inflection struct{ ending, base string }

var inflections = []inflection{{"s", ""}, {"es", ""}, {"ed", ""}, {"d", ""}, {"ing", ""}, {"ied", "y"}, {"ies", "y"}}

// closesClause reports whether word ends a clause: a comma, semicolon or colon after it.
func closesClause(word string) bool { return strings.ContainsAny(word[len(word)-1:], ",;:") }

// clauseEnd is where the clause that words[:to] ends in ends: to when words[to-1] closes it,
// else after the first word from to on that does, or at the end.
func clauseEnd(words []string, to int) int {
	end := to
	if !closesClause(words[to-1]) {
		for end < len(words) {
			end++
			if closesClause(words[end-1]) {
				break
			}
		}
	}
	return end
}

// secondAsk is a question's second ask after a comma or "and" ("Who was the father of George VI,
// and which throne did he ascend?", "... and in what year was it released?"): its answer gives
// the first ask's name in its first clause and the second's after it. In a relay run (EX-FEVER
// 1601-1680) 57 of cove2's 365 verification questions asked two things.
var secondAsk = regexp.MustCompile(`(?i)(,|\band)\s+(and\s+)?((in|on|at|for|from|by|to|of|with|under)\s+)?(what|which|who|whom|whose|when|where|how|why)\b`)

// secondClauseOpeners open the clause of an answer that answers a question's second ask, after
// the name that answers its first: "George V, who ascended ...".
var secondClauseOpeners = text.WordSet("who which where when and")

// describesName reports whether words, right after a name and the comma that ends it, describe
// that name, an apposition the answer adds: a noun phrase ("a Westmoor comedy-drama series
// created by Ada Brook", "the ..."), a participle with its agent ("directed by Ada Brook") or a
// relative clause ("who ...", "which ...", "whose ..."). "and ..." or another name there is a
// second answer, and is read.
func describesName(words []string) bool {
	if len(words) == 0 {
		return false
	}
	first := strings.ToLower(words[0])
	switch first {
	case "a", "an", "the", "who", "which", "whose":
		return true
	}
	return len(words) > 1 && len(first) > 4 && strings.HasSuffix(first, "ed") && strings.ToLower(words[1]) == "by"
}

// calledName is the name an answer gives after "called", "named" or "known as" (an article
// aside), the index of that verb and the index after the name; nil when it gives none so.
func calledName(words []string) (name []string, verbAt, to int) {
	for i, w := range words {
		at := i + 1
		switch strings.ToLower(w) {
		case "called", "named":
		case "known":
			if at >= len(words) || strings.ToLower(words[at]) != "as" {
				continue
			}
			at++
		default:
			continue
		}
		if at < len(words) {
			switch strings.ToLower(words[at]) {
			case "the", "a", "an":
				at++
			}
		}
		if at >= len(words) {
			return nil, 0, 0
		}
		run := openingName(strings.Join(words[at:], " "))
		if len(run) == 0 {
			return nil, 0, 0
		}
		return run, i, at + len(run)
	}
	return nil, 0, 0
}

// maxEchoWords bounds the sentence echoedName reads.
const maxEchoWords = 60

// bracketed is a part of an answer in brackets, with the space before it.
var bracketed = regexp.MustCompile(`\s*\([^()]*\)`)

// readsAsSentence reports whether answer has a verb of being or having or a relative pronoun in
// lower case ("was", "has", "who"): a title writes them capitalised ("The Man Who Was
// Thursday"). "John Reed, who chronicled the October Revolution in Russia", held word for word
// by its passage, had become a bridge.
func readsAsSentence(answer string) bool {
	return slices.ContainsFunc(strings.Fields(answer), func(w string) bool { return sentenceWords[w] })
}

// sentenceWords are the words readsAsSentence looks for, as written.
var sentenceWords = text.WordSet("is are was were has have had who which whose")

// withoutEchoedPreposition is answer without the preposition it opens with, and the lower-case
// article after it, when its question opens with the same preposition: "Against the Saxons" to
// "Against which invaders did King Arthur lead the defence of Britain?" is "Saxons" (a relay run
// asked "What was the ethnic or linguistic origin of the Against the Saxons?"). A title that
// opens with a preposition ("On the Road") is kept when the question does not open with it.
// answer itself otherwise.
func withoutEchoedPreposition(answer, question string) string {
	first, rest, ok := strings.Cut(answer, " ")
	asked, _, _ := strings.Cut(strings.TrimSpace(question), " ")
	if !ok || !prepositions[strings.ToLower(first)] || !strings.EqualFold(first, asked) || strings.TrimSpace(rest) == "" {
		return answer
	}
	rest = strings.TrimSpace(rest)
	// The article after it is the question's, written in lower case ("of the {c2}").
	if article, name, ok := strings.Cut(rest, " "); ok && (article == "the" || article == "a" || article == "an") {
		rest = name
	}
	return rest
}

// prepositions are the ones a question may open with ("In which year", "Against which
// invaders", "By whom").
var prepositions = text.WordSet("against at by for from in into of on to under with within")

// withoutAttribution is answer without the words that say where the verifier read it, when it
// opens with them ("According to the only relevant source, True Grit is ...", "According to
// source 2, Slayer (an American thrash metal band) ..."): they say where, not what, and hide the
// name the answer opens with. answer itself when it opens otherwise.
func withoutAttribution(answer string) string {
	if loc := attribution.FindStringIndex(answer); loc != nil {
		return answer[loc[1]:]
	}
	return answer
}

// attribution is an answer's opening "According to the source," or the like.
var attribution = regexp.MustCompile(`^(?i:according to|as stated in|per)\s+(?i:the\s+|its\s+)?(?:[\pL-]+\s+){0,3}?` +
	`(?i:source|sources|evidence|passage|page|article)(?:\s*\[?\d+\]?)?\s*,\s*`)

// answerHeadBreaks end the name an answer opens with: the verifier writes the name, then where
// it read it ("The Nosebleeds. The sources say ...", "Disney — Tarzan, in which ...", "Man of
// Steel, the 2013 Superman film, ...", "The United States Census Bureau (the source ...").
var answerHeadBreaks = []string{". ", ", ", " — ", " – ", " - ", ": ", "; ", " ("}

// maxHeadWords bounds the name an answer opens with.
const maxHeadWords = 8

// answerHead is the name answer opens with, before its first break, or "" when what comes
// before it reads as no name: every word capitalised (or a digit, or a small word inside a
// title: "Attack of the Show!", "Falcon 9"), the first one capitalised or a number before a
// capitalised word ("30 Rock"), at most maxHeadWords.
// A full stop after an initial ("Mary J. Blige") is no break. It is a candidate only:
// verifiedBridge takes it when the cited passage holds it, as it would the whole answer.
func answerHead(answer string) string {
	end := headEnd(answer)
	if end <= 0 {
		return ""
	}
	if head := strings.TrimSpace(answer[:end]); readsAsName(head) {
		return head
	}
	return ""
}

// readsAsName reports whether s reads as a name: at most maxHeadWords words, the first
// capitalised or a number before a capitalised word ("30 Rock", "10 Cloverfield Lane"; a relay
// run refused "30 Rock, a comedy series: ..."), every other capitalised, a digit or a small word
// inside a title, and no verdict ("Yes").
func readsAsName(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > maxHeadWords || notNames[strings.ToLower(s)] {
		return false
	}
	first := strings.TrimLeft(words[0], `"'“‘`)
	numbered := len(words) > 1 && strings.Trim(first, "0123456789") == "" && text.IsCapitalised(words[1])
	if !text.IsCapitalised(first) && !numbered {
		return false
	}
	for _, w := range words[1:] {
		bare := strings.TrimLeft(w, `"'“‘`)
		if !text.IsCapitalised(bare) && !text.IsTitleMinorWord(bare) && !strings.ContainsAny(bare, "0123456789") {
			return false
		}
	}
	return true
}

// headEnd is where the name an answer may open with ends: at its first break (answerHeadBreaks;
// a full stop after an initial, "Mary J. Blige", is none), or -1 when it has none.
func headEnd(answer string) int {
	end := -1
	for _, br := range answerHeadBreaks {
		if i := breakAt(answer, br); i >= 0 && (end < 0 || i < end) {
			end = i
		}
	}
	return end
}

// breakAt is where br first occurs in answer, a full stop after an initial ("Mary J. Blige")
// or after a name's suffix before a bracket ("Max Baer Jr. (Maximilian ...)") not counting as
// one, or -1.
func breakAt(answer, br string) int {
	from := 0
	for {
		i := strings.Index(answer[from:], br)
		if i < 0 {
			return -1
		}
		if i += from; br != ". " || !initialBefore(answer[:i]) && !(suffixBefore(answer[:i]) && strings.HasPrefix(answer[i+len(br):], "(")) {
			return i
		}
		from = i + len(br)
	}
}

// answerNames is the name an answer written as a sentence opens with, when its question does
// not hold it: "Henry Cavill played Sherlock Holmes in the Netflix film Enola Holmes (2020)" to
// "Which actor played Sherlock Holmes in Enola Holmes?" gives "Henry Cavill". In a relay run
// (EX-FEVER 881-960) 10 of the 23 answers refused as bridges were such sentences. The name is
// the run of capitalised words the answer opens with before its first break (headEnd, the
// breaks answerHead reads; openingName), not opened by a small word other than an article, of
// two words or more besides an article ("Falcon 9"), or with a capitalised word after its
// first ("The Beatles"): one capitalised word opening a sentence may be any word ("Democratic
// socialism: ...", "In 1986 ..."); and not all of its words the question's. A name inside the sentence is not taken: in the same
// run the one such name was the answer once ("... made her film debut in the 1986 film Lucas")
// and not it three times (a discoverer named after the drug, "The source says Inhumans was
// created by Scott Buck, a person rather than a company"). It is followed by its words before
// "of", when they are two or more and open with no article ("Philip IV" of "Philip IV of
// France", for a passage that writes "Philip IV was King of France"). They are candidates
// only: verifiedBridge takes one when a cited passage holds it as whole words, as it would the
// whole answer.
func answerNames(answer, question string) []string {
	asked := questionWords(question)
	clause := answer
	if end := headEnd(answer); end > 0 {
		clause = answer[:end]
	}
	name := openingName(clause)
	if len(name) < 2 { // one capitalised word opening a sentence may be any word
		return nil
	}
	// An article may open a name ("The Beatles"); another small word opens a phrase ("In
	// 1986", "On Ostmoor Island").
	rest := name
	if first := strings.ToLower(name[0]); text.IsTitleMinorWord(first) {
		if first != "the" && first != "a" && first != "an" {
			return nil
		}
		rest = name[1:]
	}
	if len(rest) < 2 && !slices.ContainsFunc(name[1:], func(w string) bool { return text.IsCapitalised(w) && !nameJoiners[strings.ToLower(w)] }) {
		return nil
	}
	if !slices.ContainsFunc(name, func(w string) bool {
		return !text.IsTitleMinorWord(strings.ToLower(w)) && !askedWord(asked, strings.ToLower(w))
	}) {
		return nil // the question's own name, as the answer's subject
	}
	out := []string{strings.Join(name, " ")}
	if of := slices.Index(name, "of"); of >= 2 && !nameJoiners[strings.ToLower(name[0])] {
		out = append(out, strings.Join(name[:of], " "))
	}
	return out
}

// openingName is the run of capitalised words clause opens with, or nil: "of" and "the" join
// the words of a name ("Philip IV of France", "Attack of the Tides"), a number follows one
// ("Falcon 9") or opens it before a capitalised word ("20th Century Fox", as readsAsName reads
// "30 Rock"; a relay run refused "20th Century Fox distributed Keeping Up with the Joneses
// (2016)."), and the run ends at any other word, at punctuation after a word and at a
// possessive ("Bruce Willis's career"); its trailing "of" and "the" are dropped.
func openingName(clause string) []string {
	var run []string
	fields := strings.Fields(clause)
	for i, raw := range fields {
		w := strings.Trim(raw, `"'“”‘’()[],;:`)
		if i == 0 && i+1 < len(fields) && w == raw && numberWord(w) && text.IsCapitalised(fields[1]) {
			run = append(run, w)
			continue
		}
		possessive := false
		for _, suffix := range []string{"'s", "’s"} {
			if strings.HasSuffix(w, suffix) {
				w, possessive = strings.TrimSuffix(w, suffix), true
			}
		}
		joins := len(run) > 0 && (nameJoiners[strings.ToLower(w)] ||
			strings.ContainsAny(w, "0123456789") && !nameJoiners[strings.ToLower(run[len(run)-1])])
		if w == "" || !text.IsCapitalised(w) && !joins {
			break
		}
		run = append(run, w)
		if possessive || strings.ContainsAny(raw[len(raw)-1:], `,;:)"”’`) {
			break
		}
	}
	for len(run) > 0 && nameJoiners[strings.ToLower(run[len(run)-1])] {
		run = run[:len(run)-1]
	}
	return run
}

// numberWord reports whether w is a number written in digits, or an ordinal so written ("20th",
// "1st"; text.OrdinalWord reads "first" too, which is a word, not a number).
func numberWord(w string) bool {
	_, ordinal := text.OrdinalWord(w)
	return text.IsNumber(w) || ordinal && w != "" && w[0] >= '0' && w[0] <= '9'
}

// answerPhrase is the short phrase an answer opens with before its first break when that is no
// title: the verifier naming a kind, a genre or an event and then saying where it read it
// ("Rock music. Led Zeppelin was ...", "The conquest of Ceuta, which marks ...", "Romantic crime
// film — i.e., ..."), or a title it quotes ("\"Art for art's sake\", a French slogan ..."). In a
// relay run (EX-FEVER 1201-1280) 6 of the 15 answers refused as bridges opened so. The phrase
// has at most maxPhraseWords words, the first capitalised and no indefinite article (in "A
// Broadway musical: the 1998 musical ..." the verifier names the kind before the name), and none
// of them a verb of being or having, a pronoun, a negation or "source": a short sentence about
// the sources is no value; nor is a name, then a word of no title, then a name ("Ostmoor borders
// Westmoor"). A candidate only, as answerHead's is.
func answerPhrase(answer string) string {
	end := headEnd(answer)
	if end <= 0 {
		return ""
	}
	head := strings.TrimSpace(answer[:end])
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}} {
		if inner, ok := strings.CutPrefix(head, q[0]); ok && strings.HasSuffix(inner, q[1]) {
			inner = strings.TrimSpace(strings.TrimSuffix(inner, q[1]))
			if n := len(strings.Fields(inner)); n > 0 && n <= maxHeadWords {
				return inner
			}
			return ""
		}
	}
	words := strings.Fields(head)
	if len(words) == 0 || len(words) > maxPhraseWords || !text.IsCapitalised(words[0]) {
		return ""
	}
	article := false
	for i, w := range words {
		lower := strings.ToLower(strings.Trim(w, `"'“”‘’`))
		if notInPhrase[lower] || i == 0 && (lower == "a" || lower == "an") {
			return ""
		}
		article = article || i == 0 && lower == "the"
		// A name, a word of no title and a name: a sentence ("Ostmoor borders Westmoor").
		if i > 0 && !article && !text.IsCapitalised(w) && !text.IsTitleMinorWord(lower) &&
			slices.ContainsFunc(words[i+1:], text.IsCapitalised) {
			return ""
		}
	}
	return head
}

// maxPhraseWords bounds the phrase an answer opens with (answerPhrase).
const maxPhraseWords = 5

// notInPhrase are the words that make what an answer opens with a sentence rather than a value
// (answerPhrase).
var notInPhrase = text.WordSet("is are was were be been being has have had do does did it its he she they them his her " +
	"their this that these those there here not no none unknown unclear unable source sources yes")

// nameJoiners are the small words inside a name.
var nameJoiners = text.WordSet("of the")

// notNames are the answers that open with a verdict rather than a name ("Yes. The source says
// ...").
var notNames = text.WordSet("yes no none unknown unclear true false both neither")

// withoutArticle is value without its opening article ("The", "A", "An"), and whether it had one.
func withoutArticle(value string) (string, bool) {
	first, rest, ok := strings.Cut(value, " ")
	switch strings.ToLower(first) {
	case "the", "a", "an":
		return rest, ok && strings.TrimSpace(rest) != ""
	}
	return "", false
}

// initialBefore reports whether s ends with an initial, a single capital letter ("Mary J"). It
// reads only s's last word: breakAt asks it at every full stop of an answer.
func initialBefore(s string) bool {
	last := lastWord(s)
	return len(last) == 1 && text.IsCapitalised(last)
}

// suffixBefore reports whether s ends with a name's suffix written with a full stop ("Max Baer
// Jr"). The full stop after it ends no sentence when a bracket follows: a relay run's "Max Baer
// Jr. (Maximilian Adalbert Baer Jr.) played Jethro Bodine" had been read as the head "Max Baer
// Jr", and the full name in its bracket, the one its passage wrote, was lost.
func suffixBefore(s string) bool {
	last := lastWord(s)
	return last == "Jr" || last == "Sr"
}

// lastWord is the last word of s.
func lastWord(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	return s[strings.LastIndexFunc(s, unicode.IsSpace)+1:]
}

// bridgeUnresolved leaves c unverified, unasked, and flags it on the claim and on the run.
func (r *cove2Run) bridgeUnresolved(c *pipeline.Claim, why string) {
	c.Verdict, c.VariantVerdict = pipeline.VerdictUnverified, ReviewUncertain
	c.Reason = "not verified: " + why + "; its question was not asked"
	c.QueryFlags = append(c.QueryFlags, pipeline.FlagBridgeUnresolved)
	r.flag(pipeline.Flagf(pipeline.FlagBridgeUnresolved, "claim %d: %s; its question was not asked", c.Position, why))
}
