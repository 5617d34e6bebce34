package evaluate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/corroborate/corroborate/internal/evaluate/datasets"
	"github.com/corroborate/corroborate/internal/pipeline/multihop"
	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// goldPlan is one human-written decomposition as a plan's claims: a statement and the claims
// its annotators wrote, each with the source span a careful model would quote.
type goldPlan struct {
	// ID is "line/sentenceN", as datasets.GoldStatement's.
	ID        string
	Statement string
	Claims    []multihop.PlanClaim
}

// readGoldPlans builds one plan per factcheck-bench sentence with a factual gold claim. The
// statement is the whole answer the sentence is part of, the text multihop would be given, as
// the annotators split it into sentences (their sentences mend the answer's typos, so the
// record's response would not hold them); each claim's source span is the shortest run of the
// sentence's own words, as written (pronouns and all), that holds every content word of the
// claim the sentence holds (goldSpan). The annotators' claims are decontextualised ("He was
// born..." is "Justice William O. Douglas was born..."): the names in place of pronouns that
// the plan prompt asks for.
func readGoldPlans(dir string) ([]goldPlan, error) {
	path := filepath.Join(dir, datasets.FactcheckBenchFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading factcheck-bench: %w", err)
	}
	defer f.Close()
	var out []goldPlan
	err = datasets.EachJSONLine(f, path, func(line int, raw []byte) error {
		var rec struct {
			Sentences map[string]datasets.FactcheckSentence `json:"sentences"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%s:%d: not a factcheck-bench record: %w", path, line, err)
		}
		keys := datasets.SortedSentenceKeys(rec.Sentences)
		var answer []string
		for _, k := range keys {
			if t := strings.TrimSpace(rec.Sentences[k].Text); t != "" {
				answer = append(answer, t)
			}
		}
		for _, k := range keys {
			s := rec.Sentences[k]
			sentence := strings.TrimSpace(s.Text)
			if sentence == "" {
				continue
			}
			p := goldPlan{ID: fmt.Sprintf("%d/%s", line, k), Statement: strings.Join(answer, " ")}
			for i, c := range s.Claims {
				c = strings.TrimSpace(c)
				if c == "" || i >= len(s.ClaimCheckworthiness) || s.ClaimCheckworthiness[i] != "factual" {
					continue
				}
				p.Claims = append(p.Claims, multihop.PlanClaim{ClaimID: multihop.ClaimID(len(p.Claims)), ClaimText: c,
					SourceSpan: goldSpan(sentence, c), Verifiable: true})
			}
			if len(p.Claims) > 0 {
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}

// goldSpan returns the shortest run of sentence's words that holds every content word of claim
// (text.ContentWords) the sentence holds, as the sentence writes it: the words the claim
// comes from. The whole sentence when they share no content word.
func goldSpan(sentence, claim string) string {
	locs := text.WordSpans(sentence)
	keys := make([]string, len(locs))
	have := map[string]bool{}
	for i, l := range locs {
		keys[i] = strings.ToLower(sentence[l[0]:l[1]])
		have[keys[i]] = true
	}
	want := map[string]bool{}
	for _, t := range text.ContentWords(claim, "en") {
		if have[t] {
			want[t] = true
		}
	}
	if len(want) == 0 {
		return sentence
	}
	best := [2]int{0, len(locs) - 1}
	count := map[string]int{}
	covered := 0
	for lo, hi := 0, 0; hi < len(locs); hi++ {
		if want[keys[hi]] {
			if count[keys[hi]]++; count[keys[hi]] == 1 {
				covered++
			}
		}
		for ; covered == len(want); lo++ {
			if hi-lo < best[1]-best[0] {
				best = [2]int{lo, hi}
			}
			if want[keys[lo]] {
				if count[keys[lo]]--; count[keys[lo]] == 0 {
					covered--
				}
			}
		}
	}
	return sentence[locs[best[0]][0]:locs[best[1]][1]]
}

// reportPlanRules runs the plan validator's claim rules (multihop.ClaimViolations) over the
// plans built from the gold claims and lists every refusal with its reason. FEVEROUS-S and
// EX-FEVER hold no gold decomposition (a claim, its evidence and, for EX-FEVER, an explanation
// that states bridge facts the claim does not), so there is nothing honest to build a plan of.
func reportPlanRules(w io.Writer, plans []goldPlan) {
	fmt.Fprintln(w, "\nPlan rules (multihop.ClaimViolations: "+strings.Join(multihop.ClaimRules, ", ")+"),")
	fmt.Fprintln(w, "over one plan per factcheck-bench sentence: its factual gold claims, each with the shortest run of the sentence's")
	fmt.Fprintln(w, "words that holds its content words as source span, the whole answer as the statement.")
	fmt.Fprintln(w, "(FEVEROUS-S and EX-FEVER have no gold decomposition of their claims: not measured.)")
	refused, claims := 0, 0
	byRule := map[string]int{}
	var lines []string
	for _, p := range plans {
		claims += len(p.Claims)
		violations := multihop.ClaimViolations(p.Claims, multihop.PlanContext{Statement: p.Statement, Language: "en"})
		if len(violations) == 0 {
			continue
		}
		refused++
		lines = append(lines, fmt.Sprintf("  [factcheck-bench %s]", p.ID))
		for _, c := range p.Claims {
			lines = append(lines, fmt.Sprintf("      %s %q (span %q)", c.ClaimID, c.ClaimText, c.SourceSpan))
		}
		for _, v := range violations {
			byRule[v.Rule]++
			lines = append(lines, "      -> "+v.String())
		}
	}
	fmt.Fprintf(w, "  factcheck-bench  %5d plans (%d claims): %d refused (%.2f%%)\n", len(plans), claims, refused, pct(refused, len(plans)))
	for _, r := range multihop.ClaimRules {
		fmt.Fprintf(w, "    %s: %d violations\n", r, byRule[r])
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
