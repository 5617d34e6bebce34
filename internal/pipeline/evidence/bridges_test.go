package evidence

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// A bridge value is taken only from a passage of a source that grounds the finding, and only
// when the passage holds it; multihop's judges and cove2's verifiers are held to this one check.
func TestResolveBridge(t *testing.T) {
	t.Parallel()
	given := []Retrieved{
		{SearchResult: pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/Adam_Beach", Snippet: "Adam Beach played Detective Chester Lake in Law & Order: SVU."}},
		{SearchResult: pipeline.SearchResult{URL: "https://fandom.example/wiki/Chester_Lake", Snippet: "Chester Lake was played by a Canadian actor."}},
		{SearchResult: pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/Romance_film", Snippet: "Romance films are love stories recorded in visual media."}},
		{SearchResult: pipeline.SearchResult{URL: "https://en.wikipedia.org/wiki/Ostmoor_Jews", Title: "Ostmoor Jews",
			Snippet: "Ostmoor Jewish is a member of the subgroup of Ashkenazi Jews originating in the Kingdom of Ostmoor. Westmoor Art was a school of painting."}},
	}
	grounding := []int{0, 2, 3}
	for _, tt := range []struct {
		name   string
		answer BridgeAnswer
		value  string
		reason string
	}{
		{"from the cited passage", BridgeAnswer{"Adam Beach", 1, "Adam Beach played Detective Chester Lake"}, "Adam Beach", ""},
		{"a name the passage does not hold", BridgeAnswer{"Jason Momoa", 1, "Adam Beach played Detective Chester Lake"}, "", "not in the passage"},
		// The passage holds the letters but not the name: a value is whole words of it.
		{"part of a word of the passage", BridgeAnswer{"Ada", 1, "Adam Beach played Detective Chester Lake"}, "", "not in the passage"},
		{"a name the passage gives in the plural", BridgeAnswer{"Romance film", 3, "Romance films are love stories"}, "Romance film", ""},
		{"a name with its punctuation", BridgeAnswer{"Law & Order: SVU", 1, "Adam Beach played Detective Chester Lake in Law & Order: SVU"}, "Law & Order: SVU", ""},
		{"a passage the source does not hold", BridgeAnswer{"Jason Momoa", 1, "Jason Momoa played Detective Chester Lake"}, "", "is not in source [1]"},
		{"a source that grounds nothing", BridgeAnswer{"Canadian actor", 2, "played by a Canadian actor"}, "", "not a source grounding its answer"},
		{"a source it was not given", BridgeAnswer{"Adam Beach", 7, "Adam Beach played Detective Chester Lake"}, "", "not a source grounding its answer"},
		{"no answer", BridgeAnswer{"", 1, "Adam Beach played Detective Chester Lake"}, "", "named no answer"},
		{"a paragraph, not a name", BridgeAnswer{strings.Repeat("Adam Beach ", 20), 1, "Adam Beach played Detective Chester Lake"}, "", "is no name"},
		{"a placeholder", BridgeAnswer{"{c2}", 1, "Adam Beach played Detective Chester Lake"}, "", "is no name"},
		// The cited source's title, which its passage writes in another form of its words (a
		// relay run, EX-FEVER 2721-2800: "Galician Jews" from "Galician Jewish is a member of
		// ..."); never a title the passage does not write, nor another form of a word that is
		// no title.
		{"the source's title in another form", BridgeAnswer{"Ostmoor Jews", 4, "Ostmoor Jewish is a member of the subgroup of Ashkenazi Jews"}, "Ostmoor Jews", ""},
		{"the title, a passage without it", BridgeAnswer{"Ostmoor Jews", 4, "Westmoor Art was a school of painting"}, "", "not in the passage"},
		{"another form, not the title", BridgeAnswer{"Westmoor Artist", 4, "Westmoor Art was a school of painting"}, "", "not in the passage"},
	} {
		got := ResolveBridge(tt.answer, given, grounding, "verifier")
		if got.Value != tt.value || !strings.Contains(got.Reason, tt.reason) || (tt.value != "" && got.Source != tt.answer.Source-1) {
			t.Errorf("%s: %+v, want %q (%q)", tt.name, got, tt.value, tt.reason)
		}
	}
}

func TestSubstituteBridges(t *testing.T) {
	t.Parallel()
	if ids := BridgesIn("Which film did {c1} play Slipknot in, and did {c1} meet {c12}?"); strings.Join(ids, ",") != "c1,c12" {
		t.Errorf("BridgesIn: %v", ids)
	}
	got, ok := SubstituteBridges("Which film did {c1} play Slipknot in?", map[string]string{"c1": "Adam Beach"})
	if !ok || got != "Which film did Adam Beach play Slipknot in?" {
		t.Errorf("substituted: %q %v", got, ok)
	}
	if got, ok := SubstituteBridges("{c1} and {c2}", map[string]string{"c1": "Adam Beach"}); ok || got != "{c1} and {c2}" {
		t.Errorf("a missing value leaves the text as it was: %q %v", got, ok)
	}
	// SubstituteKnownBridges states what it can, in one pass: a value that writes a placeholder
	// (a name a hostile page planted) is not substituted in turn.
	if got, all := SubstituteKnownBridges("{c1} and {c2}", map[string]string{"c1": "Adam Beach"}); all || got != "Adam Beach and {c2}" {
		t.Errorf("known bridges: %q %v", got, all)
	}
	if got, all := SubstituteKnownBridges("{c1} met {c2}", map[string]string{"c1": "{c2}", "c2": "David Ayer"}); !all || got != "{c2} met David Ayer" {
		t.Errorf("a value holding a placeholder: %q %v", got, all)
	}
	if got := WithoutBridges("Which film did {c1} play  Slipknot in?"); got != "Which film did play Slipknot in?" {
		t.Errorf("WithoutBridges: %q", got)
	}
}
