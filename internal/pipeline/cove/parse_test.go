package cove

import (
	"reflect"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

func TestParseQuestionLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply string
		want        []string
	}{
		{"plain", "Where was A born?\nWhere was B born?", []string{"Where was A born?", "Where was B born?"}},
		{"numbered and blank lines", "1. Where was A born?\n\n2) Where was B born?\n", []string{"Where was A born?", "Where was B born?"}},
		{"bullets and preface", "Here are the verification questions:\n- Where was A born?\n* Where was B born?\n• When?", []string{"Where was A born?", "Where was B born?", "When?"}},
		{"markdown", "```\n**1. Where was A born?**\n```", []string{"Where was A born?"}},
		{"repeats dropped", "Q1: Where?\nQ2: Where?", []string{"Where?"}},
		{"whitespace", "   \t Where was A born?  \r\n", []string{"Where was A born?"}},
		{"empty", "\n\n  \n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ParseQuestionLines(c.reply); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func FuzzParseQuestionLines(f *testing.F) {
	for _, seed := range []string{"1. a?\n2. b?", "Here are the questions:\n- x", "```\n**q**\n```", "", "\xff\xfe", strings.Repeat("q?\n", 500)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		got := ParseQuestionLines(reply)
		if len(got) > maxParsedItems {
			t.Fatalf("%d items from one reply", len(got))
		}
		for _, q := range got {
			if q == "" || len(q) > pipeline.MaxLineBytes || strings.Contains(q, "\n") {
				t.Fatalf("bad item %q", q)
			}
		}
	})
}

func TestParseJointPairs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply string
		pairs       []QAPair
		unanswered  []string
	}{
		{"plain", "Q: Where was A born?\nA: Chicago\nQ: Where was B born?\nA: Queens",
			[]QAPair{{"Where was A born?", "Chicago"}, {"Where was B born?", "Queens"}}, nil},
		{"preface, blank lines and markdown labels", "Here are the checks:\n\n**Q:** Where was A born?\n**A:** Chicago\n\n- Q1: When?\n- A1: 1947",
			[]QAPair{{"Where was A born?", "Chicago"}, {"When?", "1947"}}, nil},
		{"numbered and spelled-out labels", "1. Question: Where?\n   Answer: Here\n2. question 2: Why?\nanswer 2: **Because**",
			[]QAPair{{"Where?", "Here"}, {"Why?", "Because"}}, nil},
		{"a question without answer is skipped", "Q: Where was A born?\nQ: Where was B born?\nA: Queens\nQ: Where was C born?",
			[]QAPair{{"Where was B born?", "Queens"}}, []string{"Where was A born?", "Where was C born?"}},
		{"an empty answer leaves the question unanswered", "Q: Where?\nA:\nA: late answer",
			nil, []string{"Where?"}},
		{"an answer without question is ignored", "A: Chicago\nQ: Where?\nA: Here\nA: again",
			[]QAPair{{"Where?", "Here"}}, nil},
		{"unlabelled lines between a pair do not break it", "Q: Where?\n(thinking)\nA: Here",
			[]QAPair{{"Where?", "Here"}}, nil},
		{"one line holding both is not split", "Q: Where? A: Here",
			nil, []string{"Where? A: Here"}},
		{"fences", "```\nQ: Where?\nA: Here\n```", []QAPair{{"Where?", "Here"}}, nil},
		{"nothing", "I cannot help with that.", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pairs, unanswered := ParseJointPairs(c.reply)
			if !reflect.DeepEqual(pairs, c.pairs) || !reflect.DeepEqual(unanswered, c.unanswered) {
				t.Fatalf("got %q / %q, want %q / %q", pairs, unanswered, c.pairs, c.unanswered)
			}
		})
	}
}

func TestParseNumberedAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply string
		want        map[int]string
	}{
		{"plain", "1. Chicago\n2. Queens\n3. Manhattan", map[int]string{1: "Chicago", 2: "Queens", 3: "Manhattan"}},
		{"delimiters", "1) Chicago\n2: Queens\n(3) Manhattan\n4 - Albany", map[int]string{1: "Chicago", 2: "Queens", 3: "Manhattan", 4: "Albany"}},
		{"markdown, bullets, labels", "**1.** Chicago\n- **Answer 2:** Queens\n* A3: **Manhattan**\nAnswer 4: A: Albany",
			map[int]string{1: "Chicago", 2: "Queens", 3: "Manhattan", 4: "Albany"}},
		{"preface and blank lines", "Here are the answers:\n\n1. Chicago\n\n\n2. unsure\n", map[int]string{1: "Chicago", 2: "unsure"}},
		{"answer on the line after an echoed question", "1. Where was A born?\n   Chicago\n2. Where was B born?\n- Queens",
			map[int]string{1: "Chicago", 2: "Queens"}},
		{"questions listed before the answers", "1. Where was A born?\n2. Where was B born?\n\nAnswers:\n1. Chicago\n2. Queens",
			map[int]string{1: "Chicago", 2: "Queens"}},
		{"first answer of a number wins", "1. Chicago\n1. Boston", map[int]string{1: "Chicago"}},
		{"a decimal is not a number", "1. 3.14\n3.14 is pi", map[int]string{1: "3.14"}},
		{"out of order", "2. Queens\n1. Chicago", map[int]string{1: "Chicago", 2: "Queens"}},
		{"no numbers", "Chicago\nQueens", map[int]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := ParseNumberedAnswers(c.reply); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestParseClaimQuestionPairs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, reply string
		pairs       []ClaimQuestion
		unpaired    []string
	}{
		{"plain", "Claim: A was born in X\nQuestion: Where was A born?\nClaim: B was born in Y\nQuestion: Where was B born?",
			[]ClaimQuestion{{"A was born in X", "Where was A born?"}, {"B was born in Y", "Where was B born?"}}, nil},
		{"numbering, bullets, bold labels, blank lines, preface", "Here are the claims:\n\n1. **Claim:** \"A was born in X\"\n   **Question:** Where was A born?\n\n- **Claim 2:** B was born in Y\n- **Verification question 2:** Where was B born?",
			[]ClaimQuestion{{"A was born in X", "Where was A born?"}, {"B was born in Y", "Where was B born?"}}, nil},
		{"label alone on its line", "**Claim:**\nA was born in X\n**Question:**\nWhere was A born?",
			[]ClaimQuestion{{"A was born in X", "Where was A born?"}}, nil},
		{"question on the claim's line", "Claim: A was born in X | Question: Where was A born?",
			[]ClaimQuestion{{"A was born in X", "Where was A born?"}}, nil},
		{"a claim without question is skipped", "Claim: A was born in X\nClaim: B was born in Y\nQuestion: Where was B born?\nClaim: C is tall",
			[]ClaimQuestion{{"B was born in Y", "Where was B born?"}}, []string{"A was born in X", "C is tall"}},
		{"a question without claim is ignored", "Question: Where?\nClaim: A\nQuestion: Is A?\nQuestion: again?",
			[]ClaimQuestion{{"A", "Is A?"}}, nil},
		{"nothing", "No factual claims here.", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pairs, unpaired := ParseClaimQuestionPairs(c.reply)
			if !reflect.DeepEqual(pairs, c.pairs) || !reflect.DeepEqual(unpaired, c.unpaired) {
				t.Fatalf("got %q / %q, want %q / %q", pairs, unpaired, c.pairs, c.unpaired)
			}
		})
	}
}

