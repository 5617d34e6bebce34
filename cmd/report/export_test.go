package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestExportClaimsAsCSVWithFilters(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	out := filepath.Join(t.TempDir(), "refuted.csv")
	code, stdout, stderr := runReport(t, "export", "--database-url", dbURL, "--format", "csv", "--what", "claims",
		"--verdict", "refuted", "--external-id-prefix", b.prefix, "--since", "24h", "--out", out)
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "progress: 1 of 1 claims") || !strings.Contains(stderr, "1 claims written to "+out) {
		t.Fatalf("progress off a terminal, and where it went:\n%s", stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"statement_id", "external_id", "run_id", "job_id", "method", "model", "position", "claim_key",
		"claim_text", "span_text", "tier", "verdict", "variant_verdict", "confidence", "reason", "consistent_part",
		"corrected_text", "check_question", "check_answer", "citations", "citation_urls", "finished_at",
		// added last (00013): the verdict that stands and whose it is
		"standing_verdict", "standing_source"}
	if !slices.Equal(records[0], wantHeader) {
		t.Fatalf("header %q\nwant   %q", records[0], wantHeader)
	}
	if len(records) != 2 {
		t.Fatalf("want one refuted claim, got %d rows: %q", len(records)-1, records[1:])
	}
	row := map[string]string{}
	for i, k := range records[0] {
		row[k] = records[1][i]
	}
	if row["external_id"] != b.prefix+"eiffel" || row["claim_text"] != "The Eiffel Tower is 300 metres tall" || row["verdict"] != "refuted" ||
		row["confidence"] != "Medium" || row["citations"] != "2" || row["citation_urls"] != "https://facts.example/eiffel-height" ||
		row["corrected_text"] != "is 330 metres tall" || row["position"] != "2" || row["finished_at"] == "" ||
		row["standing_verdict"] != "refuted" || row["standing_source"] != "machine" {
		t.Fatalf("row: %v", row)
	}
	// Nothing else is left in the folder: the file was written beside and renamed.
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Fatalf("left in the folder: %v", entries)
	}
}

func TestExportStatementsAsJSONL(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	code, stdout, stderr := runReport(t, "export", "--database-url", dbURL, "--format", "jsonl", "--what", "statements", "--external-id-prefix", b.prefix)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		rows = append(rows, row)
	}
	if len(rows) != 3 {
		t.Fatalf("want 3 statements, got %d:\n%s", len(rows), stdout)
	}
	byID := map[string]map[string]any{}
	for _, r := range rows {
		byID[strings.TrimPrefix(r["external_id"].(string), b.prefix)] = r
	}
	e, h, f := byID["eiffel"], byID["hostile"], byID["failed"]
	if e["refuted"] != 1.0 || e["supported"] != 1.0 || e["reverify"] != true || e["run_id"] != float64(b.eiffelRun) || e["method"] != "multihop" ||
		e["revised_text"] != "The Eiffel Tower was completed in 1889 and is 330 metres tall." || e["search_calls"] != 2.0 {
		t.Fatalf("eiffel: %v", e)
	}
	// JSON keeps text exactly as stored, markup included (escaping is the page's job).
	if h["text"] != hostileStatement || f["status"] != "failed" || f["error"] != "permanent: the API key was refused (HTTP 401)" {
		t.Fatalf("hostile %v\nfailed %v", h, f)
	}
	// Filters: a status and a method.
	code, stdout, _ = runReport(t, "export", "--database-url", dbURL, "--format", "jsonl", "--external-id-prefix", b.prefix, "--status", "done", "--method", "cove-factored")
	if code != exitOK || stdout != "" {
		t.Fatalf("no done cove-factored statement: exit %d\n%s", code, stdout)
	}
}

func TestExportEvidenceGuardsSpreadsheetFormulas(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	read := func(extra ...string) [][]string {
		t.Helper()
		code, stdout, stderr := runReport(t, append([]string{"export", "--database-url", dbURL, "--what", "evidence", "--external-id-prefix", b.prefix + "hostile"}, extra...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return records
	}
	records := read()
	if len(records) != 2 || !slices.Contains(records[0], "cited") || !slices.Contains(records[0], "url") {
		t.Fatalf("evidence: %q", records)
	}
	col := slices.Index(records[0], "title")
	if records[1][col] != `'=HYPERLINK("http://evil.example")` {
		t.Fatalf("a formula-like title is quoted: %q", records[1][col])
	}
	if raw := read("--csv-formula-guard=false"); raw[1][col] != `=HYPERLINK("http://evil.example")` {
		t.Fatalf("without the guard the title is as stored: %q", raw[1][col])
	}
}

// openPTY opens a pseudo-terminal pair, so that the progress display can be seen as a person
// at a terminal sees it.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (%v): the terminal progress bar is not tested", err)
	}
	unlock := 0
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		m.Close()
		t.Skipf("unlocking the pseudo-terminal: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		m.Close()
		t.Skipf("naming the pseudo-terminal: %v", errno)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func TestExportShowsABarOnATerminal(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	master, tty := openPTY(t)
	screen := make(chan string)
	go func() {
		data, _ := io.ReadAll(master) // ends with EIO once the terminal side is closed
		screen <- string(data)
	}()
	var stdout bytes.Buffer
	code := run(context.Background(), []string{"export", "--database-url", dbURL, "--what", "claims", "--external-id-prefix", b.prefix}, &stdout, tty)
	tty.Close()
	out := <-screen
	if code != exitOK || strings.Count(stdout.String(), "\n") != 4 {
		t.Fatalf("exit %d\n%s", code, stdout.String())
	}
	if !strings.Contains(out, "claims") || !strings.Contains(out, "(1/3)") || strings.Contains(out, "progress:") {
		t.Fatalf("on a terminal the progress is a bar, not lines: %q", out)
	}
}
