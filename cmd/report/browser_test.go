package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPath finds Debian's chromium (scripts/test.sh installs it), or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CORROBORATE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("SKIPPED the headless browser test: no chromium on PATH. Install Debian's chromium " +
		"(apt-get install -y chromium; scripts/test.sh does it where apt-get works) or set CORROBORATE_CHROMIUM")
	return ""
}

// chromium runs headless Chromium with the flags that work on these machines (no sandbox as
// root, no background networking: the network is closed) and a fresh profile.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	profile, err := os.MkdirTemp("", "corroborate-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

// The static report, served over HTTP, loaded in headless Chromium: the DOM the browser built
// holds the statement, its verdicts, its sources and the link to its trace; the hostile
// statement is text, never a script element; and a phone-sized screenshot is kept.
func TestHTMLReportInHeadlessChromium(t *testing.T) {
	t.Parallel()
	bin := chromiumPath(t)
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	dir := t.TempDir()
	code, out, errOut := runReport(t, "html", "--database-url", dbURL, "--since", "7d", "--external-id-prefix", b.prefix, "--out", dir)
	if code != exitOK || !strings.Contains(out, "3 statements written: "+filepath.Join(dir, "index.html")) {
		t.Fatalf("report html: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "progress: 3 of 3 statement pages") {
		t.Errorf("progress lines off a terminal:\n%s", errOut)
	}
	ts := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer ts.Close()

	// The index lists the batch.
	index := string(chromium(t, bin, "--dump-dom", ts.URL+"/index.html"))
	for _, want := range []string{
		fmt.Sprintf(`href="statements/%d.html"`, b.eiffel),
		"The Eiffel Tower was completed in 1889 and is 300 metres tall.",
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		"refuted 1",
		"3 statements",
		`<span class="badge corrected">corrected</span>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("the index DOM lacks %q", want)
		}
	}

	// A statement's page: its text, claims with verdicts and confidence, clickable sources, the
	// revised text and the trace link.
	statement := string(chromium(t, bin, "--dump-dom", fmt.Sprintf("%s/statements/%d.html", ts.URL, b.eiffel)))
	for _, want := range []string{
		"The Eiffel Tower was completed in 1889 and is 300 metres tall.",
		`<span class="badge v-refuted">refuted</span> The Eiffel Tower is 300 metres tall`,
		`<span class="badge v-supported">supported</span> The Eiffel Tower was completed in 1889`,
		"confidence Medium",
		`<a class="source" href="https://facts.example/eiffel-height" rel="noopener noreferrer nofollow">How tall is the tower?</a>`,
		`<a class="source" href="https://archive.example/eiffel-1889"`,
		"The Eiffel Tower was completed in 1889 and is 330 metres tall.",
		// issue 13 item 7: the correction as an inline diff of original and revised text
		`<del>300</del> <ins>330</ins>`,
		fmt.Sprintf(`<a class="trace-link" href="../traces/%d.html">Full trace: 2 model calls, 2 searches</a>`, b.eiffelRun),
	} {
		if !strings.Contains(statement, want) {
			t.Errorf("the statement DOM lacks %q", want)
		}
	}

	// The trace it links to holds every model call's prompt and reply, and every search.
	trace := string(chromium(t, bin, "--dump-dom", fmt.Sprintf("%s/traces/%d.html", ts.URL, b.eiffelRun)))
	for _, want := range []string{"Decompose the statement into claims: The Eiffel Tower", "No: 330 metres with antennas [2]", "Eiffel Tower height metres"} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace DOM lacks %q", want)
		}
	}

	// The hostile statement: in the DOM the browser built, its markup is text.
	hostile := string(chromium(t, bin, "--dump-dom", fmt.Sprintf("%s/statements/%d.html", ts.URL, b.hostile)))
	if !strings.Contains(hostile, "&lt;script&gt;alert(1)&lt;/script&gt; is what this statement says") {
		t.Errorf("the hostile statement is not shown as text:\n%s", hostile)
	}
	if regexp.MustCompile(`(?i)<script|<img|href="javascript:`).MatchString(hostile + index) {
		t.Errorf("markup from stored text reached the DOM as elements:\n%s", hostile)
	}

	// A screenshot as a phone shows the statement page.
	shot := filepath.Join(os.TempDir(), "corroborate-report-screenshot.png")
	os.Remove(shot)
	chromium(t, bin, "--screenshot="+shot, "--window-size=412,915", fmt.Sprintf("%s/statements/%d.html", ts.URL, b.eiffel))
	checkPNG(t, shot, 412, 915)
	t.Logf("SCREENSHOT of the statement page at 412x915 (a phone): %s", shot)
	indexShot := filepath.Join(os.TempDir(), "corroborate-report-index-screenshot.png")
	chromium(t, bin, "--screenshot="+indexShot, "--window-size=412,915", ts.URL+"/index.html")
	checkPNG(t, indexShot, 412, 915)
	t.Logf("SCREENSHOT of the index at 412x915: %s", indexShot)
}

func checkPNG(t *testing.T, path string, width, height int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	if cfg.Width != width || cfg.Height != height {
		t.Fatalf("%s is %dx%d, want %dx%d", path, cfg.Width, cfg.Height, width, height)
	}
}
