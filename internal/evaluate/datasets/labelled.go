// Package datasets reads the labelled data sets `evaluate` measures on, into one shape: FEVEROUS-S
// (ProgramFC's dev set), factcheck-bench (its sentences with gold claims, and its labelled
// claims), EX-FEVER, and a JSONL of one's own; each claim split into what the pipeline may see
// (Probe) and what only the scoring may (Gold), with the data set's label mapping and, for the
// open-book methods, its evidence documents. The public data sets are read from
// $CORROBORATE_DATASETS; nothing of them is in the repository.
package datasets

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/search/searcheval"
)

// Data set names `evaluate verdicts --dataset` knows; anything else is a path.
const (
	Feverous       = "feverous-s"
	FactcheckBench = "factcheck-bench"
	ExFever        = "ex-fever"
	// ExFeverNEI is EX-FEVER's NOT ENOUGH INFO claims, each gold unverified, over ex-fever's
	// corpus: what a method commits to when the corpus cannot decide (readExFeverLabelled).
	ExFeverNEI = "ex-fever-nei"
)

// Probe is what the pipeline may see of a labelled claim: its text, and nothing of its label
// or its evidence. evaluate's pipelineInput builds the method's input from a probe alone, so that
// no gold field can reach a prompt, a plan or a query (held-out discipline; TestHeldOut checks it).
type Probe struct {
	ID   string
	Text string
}

// Gold is what only the scoring sees: the label in the pipeline's vocabulary, the data set's own
// label, the hop count (distinct gold evidence documents, HoVer's definition; 0 when the data set
// has none) and the canonical URLs of the gold evidence documents.
type Gold struct {
	Label    string
	Raw      string
	Hops     int
	Evidence []string
	// Challenge is the claim's FEVEROUS challenge type ("Multi-hop Reasoning"), "" elsewhere.
	Challenge string
	// SwappedSubject is, for an EX-FEVER REFUTE claim whose explanation says its subject is
	// another entity's ("The Lonesome Dove, not The Mighty Dove, is ..."), the subject it names
	// wrongly: the corpus holds nothing of it, and the claim is false only under a closed-world
	// reading. "" elsewhere.
	SwappedSubject string
}

// Item is one labelled claim, split into what the pipeline sees and what it must not.
type Item struct {
	Probe Probe
	Gold  Gold
}

// LabelMapping is one line of a data set's documented mapping to the pipeline's verdicts.
type LabelMapping struct {
	Raw, Label, Note string
}

// Set is a data set ready to score: its items, the documents of its evidence corpus
// (loaded for the open-book methods), its label mapping and the classes macro-F1 averages over.
type Set struct {
	Name    string
	Path    string
	Items   []Item
	Docs    []search.Document
	Mapping []LabelMapping
	Classes []string
}

// Label mappings, documented in docs/evaluation.md.
var (
	feverousMapping = []LabelMapping{
		{"supports", pipeline.VerdictSupported, ""},
		{"refutes", pipeline.VerdictRefuted, ""},
	}
	factcheckMapping = []LabelMapping{
		{"true", pipeline.VerdictSupported, "claims_factuality_label true"},
		{"false", pipeline.VerdictRefuted, "claims_factuality_label false"},
		{"unknown", pipeline.VerdictUnverified, "the annotators could not settle it"},
	}
	jsonlMapping = []LabelMapping{
		{"supported (or supports, true, SUPPORTED)", pipeline.VerdictSupported, ""},
		{"refuted (or refutes, false, NOT_SUPPORTED, REFUTED)", pipeline.VerdictRefuted, ""},
		{"unverified (or NOT ENOUGH INFO, NEI, unknown)", pipeline.VerdictUnverified, ""},
	}
)

// jsonlLabels reads the labels of a JSONL file of our format, case-insensitively.
var jsonlLabels = map[string]string{
	"supported": pipeline.VerdictSupported, "supports": pipeline.VerdictSupported, "true": pipeline.VerdictSupported,
	"refuted": pipeline.VerdictRefuted, "refutes": pipeline.VerdictRefuted, "false": pipeline.VerdictRefuted,
	"not_supported": pipeline.VerdictRefuted,
	"unverified":    pipeline.VerdictUnverified, "not enough info": pipeline.VerdictUnverified, "nei": pipeline.VerdictUnverified,
	"unknown": pipeline.VerdictUnverified,
}

