package evaluate

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/corroborate/corroborate/internal/evaluate/datasets"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/cove2"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/search/searcheval"
)

// honestSet is one data set's honest text: its claims and the URLs of its evidence.
type honestSet struct {
	Name   string
	Claims []string
	URLs   []string
}

// runHonest measures the false positives of the integrity rules on honest text (issue 22): the
// query sanitizer over every claim of FEVEROUS-S, factcheck-bench and EX-FEVER used as a query,
// the citation parsers over every evidence URL of those sets written in the reply formats the
// prompts ask for, and the plan validator's claim rules over plans built from factcheck-bench's
// gold claims. It needs no model and no database.
func runHonest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("evaluate honest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("datasets", os.Getenv(searcheval.DatasetsEnv), "the folder of the data sets (feverous-s/, factcheck-bench/, ex-fever/); env "+searcheval.DatasetsEnv)
	every := fs.Int("every", 1, "measure every Nth claim and URL of each set (1: all; a quick run, e.g. under the race detector)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: evaluate honest [--datasets DIR]\n\nRuns the query sanitizer, the citation parsers and the plan rules over the honest text of\nthe data sets and lists every query they change, every URL they break and every plan they refuse.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInvalid
	}
	if *dir == "" {
		fmt.Fprintf(stderr, "evaluate honest: no data sets: set %s or --datasets to the folder that holds feverous-s/, factcheck-bench/ and ex-fever/\n", searcheval.DatasetsEnv)
		return exitInvalid
	}
	if *every < 1 {
		fmt.Fprintf(stderr, "evaluate honest: --every %d: give 1 (all) or more\n", *every)
		return exitInvalid
	}
	sets, err := readHonestSets(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "evaluate honest: %v\n", err)
		return exitInvalid
	}
	for i := range sets {
		sets[i].Claims = everyNth(sets[i].Claims, *every)
		sets[i].URLs = everyNth(sets[i].URLs, *every)
	}
	if *every > 1 {
		fmt.Fprintf(stdout, "(every %dth claim and URL only)\n", *every)
	}
	plans, err := readGoldPlans(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "evaluate honest: %v\n", err)
		return exitInvalid
	}
	reportSanitizer(stdout, sets)
	reportCitations(stdout, sets)
	reportPlanRules(stdout, plans)
	return exitOK
}

func everyNth(xs []string, n int) []string {
	var out []string
	for i := 0; i < len(xs); i += n {
		out = append(out, xs[i])
	}
	return out
}

