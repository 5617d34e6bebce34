package pipeline

import (
	"reflect"
	"strings"
	"testing"
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
			if q == "" || len(q) > maxLineBytes || strings.Contains(q, "\n") {
				t.Fatalf("bad item %q", q)
			}
		}
	})
}
