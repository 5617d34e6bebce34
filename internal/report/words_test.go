package report

import (
	"context"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
)

func TestWordDiff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want []diffPart
	}{
		{"Hillary Clinton and Donald Trump", "Donald Trump", []diffPart{{"del", "Hillary Clinton and"}, {"same", "Donald Trump"}}},
		{"It is 300 metres tall.", "It is 330 metres tall.", []diffPart{{"same", "It is"}, {"del", "300"}, {"ins", "330"}, {"same", "metres tall."}}},
		{"same words", "same  words", []diffPart{{"same", "same words"}}},
		{"", "new", []diffPart{{"ins", "new"}}},
	} {
		if got := wordDiff(tt.a, tt.b); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("wordDiff(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if wordDiff(strings.Repeat("w ", maxDiffWords+1), "w") != nil {
		t.Error("a text past maxDiffWords was compared")
	}
}

func TestPlainFailure(t *testing.T) {
	t.Parallel()
	for err, want := range map[string]string{
		"permanent: the API key was refused (HTTP 401)":                                     "refused the API key",
		"multihop: plan validation failed after one repair: claims[0].span_start: must be…": "plan for checking this statement did not pass",
		"something nobody foresaw":                                                          "failed before a verdict was reached",
	} {
		if got := plainFailure(err); !strings.Contains(got, want) || strings.Contains(got, err) {
			t.Errorf("plainFailure(%q) = %q, want one sentence with %q", err, got, want)
		}
	}
}

// closedBookCorrected is a cove-factored run whose revision corrected the statement: its
// answered checks are stored unverified (the method gives no claim-level verdict).
func closedBookCorrected() *fakeReports {
	f := newFake()
	f.page.Statement = store.StatementRow{StatementID: 7, RunID: 70, Method: pipeline.MethodFactored, Status: store.RunDone,
		Question: "Who was born in New York?", RevisedText: "Donald Trump", Corrected: true,
		Claims: 2, Unverified: 2, Answered: 2}
	f.page.Draft = "Hillary Clinton and Donald Trump"
	f.page.Claims = []store.ClaimRow{
		{Position: 1, ClaimText: "Where was Hillary Clinton born?", Verdict: pipeline.VerdictUnverified, VariantVerdict: pipeline.CheckAnswered, CheckAnswer: "Chicago"},
		{Position: 2, ClaimText: "Where was Donald Trump born?", Verdict: pipeline.VerdictUnverified, VariantVerdict: pipeline.CheckAnswered, CheckAnswer: "Queens"},
	}
	f.page.Evidence, f.page.Changes = nil, nil
	return f
}

