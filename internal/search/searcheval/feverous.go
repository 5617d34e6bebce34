// Package searcheval measures retrieval: it turns FEVEROUS-S (claims with their gold Wikipedia
// evidence) into a corpus and a query set, runs the queries through any pipeline.Searcher, and
// scores the rankings by MRR@k and recall@k of the gold pages. It also ranks with a plain BM25
// computed in Go over the very tokens PostgreSQL indexed, the reference the corpus must reach.
// `go run ./cmd/corpus eval-feverous` prints the table; a test in this package holds the
// corpus's default ranking to a threshold.
package searcheval

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

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

// DefaultFeverousPath is where the dataset is found from the repository root, as the shared
// datasets README says; CORROBORATE_FEVEROUS overrides it.
const DefaultFeverousPath = "../shared/datasets/feverous-s/feverous_s_dev.json"

// FeverousPath returns the dataset's path: $CORROBORATE_FEVEROUS, else DefaultFeverousPath
// looked up from dir and each of its parents.
func FeverousPath(dir string) string {
	if p := os.Getenv("CORROBORATE_FEVEROUS"); p != "" {
		return p
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, DefaultFeverousPath)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, DefaultFeverousPath)
		}
	}
}

// ReadFeverous reads the dataset at path: one document per page title (the evidence lines of
// that title across all claims, each once, in order of first appearance, link markup reduced to
// its text) and the claims with their gold page URLs.
func ReadFeverous(path string) ([]search.Document, []Claim, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading FEVEROUS-S: %w (set CORROBORATE_FEVEROUS to the path of feverous_s_dev.json)", err)
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
			sentence = strings.TrimSpace(StripLinks(sentence))
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
	return docs, claims, nil
}

// PageURL is the English Wikipedia URL of a page title, normalized as the corpus stores it.
func PageURL(title string) string {
	u := (&url.URL{Scheme: "https", Host: "en.wikipedia.org", Path: "/wiki/" + strings.ReplaceAll(title, " ", "_")}).String()
	if n, err := search.CanonicalURL(u); err == nil {
		return n
	}
	return u
}

var wikiLink = regexp.MustCompile(`\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]`)

// StripLinks reduces Wikipedia link markup to its text: [[Target|text]] to text, [[Target]] to
// Target with underscores as spaces.
func StripLinks(s string) string {
	return wikiLink.ReplaceAllStringFunc(s, func(m string) string {
		parts := wikiLink.FindStringSubmatch(m)
		if strings.Contains(m, "|") {
			return parts[2]
		}
		return strings.ReplaceAll(parts[1], "_", " ")
	})
}
