package evidence

import (
	"slices"
	"testing"
)

// Real Wikipedia titles hold apostrophes, parentheses, commas, a full stop at the end and
// letters outside ASCII. A URL a reply cites names the retrieved source it is, whatever it holds
// and however the reply spells it (issue 22: ".../wiki/I'm_Not_a_Vampire" was read as
// ".../wiki/I", "..._(Fergie_song)" lost its end, and the citation was removed).
func TestFindURLsNamesTheRetrievedSourceWhateverItHolds(t *testing.T) {
	t.Parallel()
	retrieved := []string{
		"https://en.wikipedia.org/wiki/I'm_Not_a_Vampire",
		"https://en.wikipedia.org/wiki/They're_Only_Chasing_Safety",
		"https://en.wikipedia.org/wiki/Big_Girls_Don't_Cry_(Fergie_song)",
		"https://en.wikipedia.org/wiki/Heat_(1995_film)",
		"https://en.wikipedia.org/wiki/Run,_Chris,_Run",
		"https://en.wikipedia.org/wiki/Apple_Inc.",
		"https://de.wikipedia.org/wiki/Z%C3%BCrich",
		"https://en.wikipedia.org/wiki/C%C6%B0%E1%BB%9Dng_%C4%90%E1%BB%83",
		"https://www.example.com/search?q=a&b=c",
		"https://en.wikipedia.org/wiki/Heat",
	}
	for _, c := range []struct{ text, want string }{
		{"https://en.wikipedia.org/wiki/I'm_Not_a_Vampire", retrieved[0]},
		{"- https://en.wikipedia.org/wiki/They're_Only_Chasing_Safety.", retrieved[1]},
		{"(https://en.wikipedia.org/wiki/Big_Girls_Don't_Cry_(Fergie_song))", retrieved[2]},
		{"[1] https://en.wikipedia.org/wiki/Heat_(1995_film), [2] https://en.wikipedia.org/wiki/Heat", retrieved[3]},
		{"<https://en.wikipedia.org/wiki/Heat_(1995_film)>", retrieved[3]},
		{"[Heat](https://en.wikipedia.org/wiki/Heat_(1995_film)).", retrieved[3]},
		{"https://en.wikipedia.org/wiki/Run,_Chris,_Run, and more", retrieved[4]},
		{"Sources: https://en.wikipedia.org/wiki/Apple_Inc.", retrieved[5]},
		{"https://de.wikipedia.org/wiki/Zürich", retrieved[6]},
		{"https://de.wikipedia.org/wiki/Z%c3%bcrich", retrieved[6]},
		{"https://en.wikipedia.org/wiki/Cường_Để", retrieved[7]},
		{"https://en.wikipedia.org/wiki/I%27m_Not_a_Vampire", retrieved[0]},
		{"http://EN.wikipedia.org/wiki/I'm_Not_a_Vampire#Plot", retrieved[0]},
		{"www.example.com/search?q=a&amp;b=c", retrieved[8]},
		{"'https://en.wikipedia.org/wiki/I'm_Not_a_Vampire'", retrieved[0]},
		{"“https://en.wikipedia.org/wiki/I'm_Not_a_Vampire”", retrieved[0]},
	} {
		got := FindURLs(c.text, retrieved)
		if len(got) == 0 || !got[0].Known || got[0].URL != c.want {
			t.Errorf("FindURLs(%q): %+v, want the retrieved %s", c.text, got, c.want)
		}
	}
}

// A URL that only begins like a retrieved one is another URL, and is read whole: it cannot pass
// for the source, and removing it leaves no part of it behind.
func TestFindURLsLongerThanARetrievedURLIsAnother(t *testing.T) {
	t.Parallel()
	retrieved := []string{"https://en.wikipedia.org/wiki/Heat", "https://a.example/x"}
	for _, c := range []struct{ text, want string }{
		{"https://en.wikipedia.org/wiki/Heat_(1995_film)", "https://en.wikipedia.org/wiki/Heat_(1995_film)"},
		{"https://en.wikipedia.org/wiki/Heat's_end", "https://en.wikipedia.org/wiki/Heat's_end"},
		{"https://a.example/x.evil.example/p", "https://a.example/x.evil.example/p"},
		{"https://a.example/x@evil.example", "https://a.example/x@evil.example"},
		{"https://a.example/x%2Fevil", "https://a.example/x%2Fevil"},
		{"(see https://evil.example/a_(b)).", "https://evil.example/a_(b)"},
	} {
		got := FindURLs(c.text, retrieved)
		if len(got) != 1 || got[0].Known || got[0].URL != c.want {
			t.Errorf("FindURLs(%q): %+v, want the unknown %s", c.text, got, c.want)
		}
	}
	text := "See https://en.wikipedia.org/wiki/Heat_(1995_film) and [it](https://evil.example/I'm_(x)). Also https://en.wikipedia.org/wiki/Heat."
	got, removed := StripUnknownURLs(text, retrieved)
	if got != "See  and it. Also https://en.wikipedia.org/wiki/Heat." ||
		!slices.Equal(removed, []string{"https://evil.example/I'm_(x)", "https://en.wikipedia.org/wiki/Heat_(1995_film)"}) {
		t.Errorf("StripUnknownURLs: %q, removed %q", got, removed)
	}
}

// A revised text keeps a retrieved URL whole, in a markdown link or in prose.
func TestStripUnknownURLsKeepsRetrievedTitles(t *testing.T) {
	t.Parallel()
	retrieved := []string{"https://en.wikipedia.org/wiki/Big_Girls_Don't_Cry_(Fergie_song)", "https://en.wikipedia.org/wiki/I'm_Not_a_Vampire"}
	text := "It charted [1] ([source](https://en.wikipedia.org/wiki/Big_Girls_Don't_Cry_(Fergie_song))); see https://en.wikipedia.org/wiki/I'm_Not_a_Vampire."
	got, removed := StripUnknownURLs(text, retrieved)
	if got != text || len(removed) != 0 {
		t.Errorf("StripUnknownURLs: %q, removed %q", got, removed)
	}
}
