package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/search/searcheval"
	"github.com/corroborate/corroborate/internal/testenv"
)

// corpusRun runs the command and returns its exit status, stdout and stderr.
func corpusRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadThenSearch(t *testing.T) {
	t.Parallel()
	db := testenv.SchemaURL(t, "corpus_cmd")
	docs := writeFile(t, "docs.jsonl", `{"url": "https://example.org/webb", "title": "James Webb Space Telescope", "body": "The telescope was launched on 25 December 2021 from Kourou.", "publisher": "Example", "published_at": "2021-12-26"}
{"url": "https://example.org/hubble", "title": "Hubble Space Telescope", "body": "Hubble was launched in 1990 by the Space Shuttle Discovery.", "language": "en"}
`)
	code, out, errOut := corpusRun(t, "load", "--database-url", db, docs)
	if code != exitOK || !strings.Contains(out, "2 documents loaded: 2 new, 0 updated, 0 unchanged") {
		t.Fatalf("load: %d\n%s%s", code, out, errOut)
	}
	changed := writeFile(t, "changed.jsonl", `{"url": "https://example.org/webb", "title": "James Webb Space Telescope", "body": "Launched on Christmas Day 2021 on an Ariane 5 from Kourou."}
`)
	if code, out, errOut = corpusRun(t, "load", "--database-url", db, changed); code != exitOK || !strings.Contains(out, "1 updated") {
		t.Fatalf("reload: %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = corpusRun(t, "search", "--database-url", db, "--json", "--limit", "5", "--language", "en", "When", "was", "the", "Webb", "telescope", "launched?")
	if code != exitOK {
		t.Fatalf("search: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines, got %q", out)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"url", "title", "snippet", "domain", "rank", "score"} {
		if _, ok := first[field]; !ok {
			t.Errorf("--json line %s has no %q", lines[0], field)
		}
	}
	if first["url"] != "https://example.org/webb" || first["rank"] != float64(1) || !strings.Contains(first["snippet"].(string), "Ariane 5") {
		t.Fatalf("first result %v", first)
	}

	code, out, _ = corpusRun(t, "search", "--database-url", db, "Hubble Discovery")
	if code != exitOK || !strings.HasPrefix(out, " 1. Hubble Space Telescope  (example.org)") || !strings.Contains(out, "https://example.org/hubble") {
		t.Fatalf("text search: %d %q", code, out)
	}
	code, out, _ = corpusRun(t, "search", "--database-url", db, "zeppelin")
	if code != exitOK || strings.TrimSpace(out) != "no results" {
		t.Fatalf("no match: %d %q", code, out)
	}
}

func TestLoadWithABadLineLoadsNothingAndExits2(t *testing.T) {
	t.Parallel()
	db := testenv.SchemaURL(t, "corpus_cmd_bad")
	bad := writeFile(t, "bad.jsonl", `{"url": "https://example.org/ok", "title": "Fine"}
{"url": "https://example.org/bad", "title": "Bad date", "published_at": "yesterday"}
`)
	code, out, errOut := corpusRun(t, "load", "--database-url", db, bad)
	if code != exitInvalid || !strings.Contains(errOut, "line 2: \"published_at\" \"yesterday\" is not a date") || !strings.Contains(errOut, "nothing was loaded") {
		t.Fatalf("load: %d\n%s%s", code, out, errOut)
	}
	code, out, _ = corpusRun(t, "search", "--database-url", db, "Fine")
	if code != exitOK || strings.TrimSpace(out) != "no results" {
		t.Fatalf("the good line of a bad file was loaded: %d %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		code int
		says string
	}{
		{nil, exitInvalid, "Usage: corpus COMMAND"},
		{[]string{"help"}, exitOK, "Commands:"},
		{[]string{"index"}, exitInvalid, `unknown command "index"`},
		{[]string{"load"}, exitInvalid, "no file given"},
		{[]string{"load", "--database-url", "postgres://nobody@127.0.0.1:1/x", "/no/such/file.jsonl"}, exitError, "cannot reach PostgreSQL"},
		{[]string{"search"}, exitInvalid, "no query"},
		{[]string{"search", "--limit", "0", "q"}, exitInvalid, "--limit 0"},
		{[]string{"search", "--ranking", "pagerank", "q"}, exitInvalid, `ranking "pagerank"`},
		{[]string{"search", "--database-url", "", "q"}, exitError, "no database: set DATABASE_URL"},
		{[]string{"search", "--help"}, exitOK, "--json"},
		{[]string{"eval-feverous", "--schema", "public"}, exitInvalid, "--schema"},
		{[]string{"eval-feverous", "--dataset", "/no/such.json"}, exitInvalid, "CORROBORATE_FEVEROUS"},
	}
	for _, tc := range cases {
		code, out, errOut := corpusRun(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.says) {
			t.Errorf("corpus %v: exit %d, want %d saying %q; got\n%s%s", tc.args, code, tc.code, tc.says, out, errOut)
		}
	}
}

func TestEvalFeverousPrintsTheTable(t *testing.T) {
	t.Parallel()
	dataset := testenv.Dataset(t, searcheval.FeverousFile)
	db := testenv.DatabaseURL(t)
	code, out, errOut := corpusRun(t, "eval-feverous", "--dataset", dataset, "--database-url", db, "--schema", "test_corpus_eval", "--limit", "20")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"20 claims, 1957 documents", "| query and ranking | MRR@10 | hit@10 | recall@10 | ms/query |", "plain BM25 computed in Go", "title x3 (the default)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

// eval-feverous on a FEVEROUS-S file of our own (five made-up pages, in the data set's format):
// the command runs on a plain clone.
func TestEvalFeverousOnTheFixture(t *testing.T) {
	t.Parallel()
	code, out, errOut := corpusRun(t, "eval-feverous", "--dataset", "../../internal/search/searcheval/testdata/feverous_fixture.json",
		"--database-url", testenv.DatabaseURL(t), "--schema", "test_corpus_eval_fixture")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"5 claims, 5 documents", "| query and ranking | MRR@10 | hit@10 | recall@10 | ms/query |", "title x3 (the default) | 1.000 | 1.000 | 1.000 |"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}
