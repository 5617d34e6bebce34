package intake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func newReader() *Reader {
	return NewReader(jobs.ValidationConfig{DefaultMethod: pipeline.MethodFactored}, "")
}

func TestReadInputs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, content string
		records             int
		problems            []string
	}{
		{"jsonl", "a.jsonl", `{"v":1,"text":"The Eiffel Tower is in Paris."}` + "\n\n" + `{"v":1,"question":"Where is the Eiffel Tower?","id":"x1"}` + "\n", 2, nil},
		{"bad jsonl", "a.jsonl", `{"v":1,"text":"Fine statement here."}` + "\nnot json\n" + `{"v":1}` + "\n" + `{"v":1,"text":"hello"}`,
			1, []string{"a.jsonl:2: invalid job message: message: is not valid JSON", "a.jsonl:3: invalid job message: message: needs text, question, or both", "a.jsonl:4: invalid job message: text: a statement needs at least two words"}},
		{"unknown method and language", "a.jsonl", `{"v":1,"text":"Two words here.","method":"magic"}` + "\n" + `{"v":1,"text":"Two words here.","language":"xx"}`,
			0, []string{"a.jsonl:1: invalid job message: method", "a.jsonl:2: invalid job message: language"}},
		{"csv", "a.csv", "id,text,question,method\nr1,The Eiffel Tower is in Paris.,,\nr2,\"Quoted, with a comma.\",Where?,cove-joint\n", 2, nil},
		{"csv without text column", "a.csv", "statement,question\nThe Eiffel Tower is in Paris.,\n", 0, []string{"a.csv:1: the CSV header has no text column"}},
		{"csv bad row", "a.csv", "text\nword\nThe Eiffel Tower is in Paris.\n", 1, []string{"a.csv:2: invalid job message: text: a statement needs at least two words"}},
		{"txt", "a.txt", "The Eiffel Tower is in Paris.\r\n\r\nWater boils at 100 degrees.\n", 2, nil},
		{"txt invalid utf-8", "a.txt", "The Eiffel \xff Tower.\nFine statement here.\n", 1, []string{"a.txt:1: text: is not valid UTF-8"}},
		{"txt control characters", "a.txt", "The Eiffel\x00 Tower is here.\n", 0, []string{"a.txt:1: invalid job message: text"}},
		{"empty file", "a.txt", "", 0, []string{"a.txt: holds no statements"}},
		{"line over the size limit", "a.txt", "Short statement here.\n" + strings.Repeat("word ", 300000) + "\nAnother statement here.\n", 2, []string{"a.txt:2: line is longer than the message size limit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newReader()
			path := writeFile(t, c.file, c.content)
			if err := r.ReadFile(path, nil); err != nil {
				t.Fatal(err)
			}
			if len(r.records) != c.records {
				t.Errorf("records: %d, want %d (problems %v)", len(r.records), c.records, r.problems)
			}
			if len(r.problems) != len(c.problems) {
				t.Fatalf("problems: %v, want %d like %q", r.problems, len(c.problems), c.problems)
			}
			for i, p := range r.problems {
				got := strings.TrimPrefix(p.String(), filepath.Dir(path)+"/")
				if !strings.HasPrefix(got, c.problems[i]) {
					t.Errorf("problem %d: %q, want it to start with %q", i+1, got, c.problems[i])
				}
			}
		})
	}
}

func TestReadStdinGuessesTheFormat(t *testing.T) {
	t.Parallel()
	r := newReader()
	if err := r.ReadFile("-", strings.NewReader(`{"v":1,"text":"From stdin as JSON."}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.ReadFile("-", strings.NewReader("From stdin as text.\n")); err != nil {
		t.Fatal(err)
	}
	if len(r.records) != 2 || r.records[0].Source != "stdin:1" || r.records[1].Job.Message.Text != "From stdin as text." {
		t.Fatalf("records %+v problems %v", r.records, r.problems)
	}
}

// Every record carries one encoding: the bytes to publish, with the defaults in them (so that a
// worker with another default method runs what enqueue was told), which decode to the record's
// message exactly.
func TestRecordsAreEncodedOnceWithTheirDefaults(t *testing.T) {
	t.Parallel()
	inputs := map[string]string{
		"a.jsonl": `{"v":1,"text":"The Eiffel Tower is in Paris.","options":{"temporal_scope":null,"max_hops":2}}` + "\n",
		"a.csv":   "text,language\nThe Eiffel Tower is in Paris.,fr\n",
		"a.txt":   "The Eiffel Tower is in Paris.\n",
	}
	for file, content := range inputs {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			r := newReader()
			if err := r.ReadFile(writeFile(t, file, content), nil); err != nil {
				t.Fatal(err)
			}
			r.AddText("--text #1", "Water boils at 100 degrees.")
			if len(r.Problems()) > 0 || len(r.Records()) != 2 {
				t.Fatalf("records %+v problems %v", r.Records(), r.Problems())
			}
			for _, rec := range r.Records() {
				var wire map[string]any
				if err := json.Unmarshal(rec.Job.Data, &wire); err != nil {
					t.Fatal(err)
				}
				if wire["method"] != pipeline.MethodFactored || wire["language"] == nil || wire["v"] != float64(jobs.Version) {
					t.Errorf("%s: published %s: want v, the default method and a language in it", rec.Source, rec.Job.Data)
				}
				decoded, err := jobs.Decode(rec.Job.Data, jobs.ValidationConfig{DefaultMethod: pipeline.MethodMultihop})
				if err != nil {
					t.Fatalf("%s: %v", rec.Source, err)
				}
				if jobs.DedupeID(decoded) != jobs.DedupeID(rec.Job.Message) || decoded.Text != rec.Job.Message.Text || decoded.Language != rec.Job.Message.Language {
					t.Errorf("%s: the bytes decode to %+v, the record holds %+v", rec.Source, decoded, rec.Job.Message)
				}
			}
		})
	}
}

// A newsroom's CSV backlog says where each statement appeared, who made it and when, as JSONL
// does: the ClaimReview export names them. Before, the columns were ignored and the statements
// went out without their source.
func TestCSVCarriesWhereAndWhenAStatementAppeared(t *testing.T) {
	t.Parallel()
	r := newReader()
	csv := "text,source_url,source_author,published_at\n" +
		"The Eiffel Tower is in Paris.,https://news.example/eiffel,A. Mayor,2026-11-30\n" +
		"Water boils at 100 degrees.,,,last tuesday\n"
	if err := r.ReadFile(writeFile(t, "a.csv", csv), nil); err != nil {
		t.Fatal(err)
	}
	if len(r.Records()) != 1 {
		t.Fatalf("records %+v, want 1 (problems %v)", r.Records(), r.Problems())
	}
	m := r.Records()[0].Job.Message
	if m.SourceURL != "https://news.example/eiffel" || m.SourceAuthor != "A. Mayor" || m.PublishedAt != "2026-11-30" {
		t.Errorf("message %+v: want its source URL, author and publication date from the row", m)
	}
	if len(r.Problems()) != 1 || !strings.Contains(r.Problems()[0].String(), "a.csv:3:") || !strings.Contains(r.Problems()[0].String(), "published_at") {
		t.Errorf("problems %v, want one for line 3 naming published_at", r.Problems())
	}
}