func readHonestSets(dir string) ([]honestSet, error) {
	var sets []honestSet
	_, claims, err := searcheval.ReadFeverous(filepath.Join(dir, searcheval.FeverousFile))
	if err != nil {
		return nil, err
	}
	fev := honestSet{Name: "FEVEROUS-S"}
	for _, c := range claims {
		fev.Claims = append(fev.Claims, c.Text)
		for _, u := range c.Gold {
			if !slices.Contains(fev.URLs, u) {
				fev.URLs = append(fev.URLs, u)
			}
		}
	}
	sets = append(sets, fev)

	fc := honestSet{Name: "factcheck-bench"}
	path := filepath.Join(dir, datasets.FactcheckBenchFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading factcheck-bench: %w", err)
	}
	defer f.Close()
	err = datasets.EachFactcheckSentence(f, path, func(_ int, _ string, s datasets.FactcheckSentence) error {
		for _, c := range s.Claims {
			if c = strings.TrimSpace(c); c != "" {
				fc.Claims = append(fc.Claims, c)
			}
		}
		for _, us := range s.AutoEvidenceURL {
			for _, u := range us {
				if u = strings.TrimSpace(u); strings.HasPrefix(u, "http") && !slices.Contains(fc.URLs, u) {
					fc.URLs = append(fc.URLs, u)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sets = append(sets, fc)

	ex, err := readExFever(filepath.Join(dir, datasets.ExFeverFile))
	if err != nil {
		return nil, err
	}
	return append(sets, ex), nil
}

// readExFever reads EX-FEVER's claims, and the Wikipedia URLs of its gold entities.
func readExFever(path string) (honestSet, error) {
	set := honestSet{Name: "EX-FEVER"}
	f, err := os.Open(path)
	if err != nil {
		return set, fmt.Errorf("reading EX-FEVER: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return set, fmt.Errorf("reading EX-FEVER %s: %w", path, err)
	}
	if len(rows) < 2 || len(rows[0]) < 4 || rows[0][0] != "claim" || rows[0][3] != "golden entity" {
		return set, fmt.Errorf("EX-FEVER %s: want a header starting claim,explanation,label,golden entity", path)
	}
	for _, r := range rows[1:] {
		set.Claims = append(set.Claims, strings.TrimSpace(r[0]))
		for _, title := range datasets.PythonStrings(r[3]) {
			// As a model writes it, not in the corpus's canonical form: the parsers must read it.
			u := "https://en.wikipedia.org/wiki/" + strings.ReplaceAll(title, " ", "_")
			if !slices.Contains(set.URLs, u) {
				set.URLs = append(set.URLs, u)
			}
		}
	}
	return set, nil
}

// reportSanitizer runs evidence.SanitizeQuery over each claim used as a query, with its claim
// and without one, and lists every query changed beyond normalisation (white space, Unicode
// cleaning), saying whether a capitalised word (a title's or a name's) went.
func reportSanitizer(w io.Writer, sets []honestSet) {
	fmt.Fprintln(w, "Query sanitizer (evidence.SanitizeQuery), every claim used as its own query, checked against its claim")
	fmt.Fprintln(w, "(as cove2 and multihop check every query) and against none (a harder test: no claim words to lean on).")
	fmt.Fprintf(w, "A claim longer than %d bytes is cut to that bound (truncated): counted apart, it is the length rule, not a directive rule.\n", evidence.MaxVerificationQueryBytes)
	var changes []string
	for _, withClaim := range []bool{true, false} {
		total, changed, names, truncated := 0, 0, 0, 0
		for _, set := range sets {
			n := 0
			for _, c := range set.Claims {
				claim := ""
				if withClaim {
					claim = c
				}
				total++
				sq := evidence.SanitizeQuery(c, claim)
				if normalised(sq.Query) == normalised(c) {
					continue
				}
				if sq.Truncated && !sq.Directives && !sq.OffClaim && !sq.Markup {
					truncated++
					continue
				}
				n++
				lost := lostNames(c, sq.Query)
				if lost != "" {
					names++
				}
				changes = append(changes, fmt.Sprintf("  [%s, with claim: %v; %s] %q\n      -> %q%s", set.Name, withClaim, sanitizerReasons(sq), c, sq.Query, lost))
			}
			changed += n
			fmt.Fprintf(w, "  %-16s with claim %-5v %5d queries: %d changed (%.2f%%)\n", set.Name, withClaim, len(set.Claims), n, pct(n, len(set.Claims)))
		}
		fmt.Fprintf(w, "  total, with claim %-5v %5d queries: %d changed (%.2f%%), %d of them removing a capitalised word; %d truncated\n",
			withClaim, total, changed, pct(changed, total), names, truncated)
	}
	for _, c := range changes {
		fmt.Fprintln(w, c)
	}
}

// sanitizerReasons names the rules that changed a query.
func sanitizerReasons(sq evidence.SanitizedQuery) string {
	var out []string
	for _, r := range []struct {
		on   bool
		name string
	}{{sq.Truncated, "truncated"}, {sq.Markup, "markup"}, {sq.Directives, "directive"}, {sq.OffClaim, "off-claim sentence"}} {
		if r.on {
			out = append(out, r.name)
		}
	}
	return strings.Join(out, ", ")
}

func normalised(s string) string {
	return strings.Join(strings.Fields(text.CleanUntrusted(s)), " ")
}

// lostNames names the capitalised words of before that after lost, "" when none.
func lostNames(before, after string) string {
	var lost []string
	have := strings.Fields(after)
	for _, w := range strings.Fields(before) {
		w = text.TrimToWord(w)
		if w == "" || !unicode.IsUpper([]rune(w)[0]) {
			continue
		}
		if !slices.ContainsFunc(have, func(h string) bool { return strings.Contains(h, w) }) {
			lost = append(lost, w)
		}
	}
	if len(lost) == 0 {
		return ""
	}
	return "  (capitalised words lost: " + strings.Join(lost, ", ") + ")"
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// otherSource is a second retrieved source beside each URL under test, so that every format
// also lists two sources.
const otherSource = "https://www.britannica.com/topic/Eiffel-Tower-Paris-France"

// reportCitations writes each evidence URL, in three spellings (as the data set has it,
// percent-encoded, decoded to an IRI), into the reply formats of the prompts (the verifier's
// "Sources:" in the ways models write it, and URLs in a revised text), and checks that the
// parsers give back the retrieved source: cove2.ParseVerification with evidence.Ground for the
// verifier, evidence.StripUnknownURLs for revised texts. Every URL that breaks is listed.
func reportCitations(w io.Writer, sets []honestSet) {
	fmt.Fprintln(w, "\nCitation parsers, every evidence URL in 3 spellings x 6 verifier and 6 revised-text formats:")
	var broken []string
	allURLs, allBroken := 0, 0
	for _, set := range sets {
		n := 0
		for _, u := range set.URLs {
			if bad := urlBreaks(u); bad != "" {
				n++
				broken = append(broken, fmt.Sprintf("  [%s] %s: %s", set.Name, u, bad))
			}
		}
		allURLs += len(set.URLs)
		allBroken += n
		fmt.Fprintf(w, "  %-16s %5d URLs: %d broken\n", set.Name, len(set.URLs), n)
	}
	fmt.Fprintf(w, "  total: %d of %d URLs broken\n", allBroken, allURLs)
	for _, b := range broken {
		fmt.Fprintln(w, b)
	}
}

// urlBreaks returns how u breaks in the reply formats, "" when it round-trips in all.
func urlBreaks(u string) string {
	given := []evidence.Retrieved{
		{SearchResult: pipeline.SearchResult{URL: u, Title: "T", Snippet: "The evidence passage of the page."}},
		{SearchResult: pipeline.SearchResult{URL: otherSource, Title: "B", Snippet: "Another page."}},
	}
	known := []string{u, otherSource}
	for _, spelling := range spellings(u) {
		for _, sources := range []string{
			"- Sources: " + spelling,
			"- Sources: " + spelling + ", " + otherSource,
			"Sources:\n- " + spelling + "\n- " + otherSource,
			"- Sources: <" + spelling + ">",
			"- Sources: [1] " + spelling + " (" + otherSource + ")",
			"**Sources:** " + spelling + ".",
		} {
			reply := "- Answer: x\n- Evidence: \"The evidence passage\"\n" + sources + "\n- Confidence: High"
			g := evidence.Ground(cove2.ParseVerification(reply, given).Refs, given)
			if len(g.Removed) > 0 || !slices.Contains(g.Cited, 0) {
				return fmt.Sprintf("verifier %q read as %v", sources, g.Removed)
			}
		}
		for _, text := range []string{
			"It is so [1] (" + spelling + ").",
			"See " + spelling + ".",
			"It is so ([source](" + spelling + ")).",
			"Sources: " + spelling + ", " + otherSource + ".",
			"\"" + spelling + "\"",
			"<" + spelling + ">",
		} {
			if got, removed := evidence.StripUnknownURLs(text, known); got != text || len(removed) > 0 {
				return fmt.Sprintf("revised text %q became %q", text, got)
			}
		}
	}
	return ""
}

// spellings are u as given, percent-encoded as a browser copies it, and decoded to an IRI.
func spellings(u string) []string {
	out := []string{u}
	if p, err := url.Parse(u); err == nil {
		if s := p.String(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if d, err := url.PathUnescape(u); err == nil && !slices.Contains(out, d) && !strings.ContainsAny(d, " \n") {
		out = append(out, d)
	}
	return out
}
