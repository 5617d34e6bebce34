package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/testenv"
)

// corpus owners add writes source_owners in PostgreSQL; owners list shows it with the seed list;
// a bad domain is exit 2 with what to type instead, and nothing is written.
func TestOwnersAddAndList(t *testing.T) {
	t.Parallel()
	db := testenv.SchemaURL(t, "corpus_owners")
	code, out, errOut := corpusRun(t, "owners", "add", "--database-url", db, "--source", "editor: imprint 2026", "https://www.heraldgroup.example/about", "Herald", "Media", "Group")
	if code != exitOK || strings.TrimSpace(out) != "heraldgroup.example is owned by Herald Media Group" {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	if code, out, errOut = corpusRun(t, "owners", "add", "--database-url", db, "valleytimes.example", "Herald Media Group"); code != exitOK {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"news.bbc.co.uk", "BBC"}, "is a subdomain of bbc.co.uk, and results are looked up by their registrable domain: add bbc.co.uk"},
		{[]string{"co.uk", "Nobody"}, "is a public suffix"},
		{[]string{"10.0.0.1", "Nobody"}, "is an IP address"},
		{[]string{"example.org"}, "give a domain and an organisation"},
		{[]string{"example.org", "  "}, "the organisation is empty"},
	} {
		code, out, errOut := corpusRun(t, append([]string{"owners", "add", "--database-url", db}, c.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("owners add %q: %d %q %q, want exit 2 saying %q", c.args, code, out, errOut, c.want)
		}
	}

	code, out, errOut = corpusRun(t, "owners", "list", "--database-url", db, "--json")
	if code != exitOK {
		t.Fatalf("list: %d %q", code, errOut)
	}
	owners := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		owners[o["domain"].(string)] = o
	}
	if owners["heraldgroup.example"]["organisation"] != "Herald Media Group" || owners["heraldgroup.example"]["source"] != "editor: imprint 2026" ||
		owners["valleytimes.example"]["organisation"] != "Herald Media Group" {
		t.Errorf("added rows: %v %v", owners["heraldgroup.example"], owners["valleytimes.example"])
	}
	if owners["apnews.com"]["organisation"] != "Associated Press" || owners["ap.org"]["organisation"] != "Associated Press" {
		t.Errorf("seed rows: %v %v", owners["apnews.com"], owners["ap.org"])
	}
	if _, ok := owners["bbc.co.uk"]; !ok || owners["co.uk"] != nil {
		t.Errorf("list %v", owners)
	}
	if code, out, _ = corpusRun(t, "owners", "list", "--database-url", db); code != exitOK || !regexp.MustCompile(`(?m)^Herald Media Group +heraldgroup\.example +\d{4}-\d\d-\d\d +editor: imprint 2026$`).MatchString(out) {
		t.Errorf("text list: %d %q", code, out)
	}
	if code, _, errOut = corpusRun(t, "owners", "remove", "x"); code != exitInvalid || !strings.Contains(errOut, `unknown command "remove"`) {
		t.Errorf("unknown subcommand: %d %q", code, errOut)
	}
}
