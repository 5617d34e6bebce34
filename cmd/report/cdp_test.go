package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// browser is headless Chromium driven over the DevTools protocol: one page, on which a test
// navigates, runs expressions (the way a person's clicks and typing would act on the DOM) and
// waits for what the page shows. The page's own Content-Security-Policy stays in force: DevTools
// evaluation is not page script.
type browser struct {
	t       *testing.T
	conn    *websocket.Conn
	session string
	nextID  atomic.Int64
}

// startBrowser starts Chromium with a fresh profile and opens one blank page.
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	// Not t.TempDir: Chromium's helper processes may still write into the profile as the browser
	// goes down, and a profile left behind is no failure of the test.
	profile, err := os.MkdirTemp("", "corroborate-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--window-size=412,915", "--remote-debugging-port=0", "--user-data-dir="+profile, "about:blank")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait(); _ = os.RemoveAll(profile) })
	// Chromium writes the port it chose and the browser's endpoint into the profile.
	var endpoint string
	for deadline := time.Now().Add(60 * time.Second); endpoint == ""; {
		data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); err == nil && len(lines) == 2 {
			endpoint = fmt.Sprintf("ws://127.0.0.1:%s%s", lines[0], lines[1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("chromium did not open its DevTools port in 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	conn, _, err := websocket.Dial(context.Background(), endpoint, nil)
	if err != nil {
		t.Fatalf("connecting to chromium's DevTools: %v", err)
	}
	conn.SetReadLimit(64 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	b := &browser{t: t, conn: conn}
	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	// A phone's screen, as the other browser test's screenshots.
	b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 412, "height": 915, "deviceScaleFactor": 1, "mobile": true}, nil)
	return b
}

// call sends one DevTools command and decodes its result into out, skipping events.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	id := b.nextID.Add(1)
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := b.conn.Write(ctx, websocket.MessageText, data); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	for {
		_, reply, err := b.conn.Read(ctx)
		if err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		var r struct {
			ID     int64
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if json.Unmarshal(reply, &r) != nil || r.ID != id {
			continue // an event, or another command's reply
		}
		if r.Error != nil {
			b.t.Fatalf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

// eval runs expression in the page and returns its value as JSON.
func (b *browser) eval(expression string) json.RawMessage {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("evaluating %q: %s", expression, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// waitFor waits until expression is true in the page (a page loading in between is fine).
func (b *browser) waitFor(what, expression string) {
	b.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if string(b.eval("(() => { try { return !!("+expression+") } catch (e) { return false } })()")) == "true" {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waited 60 s for %s; the page shows:\n%s", what, b.text())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// text is what the page shows.
func (b *browser) text() string {
	var s string
	_ = json.Unmarshal(b.eval("document.body ? document.body.innerText : ''"), &s)
	return s
}

// screenshot saves a PNG of the page.
func (b *browser) screenshot(path string) {
	b.t.Helper()
	var r struct{ Data string }
	b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	data, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
