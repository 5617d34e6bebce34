package multihop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// DefaultIndependenceRules are the source-independence rules of spec 004, used when a job gives
// none.
const DefaultIndependenceRules = "Each hop must target a different source domain or publisher than prior hops in the same chain. " +
	"No hop may query the same URL or document identifier as a previous hop."

// fieldIndependence is the job message field the rules come from.
const fieldIndependence = "options.independence_rules"

// IndependenceRules are a job's source-independence rules in executable form: which parts of a
// source a hop may not share with the earlier hops of its chain. The spec requires rules to cover
// all three, so a parsed rule set has all three on; the fields stay separate because each is its
// own check, in the query (exclusions) and in code (filtering what a provider returned anyway).
type IndependenceRules struct {
	// DistinctDomains: no two hops of a chain use the same domain (subdomains count as their
	// registrable domain: news.example.com is example.com).
	DistinctDomains bool
	// DistinctURLs: no two hops of a chain use the same document (URL, compared without
	// scheme, "www.", fragment and trailing slash).
	DistinctURLs bool
	// DistinctPublishers: no two hops of a chain use the same publisher (case and spacing
	// ignored). A result that names no publisher is kept apart by its domain.
	DistinctPublishers bool
	// Text is the rules in words, for the plan prompt: the job's sentences (or
	// DefaultIndependenceRules), or what a rules object says.
	Text string
}

// ParseIndependenceRules reads options.independence_rules: absent or null gives the spec's
// default; a JSON string is read as sentences (see parseRuleSentences); a JSON object must be
// {"distinct_domains": true, "distinct_urls": true, "distinct_publishers": true}. Rules that do
// not cover domain diversity, URL uniqueness and publisher separation, that allow a hop to reuse
// a source (a self-referencing verification loop), or that cannot be read as checks, are
// rejected with a *RejectedError naming the field and the rule.
func ParseIndependenceRules(raw []byte) (IndependenceRules, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return parseRuleSentences(DefaultIndependenceRules)
	}
	switch raw[0] {
	case '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return IndependenceRules{}, pipeline.Rejected(fieldIndependence, "is not a valid JSON string: "+err.Error())
		}
		return parseRuleSentences(text)
	case '{':
		return parseRuleObject(raw)
	}
	return IndependenceRules{}, pipeline.Rejected(fieldIndependence,
		`must be a sentence or a rules object such as {"distinct_domains": true, "distinct_urls": true, "distinct_publishers": true}`)
}

// objectRulesText is what the structured rules object says, in words for the plan prompt.
const objectRulesText = "Each hop must use a different domain, a different publisher and a different URL than the earlier hops of its chain."

// ruleObjectKeys are the keys of the structured rules object, each one of the three checks.
var ruleObjectKeys = []string{"distinct_domains", "distinct_urls", "distinct_publishers"}

func parseRuleObject(raw []byte) (IndependenceRules, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return IndependenceRules{}, pipeline.Rejected(fieldIndependence, "is not a valid JSON object: "+err.Error())
	}
	var unknown []string
	for k := range obj {
		if !slices.Contains(ruleObjectKeys, k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return IndependenceRules{}, pipeline.Rejected(fieldIndependence, fmt.Sprintf("has unknown keys %s; the keys are %s",
			strings.Join(unknown, ", "), strings.Join(ruleObjectKeys, ", ")))
	}
	var missing []string
	values := map[string]bool{}
	for _, k := range ruleObjectKeys {
		v, ok := obj[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return IndependenceRules{}, pipeline.Rejected(fieldIndependence+"."+k, "must be true or false")
		}
		if !b {
			return IndependenceRules{}, pipeline.Rejected(fieldIndependence+"."+k,
				"is false, which lets a hop reuse a source of an earlier hop: a self-referencing verification loop")
		}
		values[k] = true
	}
	if len(missing) > 0 {
		return IndependenceRules{}, pipeline.Rejected(fieldIndependence, fmt.Sprintf(
			"does not cover %s: the rules must require domain diversity, URL uniqueness and publisher separation",
			strings.Join(missing, ", ")))
	}
	return IndependenceRules{
		DistinctDomains: values["distinct_domains"], DistinctURLs: values["distinct_urls"],
		DistinctPublishers: values["distinct_publishers"], Text: objectRulesText,
	}, nil
}

