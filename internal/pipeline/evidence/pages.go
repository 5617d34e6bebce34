package evidence

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// Bounds of page reading.
const (
	// DefaultPagesPerHop is how many of a hop's kept results have their page read when
	// PageReading.PerHop is 0: every result a hop keeps (multihop keeps three).
	DefaultPagesPerHop = 3
	// PassagesPerPage is how many passages of a page the judge is given: the page's best
	// matches for the claim, not the whole page.
	PassagesPerPage = 3
	// MaxPassageBytes bounds one passage: a paragraph, or the sentences of a long one that fit.
	MaxPassageBytes = 700
)

// PageReading is how the open-book methods read the pages behind the results they keep: a web
// result's page over HTTP (internal/pagefetch), a corpus document from the corpus
// (search.Corpus.ReadPage). The zero value reads nothing: the judge works from the snippets.
type PageReading struct {
	Reader pipeline.PageReader
	// PerHop is how many of a hop's kept results (in rank order) have their page read; 0 means
	// DefaultPagesPerHop.
	PerHop int
}

// Read reads, concurrently, the pages of the first PerHop of kept and gives each read page its
// passages that best match claim (MatchingPassages). Every attempt is kept on its result
// (Retrieved.Page, without its text), read or refused, so that the run stores what it tried; a
// page that could not be read leaves the result with its snippet alone.
func (p PageReading) Read(ctx context.Context, kept []Retrieved, claim string) {
	if p.Reader == nil || len(kept) == 0 {
		return
	}
	n := min(len(kept), cmp.Or(p.PerHop, DefaultPagesPerHop))
	var wg sync.WaitGroup
	for i := range kept[:n] {
		if kept[i].Page != nil || strings.TrimSpace(kept[i].URL) == "" {
			continue
		}
		wg.Go(func() {
			page := p.Reader.ReadPage(ctx, kept[i].URL)
			if page.Read() {
				// What the snippet shows already is not given twice: a corpus document of a
				// few sentences is its own snippet.
				shown := text.FoldForMatch(kept[i].Snippet)
				kept[i].Passages = matchingPassages(page.Text, claim, PassagesPerPage, func(p pipeline.Passage) bool {
					return strings.Contains(shown, text.FoldForMatch(p.Text))
				})
			}
			// The whole text is not kept with the run (its hash says which text it was): a
			// job reading dozens of pages would otherwise hold them all until it is stored.
			page.Text = ""
			kept[i].Page = &page
		})
	}
	wg.Wait()
}

// MatchingPassages splits a page's main text into passages (its paragraphs; a paragraph longer
// than MaxPassageBytes into runs of whole sentences that fit) and returns the n that best match
// claim, in the page's order, each with its byte offsets in text. A passage scores the sum of
// the rarity on this page (inverse document frequency over its passages) of each content word of
// the claim it holds, a word or its stem ("completed", "completion"), so that the sentence naming
// the claim's rare terms comes before one that repeats its common ones. Passages that share no
// word with the claim are never returned.
func MatchingPassages(text, claim string, n int) []pipeline.Passage {
	return matchingPassages(text, claim, n, nil)
}

// matchingPassages is MatchingPassages without the passages skip reports.
func matchingPassages(text, claim string, n int, skip func(pipeline.Passage) bool) []pipeline.Passage {
	claimTerms := uniqueTerms(contentTerms(claim))
	if n <= 0 || len(claimTerms) == 0 {
		return nil
	}
	passages := SplitPassages(text)
	matched := make([][]bool, len(passages))
	df := make([]int, len(claimTerms))
	for i, p := range passages {
		words := contentTerms(p.Text)
		matched[i] = make([]bool, len(claimTerms))
		for j, t := range claimTerms {
			if sharesTerm([]string{t}, words) {
				matched[i][j] = true
				df[j]++
			}
		}
	}
	type scored struct {
		index int
		score float64
	}
	var ranked []scored
	for i := range passages {
		s := 0.0
		for j, ok := range matched[i] {
			if ok {
				s += math.Log(1 + float64(len(passages))/float64(df[j]))
			}
		}
		if s > 0 && (skip == nil || !skip(passages[i])) {
			ranked = append(ranked, scored{i, s})
		}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	ranked = ranked[:min(n, len(ranked))]
	out := make([]pipeline.Passage, len(ranked))
	for k, r := range ranked {
		out[k] = passages[r.index]
	}
	slices.SortFunc(out, func(a, b pipeline.Passage) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

func uniqueTerms(terms []string) []string {
	slices.Sort(terms)
	return slices.Compact(terms)
}

// SplitPassages splits text into passages at blank lines (the paragraphs pagefetch writes), and
// a paragraph longer than MaxPassageBytes into runs of whole sentences of at most that many
// bytes (a sentence longer than that alone is cut at a character boundary). Offsets are bytes
// in text; each passage's Text is text[Start:End].
func SplitPassages(text string) []pipeline.Passage {
	var out []pipeline.Passage
	at := 0
	for para := range strings.SplitSeq(text, "\n\n") {
		start := at
		at += len(para) + 2
		lead := len(para) - len(strings.TrimLeft(para, " \n\t"))
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		start += lead
		for _, s := range sentenceRuns(para, MaxPassageBytes) {
			out = append(out, pipeline.Passage{Start: start + s[0], End: start + s[1], Text: para[s[0]:s[1]]})
		}
	}
	return out
}

// sentenceRuns cuts para into [start, end) runs of whole sentences (text.SentenceEnds) of at
// most limit bytes.
func sentenceRuns(para string, limit int) [][2]int {
	if len(para) <= limit {
		return [][2]int{{0, len(para)}}
	}
	// A sentence ends where text.Sentences ends one, a line break included: a paragraph of
	// lines without full stops (a list, a table's rows) is cut between them, not in a word.
	ends := append(text.SentenceEnds(para), len(para))
	var runs [][2]int
	start, last := 0, 0
	for _, e := range ends {
		switch {
		case e-start <= limit:
			last = e
			continue
		case last > start:
			runs = append(runs, [2]int{start, last})
			start = skipSpace(para, last)
		}
		for e-start > limit { // one sentence longer than the limit: cut it
			cut := start + limit
			for cut > start && !utf8.RuneStart(para[cut]) {
				cut--
			}
			runs = append(runs, [2]int{start, cut})
			start = cut
		}
		last = e
	}
	if last > start {
		runs = append(runs, [2]int{start, last})
	}
	return runs
}

func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i++
	}
	return i
}
