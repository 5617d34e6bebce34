// Package progress shows how far a long wait or write has come, wherever a person waits: a bar
// on a terminal, and off one (a log file, a cron mail) a plain line every few seconds and one at
// the end, so that logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Every is how often a plain progress line is written off a terminal.
const Every = 5 * time.Second

// Bar is one progress display of total items; its zero value is not usable: call New.
type Bar struct {
	what     string
	total    int
	n        int
	bar      *progressbar.ProgressBar
	w        io.Writer
	lastLine time.Time
	written  int
}

// New returns a display of total items of what ("claims", "jobs have an outcome") on w: a bar
// when w is a terminal, plain lines "progress: N of TOTAL WHAT" otherwise.
func New(what string, total int, w io.Writer) *Bar {
	b := &Bar{what: what, total: total, w: w, lastLine: time.Now(), written: -1}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
	}
	return b
}

// Add counts n more items done.
func (b *Bar) Add(n int) { b.Set(b.n + n) }

// Set says that n items are done.
func (b *Bar) Set(n int) {
	b.n = n
	if b.bar != nil {
		_ = b.bar.Set(n)
		return
	}
	if n != b.written && (time.Since(b.lastLine) >= Every || n == b.total) {
		b.line()
	}
}

// Done ends the bar, or writes the last line when it was not written yet.
func (b *Bar) Done() {
	if b.bar != nil {
		_ = b.bar.Finish()
		return
	}
	if b.written != b.n {
		b.line()
	}
}

func (b *Bar) line() {
	fmt.Fprintf(b.w, "progress: %d of %d %s\n", b.n, b.total, b.what)
	b.lastLine, b.written = time.Now(), b.n
}
