package cove2

import (
	"regexp"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Deep signals: what in a claim's text makes it high-risk, after the specification's table.
const (
	SignalNumber         = "number"
	SignalDate           = "date"
	SignalVersion        = "version"
	SignalAPISignature   = "api_signature"
	SignalNamedReference = "named_reference"
	SignalURL            = "url"
	SignalPackage        = "package"
	SignalRegulated      = "legal_medical_financial"
	SignalFreshness      = "freshness"
)

var (
	signalDate = regexp.MustCompile(`(?i)\b(?:(?:january|february|march|april|june|july|august|september|october|november|december)\b|(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+\d|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?may\b|\bmay\s+\d|(?:1[0-9]|20)\d{2}s?\b|\d{4}-\d{2}-\d{2}|(?:yesterday|last\s+(?:year|month|week)|next\s+(?:year|month))\b|\d{1,2}(?:st|nd|rd|th)\s+century)`)
	// signalNumber: digits, number words but "zero" and "one" ("one of the first" counts
	// nothing), their plurals and the words of proportion.
	signalNumber  = regexp.MustCompile(`(?i)\d|\b(?:` + text.NumberWordPattern("zero", "one") + `|hundreds|thousands|millions|billions|trillions|dozens|percent|half|twice|thrice|double|triple)\b`)
	signalVersion = regexp.MustCompile(`(?i)\bv?\d+\.\d+(?:\.\d+)*\b|\bversions?\b|\breleases?\s+\d|\b(?:alpha|beta|rc)\s*\d`)
	signalAPI     = regexp.MustCompile("[A-Za-z_][\\w.]*\\([^()]{0,80}\\)|\\b\\w+(?:\\.\\w+)+\\(|::|(?:^|\\s)--[a-z][\\w-]+|`[^`]{1,80}`")
	signalURL     = regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+|\b[\w-]+\.(?:com|org|net|io|dev|gov|edu|int|ai|co|app|info)\b`)
	signalPackage = regexp.MustCompile(`(?i)\b[a-z0-9-]+\.[a-z]{2,}/[\w.-]+/[\w.-]+|@[a-z0-9-]+/[a-z0-9.-]+|\b(?:npm|pip|pypi|cargo|crates?\.io|gem|go\s+get|go\s+module|maven|gradle|nuget|composer|apt(?:-get)?|brew|package|library|crate|module)\b`)
	// signalRegulated are words of legal, medical, financial and compliance claims.
	signalRegulated = regexp.MustCompile(`(?i)\b(?:laws?|legal(?:ly)?|illegal|lawful|unlawful|statutes?|statutory|regulations?|regulat(?:ed|ory|or)|courts?|ruling|verdict|lawsuit|sued|liab(?:le|ility)|contracts?|patents?|copyright|trademark|licen[cs]es?|gdpr|hipaa|ccpa|compliance|compliant|constitution(?:al)?|treaty|tax(?:es|ed|ation)?|irs|vat|doses?|dosage|mg|milligrams?|drugs?|medications?|medicines?|prescri(?:be|bed|ption)|treatments?|therap(?:y|ies)|diagnos(?:is|ed|e)|symptoms?|diseases?|disorders?|cancer|vaccines?|vaccinat\w*|infections?|fda|clinical|side\s+effects?|contraindicat\w*|overdose|pregnan\w*|surgery|interest\s+rates?|stocks?|invest\w*|loans?|mortgages?|dividends?|bonds?|inflation|crypto\w*|bitcoin|insurance|pensions?|retirement|401\(k\)|debt|securities|earnings|revenue|profit|gdp|salary|wages?)\b`)
	// sentenceStart finds where sentences start, so that a capitalised first word is not taken
	// for a name.
	sentenceStart = regexp.MustCompile(`(?:^|[.!?:;]\s+|\n\s*)(\p{Lu})`)
	capitalWord   = regexp.MustCompile(`\b\p{Lu}[\p{L}\p{M}'’-]*`)
)

// ClaimSignals returns the deep signals in a claim's text, in a fixed order: numbers, dates,
// versions, API signatures (the most-hallucinated class); named references (capitalised
// multiword names, URLs, packages); legal, medical, financial or
// compliance terms; freshness words. The specification's other two signals, niche content and
// "the user will act on it", cannot be read off the text; the model's tier carries them.
func ClaimSignals(text string) []string {
	var out []string
	add := func(ok bool, signal string) {
		if ok {
			out = append(out, signal)
		}
	}
	add(signalNumber.MatchString(text), SignalNumber)
	add(signalDate.MatchString(text), SignalDate)
	add(signalVersion.MatchString(text), SignalVersion)
	add(signalAPI.MatchString(text), SignalAPISignature)
	add(hasName(text), SignalNamedReference)
	add(signalURL.MatchString(text), SignalURL)
	add(signalPackage.MatchString(text), SignalPackage)
	add(signalRegulated.MatchString(text), SignalRegulated)
	add(evidence.FreshnessWords.MatchString(text), SignalFreshness)
	return out
}

// hasName reports whether text names something the way fabricated references are named: two or
// more capitalised words in a row ("Marie Curie", "the Eiffel Tower", "Journal of Physics" counts
// by its capitalised words), where a capitalised word that only starts a sentence ("In Paris")
// does not count, or an academic "et al.". A single capitalised word ("Paris") is not enough: the
// specification's named references are papers, people, URLs and packages, not every place.
func hasName(text string) bool {
	return etAl.MatchString(text) || len(namesIn(text)) > 0
}

// namesIn returns the names of text as hasName reads them: each run of capitalised words, as
// its words.
func namesIn(text string) [][]string {
	starts := map[int]bool{}
	for _, m := range sentenceStart.FindAllStringSubmatchIndex(text, -1) {
		starts[m[2]] = true
	}
	words := capitalWord.FindAllStringIndex(text, -1)
	var out [][]string
	last := -1 // the index in words of the last word of the last name
	for i := 0; i+1 < len(words); i++ {
		w, next := words[i], words[i+1]
		word := text[w[0]:w[1]]
		if word == "I" || calendarWords[strings.ToLower(word)] || calendarWords[strings.ToLower(text[next[0]:next[1]])] {
			continue
		}
		if starts[w[0]] && evidence.SentenceStarters[strings.ToLower(word)] {
			continue
		}
		if strings.TrimSpace(text[w[1]:next[0]]) != "" {
			continue
		}
		if last == i {
			out[len(out)-1] = append(out[len(out)-1], text[next[0]:next[1]])
		} else {
			out = append(out, []string{word, text[next[0]:next[1]]})
		}
		last = i + 1
	}
	return out
}

var etAl = regexp.MustCompile(`\bet\s+al\.`)

// calendarWords are capitalised without naming a person, a work or a place; a date is its own
// signal.
var calendarWords = text.WordSet(text.MonthNames + " monday tuesday wednesday thursday friday saturday sunday")

// claimTier decides a claim's tier: the model's tier is advice that the code's signals can
// only raise. A claim the model called deep stays deep; a shallow (or untiered) claim with any
// deep signal in its text becomes deep. It returns the tier and, for a raised one, the signals
// that raised it. others are the texts of the plan's other claims.
//
// One signal gives way (issue 22, case 6). Spec 000 makes named references deep ("papers,
// people, URLs, packages: frequently fabricated") and logic/causal relationships shallow; a
// claim the model tiered shallow that reasons ("therefore", "because", "the same", "than")
// about someone the plan's other claims name is both. The logic rule wins there: the name's
// risk, that it is made up, is checked where the name is stated as a fact, by the other claims
// that hold it, and searching the reasoning would verify the person again, not the reasoning.
// A shallow claim has no verification query either, so raising it only turned sound reasoning
// into "unverified". A name no other claim holds is a reference only the reasoning makes, and
// still raises it; so does every other signal (a number or a date in reasoning is a fact of
// its own), and a claim with no logic word is a fact however the model tiered it.
func claimTier(modelTier, text string, others []string) (tier string, raisedBy []string) {
	if modelTier == pipeline.TierDeep {
		return pipeline.TierDeep, nil
	}
	signals := ClaimSignals(text)
	if modelTier == pipeline.TierShallow && logicWords.MatchString(text) && namedElsewhere(text, others) {
		signals = slices.DeleteFunc(signals, func(s string) bool { return s == SignalNamedReference })
	}
	if len(signals) > 0 {
		return pipeline.TierDeep, signals
	}
	return pipeline.TierShallow, nil
}

// logicWords mark a claim that states a logic or causal relationship, or a comparison between
// facts (spec 000's shallow class).
var logicWords = regexp.MustCompile(`(?i)\b(?:therefore|thus|hence|so|because|since|consequently|accordingly|as a result|which means|this means|implies|implied|follows that|led to|leads to|caused|causes|due to|in turn|same|different|differ|both|neither|unlike|than)\b`)

// namedElsewhere reports whether claim names anyone (namesIn), without an "et al." citation, and
// every word of each of its names is a word of one of the other claims (but a logic word that
// opens the sentence before the name: "Therefore Marie Curie").
func namedElsewhere(claim string, others []string) bool {
	names := namesIn(claim)
	if len(names) == 0 || etAl.MatchString(claim) {
		return false
	}
	for _, name := range names {
		held := slices.ContainsFunc(others, func(o string) bool {
			words := text.Tokens(o, "'’-")
			return !slices.ContainsFunc(name, func(w string) bool { return !slices.Contains(words, w) && logicWords.FindString(w) != w })
		})
		if !held {
			return false
		}
	}
	return true
}

// riskWeights rank the signals for the claim cap: irreversible errors first, then the
// most-hallucinated class, then fabricated references and drifting facts.
var riskWeights = map[string]int{
	SignalRegulated: 5,
	SignalNumber:    3, SignalDate: 3, SignalVersion: 3, SignalAPISignature: 3,
	SignalNamedReference: 2, SignalURL: 2, SignalPackage: 2,
	SignalFreshness: 2,
}

// ClaimRisk scores how much is at stake if a claim is wrong, from its deep signals: the sum of
// their weights, with numbers, dates, versions and API signatures counted once as one class,
// and names, URLs and packages once as another.
func ClaimRisk(text string) int {
	classes := map[string]int{}
	for _, s := range ClaimSignals(text) {
		class := s
		switch s {
		case SignalNumber, SignalDate, SignalVersion, SignalAPISignature:
			class = "precise"
		case SignalNamedReference, SignalURL, SignalPackage:
			class = "reference"
		}
		classes[class] = max(classes[class], riskWeights[s])
	}
	score := 0
	for _, w := range classes {
		score += w
	}
	return score
}

// rankByRisk returns the indexes of texts ordered by ClaimRisk, highest first, plan order
// breaking ties, so that a cap keeps the highest-risk claims.
func rankByRisk(texts []string) []int {
	order := make([]int, len(texts))
	risk := make([]int, len(texts))
	for i, t := range texts {
		order[i] = i
		risk[i] = ClaimRisk(t)
	}
	slices.SortStableFunc(order, func(a, b int) int { return risk[b] - risk[a] })
	return order
}
