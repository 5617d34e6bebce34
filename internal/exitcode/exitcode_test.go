package exitcode

import (
	"strings"
	"testing"
)

func TestHelpListsEachStatusWithItsMeaning(t *testing.T) {
	t.Parallel()
	got := Help([]Status{Of(OK, ""), Of(Failed, "PostgreSQL"), Of(Usage, ""), Of(JobsNotDone, "")})
	want := "Exit status:\n" +
		"  0  done\n" +
		"  1  " + meanings[Failed] + "\n" +
		"     here: PostgreSQL\n" +
		"  2  " + meanings[Usage] + "\n" +
		"  3  " + meanings[JobsNotDone] + "\n"
	if got != want {
		t.Fatalf("Help:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(got, "an empty input file included") {
		t.Errorf("the meaning of 2 must say that an empty input file is one")
	}
}

// Every status has a meaning, no two statuses share one, and a status without a meaning is
// refused, so that a command cannot list a code package exitcode does not define.
func TestEveryStatusIsDefinedOnce(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for _, code := range []int{OK, Failed, Usage, JobsNotDone, WaitGaveUp} {
		m, ok := meanings[code]
		if !ok || m == "" {
			t.Errorf("status %d has no meaning", code)
		}
		if other, dup := seen[m]; dup {
			t.Errorf("statuses %d and %d share the meaning %q", other, code, m)
		}
		seen[m] = code
	}
	if len(meanings) != len(seen) {
		t.Errorf("meanings has %d entries, the constants %d", len(meanings), len(seen))
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Of(42) did not panic")
		}
	}()
	Of(42, "")
}

func TestCommonIsOKFailedUsage(t *testing.T) {
	t.Parallel()
	c := Common()
	if len(c) != 3 || c[0].Code != OK || c[1].Code != Failed || c[2].Code != Usage {
		t.Fatalf("Common() = %v", c)
	}
}
