package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

// editing is a review page started with editor accounts, as `report serve --auth accounts`
// wires it, and one editor created by `report users add`.
type editing struct {
	ts             *httptest.Server
	st             *store.Store
	editor, secret string
}

func editingServer(t *testing.T) editing {
	t.Helper()
	st, dbURL := setup(t)
	name := fmt.Sprintf("ana-%d", counter.Add(1))
	code, out, errOut := runReport(t, "users", "add", name, "--database-url", dbURL)
	secret := strings.TrimSpace(out)
	if code != exitOK || len(secret) < 32 || !strings.Contains(errOut, "shown this once") {
		t.Fatalf("report users add: exit %d\n%s\n%s", code, out, errOut)
	}
	// Only the hash is stored.
	var hash string
	if err := st.Pool().QueryRow(context.Background(), `SELECT password_hash FROM editor_accounts WHERE name = $1`, name).Scan(&hash); err != nil ||
		!strings.HasPrefix(hash, "$argon2id$") || strings.Contains(hash, secret) {
		t.Fatalf("stored account: %q, %v", hash, err)
	}
	if code, _, errOut := runReport(t, "users", "add", name, "--database-url", dbURL); code != exitInvalid || !strings.Contains(errOut, "exists") {
		t.Errorf("adding %s twice: exit %d %s", name, code, errOut)
	}
	ro, err := openReadOnly(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ro.Close)
	srv, err := report.NewServer(ro, 50, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	writer, err := serveConfig{DatabaseURL: dbURL, Auth: "accounts"}.enableEditing(context.Background(), srv, ro)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(writer.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return editing{ts: ts, st: st, editor: name, secret: secret}
}

// client is a browser-like HTTP client: cookies kept, redirects not followed.
func client(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// page GETs u and returns its status, body and the first CSRF token in it.
func page(t *testing.T, c *http.Client, u string) (int, string, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	token := ""
	if m := csrfField.FindStringSubmatch(string(body)); m != nil {
		token = m[1]
	}
	return resp.StatusCode, string(body), token
}

func post(t *testing.T, c *http.Client, u string, form url.Values) (int, string) {
	t.Helper()
	resp, err := c.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// signIn signs c in as e's editor and returns a CSRF token of its session.
func (e editing) signIn(t *testing.T, c *http.Client) {
	t.Helper()
	_, _, token := page(t, c, e.ts.URL+"/signin")
	if code, body := post(t, c, e.ts.URL+"/signin", url.Values{"csrf": {token}, "name": {e.editor}, "secret": {e.secret}}); code != http.StatusSeeOther {
		t.Fatalf("signing in: %d\n%s", code, body)
	}
}

func decisions(t *testing.T, st *store.Store, runID int64) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM editor_decisions WHERE run_id = $1`, runID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A decision needs a signed-in editor and the CSRF token of their session: without the token,
// with a wrong one, with another session's, or signed out, the POST is refused and nothing is
// stored. A review page started without --auth refuses every POST.
func TestDecisionsRefuseForgedAndSignedOutPosts(t *testing.T) {
	t.Parallel()
	e := editingServer(t)
	b := seedBatch(t, e.st)
	override := func(token string) url.Values {
		return url.Values{"csrf": {token}, "run": {fmt.Sprint(b.eiffelRun)}, "position": {"2"}, "decision": {"override"},
			"verdict": {"supported"}, "reason": {"forged"}}
	}
	signedOut := client(t)
	_, _, signinToken := page(t, signedOut, e.ts.URL+"/signin")
	editor := client(t)
	e.signIn(t, editor)
	_, body, token := page(t, editor, fmt.Sprintf("%s/statements/%d", e.ts.URL, b.eiffel))
	if token == "" || !strings.Contains(body, "signed in as") {
		t.Fatalf("the signed-in page has no decision forms:\n%s", body)
	}
	other := client(t)
	e.signIn(t, other)
	_, _, otherToken := page(t, other, fmt.Sprintf("%s/statements/%d", e.ts.URL, b.eiffel))

	for _, tt := range []struct {
		name string
		c    *http.Client
		form url.Values
	}{
		{"no token", editor, func() url.Values { f := override(""); f.Del("csrf"); return f }()},
		{"a wrong token", editor, override(strings.Repeat("A", len(token)))},
		{"another session's token", editor, override(otherToken)},
		{"the sign-in form's token", editor, override(signinToken)},
		{"signed out", signedOut, override(token)},
	} {
		if code, body := post(t, tt.c, e.ts.URL+"/decisions", tt.form); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403\n%s", tt.name, code, body)
		}
	}
	if n := decisions(t, e.st, b.eiffelRun); n != 0 {
		t.Fatalf("%d decisions stored by refused POSTs", n)
	}
	// After signing out, the old session's token is refused too.
	if code, _ := post(t, other, e.ts.URL+"/signout", url.Values{"csrf": {otherToken}}); code != http.StatusSeeOther {
		t.Errorf("sign out: %d", code)
	}
	if code, _ := post(t, other, e.ts.URL+"/decisions", override(otherToken)); code != http.StatusForbidden {
		t.Errorf("a signed-out session's POST: %d, want 403", code)
	}
	// The right token records the decision.
	if code, body := post(t, editor, e.ts.URL+"/decisions", override(token)); code != http.StatusSeeOther {
		t.Fatalf("the editor's override: %d\n%s", code, body)
	}
	if n := decisions(t, e.st, b.eiffelRun); n != 1 {
		t.Errorf("%d decisions stored, want 1", n)
	}
	// Read-only: no sign-in, no decisions.
	ro := reviewServer(t, 50)
	for _, path := range []string{"/decisions", "/signin"} {
		if code, _ := post(t, client(t), ro.URL+path, override(token)); code != http.StatusMethodNotAllowed && code != http.StatusNotFound {
			t.Errorf("read-only page, POST %s: %d, want 405 or 404", path, code)
		}
	}
}

// 100 wrong secrets in a row: the first MaxFailures (5) are checked and answered 401, every
// later one 429 without a check, and then even the right secret is refused until the window
// passes.
func TestSignInIsRateLimited(t *testing.T) {
	t.Parallel()
	e := editingServer(t)
	c := client(t)
	_, _, token := page(t, c, e.ts.URL+"/signin")
	counts := map[int]int{}
	for i := range 100 {
		code, _ := post(t, c, e.ts.URL+"/signin", url.Values{"csrf": {token}, "name": {e.editor}, "secret": {fmt.Sprintf("guess-%d", i)}})
		counts[code]++
	}
	if counts[http.StatusUnauthorized] != 5 || counts[http.StatusTooManyRequests] != 95 {
		t.Errorf("100 wrong secrets answered %v, want 5 × 401 and 95 × 429", counts)
	}
	if code, _ := post(t, c, e.ts.URL+"/signin", url.Values{"csrf": {token}, "name": {e.editor}, "secret": {e.secret}}); code != http.StatusTooManyRequests {
		t.Errorf("the right secret during the pause: %d, want 429", code)
	}
	// Another name from the same address is paused too (the address has 5 failures).
	if code, _ := post(t, c, e.ts.URL+"/signin", url.Values{"csrf": {token}, "name": {"someone-else"}, "secret": {"x"}}); code != http.StatusTooManyRequests {
		t.Errorf("another name from the paused address: %d, want 429", code)
	}
}

// In headless Chromium an editor signs in, overrides a verdict with a reason, and sees it on
// the statement page; editorial_verdicts shows it standing, the machine's verdict unchanged.
func TestEditorOverridesAVerdictInHeadlessChromium(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	e := editingServer(t)
	b := seedBatch(t, e.st)
	br := startBrowser(t, bin)

	br.navigate(e.ts.URL + "/signin")
	br.waitFor("the sign-in form", `document.querySelector("form.signin")`)
	br.eval(fmt.Sprintf(`document.querySelector("input[name=name]").value = %q;
		document.querySelector("input[name=secret]").value = %q;
		document.querySelector("form.signin button").click()`, e.editor, e.secret))
	br.waitFor("the signed-in list", `document.querySelector(".editor-name") && location.pathname === "/"`)
	if got := br.text(); !strings.Contains(got, "signed in as "+e.editor) {
		t.Fatalf("after signing in the page shows:\n%s", got)
	}
	// The session cookie is HttpOnly: page script cannot read it.
	if cookies := string(br.eval("document.cookie")); strings.Contains(cookies, "corroborate_session") {
		t.Errorf("the session cookie is readable by script: %s", cookies)
	}

	br.navigate(fmt.Sprintf("%s/statements/%d", e.ts.URL, b.eiffel))
	br.waitFor("the claim's override form", `document.querySelector("#claim-2 form.override")`)
	br.eval(`const f = document.querySelector("#claim-2 form.override");
		f.querySelector("select[name=verdict]").value = "partly_supported";
		f.querySelector("input[name=reason]").value = "330 m includes the antennas; the structure is 300 m";
		f.querySelector("button").click()`)
	br.waitFor("the override on the page", `document.querySelector("#claim-2 .decision")`)
	got := br.text()
	for _, want := range []string{"Overridden by " + e.editor, "partly supported", "330 m includes the antennas; the structure is 300 m"} {
		if !strings.Contains(got, want) {
			t.Errorf("the statement page after the override lacks %q:\n%s", want, got)
		}
	}
	shot := filepath.Join(os.TempDir(), "corroborate-review-override.png")
	br.screenshot(shot)
	checkPNG(t, shot, 412, 915)
	t.Logf("SCREENSHOT of the statement page after the override: %s", shot)

	var machine, standing, source, by string
	err := e.st.Pool().QueryRow(context.Background(), `SELECT machine_verdict, standing_verdict, standing_source, decided_by
		FROM editorial_verdicts WHERE run_id = $1 AND position = 2`, b.eiffelRun).Scan(&machine, &standing, &source, &by)
	if err != nil {
		t.Fatal(err)
	}
	if machine != "refuted" || standing != "partly_supported" || source != "editor" || by != e.editor {
		t.Errorf("editorial_verdicts: machine %q, standing %q from %q by %q", machine, standing, source, by)
	}
}
