package report

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

// The pages are html/template files: every value they print is escaped for where it lands
// (text, attribute, URL), and a URL with a scheme other than http, https or mailto is replaced.
// Statements, claims, model replies and search results are untrusted; nothing stored is ever
// turned into template.HTML. The pages carry no script at all.
//
//go:embed templates/*.tmpl templates/style.css
var templateFS embed.FS

// site renders the report's pages, for the static report and the live review page alike.
type site struct {
	pages map[string]*template.Template
	css   []byte
}

var funcs = template.FuncMap{
	"verdictLabel": func(v string) string { return strings.ReplaceAll(v, "_", " ") },
	"time":         FormatTime,
	"iso":          func(t time.Time) string { return t.Format(time.RFC3339) },
	"date": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.Format(time.DateOnly)
	},
	"short":   short,
	"failure": plainFailure,
	// unverifiedShown is how many claims a card shows as unverified: the answered checks of a
	// corrected closed-book run are shown as answered instead.
	"unverifiedShown": func(r store.StatementRow) int {
		if r.Corrected {
			return r.Unverified - r.Answered
		}
		return r.Unverified
	},
	"deref": func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	},
	"ms": func(ms float64) string {
		if ms >= 1000 {
			return fmt.Sprintf("%.1f s", ms/1000)
		}
		return fmt.Sprintf("%.0f ms", ms)
	},
	"json": func(raw json.RawMessage) string {
		var b bytes.Buffer
		if json.Indent(&b, raw, "", "  ") != nil {
			return string(raw)
		}
		return b.String()
	},
}

func newSite() (*site, error) {
	s := &site{pages: map[string]*template.Template{}}
	for _, page := range []string{"index", "statement", "trace", "signin"} {
		t, err := template.New(page).Funcs(funcs).ParseFS(templateFS, "templates/layout.tmpl", "templates/"+page+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("report templates: %w", err)
		}
		s.pages[page] = t
	}
	css, err := templateFS.ReadFile("templates/style.css")
	if err != nil {
		return nil, err
	}
	s.css = css
	return s, nil
}

// render writes one page; a page is rendered whole into memory first, so that a failing
// template never sends half a page.
func (s *site) render(w io.Writer, page string, data any) error {
	var b bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&b, "layout", data); err != nil {
		return fmt.Errorf("rendering the %s page: %w", page, err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// links makes the links between pages: relative files for the static report (root "" or "../",
// ext ".html"), absolute paths for the live review page (root "/", no ext).
type links struct {
	root string
	ext  string
	live bool
}

func (l links) Index() string {
	if l.live {
		return l.root
	}
	return l.root + "index.html"
}
func (l links) Statement(id int64) string { return fmt.Sprintf("%sstatements/%d%s", l.root, id, l.ext) }
func (l links) Trace(runID int64) string  { return fmt.Sprintf("%straces/%d%s", l.root, runID, l.ext) }
func (l links) CSS() string               { return l.root + "style.css" }

// page is what the layout needs of every page.
type page struct {
	Title     string
	Links     links
	Live      bool
	Generated string
	// Editing is true on a review page started with authentication; Editor is the signed-in
	// editor ("" when signed out) and CSRF the token its forms carry.
	Editing bool
	Editor  string
	CSRF    string
	// CanRecheck says that the page can publish re-checks; SignIn that editors sign in on the
	// page itself (accounts), not at a proxy.
	CanRecheck bool
	SignIn     bool
}

type indexPage struct {
	page
	Heading    string
	Batch      string
	Summary    store.Summary
	Statements []store.StatementRow
	Total      int
	Form       formValues
	Verdicts   []string
	Statuses   []string
	Page       int
	Prev, Next string
}

// formValues are the live page's filters as the form shows them.
type formValues struct {
	Q, Verdict, Status, From, To string
}

type statementPage struct {
	page
	Statement store.StatementRow
	Draft     string
	Report    string
	Claims    []claimView
	Evidence  []store.EvidenceRow
	Runs      []store.RunBrief
	// Diff is the inline diff of the original text (the draft) and the revised text, when the
	// revision corrected it; nil otherwise, or when the texts are too long to compare.
	Diff []diffPart
	// Verdicts are the verdicts an editor may give.
	Verdicts []string
	// ClaimReviews are the ClaimReview JSON-LD records of its published claims (an editor's
	// verdict stands), embedded in the page when a publisher is configured.
	ClaimReviews []ClaimReview
}

// withClaimReviews adds the ClaimReviews of the page's published claims, when pub is set.
func (sp statementPage) withClaimReviews(pub *Publisher, page store.StatementPage) statementPage {
	if pub == nil {
		return sp
	}
	for _, c := range publishedClaims(page) {
		sp.ClaimReviews = append(sp.ClaimReviews, NewClaimReview(*pub, c))
	}
	return sp
}

// claimView is a claim with the sources it cites and the verdict it had before, if it changed.
type claimView struct {
	store.ClaimRow
	Sources []source
	Change  *store.VerdictChange
	// Decision is the claim's row of editorial_verdicts: the latest editor decision, if any,
	// and the verdict that stands.
	Decision *store.EditorialVerdict
	// Answered marks a check that was answered in a run whose method gives no claim-level
	// verdict and whose revision corrected the text (closed-book CoVe): stored unverified, it is
	// shown as answered, since the correction is in the revised text, not in any one check.
	Answered bool
}

type source struct {
	Number int
	URL    string
	Title  string
	Domain string
}

func newStatementPage(p page, sp store.StatementPage) statementPage {
	out := statementPage{page: p, Statement: sp.Statement, Draft: sp.Draft, Report: sp.Report, Evidence: sp.Evidence, Runs: sp.Runs, Verdicts: store.Verdicts}
	if sp.Statement.Corrected {
		out.Diff = wordDiff(cmp.Or(sp.Draft, sp.Statement.Text), sp.Statement.RevisedText)
	}
	for _, c := range sp.Claims {
		v := claimView{ClaimRow: c}
		v.Answered = sp.Statement.Corrected && c.Verdict == pipeline.VerdictUnverified && c.VariantVerdict == pipeline.CheckAnswered
		citations := slices.Sorted(slices.Values(c.Citations))
		for _, n := range slices.Compact(citations) {
			for _, e := range sp.Evidence {
				if e.SourceNumber != nil && *e.SourceNumber == n {
					v.Sources = append(v.Sources, source{Number: n, URL: e.URL, Title: e.Title, Domain: e.Domain})
					break
				}
			}
		}
		// Citations whose evidence row is missing still show their URL (claim_results has it).
		if len(v.Sources) == 0 {
			for i, u := range c.CitationURLs {
				n := 0
				if i < len(citations) {
					n = citations[i]
				}
				v.Sources = append(v.Sources, source{Number: n, URL: u})
			}
		}
		for i := range sp.Decisions {
			if sp.Decisions[i].Position == c.Position {
				v.Decision = &sp.Decisions[i]
				break
			}
		}
		for i := range sp.Changes {
			if sp.Changes[i].NewPosition == c.Position {
				v.Change = &sp.Changes[i]
				break
			}
		}
		out.Claims = append(out.Claims, v)
	}
	return out
}

type tracePage struct {
	page
	store.Trace
}

// short cuts s to n characters at a word boundary where it can, with an ellipsis.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))*3/4 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}
