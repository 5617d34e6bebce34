package evidence

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// DefaultAuthoritativeDomains are the primary sources Calibration trusts when it is given none:
// governments and intergovernmental bodies, whose pages are the original publication of what
// they state. A newsroom adds its own (official documentation sites, registries, courts) with
// Deps.AuthoritativeDomains. An entry that starts with "." is a suffix (".gov" takes every
// host under it); any other entry takes that domain and its subdomains.
var DefaultAuthoritativeDomains = []string{
	".gov", ".mil", ".int", ".gov.uk", ".gouv.fr", ".gc.ca", ".gov.au", ".govt.nz", ".gov.ie",
	".bund.de", "europa.eu", "un.org",
}

// Calibration sets the confidence of a verifier's answer by corroboration, in code, as CoVe 2.0
// asks: High needs at least two independent sources that ground the answer (distinct domains,
// as registrableDomain sees them, AND distinct publishers) or one authoritative primary source;
// a single unofficial source, or several that are not independent of one another, is at most
// Medium; no grounding source is Low. The model's stated confidence is a ceiling the evidence
// can only lower: Calibrate never raises it. Its zero value trusts DefaultAuthoritativeDomains.
type Calibration struct {
	// Authoritative lists the primary-source domains; nil means DefaultAuthoritativeDomains.
	Authoritative []string
}

// Calibrated is a calibrated confidence with the reasoning behind it.
type Calibrated struct {
	// Confidence is High, Medium or Low.
	Confidence string
	// Ceiling is the most the evidence allows, whatever the model said.
	Ceiling string
	// Independent are the grounding sources that are independent of one another.
	Independent []pipeline.SearchResult
	// Authoritative are the grounding sources on an authoritative domain.
	Authoritative []pipeline.SearchResult
	// Note says in words why the confidence is what it is.
	Note string
}

// Calibrate returns the confidence a verifier's answer deserves. stated is what the model said
// (High, Medium or Low; anything else counts as Low), grounding the retrieved sources that the
// verifier cited as grounding its answer (never a source no search returned: the caller has
// removed those).
func (c Calibration) Calibrate(stated string, grounding []pipeline.SearchResult) Calibrated {
	out := Calibrated{Independent: IndependentSources(grounding)}
	for _, r := range grounding {
		if c.IsAuthoritative(r) {
			out.Authoritative = append(out.Authoritative, r)
		}
	}
	switch {
	case len(grounding) == 0:
		out.Ceiling = pipeline.ConfidenceLow
		out.Note = "no retrieved source grounds the answer"
	case len(out.Authoritative) > 0:
		out.Ceiling = pipeline.ConfidenceHigh
		out.Note = "an authoritative primary source grounds the answer (" + siteOf(out.Authoritative[0]) + ")"
	case len(out.Independent) >= 2:
		out.Ceiling = pipeline.ConfidenceHigh
		out.Note = fmt.Sprintf("%d independent sources ground the answer (%s)", len(out.Independent), sitesOf(out.Independent))
	case len(grounding) == 1:
		out.Ceiling = pipeline.ConfidenceMedium
		out.Note = "a single unofficial source (" + siteOf(grounding[0]) + ") is at most Medium"
	default:
		out.Ceiling = pipeline.ConfidenceMedium
		out.Note = fmt.Sprintf("%d sources ground the answer but share a domain or publisher (%s), so they count as one: at most Medium",
			len(grounding), sitesOf(grounding))
	}
	out.Confidence = minConfidence(normalConfidence(stated), out.Ceiling)
	switch {
	case stated != out.Confidence && pipeline.ConfidenceRank(stated) > pipeline.ConfidenceRank(out.Confidence):
		out.Note = fmt.Sprintf("the verifier said %s; lowered to %s: %s", stated, out.Confidence, out.Note)
	case normalConfidence(stated) != stated:
		out.Note = fmt.Sprintf("the verifier gave no readable confidence (%q), which counts as Low; %s", text.Truncate(stated, 40), out.Note)
	default:
		out.Note = fmt.Sprintf("the verifier said %s; %s", stated, out.Note)
	}
	return out
}

