package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress shows how far a long write has come: a bar on a terminal, and off one (a log, a
// cron mail) a plain line every few seconds and one at the end, so that logs stay readable.
type progress struct {
	what     string
	total    int
	n        int
	bar      *progressbar.ProgressBar
	w        io.Writer
	lastLine time.Time
	every    time.Duration
}

func newProgress(what string, total int, w io.Writer) *progress {
	p := &progress{what: what, total: total, w: w, lastLine: time.Now(), every: 5 * time.Second}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	return p
}

// add counts one more done.
func (p *progress) add() {
	p.n++
	if p.bar != nil {
		_ = p.bar.Add(1)
		return
	}
	if time.Since(p.lastLine) >= p.every {
		p.line()
	}
}

// done ends the bar, or writes the last line.
func (p *progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
		return
	}
	p.line()
}

func (p *progress) line() {
	fmt.Fprintf(p.w, "progress: %d of %d %s\n", p.n, p.total, p.what)
	p.lastLine = time.Now()
}