// The words the sentence grammar knows. A rule sentence names what a hop may not share (a
// dimension: domain, publisher, URL) and either a difference word ("different", "distinct") or
// a reuse word ("same", "reuse") under a negation ("no hop may", "must not").
var (
	domainWords    = text.WordSet("domain domains site sites website websites host hosts hostname hostnames")
	publisherWords = text.WordSet("publisher publishers outlet outlets organization organizations organisation organisations owner owners")
	urlWords       = text.WordSet("url urls uri uris link links document documents page pages doi dois identifier identifiers id ids")
	// genericSourceWords name a source without saying which part of it: "the same source" is the
	// same document, so they stand for URL uniqueness, and only when no dimension word is near.
	genericSourceWords = text.WordSet("source sources evidence result results")
	reuseWords         = text.WordSet("same reuse reuses reused reusing repeat repeats repeated repeating share shares shared sharing identical again")
	differenceWords    = text.WordSet("different differ differs differing distinct unique uniqueness another new independent separate separation other exclude excludes excluded excluding avoid avoids avoided avoiding diverse diversity varied")
	nominalDifference  = text.WordSet("diversity uniqueness separation")
	permitWords        = text.WordSet("may can could might allowed allow allows permitted permit permits ok okay fine acceptable")
	requireWords       = text.WordSet("must shall should required require requires need needs has have each every always only")
	// segmentBreaks end the reach of a negation or a modal: "must use a different domain and
	// must not reuse a URL" is two rules.
	segmentBreaks = text.WordSet("and but while whereas though although however")
	// windowStops end the phrase a difference or reuse word governs: "a different domain than
	// prior hops in the same chain" is about domains, not chains.
	windowStops = text.WordSet("than as from in that which who when if unless within for of to by")
	// alwaysPermissive are phrasings that lift a requirement whatever else the sentence says.
	alwaysPermissive  = regexp.MustCompile(`\b(need not|needn't|do not need to|don't need to|does not need to|doesn't need to|do not have to|don't have to|does not have to|doesn't have to|not required|not necessary|no need|optional|optionally)\b`)
	ruleSentenceSplit = regexp.MustCompile(`[.;!?]+(?:\s+|$)|\n+`)
)

