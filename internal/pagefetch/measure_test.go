package pagefetch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestExtractionOnReadabilityTestPages measures the main-text extraction on real pages: the
// test pages go-readability ships with its module (source.html of each), when
// CORROBORATE_READABILITY_PAGES names their folder:
//
//	CORROBORATE_READABILITY_PAGES=$(go env GOMODCACHE)/codeberg.org/readeck/go-readability/v2@v2.1.3/test-pages \
//	  go test -count=1 -v -run TestExtractionOnReadabilityTestPages ./internal/pagefetch/
//
// Every page must give text; the figures (sizes and times) are logged.
func TestExtractionOnReadabilityTestPages(t *testing.T) {
	dir := os.Getenv("CORROBORATE_READABILITY_PAGES")
	if dir == "" {
		t.Skip("CORROBORATE_READABILITY_PAGES is not set")
	}
	pages, err := filepath.Glob(filepath.Join(dir, "*", "source.html"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no */source.html in %s: %v", dir, err)
	}
	var times []time.Duration
	bytesIn, bytesOut := 0, 0
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		text, _, err := extractText(body, "text/html", nil)
		times = append(times, time.Since(start))
		if err != nil || text == "" {
			t.Errorf("%s: no text (%v)", p, err)
		}
		bytesIn += len(body)
		bytesOut += len(text)
	}
	slices.Sort(times)
	t.Logf("%d pages: HTML %d KB, text %d KB; extraction median %s, p90 %s, max %s", len(pages), bytesIn>>10, bytesOut>>10,
		times[len(times)/2].Round(time.Millisecond), times[len(times)*9/10].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
}
