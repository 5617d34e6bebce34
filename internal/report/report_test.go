package report

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/corroborate/corroborate/internal/store"
)

// fakeReports holds one statement with one run; anything else is store.ErrNotFound.
type fakeReports struct {
	page store.StatementPage
	// filters are the filters the pages asked for, in order.
	filters []store.ReportFilter
}

func (f *fakeReports) Statements(_ context.Context, rf store.ReportFilter) ([]store.StatementRow, error) {
	f.filters = append(f.filters, rf)
	return []store.StatementRow{f.page.Statement}, nil
}
func (f *fakeReports) CountStatements(context.Context, store.ReportFilter) (int, error) {
	return 1, nil
}
func (f *fakeReports) Summary(context.Context, store.ReportFilter) (store.Summary, error) {
	return store.Summary{Statements: 1}, nil
}
func (f *fakeReports) Statement(_ context.Context, id int64) (store.StatementPage, error) {
	if id != f.page.Statement.StatementID {
		return store.StatementPage{}, store.ErrNotFound
	}
	return f.page, nil
}
func (f *fakeReports) Trace(_ context.Context, runID int64) (store.Trace, error) {
	if runID != f.page.Statement.RunID {
		return store.Trace{}, store.ErrNotFound
	}
	return store.Trace{Run: f.page.Runs[0], StatementID: f.page.Statement.StatementID, Text: f.page.Statement.Text}, nil
}

func intp(n int) *int { return &n }

func newFake() *fakeReports {
	return &fakeReports{page: store.StatementPage{
		Statement: store.StatementRow{StatementID: 7, ExternalID: "a-7", RunID: 70, Text: `<script>alert(1)</script> is what it says`, Status: store.RunDone},
		Claims: []store.ClaimRow{
			{Position: 1, ClaimText: "The tower is in Paris.", Verdict: "supported", Citations: []int{2, 1, 2}},
			{Position: 2, ClaimText: "It opened in 1889.", Verdict: "refuted", Citations: []int{9}, CitationURLs: []string{"https://example.org/gone"}},
		},
		Evidence: []store.EvidenceRow{
			{SourceNumber: intp(1), URL: "https://a.example/1", Title: "One", Domain: "a.example"},
			{SourceNumber: intp(2), URL: "javascript:alert(3)", Title: "Two", Domain: "b.example"},
		},
		Changes: []store.VerdictChange{{NewPosition: 2, OldVerdict: "supported", NewVerdict: "refuted"}},
		Runs:    []store.RunBrief{{RunID: 70, Status: store.RunDone, RetryOf: "cli:first-try"}},
	}}
}

func TestStatementPageJoinsCitationsToSources(t *testing.T) {
	t.Parallel()
	sp := newStatementPage(page{}, newFake().page)
	if len(sp.Claims) != 2 {
		t.Fatalf("claims: %+v", sp.Claims)
	}
	// Citations are sorted and counted once, and each names its evidence row.
	first := sp.Claims[0]
	if len(first.Sources) != 2 || first.Sources[0].Number != 1 || first.Sources[1].Number != 2 || first.Sources[0].Domain != "a.example" {
		t.Errorf("claim 1 sources: %+v", first.Sources)
	}
	if first.Change != nil {
		t.Errorf("claim 1 did not change, got %+v", first.Change)
	}
	// A citation whose evidence row is missing still shows its URL.
	second := sp.Claims[1]
	if len(second.Sources) != 1 || second.Sources[0].Number != 9 || second.Sources[0].URL != "https://example.org/gone" {
		t.Errorf("claim 2 sources: %+v", second.Sources)
	}
	if second.Change == nil || second.Change.OldVerdict != "supported" {
		t.Errorf("claim 2 change: %+v", second.Change)
	}
}