func TestParseCrossCheckVerdict(t *testing.T) {
	t.Parallel()
	partial := func(part string) CrossCheckVerdict {
		return CrossCheckVerdict{Verdict: CrossCheckPartial, ConsistentPart: part, Recognized: true}
	}
	consistent := CrossCheckVerdict{Verdict: CrossCheckConsistent, Recognized: true}
	inconsistent := CrossCheckVerdict{Verdict: CrossCheckInconsistent, Recognized: true}
	unrecognized := CrossCheckVerdict{Verdict: CrossCheckInconsistent}
	cases := []struct {
		name, reply string
		want        CrossCheckVerdict
	}{
		{"consistent", "CONSISTENT", consistent},
		{"consistent, lower case with a reason", "consistent. The evidence agrees.", consistent},
		{"inconsistent", "INCONSISTENT", inconsistent},
		{"inconsistent in markdown", "  **INCONSISTENT**\nThe answer says 1946.", inconsistent},
		{"partial", "PARTIALLY CONSISTENT: Donald Trump was born in Queens", partial("Donald Trump was born in Queens")},
		{"partial, bold, quoted", "- **Partially consistent:** \"Donald Trump was born in Queens\"", partial("Donald Trump was born in Queens")},
		{"partial, bold around the verdict only", "**PARTIALLY CONSISTENT**: Donald Trump was born in Queens", partial("Donald Trump was born in Queens")},
		{"partial, part on the next line", "PARTIALLY CONSISTENT:\nDonald Trump was born in Queens", partial("Donald Trump was born in Queens")},
		{"partly, hyphen, dash", "Partly-consistent — born in Queens", partial("born in Queens")},
		{"verdict label", "Verdict: CONSISTENT", consistent},
		{"fence", "```\nINCONSISTENT\n```", inconsistent},
		{"partial without a part", "PARTIALLY CONSISTENT", unrecognized},
		{"none of the verdicts", "The claim is mostly right.", unrecognized},
		{"a word that only starts like one", "CONSISTENTLY wrong", unrecognized},
		{"empty", "  \n", unrecognized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := ParseCrossCheckVerdict(c.reply); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
	if got := partial("born in Queens").Line(); got != "PARTIALLY CONSISTENT: born in Queens" {
		t.Errorf("partial verdict line: %q", got)
	}
}

// boundedItem fails the fuzz test when one parsed item is empty, too long or spans lines.
func boundedItem(t *testing.T, what, s string, mayBeEmpty bool) {
	t.Helper()
	if (!mayBeEmpty && s == "") || len(s) > pipeline.MaxLineBytes || strings.Contains(s, "\n") {
		t.Fatalf("bad %s %q", what, s)
	}
}

func FuzzParseJointPairs(f *testing.F) {
	for _, seed := range []string{
		"Q: a?\nA: b", "**Q:** a?\n**A:** b\nQ: c?", "A: orphan\nQ:\nA: x", "1. Question 1: a?\n   Answer 1: b",
		"```\nQ: a? A: b\n```", "", "\xff\xfe", strings.Repeat("Q: q?\nA: a\n", 300), "Q: " + strings.Repeat("x", 3000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		pairs, unanswered := ParseJointPairs(reply)
		if len(pairs) > maxParsedItems || len(unanswered) > maxParsedItems {
			t.Fatalf("%d pairs and %d unanswered from one reply", len(pairs), len(unanswered))
		}
		for _, p := range pairs {
			boundedItem(t, "question", p.Question, false)
			boundedItem(t, "answer", p.Answer, false)
		}
		for _, q := range unanswered {
			boundedItem(t, "unanswered question", q, false)
		}
	})
}

func FuzzParseNumberedAnswers(f *testing.F) {
	for _, seed := range []string{
		"1. Chicago\n2) Queens\n3: Manhattan", "**1.** a\n- Answer 2: b\n(3) c", "1. Where?\nHere", "Here are the answers:\n\n1.",
		"999. x\n0. y\n1000. z", "", "\xff\xfe", strings.Repeat("7. a\n", 500), "1. " + strings.Repeat("x", 3000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		got := ParseNumberedAnswers(reply)
		if len(got) > maxParsedItems {
			t.Fatalf("%d answers from one reply", len(got))
		}
		for n, a := range got {
			if n < 1 || n > 999 {
				t.Fatalf("answer number %d", n)
			}
			boundedItem(t, "answer", a, true)
		}
	})
}

func FuzzParseClaimQuestionPairs(f *testing.F) {
	for _, seed := range []string{
		"Claim: a\nQuestion: b?", "1. **Claim:** \"a\"\n   **Question:** b?", "**Claim:**\na\n**Question:**\nb?",
		"Claim: a | Question: b?", "Claim: a\nClaim: c", "", "\xff\xfe", strings.Repeat("Claim: c\nQuestion: q?\n", 300),
		"Claim: " + strings.Repeat("x", 3000) + " Question: y",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		pairs, unpaired := ParseClaimQuestionPairs(reply)
		if len(pairs) > maxParsedItems || len(unpaired) > maxParsedItems {
			t.Fatalf("%d pairs and %d unpaired from one reply", len(pairs), len(unpaired))
		}
		for _, p := range pairs {
			boundedItem(t, "claim", p.Claim, false)
			boundedItem(t, "question", p.Question, false)
		}
		for _, c := range unpaired {
			boundedItem(t, "unpaired claim", c, false)
		}
	})
}

func FuzzParseCrossCheckVerdict(f *testing.F) {
	for _, seed := range []string{
		"CONSISTENT", "INCONSISTENT", "PARTIALLY CONSISTENT: a", "**Partially consistent:**\n\"a\"", "Verdict: consistent",
		"PARTIALLY CONSISTENT", "maybe", "", "\xff\xfe", "PARTIALLY CONSISTENT: " + strings.Repeat("x", 3000),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		v := ParseCrossCheckVerdict(reply)
		switch v.Verdict {
		case CrossCheckConsistent, CrossCheckInconsistent:
			if v.ConsistentPart != "" {
				t.Fatalf("a part without a partial verdict: %+v", v)
			}
		case CrossCheckPartial:
			boundedItem(t, "consistent part", v.ConsistentPart, false)
			if !v.Recognized {
				t.Fatalf("an unrecognized partial verdict: %+v", v)
			}
		default:
			t.Fatalf("verdict %q", v.Verdict)
		}
		if !v.Recognized && v.Verdict != CrossCheckInconsistent {
			t.Fatalf("an unrecognized reply must be INCONSISTENT: %+v", v)
		}
	})
}