// OneVoice reports whether a calibration rests on one voice: no authoritative source and fewer
// than two independent ones (FlagSingleSource).
func (c Calibrated) OneVoice() bool {
	return len(c.Authoritative) == 0 && len(c.Independent) < 2
}

// Corroborated is a verdict re-grounded in code on the citations that held.
type Corroborated struct {
	// Verdict is the verdict that stands: the model's, or unverified (with Reason) when the
	// citations do not carry it.
	Verdict string
	// Confidence is the calibrated confidence (Low for unverified); Note says why.
	Confidence, Note string
	// Reason says why the model's verdict was changed; "" when it stands.
	Reason string
	// Grounding are the given-source indices that ground the verdict: the sources cited with
	// the verdict's stance (every held citation for partly_supported).
	Grounding []int
	// Flags are review flags for the run (FlagSingleSource, FlagSourcesConflict); their detail
	// names the sources, and the caller adds which claim.
	Flags []pipeline.ReviewFlag
}

// Corroborate re-grounds a verdict (supported, refuted or partly_supported) on the citations
// that held (Attribute), under the rules of corroboration:
//
//   - agreement: sources corroborate only when cited with the same stance. A supported verdict
//     whose sources take both stances is unverified, with FlagSourcesConflict: a confirmation
//     needs no contradiction beside it. A refuted or partly supported one stands, grounded on
//     the sources of its own stance, at most Medium, with the flag: relay judges refuted "The
//     American film director that made Beetlejuice has produced superhero films" citing the
//     page that names Tim Burton as "supports" and the one saying he "directed but did not
//     produce" them as "refutes", two parts of the claim, not two readings of one fact (5 of
//     5 such refutations in two cohorts, session 45). A citation with no stance takes the
//     verdict's own;
//   - High needs two independent sources of that stance, or one authoritative one; one voice is
//     at most Medium, with FlagSingleSource; no source of that stance is unverified;
//   - the stated confidence is a ceiling (Calibrate), and a verdict that ends at Low is
//     unverified: a Low confirmation confirms nothing, a Low contradiction, of the claim or a
//     part of it, corrects nothing (CoVe 2.0's confidence gate: "count it under Uncertain").
func (c Calibration) Corroborate(verdict, stated string, given []Retrieved, cited []CitedSource) Corroborated {
	own := ""
	switch verdict {
	case pipeline.VerdictSupported:
		own = StanceSupports
	case pipeline.VerdictRefuted:
		own = StanceRefutes
	}
	var supports, refutes, grounding []int
	for _, s := range cited {
		stance := cmp.Or(s.Stance, own)
		switch stance {
		case StanceSupports:
			supports = append(supports, s.Index)
		case StanceRefutes:
			refutes = append(refutes, s.Index)
		}
		if own == "" || stance == own {
			grounding = append(grounding, s.Index)
		}
	}
	out := Corroborated{Verdict: verdict, Grounding: grounding}
	conflict := len(supports) > 0 && len(refutes) > 0
	if conflict {
		out.Flags = append(out.Flags, pipeline.Flagf(pipeline.FlagSourcesConflict, "%s support it, %s refute it",
			numbersOf(supports), numbersOf(refutes)))
	}
	unverified := func(reason string) Corroborated {
		out.Verdict, out.Confidence, out.Reason = pipeline.VerdictUnverified, pipeline.ConfidenceLow, reason
		return out
	}
	switch {
	case conflict && own == StanceSupports:
		return unverified(fmt.Sprintf("the cited sources conflict (%s support the claim, %s refute it), so they settle nothing",
			numbersOf(supports), numbersOf(refutes)))
	case len(grounding) == 0:
		return unverified(fmt.Sprintf("the judge said %s, but no source it cited %s the claim", verdict, own))
	}
	results := make([]pipeline.SearchResult, len(grounding))
	for i, idx := range grounding {
		results[i] = given[idx].SearchResult
	}
	cal := c.Calibrate(stated, results)
	out.Confidence, out.Note = cal.Confidence, cal.Note
	if conflict && out.Confidence == pipeline.ConfidenceHigh {
		out.Confidence = pipeline.ConfidenceMedium
		out.Note += "; lowered to Medium: the cited sources conflict"
	}
	if out.Confidence == pipeline.ConfidenceLow {
		switch verdict {
		case pipeline.VerdictSupported:
			return unverified("the evidence supports the claim only at Low confidence, which is no confirmation: " + out.Note)
		case pipeline.VerdictRefuted:
			return unverified("the evidence contradicts the claim only at Low confidence, which is no ground for a correction: the claim is kept")
		case pipeline.VerdictPartlySupported:
			return unverified("the evidence contradicts part of the claim only at Low confidence, which is no ground for a correction: the claim is kept")
		}
	}
	if cal.OneVoice() {
		out.Flags = append(out.Flags, pipeline.Flagf(pipeline.FlagSingleSource, "%s rests on one voice (%s)", verdict, sitesOf(results)))
	}
	return out
}

