// Package searcheval measures retrieval: it turns FEVEROUS-S (claims with their gold Wikipedia
// evidence) into a corpus and a query set, runs the queries through any pipeline.Searcher, and
// scores the rankings by MRR@k and recall@k of the gold pages. It also ranks with a plain BM25
// computed in Go over the very tokens PostgreSQL indexed, the reference the corpus must reach.
// `go run ./cmd/corpus eval-feverous` prints the table; a test in this package holds the
// corpus's default ranking to a threshold.
package searcheval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/search"
)

// Claim is one query of the benchmark with the URLs of its gold pages.
type Claim struct {
	ID        int
	Text      string
	Label     string
	Challenge string
	Gold      []string
}

// feverousClaim is one record of feverous_s_dev.json; evidence is "Title<TAB>sentence" lines.
type feverousClaim struct {
	ID        int    `json:"id"`
	Claim     string `json:"claim"`
	Label     string `json:"label"`
	Challenge string `json:"challenge"`
	Evidence  string `json:"evidence"`
}

// DatasetsEnv names the directory that holds the public data sets (feverous-s/,
// factcheck-bench/). They are not the project's and are not in its repository: see
// docs/testing.md for where they come from.
const DatasetsEnv = "CORROBORATE_DATASETS"

// DatasetsUsage is what DatasetsEnv is for, as the commands' --help says it.
const DatasetsUsage = "the folder of the public data sets (feverous-s/, factcheck-bench/): the default of the data-set flags"

// FeverousFile is FEVEROUS-S's path inside the data sets directory.
const FeverousFile = "feverous-s/feverous_s_dev.json"

// FeverousPath returns the default path of FEVEROUS-S: FeverousFile in $CORROBORATE_DATASETS,
// or "" when that is not set (ReadFeverous then says what to set). The commands' flags take
// CORROBORATE_FEVEROUS, or a path, before it.
func FeverousPath() string {
	if dir := os.Getenv(DatasetsEnv); dir != "" {
		return filepath.Join(dir, FeverousFile)
	}
	return ""
}

// feverousHint says how to name the data set.
const feverousHint = "set " + DatasetsEnv + " to the directory that holds " + FeverousFile + ", or CORROBORATE_FEVEROUS to the file"

// ReadFeverous reads the dataset at path: one document per page title (the evidence lines of
// that title across all claims, each once, in order of first appearance, link markup read as
// ReadLinks reads it) and the claims with their gold page URLs.
func ReadFeverous(path string) ([]search.Document, []Claim, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("no FEVEROUS-S data set named: %s", feverousHint)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading FEVEROUS-S: %w (%s)", err, feverousHint)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil, fmt.Errorf("FEVEROUS-S %s is empty: give the JSON array of claims (%s)", path, feverousHint)
	}
	var records []feverousClaim
	if err := json.Unmarshal(raw, &records); err != nil {
		return nil, nil, fmt.Errorf("reading FEVEROUS-S %s: %w", path, err)
	}
	type page struct {
		lines []string
		seen  map[string]bool
	}
	pages := map[string]*page{}
	var order []string
	claims := make([]Claim, 0, len(records))
	for _, r := range records {
		c := Claim{ID: r.ID, Text: r.Claim, Label: r.Label, Challenge: r.Challenge}
		gold := map[string]bool{}
		for _, line := range strings.Split(r.Evidence, "\n") {
			title, sentence, ok := strings.Cut(line, "\t")
			title = strings.TrimSpace(title)
			if !ok || title == "" {
				continue
			}
			p := pages[title]
			if p == nil {
				p = &page{seen: map[string]bool{}}
				pages[title] = p
				order = append(order, title)
			}
			sentence = strings.TrimSpace(ReadLinks(sentence))
			if sentence != "" && !p.seen[sentence] {
				p.seen[sentence] = true
				p.lines = append(p.lines, sentence)
			}
			u := PageURL(title)
			if !gold[u] {
				gold[u] = true
				c.Gold = append(c.Gold, u)
			}
		}
		if len(c.Gold) > 0 {
			claims = append(claims, c)
		}
	}
	docs := make([]search.Document, 0, len(order))
	for _, title := range order {
		docs = append(docs, search.Document{
			URL: PageURL(title), Title: title, Body: strings.Join(pages[title].lines, "\n"),
			Publisher: "Wikipedia", Language: "en",
		})
	}
	if len(claims) == 0 {
		return nil, nil, fmt.Errorf("FEVEROUS-S %s holds no claim with evidence: nothing to measure (is it the right file?)", path)
	}
	return docs, claims, nil
}

// PageURL is the English Wikipedia URL of a page title, normalized as the corpus stores it.
func PageURL(title string) string {
	u := (&url.URL{Scheme: "https", Host: "en.wikipedia.org", Path: "/wiki/" + strings.ReplaceAll(title, " ", "_")}).String()
	if n, err := search.NormalizeURL(u); err == nil {
		return n
	}
	return u
}

var wikiLink = regexp.MustCompile(`\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]`)

// ReadLinks reads Wikipedia link markup as a reader of the page would: [[Target|text]] as its
// text, and where the target names what the text does not, where it leads (text.LinkNote:
// "[[Virtus_Pallacanestro_Bologna|Bologna]]" is "Bologna (link: Virtus Pallacanestro
// Bologna)"); [[Target]] as Target with underscores as spaces. FEVEROUS's annotators chose
// sentences that often name the claim's entity only by a link ("Proofpoint" leading to
// Proofpoint Systems, Inc., whose page the claim's description comes from): the text alone
// would hold the claim's evidence only in part.
func ReadLinks(s string) string {
	return wikiLink.ReplaceAllStringFunc(s, func(m string) string {
		parts := wikiLink.FindStringSubmatch(m)
		if strings.Contains(m, "|") {
			return parts[2] + text.LinkNote(parts[2], parts[1])
		}
		return strings.ReplaceAll(parts[1], "_", " ")
	})
}