// parseRuleSentences reads independence rules written as sentences. The grammar, per sentence
// (sentences end at . ; ! ? or a newline, clauses at "and", "but", "while", "whereas", "though",
// "however"):
//
//   - a difference word ("different", "distinct", "unique", "new", "independent", "separate",
//     "other than", "exclude", "avoid", "diversity", "uniqueness", "separation") followed (within
//     five words, before "than", "as", "in", ...) or preceded (within three) by dimension words
//     requires those dimensions: "Each hop must target a different domain or publisher",
//     "URL uniqueness". Under a permission ("hops may use different domains") it requires
//     nothing; under a negation ("must not be different") it allows reuse.
//   - a reuse word ("same", "reuse", "repeat", "share", "identical", "again") near dimension
//     words requires those dimensions when a negation comes before it in its clause ("No hop may
//     query the same URL", "must not reuse a publisher"), and allows reuse otherwise ("may reuse
//     the same source", "same domain allowed", "use the same publisher").
//   - "need not", "not required", "optional" and their like always lift a requirement.
//
// Dimension words: domain, site, website, host (domain diversity); publisher, outlet,
// organisation, owner (publisher separation); URL, URI, link, document, page, DOI, identifier,
// id (URL uniqueness); "source", "evidence" and "result" alone stand for the document.
//
// Every sentence must be a rule; a sentence that allows reuse, one the grammar cannot read, or a
// rule set that leaves a dimension uncovered is rejected.
func parseRuleSentences(rules string) (IndependenceRules, error) {
	if strings.TrimSpace(rules) == "" {
		return IndependenceRules{}, pipeline.Rejected(fieldIndependence, "must not be blank")
	}
	covered := map[string]bool{}
	for _, sentence := range ruleSentenceSplit.Split(rules, -1) {
		sentence = strings.TrimSpace(sentence)
		if sentence == "" {
			continue
		}
		dims, permits := readRuleSentence(sentence)
		switch {
		case permits:
			return IndependenceRules{}, pipeline.Rejected(fieldIndependence, fmt.Sprintf(
				"%s allows a hop to reuse a source of an earlier hop, a self-referencing verification loop: "+
					"every hop must use a different domain, publisher and URL than the hops before it", text.Quote(sentence)))
		case len(dims) == 0:
			return IndependenceRules{}, pipeline.Rejected(fieldIndependence, fmt.Sprintf(
				"%s is not a rule this worker can check: each sentence must require different domains, publishers or URLs "+
					"for each hop, as in %q", text.Quote(sentence), DefaultIndependenceRules))
		}
		for d := range dims {
			covered[d] = true
		}
	}
	if len(covered) == 0 {
		return IndependenceRules{}, pipeline.Rejected(fieldIndependence, "must not be blank")
	}
	var missing []string
	for _, d := range []string{"domain diversity", "URL uniqueness", "publisher separation"} {
		if !covered[d] {
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		return IndependenceRules{}, pipeline.Rejected(fieldIndependence, fmt.Sprintf(
			"does not cover %s: the rules must require domain diversity, URL uniqueness and publisher separation, as in %q",
			strings.Join(missing, " and "), DefaultIndependenceRules))
	}
	return IndependenceRules{DistinctDomains: true, DistinctURLs: true, DistinctPublishers: true, Text: rules}, nil
}

// readRuleSentence returns the dimensions a sentence requires and whether it allows reuse.
func readRuleSentence(sentence string) (dims map[string]bool, permits bool) {
	lower := strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(sentence))
	if alwaysPermissive.MatchString(lower) {
		return nil, true
	}
	words := ruleWords(lower)
	dims = map[string]bool{}
	segStart := 0
	for i, w := range words {
		if segmentBreaks[w] {
			// "and" between two dimension words joins them; elsewhere it starts a clause.
			if i == 0 || i+1 == len(words) || !isDimensionWord(words[i-1]) || !isDimensionWord(words[i+1]) {
				segStart = i + 1
			}
			continue
		}
		isReuse, isDiff := reuseWords[w], differenceWords[w]
		if !isReuse && !isDiff {
			continue
		}
		found := dimensionsNear(words, i)
		if len(found) == 0 {
			continue
		}
		negated, permitted, required := false, false, false
		for _, before := range words[segStart:i] {
			negated = negated || text.IsNegation(before) // "not", "never", "nothing", "non-"...
			permitted = permitted || permitWords[before]
			required = required || requireWords[before]
		}
		switch {
		case isReuse && !negated, isDiff && negated:
			return nil, true
		case isDiff && permitted && !required:
			// "Hops may use different domains" requires nothing.
			continue
		}
		for _, d := range found {
			dims[d] = true
		}
	}
	return dims, false
}

// dimensionsNear returns the dimensions named by the words a difference or reuse word at i
// governs: up to five words after it (stopping at a window stop), else up to three before it;
// for the nouns "diversity", "uniqueness" and "separation" the words before it first.
func dimensionsNear(words []string, i int) []string {
	collect := func(ws []string) []string {
		var dims []string
		generic := false
		for _, w := range ws {
			switch {
			case domainWords[w]:
				dims = append(dims, "domain diversity")
			case publisherWords[w]:
				dims = append(dims, "publisher separation")
			case urlWords[w]:
				dims = append(dims, "URL uniqueness")
			case genericSourceWords[w]:
				generic = true
			}
		}
		if len(dims) == 0 && generic {
			dims = append(dims, "URL uniqueness")
		}
		return dims
	}
	// A clause break inside the window ends it, unless it joins dimensions ("a different
	// domain and publisher").
	isDimension := func(j int) bool { return j >= 0 && j < len(words) && isDimensionWord(words[j]) }
	var after []string
	for j := i + 1; j < min(len(words), i+6); j++ {
		w := words[j]
		if windowStops[w] || segmentBreaks[w] && !isDimension(j+1) {
			break
		}
		after = append(after, w)
	}
	var before []string
	for j := i - 1; j >= max(0, i-3); j-- {
		w := words[j]
		if windowStops[w] || segmentBreaks[w] && !isDimension(j-1) {
			break
		}
		before = append(before, w)
	}
	// A noun ("domain diversity", "URL uniqueness") governs the words before it.
	if nominalDifference[words[i]] {
		after, before = before, after
	}
	if dims := collect(after); len(dims) > 0 {
		return dims
	}
	return collect(before)
}

func isDimensionWord(w string) bool {
	return domainWords[w] || publisherWords[w] || urlWords[w] || genericSourceWords[w]
}

