package multihop

import (
	"errors"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

func TestParseIndependenceRulesAccepts(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		``,
		`null`,
		`"` + DefaultIndependenceRules + `"`,
		`"Each hop must use a different domain, publisher and URL than the hops before it."`,
		`"No hop may reuse a domain. No hop may reuse a publisher. No hop may query the same document twice."`,
		`"Hops must not share a website or an outlet; each hop needs a new link."`,
		`"Domain diversity, publisher separation and URL uniqueness are required."`,
		`"Each hop can't use the same domain or publisher as earlier hops and cannot repeat a URL."`,
		// Every negation of text.IsNegation negates a rule ("non-" was not read).
		`"Hops must use non-repeated domains, publishers and URLs."`,
		`{"distinct_domains": true, "distinct_urls": true, "distinct_publishers": true}`,
	} {
		rules, err := ParseIndependenceRules([]byte(raw))
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if !rules.DistinctDomains || !rules.DistinctURLs || !rules.DistinctPublishers {
			t.Errorf("%s: %+v, want all three checks on", raw, rules)
		}
		if rules.Text == "" || strings.HasPrefix(raw, "{") && rules.Text != objectRulesText {
			t.Errorf("%s: text for the prompt %q", raw, rules.Text)
		}
	}
}

func TestParseIndependenceRulesRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, field, rule string
	}{
		{`"Hops may reuse the same source."`, fieldIndependence, "self-referencing"},
		{`"Each hop must use a different publisher. Same domain allowed. No hop may reuse a URL."`, fieldIndependence, "self-referencing"},
		{`"Each hop must target the same publisher as the first hop."`, fieldIndependence, "self-referencing"},
		{`"Hops need not use different domains, publishers or URLs."`, fieldIndependence, "self-referencing"},
		{`"Each hop must use a different domain and may reuse publishers and URLs."`, fieldIndependence, "self-referencing"},
		{`"Hops must not be different domains, publishers or URLs."`, fieldIndependence, "self-referencing"},
		{`"Be careful and thorough."`, fieldIndependence, "not a rule this worker can check"},
		{`"Each hop must use a different domain. Prevent circular verification."`, fieldIndependence, "not a rule this worker can check"},
		{`"No hop may query the same URL or document identifier as a previous hop."`, fieldIndependence, "does not cover domain diversity and publisher separation"},
		{`"Hops may use different domains, publishers and URLs."`, fieldIndependence, "not a rule this worker can check"},
		{`"   "`, fieldIndependence, "must not be blank"},
		{`42`, fieldIndependence, "must be a sentence or a rules object"},
		{`{"distinct_domains": true}`, fieldIndependence, "does not cover distinct_urls, distinct_publishers"},
		{`{"distinct_domains": true, "distinct_urls": true, "distinct_publishers": false}`, fieldIndependence + ".distinct_publishers", "self-referencing"},
		{`{"distinct_domains": true, "distinct_urls": "yes", "distinct_publishers": true}`, fieldIndependence + ".distinct_urls", "true or false"},
		{`{"distinct_domains": true, "distinct_urls": true, "distinct_publishers": true, "allow_reuse": true}`, fieldIndependence, `unknown keys "allow_reuse"`},
	}
	for _, tt := range tests {
		_, err := ParseIndependenceRules([]byte(tt.raw))
		assertRejected(t, tt.raw, err, tt.field, tt.rule)
	}
}

// assertRejected checks that err is a *RejectedError for field whose rule contains rule.
func assertRejected(t *testing.T, name string, err error, field, rule string) {
	t.Helper()
	var r *pipeline.RejectedError
	if !errors.As(err, &r) || !pipeline.IsRejected(err) {
		t.Errorf("%s: got %v, want a rejection of %s", name, err, field)
		return
	}
	if r.Field != field || !strings.Contains(r.Rule, rule) {
		t.Errorf("%s: rejected %q for %q, want %q for a rule containing %q", name, r.Field, r.Rule, field, rule)
	}
}

func TestIndependenceConflictAndExclusions(t *testing.T) {
	t.Parallel()
	rules, err := ParseIndependenceRules(nil)
	if err != nil {
		t.Fatal(err)
	}
	var used usedSources
	used.add(pipeline.SearchResult{URL: "https://www.news.example.com/a/", Domain: "news.example.com", Publisher: "Example  News"})
	tests := []struct {
		r    pipeline.SearchResult
		want string
	}{
		{pipeline.SearchResult{URL: "https://news.example.com/a", Domain: "news.example.com"}, "URL"},
		{pipeline.SearchResult{URL: "https://blog.example.com/b", Domain: "blog.example.com"}, "domain example.com"},
		{pipeline.SearchResult{URL: "https://other.org/c", Domain: "other.org", Publisher: "example news"}, "publisher example news"},
		{pipeline.SearchResult{URL: "https://other.org/c", Domain: "other.org", Publisher: "Other"}, ""},
		{pipeline.SearchResult{URL: "https://bbc.co.uk/x"}, ""},
	}
	for _, tt := range tests {
		got, _ := rules.conflict(used, evidence.KeysOf(tt.r))
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("conflict(%s) = %q, want %q", tt.r.URL, got, tt.want)
		}
	}
	domains, publishers, urls := rules.exclusions(used)
	if strings.Join(domains, ",") != "example.com" || strings.Join(publishers, ",") != "Example News" || strings.Join(urls, ",") != "https://www.news.example.com/a/" {
		t.Errorf("exclusions = %v %v %v", domains, publishers, urls)
	}
	for host, want := range map[string]string{"news.bbc.co.uk": "bbc.co.uk", "www.example.com": "example.com", "a.b.c.example.org": "example.org", "localhost": "localhost"} {
		if got := evidence.RegistrableDomain(host); got != want {
			t.Errorf("registrableDomain(%q) = %q, want %q", host, got, want)
		}
	}
}
