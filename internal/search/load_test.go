package search_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
)

// statsAreExact fails the test unless the BM25 statistics the triggers keep equal a count from
// scratch over the documents table.
func statsAreExact(t *testing.T, b bundle) {
	t.Helper()
	var wrong int
	err := b.pool.QueryRow(context.Background(), `
		WITH truth AS (
			SELECT d.ts_config, l.lexeme, count(*)::int AS documents
			FROM documents d, unnest(tsvector_to_array(d.tsv)) AS l(lexeme)
			GROUP BY 1, 2
		)
		SELECT count(*) FROM truth t FULL JOIN corpus_lexemes c USING (ts_config, lexeme)
		WHERE coalesce(t.documents, 0) <> coalesce(c.documents, 0)`).Scan(&wrong)
	if err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Fatalf("%d lexemes have a wrong document frequency in corpus_lexemes", wrong)
	}
	err = b.pool.QueryRow(context.Background(), `
		WITH truth AS (
			SELECT ts_config, count(*) AS documents, sum(length) AS total_length,
			       sum((SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(tsv) u)) AS recount
			FROM documents GROUP BY ts_config
		)
		SELECT count(*) FROM truth t FULL JOIN corpus_configs c USING (ts_config)
		WHERE (coalesce(t.documents, 0), coalesce(t.total_length, 0)) <> (coalesce(c.documents, 0), coalesce(c.total_length, 0))
		   OR t.total_length <> t.recount`).Scan(&wrong)
	if err != nil {
		t.Fatal(err)
	}
	if wrong != 0 {
		t.Fatalf("%d configurations have wrong totals in corpus_configs", wrong)
	}
}

func TestLoadInsertsThenUpdatesByURL(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	ctx := context.Background()
	first := b.load(t,
		map[string]any{"url": "https://www.BBC.co.uk/news/1#top", "title": "Flood warning", "body": "Rivers rose overnight.", "publisher": "BBC", "published_at": "2024-03-01", "language": "en"},
		map[string]any{"url": "https://lemonde.fr/a", "title": "Inondations", "body": "Les rivières ont monté.", "language": "fr"},
		map[string]any{"url": "https://example.org/c", "body": "A document with a body only.", "published_at": "2024-03-02T10:30:00+02:00"},
	)
	if first.Inserted != 3 || first.Updated != 0 || first.Unchanged != 0 || first.Lines != 3 {
		t.Fatalf("first load: %+v", first)
	}
	statsAreExact(t, b)

	second := b.load(t,
		map[string]any{"url": "https://www.bbc.co.uk/news/1", "title": "Flood warning lifted", "body": "Rivers fell.", "publisher": "BBC", "published_at": "2024-03-01", "language": "en"},
		map[string]any{"url": "https://lemonde.fr/a", "title": "Inondations", "body": "Les rivières ont monté.", "language": "fr"},
		map[string]any{"url": "https://example.org/d", "title": "New"},
	)
	if second.Inserted != 1 || second.Updated != 1 || second.Unchanged != 1 {
		t.Fatalf("second load: %+v", second)
	}
	statsAreExact(t, b)

	var count int
	var title, domain, publisher, language, config string
	var published time.Time
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM documents`).Scan(&count); err != nil || count != 4 {
		t.Fatalf("documents: %d, %v", count, err)
	}
	err := b.pool.QueryRow(ctx, `SELECT title, domain, publisher, published_at, language, ts_config::text FROM documents WHERE url = 'https://www.bbc.co.uk/news/1'`).
		Scan(&title, &domain, &publisher, &published, &language, &config)
	if err != nil {
		t.Fatal(err)
	}
	if title != "Flood warning lifted" || domain != "bbc.co.uk" || publisher != "BBC" || language != "en" || config != "english" ||
		!published.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("updated document: %q %q %q %v %q %q", title, domain, publisher, published, language, config)
	}
	if err := b.pool.QueryRow(ctx, `SELECT ts_config::text FROM documents WHERE url = 'https://lemonde.fr/a'`).Scan(&config); err != nil || config != "french" {
		t.Fatalf("French document indexed with %q (%v)", config, err)
	}

	// Whatever writes the table, the statistics follow: plain SQL updates and deletes too.
	if _, err := b.pool.Exec(ctx, `UPDATE documents SET body = body || ' More rain is expected.' WHERE domain = 'bbc.co.uk'`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM documents WHERE url = 'https://lemonde.fr/a'`); err != nil {
		t.Fatal(err)
	}
	statsAreExact(t, b)
	var french int
	if err := b.pool.QueryRow(ctx, `SELECT coalesce(sum(documents), 0) FROM corpus_configs WHERE ts_config = 'french'::regconfig`).Scan(&french); err != nil || french != 0 {
		t.Fatalf("French documents left: %d (%v)", french, err)
	}
	// The lexemes of the deleted document remain at a frequency of 0, and find nothing.
	resp, err := b.corpus.Search(ctx, pipeline.SearchQuery{Query: "Inondations rivières", Language: "fr"})
	if err != nil || len(resp.Results) != 0 {
		t.Fatalf("a deleted document is found: %+v, %v", resp.Results, err)
	}
	resp, err = b.corpus.Search(ctx, pipeline.SearchQuery{Query: "inondations rain expected", Language: "en"})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].URL != "https://www.bbc.co.uk/news/1" {
		t.Fatalf("after plain SQL updates: %+v, %v", resp.Results, err)
	}
}

