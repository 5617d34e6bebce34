package cove2

import (
	"context"
	"slices"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// Scripted dishonest verifiers (the prompt is the specification's, so attribution is done in
// code): what the Verification keeps is asserted, not what the prompt asks for.
func TestVerifierCorroboration(t *testing.T) {
	t.Parallel()
	a := pipelinetest.SearchResult("https://www.toureiffel.paris/en/x", "SETE", "The Eiffel Tower is 330 m tall since 2022.")
	b := pipelinetest.SearchResult("https://www.britannica.com/topic/x", "Britannica", "The tower stands 330 metres high.")
	blog := pipelinetest.SearchResult("https://someblog.example/post", "Some Blog", "The Eiffel Tower is 330 m tall, trust me.")
	tests := []struct {
		name, reply, status, confidence string
		results                         []pipeline.SearchResult
		sources                         []string
		flags                           []string
	}{
		{"honest: two independent sources, each quoted",
			"- Answer: 330 m\n- Evidence: \"330 m tall since 2022\" \"stands 330 metres high\"\n- Sources: [1], [2]\n- Confidence: High",
			VerificationAnswered, pipeline.ConfidenceHigh, []pipeline.SearchResult{a, b}, []string{a.URL, b.URL}, nil},
		{"one blog claimed High",
			"- Answer: 330 m\n- Evidence: \"The Eiffel Tower is 330 m tall\"\n- Sources: [1]\n- Confidence: High",
			VerificationAnswered, pipeline.ConfidenceMedium, []pipeline.SearchResult{blog}, []string{blog.URL}, []string{pipeline.FlagSingleSource}},
		{"a quote that is in no source",
			"- Answer: 330 m\n- Evidence: \"330 m tall since 2022\" \"the tower was repainted gold in 2021\"\n- Sources: [1], [2]\n- Confidence: High",
			VerificationAnswered, pipeline.ConfidenceMedium, []pipeline.SearchResult{a, b}, []string{a.URL},
			[]string{pipeline.FlagQuoteNotInSource, pipeline.FlagQuoteNotInSource, pipeline.FlagSingleSource}},
		{"[n] quote attributed to a source that does not say it",
			"- Answer: 330 m\n- Evidence:\n- [2] \"330 m tall since 2022\"\n- Sources: [2]\n- Confidence: High",
			VerificationUngrounded, pipeline.ConfidenceLow, []pipeline.SearchResult{a, b}, nil, []string{pipeline.FlagQuoteNotInSource}},
		{"a citation of a source not shown",
			"- Answer: 330 m\n- Evidence: \"330 m tall since 2022\"\n- Sources: [1], [4]\n- Confidence: High",
			VerificationAnswered, pipeline.ConfidenceMedium, []pipeline.SearchResult{a, b}, []string{a.URL}, []string{pipeline.FlagSingleSource}},
		{"answered at no confidence is Low",
			"- Answer: 330 m\n- Evidence: \"330 m tall since 2022\" \"stands 330 metres high\"\n- Sources: [1], [2]",
			VerificationAnswered, pipeline.ConfidenceLow, []pipeline.SearchResult{a, b}, []string{a.URL, b.URL}, nil},
	}
	for _, tt := range tests {
		search := &pipelinetest.StubEvidenceSearcher{Results: map[string][]pipeline.SearchResult{"Q?": tt.results}}
		model := &pipelinetest.StubModel{Rules: []pipelinetest.StubRule{{Contains: verifyMarker("Q?"), Reply: tt.reply}}}
		v, _, _ := verifierFixture(model, search)
		got := v.Verify(context.Background(), 1, "Q?", false)
		var urls, codes []string
		for _, s := range got.Sources {
			urls = append(urls, s.URL)
			if s.Quote == "" {
				t.Errorf("%s: source %s kept with no passage", tt.name, s.URL)
			}
		}
		for _, f := range got.Flags {
			codes = append(codes, f.Code)
		}
		if got.Status != tt.status || got.Confidence != tt.confidence || !slices.Equal(urls, tt.sources) || !slices.Equal(codes, tt.flags) {
			t.Errorf("%s:\n got %s %s %v %v (%s)\nwant %s %s %v %v", tt.name, got.Status, got.Confidence, urls, got.Flags, got.CalibrationNote+got.Reason,
				tt.status, tt.confidence, tt.sources, tt.flags)
		}
	}
}
