package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/ratelimit/ratelimittest"
)

// bench's --help lists its exit statuses; a bad flag is exit 2, before anything starts.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "Exit status:\n  0  done") {
		t.Errorf("--help: exit %d:\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := Run(context.Background(), []string{"--rpm", "many"}, &stdout, &stderr); code != 2 {
		t.Errorf("--rpm many: exit %d, want 2:\n%s", code, stderr.String())
	}
}

// --timeline writes one tab-separated file per rate-bound run, named after its mode and workers,
// with the seconds from the run's start.
func TestWriteTimeline(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "timeline")
	start := time.Unix(1000, 0)
	rows := []ratelimittest.Second{{At: start, Accepted: 4}, {At: start.Add(100 * time.Millisecond), Accepted: 3, Refused: 1}}
	if err := writeTimeline(dir, scenario{mode: modeLearned, storm: true, workers: 4}, rows); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "learned-storm-4w.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "seconds\taccepted\trefused\n0.0\t4\t0\n0.1\t3\t1\n"; string(got) != want {
		t.Errorf("timeline file:\n%s\nwant:\n%s", got, want)
	}
}
