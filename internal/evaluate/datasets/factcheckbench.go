package datasets

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/corroborate/corroborate/internal/search/searcheval"
)

// FactcheckBenchFile is factcheck-bench's path inside the data sets directory.
const FactcheckBenchFile = "factcheck-bench/factcheck-GPT-benchmark.jsonl"

// FactcheckBenchPath returns the default path of factcheck-bench: FactcheckBenchFile in
// $CORROBORATE_DATASETS, or "" when that is not set (ReadFactcheckBench then says what to set).
// The --dataset flag takes CORROBORATE_FACTCHECK_BENCH, or a path, before it.
func FactcheckBenchPath() string { return File(FactcheckBenchFile) }

// File is rel in $CORROBORATE_DATASETS, or "" when that is not set.
func File(rel string) string {
	if dir := os.Getenv(searcheval.DatasetsEnv); dir != "" {
		return filepath.Join(dir, rel)
	}
	return ""
}

// factcheckBenchHint says how to name the data set.
const factcheckBenchHint = "give --dataset the path of factcheck-GPT-benchmark.jsonl, or set " + searcheval.DatasetsEnv +
	" to the directory that holds " + FactcheckBenchFile

// GoldStatement is one sentence of factcheck-bench with its human-written claims.
type GoldStatement struct {
	// ID is "line/sentenceN": the record's line in the file and the sentence's key.
	ID   string
	Text string
	Gold []string
}

// FactcheckSentence is one sentence of a factcheck-GPT-benchmark.jsonl record, the fields the
// plans (text and gold claims) and verdicts (claim labels and retrieved evidence) read.
type FactcheckSentence struct {
	Text                 string     `json:"text"`
	Decontext            string     `json:"decontext"`
	Claims               []string   `json:"claims"`
	ClaimCheckworthiness []string   `json:"claim_checkworthiness"`
	FactualityLabels     []any      `json:"claims_factuality_label"`
	AutoEvidence         [][]string `json:"auto_evidence"`
	AutoEvidenceURL      [][]string `json:"auto_evidence_url"`
	Stance               [][]string `json:"stance_claim_autoEvid"`
}

// errStopReading ends EachJSONLine early without an error.
var errStopReading = errors.New("stop reading")

// EachJSONLine calls fn with each non-blank line of a JSONL input and its line number; fn's
// error ends the reading and is returned, but errStopReading, which ends it with nil.
func EachJSONLine(r io.Reader, path string, fn func(line int, raw []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := fn(line, sc.Bytes()); err != nil {
			if errors.Is(err, errStopReading) {
				return nil
			}
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}

// EachFactcheckSentence calls fn with each sentence of factcheck-bench, in file order and
// sentence order, with its record's line and its key ("sentence3").
func EachFactcheckSentence(r io.Reader, path string, fn func(line int, key string, s FactcheckSentence) error) error {
	return EachJSONLine(r, path, func(line int, raw []byte) error {
		var rec struct {
			Sentences map[string]FactcheckSentence `json:"sentences"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%s:%d: not a factcheck-bench record: %w", path, line, err)
		}
		for _, k := range SortedSentenceKeys(rec.Sentences) {
			if err := fn(line, k, rec.Sentences[k]); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadFactcheckBench reads the first n sentences (all when n is 0) that have at least one gold
// claim the annotators marked factual, in file order and sentence order. A sentence's statement
// is its decontextualised text ("He was born..." made "Barack Obama was born..."), the form the
// annotators wrote the claims from and the form a newsroom would send: a sentence standing on
// its own. Its gold claims are the factual ones (opinions and non-claims are left out).
func ReadFactcheckBench(path string, n int) ([]GoldStatement, error) {
	if path == "" {
		return nil, fmt.Errorf("no factcheck-bench data set named: %s", factcheckBenchHint)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading factcheck-bench: %w (%s)", err, factcheckBenchHint)
	}
	defer f.Close()
	var out []GoldStatement
	err = EachFactcheckSentence(f, path, func(line int, k string, s FactcheckSentence) error {
		if len(s.ClaimCheckworthiness) != len(s.Claims) {
			return fmt.Errorf("%s:%d: %s has %d claims and %d claim_checkworthiness labels", path, line, k, len(s.Claims), len(s.ClaimCheckworthiness))
		}
		var gold []string
		for i, c := range s.Claims {
			if s.ClaimCheckworthiness[i] == "factual" && strings.TrimSpace(c) != "" {
				gold = append(gold, strings.TrimSpace(c))
			}
		}
		text := strings.TrimSpace(s.Decontext)
		if text == "" {
			text = strings.TrimSpace(s.Text)
		}
		if len(gold) == 0 || text == "" {
			return nil
		}
		out = append(out, GoldStatement{ID: fmt.Sprintf("%d/%s", line, k), Text: text, Gold: gold})
		if n > 0 && len(out) == n {
			return errStopReading
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		// An empty file (or one without a factual gold claim) would measure the built-in
		// ambiguous statements alone and look like a result: it is a bad data set, exit 2.
		return nil, fmt.Errorf("%s holds no sentence with a factual gold claim (is it empty, or the wrong file?): %s", path, factcheckBenchHint)
	}
	return out, nil
}

// SortedSentenceKeys returns a record's sentence keys in sentence order.
func SortedSentenceKeys(sentences map[string]FactcheckSentence) []string {
	keys := slices.Collect(maps.Keys(sentences))
	slices.SortFunc(keys, func(a, b string) int { return sentenceNumber(a) - sentenceNumber(b) })
	return keys
}

// sentenceNumber is N of "sentenceN", for sorting sentence keys in order.
func sentenceNumber(key string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(key, "sentence"))
	if err != nil {
		return 1 << 30
	}
	return n
}
