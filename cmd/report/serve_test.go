package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/report"
)

// reviewServer serves the review page over this package's schema, read-only, as serve does.
func reviewServer(t *testing.T, pageSize int) *httptest.Server {
	t.Helper()
	_, dbURL := setup(t)
	st, err := openReadOnly(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	srv, err := report.NewServer(st, pageSize, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

func get(t *testing.T, method, u string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

func TestServeListsSearchesAndFilters(t *testing.T) {
	t.Parallel()
	st, _ := setup(t)
	b := seedBatch(t, st)
	ts := reviewServer(t, 50)
	list := func(params ...string) string {
		t.Helper()
		q := url.Values{"id": {b.prefix}}
		for i := 0; i+1 < len(params); i += 2 {
			q.Set(params[i], params[i+1])
		}
		code, h, body := get(t, http.MethodGet, ts.URL+"/?"+q.Encode())
		if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Fatalf("%v: %d %s\n%s", params, code, h.Get("Content-Type"), body)
		}
		return body
	}
	eiffel := fmt.Sprintf(`href="/statements/%d"`, b.eiffel)
	hostile := fmt.Sprintf(`href="/statements/%d"`, b.hostile)
	failed := fmt.Sprintf(`href="/statements/%d"`, b.faild)
	today, yesterday := time.Now().Format(time.DateOnly), time.Now().AddDate(0, 0, -1).Format(time.DateOnly)
	for _, tt := range []struct {
		name      string
		params    []string
		want, not []string
	}{
		{"all", nil, []string{eiffel, hostile, failed, "3 statements", `<meta name="viewport"`}, nil},
		{"search by text, any case", []string{"q", "EIFFEL tower"}, []string{eiffel, "1 statement"}, []string{hostile, failed}},
		{"verdict", []string{"verdict", "refuted"}, []string{eiffel}, []string{hostile, failed}},
		{"status", []string{"status", "failed"}, []string{failed}, []string{eiffel, hostile}},
		{"dates around today", []string{"from", yesterday, "to", today}, []string{eiffel, hostile, failed}, nil},
		{"dates before", []string{"to", time.Now().AddDate(0, 0, -3).Format(time.DateOnly)}, []string{"No statement matches."}, []string{eiffel}},
	} {
		body := list(tt.params...)
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q", tt.name, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(body, n) {
				t.Errorf("%s: the page has %q", tt.name, n)
			}
		}
	}
	// The form keeps the filters; the hostile statement is text.
	body := list("q", `"><script>`)
	if !strings.Contains(body, `value="&#34;&gt;&lt;script&gt;"`) || strings.Contains(body, "<script") {
		t.Fatalf("the search box echoes its query escaped:\n%s", body)
	}
	body = list()
	if strings.Contains(body, "<script") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Fatal("the hostile statement is not escaped on the list")
	}
	// Pages: two statements a page, what needs attention first: the refuted Eiffel statement,
	// then the corrected hostile one, then the failed run (the newest).
	small := reviewServer(t, 2)
	_, _, first := get(t, http.MethodGet, small.URL+"/?id="+url.QueryEscape(b.prefix))
	_, _, second := get(t, http.MethodGet, small.URL+"/?page=2&id="+url.QueryEscape(b.prefix))
	if !strings.Contains(first, "next →") || strings.Contains(first, "← previous") || !strings.Contains(second, "← previous") ||
		!strings.Contains(second, failed) || strings.Contains(first, failed) || !strings.Contains(first, eiffel) || !(strings.Index(first, eiffel) < strings.Index(first, hostile)) {
		t.Fatalf("paging by attention:\n%s\n---\n%s", first, second)
	}
	// q=%00 reached PostgreSQL, which refuses a NUL byte: it was a 500.
	for _, bad := range []string{"verdict=true", "from=yesterday", "page=0", "method=magic", "q=%00", "q=%C3%28", "id=a%00"} {
		if code, _, _ := get(t, http.MethodGet, ts.URL+"/?"+bad); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
}

func TestServeStatementAndTracePages(t *testing.T) {
	t.Parallel()
	st, _ := setup(t)
	b := seedBatch(t, st)
	ts := reviewServer(t, 50)
	code, h, body := get(t, http.MethodGet, fmt.Sprintf("%s/statements/%d", ts.URL, b.eiffel))
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	for _, want := range []string{
		"The Eiffel Tower was completed in 1889 and is 300 metres tall.",
		"The Eiffel Tower was completed in 1889 and is 330 metres tall.", // revised
		`<span class="badge v-refuted">refuted</span> The Eiffel Tower is 300 metres tall`,
		"confidence Medium",
		`href="https://facts.example/eiffel-height"`,
		"Changed from <span class=\"badge v-supported\">supported</span>",
		fmt.Sprintf(`href="/traces/%d"`, b.eiffelRun),
		fmt.Sprintf(`href="/traces/%d"`, b.earlierRun),
		"re-verification",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the statement page lacks %q", want)
		}
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || h.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("headers: %v", h)
	}

	code, _, body = get(t, http.MethodGet, fmt.Sprintf("%s/traces/%d", ts.URL, b.eiffelRun))
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	for _, want := range []string{"Decompose the statement into claims: The Eiffel Tower", "No: 330 metres with antennas [2]", "Eiffel Tower height metres", "#2 verify · claim 2", "120 prompt + 40 completion tokens"} {
		if !strings.Contains(body, want) {
			t.Errorf("the trace lacks %q", want)
		}
	}

	// Hostile text, replies and URLs come out as text; a javascript: URL is never a link.
	_, _, page := get(t, http.MethodGet, fmt.Sprintf("%s/statements/%d", ts.URL, b.hostile))
	_, _, trace := get(t, http.MethodGet, ts.URL+"/traces/"+between(page, `href="/traces/`, `"`))
	for name, body := range map[string]string{"statement": page, "trace": trace} {
		if strings.Contains(body, "<script") || strings.Contains(body, "<img") || strings.Contains(body, "<b>bold") || strings.Contains(body, `href="javascript:`) {
			t.Errorf("the hostile %s page lets markup through:\n%s", name, body)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(") {
			t.Errorf("the hostile %s page does not show the text escaped", name)
		}
	}
	if !strings.Contains(page, "#ZgotmplZ") {
		t.Error("the javascript: citation was not neutralised")
	}
}

func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	if j := strings.Index(s, end); j >= 0 {
		return s[:j]
	}
	return s
}

