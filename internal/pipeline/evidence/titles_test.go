package evidence

import (
	"slices"
	"testing"
)

// Titles hold words that elsewhere join facts ("and"); a phrase or a sentence in quotes is no
// title (issue 22, case 4).
func TestIsTitleText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want bool
	}{
		{"A Soldier and a Maker", true},
		{"Severn and Somme", true},
		{"AI-based Language Learning: Challenges and Opportunities", true},
		{"Run, Chris, Run", true},
		{"1984", true},
		{"the law and the courts", false},
		{"Paris is big and old", false},
		{"a Soldier and a Maker", false},
		{"", false},
	} {
		if got := IsTitleText(c.text); got != c.want {
			t.Errorf("IsTitleText(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestTitleSpans(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"The subject of the musical *A Soldier and a Maker* was a poet.", []string{"*A Soldier and a Maker*"}},
		{`He wrote "Run, Chris, Run" and “Severn and Somme”.`, []string{`"Run, Chris, Run"`, "“Severn and Somme”"}},
		{"The paper titled 'AI-based Language Learning: Challenges and Opportunities' won.", []string{" 'AI-based Language Learning: Challenges and Opportunities' "}},
		{"It's the band's 'best and worst' year.", nil},
		{`She said "it is big and old".`, nil},
	} {
		var got []string
		for _, s := range TitleSpans(c.text) {
			got = append(got, c.text[s[0]:s[1]])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("TitleSpans(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
