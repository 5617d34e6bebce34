package evidence

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNearDuplicateOnTheTestSet checks the thresholds against the written test set
// (testdata/nearduplicate/README.md): every copy is one source, every separate report of the same
// event is its own. It prints each pair's figures, which is how the thresholds were chosen:
// go test -v -run TestNearDuplicateOnTheTestSet ./internal/pipeline/evidence
func TestNearDuplicateOnTheTestSet(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "nearduplicate")
	f, err := os.Open(filepath.Join(dir, "pairs.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := func(name string) Fingerprint {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return FingerprintOf(string(b))
	}
	var copies, separates int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			t.Fatalf("pairs.tsv: want 3 tab-separated fields, got %q", sc.Text())
		}
		a, b := read(fields[0]), read(fields[1])
		copy := fields[2] == "copy"
		got := NearDuplicate(a, b)
		t.Logf("%-8s resemblance %.2f containment %.2f shingles %d/%d  %s ~ %s", fields[2],
			Resemblance(a, b), Containment(a, b), len(a), len(b), fields[0], fields[1])
		if got != copy {
			t.Errorf("%s ~ %s: NearDuplicate = %v, want %v (%s)", fields[0], fields[1], got, copy, fields[2])
		}
		if got != NearDuplicate(b, a) {
			t.Errorf("%s ~ %s: NearDuplicate is not symmetric", fields[0], fields[1])
		}
		if copy {
			copies++
		} else {
			separates++
		}
	}
	if copies < 5 || separates < 5 {
		t.Fatalf("test set too small: %d copies, %d separate pairs", copies, separates)
	}
}

func TestFingerprintIgnoresCaseQuotesAndPunctuation(t *testing.T) {
	t.Parallel()
	a := FingerprintOf(`"The Harbour Bridge will close," the authority said — on Tuesday.`)
	b := FingerprintOf(`the harbour bridge will close the authority said on tuesday`)
	if Resemblance(a, b) != 1 {
		t.Errorf("resemblance = %.2f, want 1", Resemblance(a, b))
	}
	if len(FingerprintOf("")) != 0 || Resemblance(FingerprintOf(""), a) != 0 {
		t.Error("an empty text has shingles or resembles another")
	}
	if short := FingerprintOf("two words"); len(short) != 1 {
		t.Errorf("a text shorter than a shingle has %d shingles, want 1", len(short))
	}
}