// ruleWords splits a lower-cased sentence into words; "can't" and "cannot" become "can not",
// "re-use" becomes "reuse" and a comma separates clauses as "and" does.
func ruleWords(lower string) []string {
	lower = strings.NewReplacer("can't", "can not", "won't", "will not", "n't", " not", "cannot", "can not",
		"re-use", "reuse", "re-using", "reusing", "re-used", "reused", ",", " and ").Replace(lower)
	return text.Tokens(lower, "'")
}

// usedSources are the sources the earlier hops of one chain used, in the order they were used:
// their keys for the checks in code, and the same sources as a query excludes them (registrable
// domains, publishers and organisations, and URLs as the results wrote them, since providers
// match those).
type usedSources struct {
	keys                      []evidence.SourceKeys
	domains, publishers, urls []string
	// held are documents the claim's judge has from elsewhere (a dependency's finding, another
	// claim's): a follow-up hop excludes them, since finding one again adds nothing, but their
	// domains and publishers are another chain's and exclude nothing (hold).
	held []evidence.SourceKeys
}

// hold records a document the claim already has that its chain's hops did not keep (a
// dependency's finding, another claim's, a repeat of an emptied hop); one they kept is in keys.
func (u *usedSources) hold(r pipeline.SearchResult) {
	k := evidence.KeysOf(r)
	if !u.holds(k) && !slices.ContainsFunc(u.keys, k.SameDocument) {
		u.held = append(u.held, k)
	}
}

// holds reports whether k is, or copies, a document recorded by hold.
func (u usedSources) holds(k evidence.SourceKeys) bool {
	return slices.ContainsFunc(u.held, func(h evidence.SourceKeys) bool { return k.SameDocument(h) || k.SameContent(h) })
}

// add records a source the chain used.
func (u *usedSources) add(r pipeline.SearchResult) {
	k := evidence.KeysOf(r)
	u.keys = append(u.keys, k)
	addOnce := func(list *[]string, v string) {
		if v = strings.TrimSpace(v); v != "" && !slices.ContainsFunc(*list, func(x string) bool { return strings.EqualFold(x, v) }) {
			*list = append(*list, v)
		}
	}
	addOnce(&u.domains, k.Domain)
	addOnce(&u.publishers, strings.Join(strings.Fields(r.Publisher), " "))
	addOnce(&u.publishers, strings.Join(strings.Fields(r.Organisation), " "))
	addOnce(&u.urls, r.URL)
}

// merge records every source of o.
func (u *usedSources) merge(o usedSources) {
	u.keys = append(u.keys, o.keys...)
	u.held = append(u.held, o.held...)
	for _, lists := range [][2]*[]string{{&u.domains, &o.domains}, {&u.publishers, &o.publishers}, {&u.urls, &o.urls}} {
		for _, v := range *lists[1] {
			if !slices.Contains(*lists[0], v) {
				*lists[0] = append(*lists[0], v)
			}
		}
	}
}

// conflict says which rule a source with keys k breaks against used, or "" when it breaks none.
// A near-duplicate of a used source's text (a syndicated or copied story) is that source's
// document wherever it is hosted, so URL uniqueness covers it; excludable is false for it alone,
// since no query can exclude a text, so a provider that returns one ignored nothing.
func (r IndependenceRules) conflict(used usedSources, k evidence.SourceKeys) (reason string, excludable bool) {
	for _, u := range used.keys {
		switch {
		case r.DistinctURLs && k.SameDocument(u):
			return "its URL " + k.URL + " was used by an earlier hop", true
		case r.DistinctDomains && k.SameDomain(u):
			return "its domain " + k.Domain + " was used by an earlier hop", true
		}
		if name := k.SamePublisher(u); r.DistinctPublishers && name != "" {
			return "its publisher " + name + " was used by an earlier hop", true
		}
	}
	if r.DistinctURLs {
		for _, u := range used.keys {
			if k.SameContent(u) {
				return "its text is a copy of a source an earlier hop used", false
			}
		}
	}
	return "", false
}

// exclusions are what a hop's query must exclude, given what the chain used before it.
func (r IndependenceRules) exclusions(used usedSources) (domains, publishers, urls []string) {
	if r.DistinctDomains {
		domains = slices.Clone(used.domains)
	}
	if r.DistinctPublishers {
		publishers = slices.Clone(used.publishers)
	}
	if r.DistinctURLs {
		urls = slices.Clone(used.urls)
	}
	for _, h := range used.held {
		if !slices.Contains(urls, h.URL) {
			urls = append(urls, h.URL)
		}
	}
	return domains, publishers, urls
}
