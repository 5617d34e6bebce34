package search

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/corroborate/corroborate/internal/testenv"
)

var (
	fuzzConnOnce sync.Once
	fuzzConn     *pgx.Conn
	fuzzConnErr  error
)

// fuzzDB is one connection for the whole fuzz process, with no schema of its own: the query
// builder needs no table, and fuzz workers run as separate processes that must not share one.
func fuzzDB(t *testing.T) *pgx.Conn {
	t.Helper()
	fuzzConnOnce.Do(func() {
		fuzzConn, fuzzConnErr = pgx.Connect(context.Background(), testenv.DatabaseURL(t))
	})
	if fuzzConnErr != nil {
		t.Fatal(fuzzConnErr)
	}
	return fuzzConn
}

// buildQuerySQL runs the corpus's query builder, exactly the expressions Search uses, on @query
// under @cfg: it returns the query's lexemes, their OR as a tsquery, and whether the query's own
// tsvector matches that tsquery.
const buildQuerySQL = `
WITH cfg AS (SELECT @cfg::regconfig AS ts_config),
terms AS (SELECT cfg.ts_config, t.lexeme FROM cfg CROSS JOIN LATERAL ` + queryLexemesSQL + `),
q AS (SELECT (` + orQuery + `)::tsquery AS tsq, count(*) AS n FROM terms)
SELECT q.n, coalesce(numnode(q.tsq), 0), coalesce(to_tsvector(@cfg::regconfig, @query::text) @@ q.tsq, false)
FROM q`

// FuzzBuildQuery holds the query builder to its promise: whatever the text (quotes,
// backslashes, operators, NUL bytes, broken UTF-8, huge input), the built query is valid SQL and a
// valid tsquery, an OR of exactly the text's lexemes that the text itself matches.
func FuzzBuildQuery(f *testing.F) {
	for _, seed := range []string{
		"The Glenn–Thompson Plantation was renovated in 1840.",
		`it's a "quoted" 'word' with \backslashes\ and \'escapes'`,
		"a & b | !c <-> d:* (e) 'f':A",
		"'''' \\\\ '\\'",
		"\x00null\x00bytes",
		"\xff\xfe broken utf-8 \xc3",
		"日本語のテキスト и русский текст",
		"the and of",
		"",
		"https://example.org/path?q=1&x=2 user@example.com 3.14 -site:bbc.co.uk",
		strings.Repeat("long ", 2000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		text := cleanQuery(raw)
		if !utf8.ValidString(text) || strings.ContainsRune(text, 0) || len(text) > MaxQueryBytes {
			t.Fatalf("cleanQuery(%q) = %q: not a valid query text", raw, text)
		}
		conn := fuzzDB(t)
		for _, cfg := range []string{"english", "simple", "french"} {
			var lexemes, nodes int
			var matches bool
			err := conn.QueryRow(context.Background(), buildQuerySQL, pgx.NamedArgs{"cfg": cfg, "query": text}).Scan(&lexemes, &nodes, &matches)
			if err != nil {
				t.Fatalf("%s, %q: %v", cfg, text, err)
			}
			if lexemes == 0 {
				continue
			}
			if nodes != 2*lexemes-1 || !matches {
				t.Fatalf("%s, %q: %d lexemes gave a tsquery of %d nodes, matching its text: %v", cfg, text, lexemes, nodes, matches)
			}
		}
		domains := []string{"a.com", "bbc.co.uk", "very-long-domain-name-for-the-bound.example.org"}
		if q := braveQuery(text, domains); len(q) > braveMaxQuery || len(strings.Fields(q)) > braveMaxWords || !utf8.ValidString(q) {
			t.Fatalf("braveQuery(%q) = %q: over the API's bounds", text, q)
		}
	})
}

// FuzzPlainText: whatever a provider sends, a title or snippet comes out as bounded text with no
// markup left in it.
func FuzzPlainText(f *testing.F) {
	for _, seed := range []string{
		`<b>bold</b> &amp; <script>alert(1)</script> &lt;script&gt;x&lt;/script&gt;`,
		`<<b>script>alert(1)<</b>/script>`,
		`<img src=x onerror=alert(1)`,
		`a < b > c`,
		"\u202eRTL override\u200b zero width",
		`<style>p{}</style><!-- comment --><?xml?><!DOCTYPE html>`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out := plainText(raw, maxSnippetRunes)
		if !utf8.ValidString(out) || utf8.RuneCountInString(out) > maxSnippetRunes {
			t.Fatalf("plainText(%q) = %q: invalid or too long", raw, out)
		}
		for i := 0; i+1 < len(out); i++ {
			if out[i] == '<' && startsTag(out[i+1]) {
				t.Fatalf("plainText(%q) = %q: markup left at byte %d", raw, out, i)
			}
		}
		if strings.ContainsAny(out, "\x00\n\r\t") {
			t.Fatalf("plainText(%q) = %q: control characters left", raw, out)
		}
	})
}