// numbersOf names given-source indices as the prompt numbered them: "[1], [3]".
func numbersOf(indices []int) string {
	parts := make([]string, len(indices))
	for i, idx := range indices {
		parts[i] = fmt.Sprintf("[%d]", idx+1)
	}
	return strings.Join(parts, ", ")
}

// IsAuthoritative reports whether r is on one of the calibration's authoritative domains.
func (c Calibration) IsAuthoritative(r pipeline.SearchResult) bool {
	list := c.Authoritative
	if list == nil {
		list = DefaultAuthoritativeDomains
	}
	host := HostOf(r)
	if host == "" {
		return false
	}
	for _, entry := range list {
		entry = strings.ToLower(strings.TrimSpace(entry))
		if u, err := url.Parse(entry); err == nil && u.Host != "" {
			entry = u.Hostname()
		}
		entry = strings.TrimPrefix(entry, "www.")
		if entry == "" || entry == "." {
			continue
		}
		if strings.HasPrefix(entry, ".") {
			if strings.HasSuffix(host, entry) || host == entry[1:] {
				return true
			}
			continue
		}
		if host == entry || strings.HasSuffix(host, "."+entry) {
			return true
		}
	}
	return false
}

// IndependentSources returns the largest run of results, in their order, that are pairwise
// independent: each on a registrable domain, under a publisher or organisation and of a
// document (canonical URL or DOI) that no earlier one in the run had, and whose text is a copy
// (NearDuplicate) of no earlier result at all, kept or not: a copy of a copy is the same voice.
// A result with no domain is left out: nothing says whose it is.
func IndependentSources(results []pipeline.SearchResult) []pipeline.SearchResult {
	var out []pipeline.SearchResult
	var kept, seen []SourceKeys
	for _, r := range results {
		k := KeysOf(r)
		independent := k.Domain != ""
		for _, o := range kept {
			if !independent {
				break
			}
			independent = k.Shared(o) == ""
		}
		for _, o := range seen {
			if !independent {
				break
			}
			independent = !k.SameContent(o)
		}
		seen = append(seen, k)
		if independent {
			kept = append(kept, k)
			out = append(out, r)
		}
	}
	return out
}

// HostOf is a result's lower-case host without "www.", from Domain or else the URL.
func HostOf(r pipeline.SearchResult) string {
	host := r.Domain
	if host == "" {
		if u, err := url.Parse(strings.TrimSpace(r.URL)); err == nil {
			host = u.Hostname()
		}
	}
	return strings.TrimPrefix(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), "."), "www.")
}

func siteOf(r pipeline.SearchResult) string {
	if h := HostOf(r); h != "" {
		return h
	}
	return r.URL
}

func sitesOf(rs []pipeline.SearchResult) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = siteOf(r)
	}
	return strings.Join(names, ", ")
}

// minConfidence returns the lower of two levels.
func minConfidence(a, b string) string {
	if pipeline.ConfidenceRank(a) <= pipeline.ConfidenceRank(b) {
		return normalConfidence(a)
	}
	return normalConfidence(b)
}

// normalConfidence returns c when it is High or Medium, else Low: what an unreadable level counts as.
func normalConfidence(c string) string {
	switch c {
	case pipeline.ConfidenceHigh, pipeline.ConfidenceMedium:
		return c
	default:
		return pipeline.ConfidenceLow
	}
}
