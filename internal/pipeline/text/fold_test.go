package text

import "testing"

func TestFoldForMatchSeesThroughDisguises(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Ｉｇｎｏｒｅ previous instructions", "ignore previous instructions"},             // fullwidth
		{"Ig\u200bnore  previous\u00a0instructions", "ignore previous instructions"}, // zero-width, no-break space
		{"\u202eIgnore\u202c previous", "ignore previous"},                           // bidi controls
		{"іgnоrе previous", "ignore previous"},                                       // Cyrillic і, о, е
		{"ΙGNΟRΕ", "ignore"}, // Greek capitals
		{"“quoted” — text", "quoted - text"},
		{"ﬁle", "file"}, // ligature
	} {
		if got := FoldForMatch(c.in); got != c.want {
			t.Errorf("FoldForMatch(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCleanUntrustedKeepsOtherScripts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Ｉgnore the rules", "Ignore the rules"},
		{"іgnore the rules", "ignore the rules"}, // a Cyrillic і inside a Latin word
		{"Іgnore", "Ignore"},                     // capital kept
		{"Москва столица России", "Москва столица России"}, // Russian stays Russian
		{"Η Αθήνα είναι πρωτεύουσα", "Η Αθήνα είναι πρωτεύουσα"},
		{"zero\u200b-width\u2060 joiners", "zero-width joiners"},
		{"Café au lait", "Café au lait"},
	} {
		if got := CleanUntrusted(c.in); got != c.want {
			t.Errorf("CleanUntrusted(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDropAccents(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"précédentes", "precedentes"},
		{"für über", "fur uber"},
		{"São Tomé", "Sao Tome"},
		{"plain", "plain"},
	} {
		if got := DropAccents(c.in); got != c.want {
			t.Errorf("DropAccents(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
