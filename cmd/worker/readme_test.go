package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/corroborate/corroborate/internal/jobs"
)

// docs/job-message.md carries the job message's JSON Schema for other systems: it must be the one
// the worker validates with.
func TestDocsShowTheMessageSchema(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../docs/job-message.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, bytes.TrimSpace(jobs.SchemaJSON)) {
		t.Fatal("docs/job-message.md does not hold internal/jobs/job.v1.schema.json verbatim: copy it into its JSON Schema section")
	}
}

// The configuration table of docs/operations.md, or the page of the subject under docs/, names
// every variable the worker reads.
func TestDocsNameEveryVariable(t *testing.T) {
	t.Parallel()
	var docs []byte
	pages, _ := filepath.Glob("../../docs/*.md")
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, page...)
	}
	for _, line := range strings.Split(describeFlags(), "\n") {
		i := strings.Index(line, "[$")
		if i < 0 {
			continue
		}
		variable := strings.TrimSuffix(line[i+2:], "]")
		if !bytes.Contains(docs, []byte("`"+variable+"`")) {
			t.Errorf("no page of docs/ documents $%s (docs/operations.md has the configuration table)", variable)
		}
	}
}

// The README is one screen: what the project is, the two commands, a quick start and links; the
// rest lives in docs/, one page whole on each subject.
func TestREADMEIsOneScreen(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(readme, []byte("\n")); lines >= 300 {
		t.Errorf("README.md has %d lines, want under 300: move the detail into a page of docs/", lines)
	}
	if links := markdownLinks(string(readme)); !slices.ContainsFunc(links, func(l string) bool { return strings.HasPrefix(l, "docs/") }) {
		t.Errorf("README.md links no page of docs/ (links: %q)", links)
	}
}

// Every relative link of the README and of docs/*.md names a file that exists, and an anchor a
// heading of that file.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md")
	}
	pages = append(pages, "../../README.md")
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(page, "../../")
		for _, link := range markdownLinks(string(text)) {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(link, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			body, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s links %q: %v", name, link, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(target, ".md") && !slices.Contains(headingAnchors(string(body)), anchor) {
				t.Errorf("%s links %q: no heading of %s has the anchor #%s", name, link, file, anchor)
			}
		}
	}
}

// The link checker itself: inline links outside code, GitHub's heading anchors.
func TestMarkdownLinksAndAnchors(t *testing.T) {
	t.Parallel()
	text := "# Running at the provider's ceiling\n\nSee [a](docs/a.md#x-y) and [`b`](#c).\n" +
		"```\n[not](a-link.md)\n## Not a heading\n```\n`[code](not.md)`\n### `verdict_changes`: every column\n## Twice\n## Twice\n"
	if got, want := markdownLinks(text), []string{"docs/a.md#x-y", "#c"}; !slices.Equal(got, want) {
		t.Errorf("markdownLinks = %q, want %q", got, want)
	}
	want := []string{"running-at-the-providers-ceiling", "verdict_changes-every-column", "twice", "twice-1"}
	if got := headingAnchors(text); !slices.Equal(got, want) {
		t.Errorf("headingAnchors = %q, want %q", got, want)
	}
}

var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// markdownLinks returns the targets of the inline links of a Markdown text, outside fenced code
// blocks and code spans.
func markdownLinks(text string) []string {
	var links []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for i, part := range strings.Split(line, "`") {
			if i%2 == 1 {
				continue // inside a code span
			}
			for _, m := range markdownLink.FindAllStringSubmatch(part, -1) {
				links = append(links, m[1])
			}
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown text: lower case,
// spaces to hyphens, punctuation other than hyphens and underscores dropped, repeats numbered.
func headingAnchors(text string) []string {
	var anchors []string
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor] = n + 1
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		anchors = append(anchors, anchor)
	}
	return anchors
}
