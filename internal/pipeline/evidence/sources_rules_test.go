package evidence

import "testing"

func TestRegistrableDomainByThePublicSuffixList(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ host, want string }{
		{"news.bbc.co.uk", "bbc.co.uk"},
		{"www.bbc.co.uk", "bbc.co.uk"},
		{"bbc.co.uk", "bbc.co.uk"},
		{"example.github.io", "example.github.io"}, // github.io is a public suffix: each site its own
		{"other.github.io", "other.github.io"},
		{"blog.example.github.io", "example.github.io"},
		{"abc.net.au", "abc.net.au"},
		{"www.abc.net.au", "abc.net.au"},
		{"City.Gov.UK.", "city.gov.uk"},
		{"apnews.com:443", "apnews.com"},
		{"en.wikipedia.org", "wikipedia.org"},
		{"a.b.c.example.com", "example.com"},
		{"localhost", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"[::1]:8080", "::1"},
		{"co.uk", "co.uk"},
		{"", ""},
	} {
		if got := RegistrableDomain(c.host); got != c.want {
			t.Errorf("RegistrableDomain(%q) = %q, want %q", c.host, got, c.want)
		}
	}
	if RegistrableDomain("example.github.io") == RegistrableDomain("other.github.io") {
		t.Error("two github.io sites are one domain")
	}
	if RegistrableDomain("bbc.co.uk") != RegistrableDomain("news.bbc.co.uk") {
		t.Error("bbc.co.uk and news.bbc.co.uk are two domains")
	}
}

func TestDocumentKey(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"https://www.example.com/story/", "http://example.com/story", "https://example.com/story#comments",
			"https://example.com/story?utm_source=x&utm_medium=y", "https://EXAMPLE.com:443/story?fbclid=abc",
			"https://example.com/story?gclid=1&mc_cid=2&ref=home"},
		{"https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2&utm_campaign=z"},
		{"https://doi.org/10.1000/XYZ123", "https://journals.example.org/doi/10.1000/xyz123",
			"https://dx.doi.org/10.1000/xyz123?utm_source=t", "doi:10.1000/xyz123",
			"https://example.org/abs?doi=10.1000%2Fxyz123"},
	}
	for _, group := range same {
		want := DocumentKey(group[0])
		for _, u := range group[1:] {
			if got := DocumentKey(u); got != want {
				t.Errorf("DocumentKey(%q) = %q, want %q (as %q)", u, got, want, group[0])
			}
		}
	}
	different := [][2]string{
		{"https://example.com/story?id=1", "https://example.com/story?id=2"},
		{"https://example.com/a", "https://example.com/b"},
		{"https://example.com:8080/a", "https://example.com/a"},
		{"https://doi.org/10.1000/abc", "https://doi.org/10.1000/abd"},
	}
	for _, d := range different {
		if DocumentKey(d[0]) == DocumentKey(d[1]) {
			t.Errorf("DocumentKey makes %q and %q one document (%q)", d[0], d[1], DocumentKey(d[0]))
		}
	}
	if got := DocumentKey("https://doi.org/10.1000/XYZ123"); got != "doi:10.1000/xyz123" {
		t.Errorf("a DOI link is %q, want doi:10.1000/xyz123", got)
	}
}

func TestPassageIn(t *testing.T) {
	t.Parallel()
	text := "The Harbour Bridge will close to all traffic for six weeks from March 3, the authority said.\n\n" +
		"“We cannot keep the bridge open safely,” said Maria Okafor — the chief engineer. Ｆｕｌｌｗｉｄｔｈ text."
	for _, c := range []struct {
		passage string
		want    bool
	}{
		{"The Harbour Bridge will close to all traffic for six weeks", true},
		{"the harbour   bridge WILL close", true},                                                 // case, spaces
		{`"We cannot keep the bridge open safely," said Maria Okafor - the chief engineer`, true}, // quotes, dashes
		{"The Harbour Bridge will close ... from March 3", true},                                  // ellipsis
		{"The Harbour Bridge will close […] said Maria Okafor", true},                             // bracketed ellipsis
		{"The Harbour Bridge will close… six weeks", true},                                        // ellipsis character
		{"fullwidth text", true},                                                                  // NFKC
		{"The Harbour Bridge will close for eight weeks", false},                                  // not said
		{"said Maria Okafor ... The Harbour Bridge will close", false},                            // out of order
		{"the bridge", false}, // too short to ground anything
		{"...", false},
		{"", false},
		{"The Harbour Bri\u200bdge will close to all traffic", true}, // a zero-width space in the quote
	} {
		if got := PassageIn(c.passage, text); got != c.want {
			t.Errorf("PassageIn(%q) = %v, want %v", c.passage, got, c.want)
		}
	}
}

// A page's links are read with a note of where they lead (text.LinkNote), text the page itself
// does not show: a quote of the page's words without the notes is verbatim all the same. In a
// relay run cove2's verifier quoted "Wad Madani (Arabic: ودمدني Wad Madanī) or Madani is the
// capital ..." of a source reading "Wad Madani (Arabic (link: Arabic language): ودمدني Wad
// Madanī) or Madani is the capital ...": the citation was dropped as quote_not_in_source, and
// the claim left uncertain.
func TestPassageInWithoutLinkNotes(t *testing.T) {
	t.Parallel()
	page := "Ostmoor (Danish (link: Danish language): Østmor) is the capital of the Westmoor (link: Westmoor (region)) region in the north of Freeland."
	for _, c := range []struct {
		passage string
		want    bool
	}{
		{"Ostmoor (Danish (link: Danish language): Østmor) is the capital of the Westmoor (link: Westmoor (region)) region", true},
		{"Ostmoor (Danish: Østmor) is the capital of the Westmoor region in the north of Freeland", true},
		{"the capital of the Westmoor region in the north", true},
		// The notes are the only text left out: the page's own words still have to be there.
		{"Ostmoor (Danish: Østmor) is the capital of the Eastmoor region", false},
		{"Ostmoor (Danish language: Østmor) is the capital", false},
	} {
		if got := PassageIn(c.passage, page); got != c.want {
			t.Errorf("PassageIn(%q) = %v, want %v", c.passage, got, c.want)
		}
	}
}

// A source whose snippet was cut inside a link note, the page's lines after it: the quote of
// a page line without its note is in the source (a relay run's cove2 verifier quoted "The
// Williams FW30 is a Formula One racing car, designed by Williams and introduced at the start
// of the 2008 Formula One season." and its citation was dropped).
func TestPassageInAfterASnippetCutInsideANote(t *testing.T) {
	t.Parallel()
	source := "gained two fences. The Ostmoor K7 is a racing car, designed by Ostmoor (link: Ostmoor Engineering\n\nFrom the page itself:\n\n" +
		"The Ostmoor K7 is a racing car, designed by Ostmoor (link: Ostmoor Engineering) and introduced at the start of the 2008 season."
	if !PassageIn("The Ostmoor K7 is a racing car, designed by Ostmoor and introduced at the start of the 2008 season.", source) {
		t.Error("the page line without its note is not found")
	}
	if PassageIn("The Ostmoor K7 is a racing car, designed by Ostmoor and introduced at the start of the 2009 season.", source) {
		t.Error("a changed year is found")
	}
}
