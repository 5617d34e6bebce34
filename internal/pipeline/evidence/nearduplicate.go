package evidence

import (
	"hash/fnv"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// ShingleWords is the length, in words, of the shingles that near-duplicate detection compares:
// five words are rare enough that two independent reports of one event share few of them, and
// short enough that a copy with a changed word here and there keeps most of them.
const ShingleWords = 5

// NearDuplicateThreshold and ContainmentThreshold decide when two pieces of evidence are one
// source whatever their domains: syndicated or copied text. Two texts are copies when the
// Jaccard similarity of their 5-word shingles (resemblance) reaches NearDuplicateThreshold, or
// when the shorter one, with at least MinContainmentShingles shingles, has ContainmentThreshold of
// its shingles in the longer (a wire story cut to its first paragraphs).
//
// Chosen on the written test set in testdata/nearduplicate (go test -v -run
// TestNearDuplicateOnTheTestSet ./internal/pipeline/evidence): copies with a new headline,
// dateline, byline, credit line or boilerplate score resemblance 0.80-0.81; lightly copy-edited
// copies 0.53-0.58 (containment 0.72-0.75); cut copies 0.39-0.52 (containment 0.81-0.96). Separate
// reports of the same event, with the same names and numbers, score at most 0.08 (containment
// 0.17), that maximum from an opinion piece that quotes two sentences of the story verbatim.
// The thresholds sit nearer the separate reports than the copies on purpose: taking two copies
// for independent sources would raise a verdict to High on one voice, while taking two separate
// reports for one copy only keeps it at Medium.
const (
	NearDuplicateThreshold = 0.3
	ContainmentThreshold   = 0.5
	MinContainmentShingles = 20
)

// Fingerprint is the set of a text's shingles, hashed: what NearDuplicate compares.
type Fingerprint map[uint64]struct{}

// FingerprintOf returns the shingles of s after text.FoldForMatch, as words of letters and digits
// (punctuation does not split a copy from its original). A text shorter than ShingleWords words
// is one shingle of all its words.
func FingerprintOf(s string) Fingerprint {
	words := text.Words(text.FoldForMatch(s))
	fp := Fingerprint{}
	if len(words) == 0 {
		return fp
	}
	n := max(len(words)-ShingleWords+1, 1)
	for i := range n {
		h := fnv.New64a()
		for _, w := range words[i:min(i+ShingleWords, len(words))] {
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		fp[h.Sum64()] = struct{}{}
	}
	return fp
}

// Resemblance returns the Jaccard similarity of two fingerprints: shared shingles over all
// shingles, 0 when either is empty.
func Resemblance(a, b Fingerprint) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	shared := sharedShingles(a, b)
	return float64(shared) / float64(len(a)+len(b)-shared)
}

// Containment returns the share of the smaller fingerprint's shingles that are in the larger.
func Containment(a, b Fingerprint) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return float64(sharedShingles(a, b)) / float64(min(len(a), len(b)))
}

// NearDuplicate reports whether two texts are one source: their resemblance reaches
// NearDuplicateThreshold, or the shorter, long enough to judge, is contained in the longer.
func NearDuplicate(a, b Fingerprint) bool {
	if Resemblance(a, b) >= NearDuplicateThreshold {
		return true
	}
	return min(len(a), len(b)) >= MinContainmentShingles && Containment(a, b) >= ContainmentThreshold
}

func sharedShingles(a, b Fingerprint) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	for h := range a {
		if _, ok := b[h]; ok {
			n++
		}
	}
	return n
}