func TestServeIsReadOnlyAndAnswers404(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	ts := reviewServer(t, 50)
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/statements/999999999", http.StatusNotFound},
		{http.MethodGet, "/statements/abc", http.StatusNotFound},
		{http.MethodGet, "/statements/-1", http.StatusNotFound},
		{http.MethodGet, "/traces/999999999", http.StatusNotFound},
		{http.MethodGet, "/nothing-here", http.StatusNotFound},
		{http.MethodGet, "/style.css", http.StatusOK},
		{http.MethodHead, "/", http.StatusOK},
		{http.MethodPost, "/", http.StatusMethodNotAllowed},
		{http.MethodPost, fmt.Sprintf("/statements/%d", b.eiffel), http.StatusMethodNotAllowed},
		{http.MethodPut, fmt.Sprintf("/statements/%d", b.eiffel), http.StatusMethodNotAllowed},
		{http.MethodDelete, fmt.Sprintf("/statements/%d", b.eiffel), http.StatusMethodNotAllowed},
		{http.MethodPatch, fmt.Sprintf("/traces/%d", b.eiffelRun), http.StatusMethodNotAllowed},
		{http.MethodDelete, "/style.css", http.StatusMethodNotAllowed},
	} {
		if code, _, body := get(t, tt.method, ts.URL+tt.path); code != tt.want {
			t.Errorf("%s %s: %d, want %d\n%s", tt.method, tt.path, code, tt.want, body)
		}
	}
	// Its PostgreSQL sessions refuse writes.
	ro, err := openReadOnly(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.Pool().Exec(context.Background(), `DELETE FROM model_prices`)
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write through the review page's pool: %v", err)
	}
}
