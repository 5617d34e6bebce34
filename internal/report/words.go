package report

import (
	"strings"
)

// diffPart is a run of words of an inline diff: kept, removed from the original, or inserted
// by the revision.
type diffPart struct {
	Op   string // "same", "del" or "ins"
	Text string
}

// maxDiffWords bounds the words compared (the table is words × words); past it the page shows
// the two texts whole instead of a diff.
const maxDiffWords = 2000

// wordDiff compares the words of original and revised (split on spaces, punctuation kept with
// its word) by their longest common subsequence and returns the inline diff, or nil when the
// texts are too long to compare.
func wordDiff(original, revised string) []diffPart {
	a, b := strings.Fields(original), strings.Fields(revised)
	if len(a) > maxDiffWords || len(b) > maxDiffWords {
		return nil
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var parts []diffPart
	add := func(op, word string) {
		if n := len(parts); n > 0 && parts[n-1].Op == op {
			parts[n-1].Text += " " + word
			return
		}
		parts = append(parts, diffPart{Op: op, Text: word})
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			add("same", a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			add("del", a[i])
			i++
		default:
			add("ins", b[j])
			j++
		}
	}
	return parts
}

// failures turn a failed run's error into one plain sentence for an editor; the error itself
// stays on the page, folded away. The first entry whose every word the error holds (any case)
// gives the sentence.
var failures = []struct {
	words    []string
	sentence string
}{
	{[]string{"key"}, "The model service refused the API key, so this statement was not checked; an operator must fix the key and run it again."},
	{[]string{"401"}, "The model service refused the API key, so this statement was not checked; an operator must fix the key and run it again."},
	{[]string{"quota"}, "The model service's quota was used up, so this statement was not checked; it can be run again once the quota is restored."},
	{[]string{"model", "not found"}, "The model named in the configuration does not exist at the model service, so this statement was not checked."},
	{[]string{"plan"}, "The model's plan for checking this statement did not pass the project's rules, even after one repair, so no verdict was given."},
	{[]string{"valid"}, "The model's answer did not pass the project's checks, even after one repair, so no verdict was given."},
	{[]string{"timeout"}, "The model service did not answer in time, so this statement was not checked; it can be run again."},
	{[]string{"deadline"}, "The model service did not answer in time, so this statement was not checked; it can be run again."},
}

// plainFailure is the one sentence a failed run's page and card show.
func plainFailure(err string) string {
	lower := strings.ToLower(err)
	for _, f := range failures {
		all := true
		for _, w := range f.words {
			all = all && strings.Contains(lower, w)
		}
		if all {
			return f.sentence
		}
	}
	return "The check of this statement failed before a verdict was reached; it can be run again (enqueue retry)."
}