func TestLiveFilter(t *testing.T) {
	t.Parallel()
	f, form, pageNo, err := liveFilter(url.Values{"q": {"  eiffel "}, "verdict": {"refuted"}, "from": {"2026-11-01"}, "to": {"2026-11-02"}, "page": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Text != "eiffel" || form.Q != "eiffel" || f.Verdict != "refuted" || pageNo != 3 {
		t.Errorf("filter %+v form %+v page %d", f, form, pageNo)
	}
	// "to" is inclusive: the day after, at midnight.
	if want := time.Date(2026, 11, 3, 0, 0, 0, 0, time.Local); !f.Until.Equal(want) {
		t.Errorf("until %s, want %s", f.Until, want)
	}
	_, _, _, err = liveFilter(url.Values{"verdict": {"maybe"}, "method": {"magic"}, "from": {"yesterday"}, "page": {"0"}})
	for _, want := range []string{`from="yesterday"`, `method="magic"`, `verdict="maybe"`, `page="0"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad filter: %v, want it to name %s", err, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	if got := Describe(store.ReportFilter{}); got != "all statements" {
		t.Errorf("Describe(no filter) = %q", got)
	}
	got := Describe(store.ReportFilter{Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.Local), Verdict: "refuted", ExternalIDPrefix: "wire/"})
	if !strings.HasPrefix(got, "statements with latest run finished since 2026-11-01 00:00") || !strings.HasSuffix(got, `verdict "refuted", id starting with "wire/"`) {
		t.Errorf("Describe = %q", got)
	}
}

func TestServerRoutes(t *testing.T) {
	t.Parallel()
	fake := newFake()
	srv, err := NewServer(fake, 50, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, path string
		want         int
		body         string
	}{
		{http.MethodGet, "/", http.StatusOK, "&lt;script&gt;"},
		{http.MethodGet, "/statements/7", http.StatusOK, "The tower is in Paris."},
		{http.MethodGet, "/statements/7", http.StatusOK, "retry of job <code>cli:first-try</code>"},
		{http.MethodGet, "/traces/70", http.StatusOK, "run 70"},
		{http.MethodGet, "/statements/8", http.StatusNotFound, ""},
		{http.MethodGet, "/statements/x", http.StatusNotFound, ""},
		{http.MethodGet, "/?verdict=maybe", http.StatusBadRequest, "verdict="},
		// PostgreSQL refuses a NUL byte and invalid UTF-8 in text: a bad filter, not a 500.
		{http.MethodGet, "/?q=%00", http.StatusBadRequest, "q="},
		{http.MethodGet, "/?q=tower%00", http.StatusBadRequest, "q="},
		{http.MethodGet, "/?id=%ff%fe", http.StatusBadRequest, "id="},
		{http.MethodGet, "/?method=%00", http.StatusBadRequest, "method="},
		{http.MethodPost, "/", http.StatusMethodNotAllowed, ""},
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("%s %s: %d, want %d with %q\n%s", tt.method, tt.path, rec.Code, tt.want, tt.body, rec.Body.String())
		}
		if rec.Header().Get("Content-Security-Policy") == "" {
			t.Errorf("%s %s: no Content-Security-Policy", tt.method, tt.path)
		}
		if strings.Contains(rec.Body.String(), "<script>") || strings.Contains(rec.Body.String(), `href="javascript:`) {
			t.Errorf("%s %s: untrusted text came out as markup", tt.method, tt.path)
		}
	}
	// The list asks for one statement more than a page, to know whether there is a next page.
	if len(fake.filters) == 0 || fake.filters[0].Limit != 51 {
		t.Errorf("the list's filters: %+v", fake.filters)
	}
}

func TestWriteStaticLinksEveryPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n, err := WriteStatic(context.Background(), newFake(), store.ReportFilter{}, dir, io.Discard, nil)
	if err != nil || n != 1 {
		t.Fatalf("WriteStatic = %d, %v", n, err)
	}
	for _, name := range []string{"index.html", "style.css", "statements/7.html", "traces/70.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), fmt.Sprintf(`href="statements/%d.html"`, 7)) {
		t.Errorf("index.html does not link the statement page:\n%s", index)
	}
}

// FuzzLiveFilter: whatever the query string, a filter the review page accepts is one PostgreSQL
// accepts too (valid UTF-8, no NUL byte in any text it passes on), and a refusal says why.
func FuzzLiveFilter(f *testing.F) {
	for _, seed := range []string{"q=tower", "q=%00", "verdict=supported&from=2026-01-01", "id=%ff", "page=2&method=multihop", "q=a%00b&to=x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		filter, _, _, err := liveFilter(q)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "bad filter: ") {
				t.Errorf("refusal without its reason: %v", err)
			}
			return
		}
		for _, s := range []string{filter.Text, filter.Verdict, filter.Status, filter.Method, filter.ExternalIDPrefix} {
			if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
				t.Errorf("liveFilter(%q) passed on %q, which PostgreSQL refuses", raw, s)
			}
		}
	})
}