func TestLoadKeepsTheLastLineOfARepeatedURL(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	stats := b.load(t,
		map[string]any{"url": "https://example.org/a", "title": "First"},
		map[string]any{"url": "https://example.org/a#again", "title": "Second"},
	)
	if stats.Inserted != 1 || stats.Duplicates != 1 || stats.Documents != 2 {
		t.Fatalf("stats: %+v", stats)
	}
	var title string
	if err := b.pool.QueryRow(context.Background(), `SELECT title FROM documents`).Scan(&title); err != nil || title != "Second" {
		t.Fatalf("title %q, %v", title, err)
	}
}

func TestLoadWithABadLineLoadsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	good := `{"url": "https://example.org/good", "title": "Good", "body": "A good line."}`
	cases := []struct {
		name, line, want string
	}{
		{"not JSON", `{"url": "https://example.org/x", "title": `, "not a complete JSON object"},
		{"not an object", `["https://example.org/x"]`, "not a JSON object but a JSON array"},
		{"no url", `{"title": "No URL"}`, `"url" is missing`},
		{"relative url", `{"url": "/news/1", "title": "Relative"}`, "not an absolute http(s) URL"},
		{"ftp url", `{"url": "ftp://example.org/x", "title": "FTP"}`, "not an absolute http(s) URL"},
		{"no text", `{"url": "https://example.org/x", "title": " ", "body": ""}`, "both empty"},
		{"bad date", `{"url": "https://example.org/x", "title": "T", "published_at": "2024-13-45"}`, `"published_at" "2024-13-45" is not a date`},
		{"bad language", `{"url": "https://example.org/x", "title": "T", "language": "english"}`, `"language" "english" is not an ISO 639-1 code`},
		{"misspelt field", `{"url": "https://example.org/x", "title": "T", "publshed_at": "2024-01-01"}`, `unknown field "publshed_at"`},
		{"wrong type", `{"url": "https://example.org/x", "title": 42}`, `field "title" must be a string`},
		{"two values", `{"url": "https://example.org/x", "title": "T"} {}`, "more than one JSON value"},
		{"huge body", `{"url": "https://example.org/x", "body": "` + strings.Repeat("word ", search.MaxBodyBytes/5+1) + `"}`, "at most 1048576 (1 MiB)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The bad line is line 4: a good line, a blank one, a good one, then it.
			input := good + "\n\n" + strings.Replace(good, "good", "good2", 1) + "\n" + tc.line + "\n" + good + "\n"
			_, err := b.corpus.Load(context.Background(), strings.NewReader(input), search.LoadOpts{})
			var inputErr *search.InputError
			if !errors.As(err, &inputErr) {
				t.Fatalf("want an InputError, got %v", err)
			}
			if len(inputErr.Problems) != 1 || inputErr.Problems[0].Line != 4 || !strings.Contains(inputErr.Problems[0].Problem, tc.want) {
				t.Fatalf("want line 4: %q, got %+v", tc.want, inputErr.Problems)
			}
			if !strings.Contains(err.Error(), "line 4: ") || !strings.Contains(err.Error(), "nothing was loaded") {
				t.Fatalf("message %q", err)
			}
		})
	}
	t.Run("every bad line is reported", func(t *testing.T) {
		input := `{"url": "x"}` + "\n" + good + "\n" + `{"title": "T"}` + "\n" + `nonsense` + "\n"
		_, err := b.corpus.Load(context.Background(), strings.NewReader(input), search.LoadOpts{})
		var inputErr *search.InputError
		if !errors.As(err, &inputErr) {
			t.Fatalf("want an InputError, got %v", err)
		}
		var lines []int
		for _, p := range inputErr.Problems {
			lines = append(lines, p.Line)
		}
		if len(lines) != 3 || lines[0] != 1 || lines[1] != 3 || lines[2] != 4 {
			t.Fatalf("bad lines %v", lines)
		}
	})
	t.Run("a line longer than the bound", func(t *testing.T) {
		input := good + "\n" + strings.Repeat("x", search.MaxLineBytes+10) + "\n"
		_, err := b.corpus.Load(context.Background(), strings.NewReader(input), search.LoadOpts{})
		var inputErr *search.InputError
		if !errors.As(err, &inputErr) || inputErr.Problems[0].Line != 2 || !strings.Contains(err.Error(), "longer than 8 MiB") {
			t.Fatalf("got %v", err)
		}
	})
	var count int
	if err := b.pool.QueryRow(context.Background(), `SELECT count(*) FROM documents`).Scan(&count); err != nil || count != 0 {
		t.Fatalf("%d documents were loaded from bad files (%v)", count, err)
	}
	statsAreExact(t, b)
}

func TestLoadReportsProgress(t *testing.T) {
	t.Parallel()
	b := setup(t, search.CorpusOpts{})
	var input strings.Builder
	for i := range 25 {
		input.WriteString(`{"url": "https://example.org/` + strings.Repeat("p", i+1) + `", "title": "Page"}` + "\n")
	}
	var seen []search.LoadProgress
	stats, err := b.corpus.Load(context.Background(), strings.NewReader(input.String()), search.LoadOpts{
		ProgressEvery: 10,
		Progress:      func(p search.LoadProgress) { seen = append(seen, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Inserted != 25 || len(seen) != 3 || seen[0].Lines != 10 || seen[1].Lines != 20 || !seen[2].Done || seen[2].Documents != 25 {
		t.Fatalf("stats %+v, progress %+v", stats, seen)
	}
}
