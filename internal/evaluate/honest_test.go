package evaluate

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/evaluate/datasets"
	"github.com/corroborate/corroborate/internal/testenv"
)

// evaluate honest holds issue 22's targets on the real data sets: no evidence URL breaks in any
// reply format, the sanitizer changes at most 0.5% of the claims used as queries with their
// claim, none of them losing a capitalised (title or name) word, and the plan rules refuse no
// more gold decompositions than the ones they rightly refuse.
func TestHonestTextTargets(t *testing.T) {
	t.Parallel()
	dir := filepath.Dir(filepath.Dir(testenv.Dataset(t, datasets.ExFeverFile)))
	testenv.Dataset(t, datasets.FactcheckBenchFile)
	var out, errOut bytes.Buffer
	// Under the race detector (make test) every 10th item: the code is single-goroutine and the
	// full run takes minutes there; without it (go test ./internal/evaluate) every item.
	every := "1"
	if raceDetector {
		every = "10"
	}
	if code := Run(context.Background(), []string{"honest", "--datasets", dir, "--every", every}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !regexp.MustCompile(`(?m)^  total: 0 of \d+ URLs broken$`).Match(out.Bytes()) {
		t.Errorf("URLs broken:\n%s", out.String())
	}
	m := regexp.MustCompile(`(?m)^  total, with claim true +(\d+) queries: (\d+) changed \(([\d.]+)%\), (\d+) of them removing a capitalised word`).FindSubmatch(out.Bytes())
	if m == nil {
		t.Fatalf("no sanitizer total in:\n%s", out.String())
	}
	pct, _ := strconv.ParseFloat(string(m[3]), 64)
	if n, _ := strconv.Atoi(string(m[1])); n < 900 || pct > 0.5 || string(m[4]) != "0" {
		t.Errorf("sanitizer on %s honest queries: %s changed (%.2f%%), %s removing a capitalised word; want <= 0.5%% and none", m[1], m[2], pct, m[4])
	}
	// The plans of factcheck-bench's gold claims: 7 of 277 refused, each rightly (5 name what
	// only the question held, 2 join two clauses; docs/multihop-rules.md). More is a rule
	// refusing honest text again.
	p := regexp.MustCompile(`(?m)^  factcheck-bench +(\d+) plans \(\d+ claims\): (\d+) refused`).FindSubmatch(out.Bytes())
	if p == nil {
		t.Fatalf("no plan rules total in:\n%s", out.String())
	}
	if plans, _ := strconv.Atoi(string(p[1])); plans != 277 {
		t.Errorf("%d factcheck-bench plans, want 277", plans)
	}
	if refused, _ := strconv.Atoi(string(p[2])); refused > 7 {
		t.Errorf("plan rules refused %d of %s gold plans, want at most 7:\n%s", refused, p[1], out.String()[strings.Index(out.String(), "Plan rules"):])
	}
}
