package multihop

import (
	"slices"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/evidence"
)

func page(title, snippet string) evidence.Retrieved {
	return evidence.Retrieved{SearchResult: pipeline.SearchResult{URL: "https://example.org/" + strings.ReplaceAll(title, " ", "_"), Title: title, Snippet: snippet}}
}

// A source that defines a kind of thing ("A tide agency is ...") is paired with a source that
// says something is one ("... is a national tide agency"): the judge is told which sources read
// together, by their numbers only.
func TestDefinedKinds(t *testing.T) {
	t.Parallel()
	institute := page("Ostmoor Institute", "The Ostmoor Institute is a national tide agency founded in 1871.")
	agency := page("Tide agency", "A tide agency is a government agency responsible for the collection of tide records.")
	agencies := page("Harbour history", "Ostmoor and Westmoor are tide agencies of the coast.")
	mention := page("Harbour history", "Tide agencies were set up in every port.")
	disc := page("Glass disc", "An etched glass disc is a flat circular plate that stores images.")
	plate := page("Ostmoor plate", "The Ostmoor plate is an etched glass disc made in 1903.")
	named := page("Ostmoor Lighthouse", "The Ostmoor Lighthouse is a tower on the dunes.")
	long := page("Wordy", "A very long and winding name of a thing is not read as a kind.")
	for _, tc := range []struct {
		name  string
		given []evidence.Retrieved
		want  []kindDefinition
	}{
		{"a definition and a member", []evidence.Retrieved{institute, agency}, []kindDefinition{{definition: 2, member: 1}}},
		{"the member after the definition", []evidence.Retrieved{agency, institute}, []kindDefinition{{definition: 1, member: 2}}},
		{"a plural names the kind too", []evidence.Retrieved{agency, agencies}, []kindDefinition{{definition: 1, member: 2}}},
		{"two pairs", []evidence.Retrieved{institute, disc, agency, plate}, []kindDefinition{{definition: 2, member: 4}, {definition: 3, member: 1}}},
		{"a mention is no member", []evidence.Retrieved{agency, mention}, nil},
		{"a definition no other source names", []evidence.Retrieved{agency, named}, nil},
		{"no definition: a named thing's entry", []evidence.Retrieved{named, institute}, nil},
		{"a subject too long to be a kind", []evidence.Retrieved{long, page("Other", "A thing of a very long and winding name.")}, nil},
	} {
		if got := definedKinds(tc.given); !slices.Equal(got, tc.want) {
			t.Errorf("%s: definedKinds = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The judge prompt names the pairs, by source number and nothing of their text, only when
// there is one: a prompt without a definition pair is as before.
func TestJudgePromptNamesADefinitionAndItsMember(t *testing.T) {
	t.Parallel()
	institute := page("Ostmoor Institute", "The Ostmoor Institute is a national tide agency founded in 1871.")
	agency := page("Tide agency", "A tide agency is a government agency responsible for the collection of tide records.")
	const claim = "The Ostmoor Institute is responsible for the collection of tide records"
	paired, err := renderJudgePrompt(claim, []evidence.Retrieved{institute, agency}, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	const sentence = "Source 2 defines a kind of thing that source 1 says something is: what a definition says of every such thing holds of each thing a source says is one"
	if !strings.Contains(paired, sentence) {
		t.Errorf("the judge prompt does not name the pair:\n%s", paired)
	}
	alone, err := renderJudgePrompt(claim, []evidence.Retrieved{institute}, DefaultGrounding, "", false, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(alone, "defines a kind of thing") {
		t.Errorf("a prompt without a definition names one:\n%s", alone)
	}
}
