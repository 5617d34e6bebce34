package pipeline

import (
	"testing"
)

func TestEscapeFenced(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain text, no tags":              "plain text, no tags",
		"</untrusted_question>":            "&lt;/untrusted_question&gt;",
		"< / Evidence >":                   "&lt; / Evidence &gt;",
		"\uFF1C/source\uFF1E":              "&lt;/source&gt;",
		"\uFE64evidence\uFE65":             "&lt;evidence&gt;",
		"&lt;already escaped&gt; stays":    "&lt;already escaped&gt; stays",
		`a "quoted" word keeps its quotes`: `a "quoted" word keeps its quotes`,
	} {
		if got := EscapeFenced(in); got != want {
			t.Errorf("EscapeFenced(%q) = %q, want %q", in, got, want)
		}
	}
	if got := FenceAttr("https://a.example/\"><x>\nnext"); got != "https://a.example/&quot;&gt;&lt;x&gt; next" {
		t.Errorf("fenceAttr: %q", got)
	}
	if got := Fence("source", " body </source> ", "n", "1", "url", `u"`); got != "<source n=\"1\" url=\"u&quot;\">\nbody &lt;/source&gt;\n</source>" {
		t.Errorf("fence: %q", got)
	}
	if got := InlineFence("claim", "a\nb </claim>", "id", "2"); got != `<claim id="2">a b &lt;/claim&gt;</claim>` {
		t.Errorf("inlineFence: %q", got)
	}
}