// Path resolves --dataset: a known name in $CORROBORATE_DATASETS, or a path.
func Path(name string) (path string, err error) {
	switch name {
	case Feverous:
		path = searcheval.FeverousPath()
	case FactcheckBench:
		path = FactcheckBenchPath()
	case ExFever, ExFeverNEI:
		path = File(ExFeverFile)
	default:
		return name, nil
	}
	if path == "" {
		return "", fmt.Errorf("--dataset %s: set %s to the directory that holds the data sets (feverous-s/, factcheck-bench/), or give --dataset a file", name, searcheval.DatasetsEnv)
	}
	return path, nil
}

// Read reads the data set at path, in the format its name and first byte say: a JSON
// array is FEVEROUS-S (ProgramFC's dev.json), a JSONL whose records have "sentences" is
// factcheck-bench, any other JSONL is our own format (see readJSONL).
func Read(name, path string) (*Set, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the data set: %w", err)
	}
	trimmed := bytes.TrimSpace(raw)
	switch {
	case strings.EqualFold(filepath.Ext(path), ".csv"):
		return readExFeverLabelled(path, name == ExFeverNEI)
	case len(trimmed) > 0 && trimmed[0] == '[':
		return readFeverousLabelled(path)
	case bytes.Contains(firstLine(trimmed), []byte(`"sentences"`)):
		return readFactcheckLabelled(path, raw)
	default:
		return readJSONL(name, path, raw)
	}
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

func readFeverousLabelled(path string) (*Set, error) {
	docs, claims, err := searcheval.ReadFeverous(path)
	if err != nil {
		return nil, err
	}
	set := &Set{Name: "FEVEROUS-S dev", Path: path, Docs: docs, Mapping: feverousMapping,
		Classes: []string{pipeline.VerdictSupported, pipeline.VerdictRefuted}}
	for _, c := range claims {
		label := ""
		for _, m := range feverousMapping {
			if strings.EqualFold(c.Label, m.Raw) {
				label = m.Label
			}
		}
		if label == "" {
			return nil, fmt.Errorf("%s: claim %d has label %q; FEVEROUS-S labels are supports and refutes", path, c.ID, c.Label)
		}
		set.Items = append(set.Items, Item{
			Probe: Probe{ID: fmt.Sprint(c.ID), Text: c.Text},
			Gold:  Gold{Label: label, Raw: c.Label, Hops: len(c.Gold), Evidence: c.Gold, Challenge: c.Challenge},
		})
	}
	return set, nil
}