func serve(t *testing.T, f *fakeReports, path string) string {
	t.Helper()
	srv, err := NewServer(f, 50, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

// Issue 13 item 7: a corrected closed-book run says "corrected" with the inline diff, and its
// answered checks are not "unverified" on the page nor on the card.
func TestCorrectedClosedBookRunShowsCorrectedWithTheDiff(t *testing.T) {
	t.Parallel()
	f := closedBookCorrected()
	page := serve(t, f, "/statements/7")
	for _, want := range []string{
		`<span class="badge corrected">corrected</span>`,
		`<p class="diff" lang=""><del>Hillary Clinton and</del> Donald Trump </p>`,
		`<span class="badge v-answered">answered</span> Where was Hillary Clinton born?`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the statement page lacks %q", want)
		}
	}
	if strings.Contains(page, `v-unverified`) {
		t.Error("the statement page still says unverified for answered checks")
	}
	index := serve(t, f, "/")
	if !strings.Contains(index, `<span class="badge corrected">corrected</span>`) || !strings.Contains(index, "answered 2") || strings.Contains(index, "unverified 2") {
		t.Errorf("the card does not say corrected with answered checks:\n%s", index)
	}
	// An unchanged text is not corrected, and its unverified checks stay unverified.
	f.page.Statement.Corrected = false
	page = serve(t, f, "/statements/7")
	if strings.Contains(page, "badge corrected") || !strings.Contains(page, `v-unverified`) {
		t.Error("an uncorrected run was shown corrected")
	}
}

// A failed run shows one plain sentence; the validator's detail is folded away in <details>.
func TestFailedRunShowsOnePlainSentence(t *testing.T) {
	t.Parallel()
	f := newFake()
	detail := "multihop: plan validation failed after one repair: claims[0].span_start: 12 is not the start of span_text; claims[1]: claim_not_atomic"
	f.page.Statement.Status, f.page.Statement.Error, f.page.Claims = store.RunFailed, detail, nil
	page := serve(t, f, "/statements/7")
	sentence := template.HTMLEscapeString(plainFailure(detail))
	if !strings.Contains(page, `<p class="failure">`+sentence+`</p><details class="detail"><summary>Technical detail</summary><pre class="error">`) {
		t.Errorf("the failed page does not show the sentence with the detail folded:\n%s", page)
	}
	index := serve(t, f, "/")
	if !strings.Contains(index, `<p class="failure">`+sentence+`</p>`) || strings.Contains(index, "claims[0].span_start") {
		t.Errorf("the failed card does not show the plain sentence alone:\n%s", index)
	}
}

// The list asks for statements by attention, and its date fields take ISO dates as text, not a
// browser's locale date picker.
func TestIndexSortsByAttentionWithISODates(t *testing.T) {
	t.Parallel()
	f := newFake()
	index := serve(t, f, "/?from=2026-11-01")
	if len(f.filters) == 0 || !f.filters[0].ByAttention {
		t.Errorf("the list did not ask for the attention order: %+v", f.filters)
	}
	for _, want := range []string{
		`<input type="text" name="from" value="2026-11-01" placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}"`,
		`<input type="text" name="to" value="" placeholder="YYYY-MM-DD"`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("the filter form lacks %q", want)
		}
	}
	if strings.Contains(index, `type="date"`) {
		t.Error(`the filter form still uses type="date", which shows the browser's locale format`)
	}
}

// decisions is a Decider that keeps what it is given.
type decisions struct{ got []store.Decision }

func (d *decisions) Decide(_ context.Context, dec store.Decision) (store.Decided, error) {
	d.got = append(d.got, dec)
	return store.Decided{ID: int64(len(d.got)), StatementID: 7, Verdict: dec.Verdict}, nil
}

// Behind a trusted proxy the editor is the header's name: a POST with the header and the CSRF
// token of its page is recorded as that editor; without the header, or the token, it is refused.
func TestProxyHeaderMode(t *testing.T) {
	t.Parallel()
	f := newFake()
	srv, err := NewServer(f, 50, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	d := &decisions{}
	if err := srv.EnableEditing(AuthConfig{ProxyHeader: "X-Forwarded-User", Decisions: d}); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/statements/7", nil)
	req.Header.Set("X-Forwarded-User", "ana")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(rec.Body.String())
	if m == nil || !strings.Contains(rec.Body.String(), "signed in as") || strings.Contains(rec.Body.String(), "/signin") {
		t.Fatalf("the proxied page has no decision forms, or links a sign-in the proxy does:\n%s", rec.Body.String())
	}
	postAs := func(user, token string) int {
		form := url.Values{"csrf": {token}, "run": {"70"}, "position": {"2"}, "decision": {"approve"}}
		req := httptest.NewRequest(http.MethodPost, "/decisions", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if user != "" {
			req.Header.Set("X-Forwarded-User", user)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := postAs("", m[1]); code != http.StatusForbidden {
		t.Errorf("without the header: %d", code)
	}
	if code := postAs("bob", m[1]); code != http.StatusForbidden {
		t.Errorf("another editor with ana's token: %d", code)
	}
	if len(d.got) != 0 {
		t.Fatalf("refused POSTs recorded %+v", d.got)
	}
	if code := postAs("ana", m[1]); code != http.StatusSeeOther || len(d.got) != 1 || d.got[0].Editor != "ana" || d.got[0].Kind != store.DecisionApprove {
		t.Errorf("ana's approval: %d, %+v", code, d.got)
	}
}