// readFactcheckLabelled reads factcheck-bench's factual claims (claim_checkworthiness "factual")
// with their factuality labels. Its evidence corpus is the passages the data set retrieved for
// its claims (auto_evidence), one document per URL; a claim's gold evidence is the URLs of its
// passages whose annotated stance is not "irrelevant". It has no hop counts.
func readFactcheckLabelled(path string, raw []byte) (*Set, error) {
	set := &Set{Name: "factcheck-bench", Path: path, Mapping: factcheckMapping,
		Classes: []string{pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictUnverified}}
	bodies := map[string][]string{}
	var order []string
	err := EachFactcheckSentence(bytes.NewReader(raw), path, func(line int, k string, s FactcheckSentence) error {
		for i, text := range s.Claims {
			var evidence []string
			if i < len(s.AutoEvidence) && i < len(s.AutoEvidenceURL) {
				for j, passage := range s.AutoEvidence[i] {
					if j >= len(s.AutoEvidenceURL[i]) {
						break
					}
					u, err := search.NormalizeURL(s.AutoEvidenceURL[i][j])
					if err != nil || strings.TrimSpace(passage) == "" {
						continue
					}
					if _, ok := bodies[u]; !ok {
						order = append(order, u)
					}
					if !slices.Contains(bodies[u], passage) {
						bodies[u] = append(bodies[u], passage)
					}
					relevant := i < len(s.Stance) && j < len(s.Stance[i]) && s.Stance[i][j] != "irrelevant"
					if relevant && !slices.Contains(evidence, u) {
						evidence = append(evidence, u)
					}
				}
			}
			if i >= len(s.ClaimCheckworthiness) || s.ClaimCheckworthiness[i] != "factual" || strings.TrimSpace(text) == "" {
				continue
			}
			if i >= len(s.FactualityLabels) {
				return fmt.Errorf("%s:%d: %s claim %d has no claims_factuality_label", path, line, k, i+1)
			}
			rawLabel := strings.ToLower(fmt.Sprint(s.FactualityLabels[i]))
			label := ""
			for _, m := range factcheckMapping {
				if rawLabel == m.Raw {
					label = m.Label
				}
			}
			if label == "" {
				return fmt.Errorf("%s:%d: %s claim %d has label %q; factcheck-bench labels are true, false and unknown", path, line, k, i+1, rawLabel)
			}
			set.Items = append(set.Items, Item{
				Probe: Probe{ID: fmt.Sprintf("%d/%s/%d", line, k, i+1), Text: strings.TrimSpace(text)},
				Gold:  Gold{Label: label, Raw: rawLabel, Evidence: evidence},
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, u := range order {
		host := u
		if parsed, err := url.Parse(u); err == nil {
			host = parsed.Host
		}
		set.Docs = append(set.Docs, search.Document{URL: u, Title: host, Body: strings.Join(bodies[u], "\n"), Publisher: host, Language: "en"})
	}
	return set, nil
}

// jsonlRecord is one line of our own labelled format:
//
//	{"id": "c1", "text": "...", "label": "supported", "hops": 2,
//	 "evidence": [{"url": "https://...", "title": "...", "body": "...", "publisher": "..."}]}
//
// label takes the pipeline's verdicts or the usual data set spellings (jsonlLabels); hops is
// optional (the number of distinct evidence URLs when absent); the evidence documents are the
// corpus of the open-book methods and the claim's gold evidence.
type jsonlRecord struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Label    string `json:"label"`
	Hops     int    `json:"hops"`
	Evidence []struct {
		URL, Title, Body, Publisher string
	} `json:"evidence"`
}

func readJSONL(name, path string, raw []byte) (*Set, error) {
	set := &Set{Name: filepath.Base(name), Path: path, Mapping: jsonlMapping}
	seen := map[string]bool{}
	classes := map[string]bool{}
	err := EachJSONLine(bytes.NewReader(raw), path, func(line int, raw []byte) error {
		var rec jsonlRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%s:%d: not a labelled claim (want {\"id\", \"text\", \"label\", \"evidence\"}): %w", path, line, err)
		}
		label, ok := jsonlLabels[strings.ToLower(strings.TrimSpace(rec.Label))]
		switch {
		case strings.TrimSpace(rec.Text) == "":
			return fmt.Errorf("%s:%d: \"text\" is empty", path, line)
		case !ok:
			return fmt.Errorf("%s:%d: label %q is none of supported, refuted, unverified (or their data set spellings)", path, line, rec.Label)
		}
		it := Item{Probe: Probe{ID: cmp.Or(rec.ID, fmt.Sprint(line)), Text: strings.TrimSpace(rec.Text)},
			Gold: Gold{Label: label, Raw: rec.Label, Hops: rec.Hops}}
		for _, e := range rec.Evidence {
			u, err := search.NormalizeURL(e.URL)
			if err != nil {
				return fmt.Errorf("%s:%d: evidence url %q: %w", path, line, e.URL, err)
			}
			if !slices.Contains(it.Gold.Evidence, u) {
				it.Gold.Evidence = append(it.Gold.Evidence, u)
			}
			if !seen[u] {
				seen[u] = true
				set.Docs = append(set.Docs, search.Document{URL: u, Title: e.Title, Body: e.Body, Publisher: e.Publisher, Language: "en"})
			}
		}
		if it.Gold.Hops == 0 {
			it.Gold.Hops = len(it.Gold.Evidence)
		}
		classes[label] = true
		set.Items = append(set.Items, it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, c := range []string{pipeline.VerdictSupported, pipeline.VerdictRefuted, pipeline.VerdictUnverified} {
		if classes[c] {
			set.Classes = append(set.Classes, c)
		}
	}
	return set, nil
}
