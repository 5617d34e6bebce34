package evidence

import (
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/pipeline/pipelinetest"
)

// The calibration table of CoVe 2.0: High needs two independent sources or one authoritative
// primary source; a single unofficial source is at most Medium; no source is Low; the stated
// confidence is never raised.
func TestCalibrate(t *testing.T) {
	t.Parallel()
	bbc := pipelinetest.SearchResult("https://www.bbc.co.uk/news/a", "BBC", "")
	bbcOther := pipelinetest.SearchResult("https://news.bbc.co.uk/b", "BBC", "")
	reuters := pipelinetest.SearchResult("https://www.reuters.com/c", "Reuters", "")
	reutersMirror := pipelinetest.SearchResult("https://mirror.example/d", "Reuters", "")
	blog := pipelinetest.SearchResult("https://someblog.example/post", "", "")
	who := pipelinetest.SearchResult("https://www.who.int/news-room/fact-sheets/x", "World Health Organization", "")
	cdc := pipelinetest.SearchResult("https://www.cdc.gov/flu/x", "CDC", "")
	docs := pipelinetest.SearchResult("https://docs.python.org/3/whatsnew/3.12.html", "Python Software Foundation", "")
	cases := []struct {
		name          string
		stated        string
		sources       []pipeline.SearchResult
		authoritative []string
		want          string
	}{
		{"two independent sources", pipeline.ConfidenceHigh, []pipeline.SearchResult{bbc, reuters}, nil, pipeline.ConfidenceHigh},
		{"same site twice", pipeline.ConfidenceHigh, []pipeline.SearchResult{bbc, bbcOther}, nil, pipeline.ConfidenceMedium},
		{"same publisher on two sites", pipeline.ConfidenceHigh, []pipeline.SearchResult{reuters, reutersMirror}, nil, pipeline.ConfidenceMedium},
		{"one authoritative (.int)", pipeline.ConfidenceHigh, []pipeline.SearchResult{who}, nil, pipeline.ConfidenceHigh},
		{"one authoritative (.gov)", pipeline.ConfidenceHigh, []pipeline.SearchResult{cdc}, nil, pipeline.ConfidenceHigh},
		{"one unofficial", pipeline.ConfidenceHigh, []pipeline.SearchResult{blog}, nil, pipeline.ConfidenceMedium},
		{"model says High with one blog", pipeline.ConfidenceHigh, []pipeline.SearchResult{blog}, nil, pipeline.ConfidenceMedium},
		{"configured authoritative", pipeline.ConfidenceHigh, []pipeline.SearchResult{docs}, []string{"docs.python.org"}, pipeline.ConfidenceHigh},
		{"configured list replaces the default", pipeline.ConfidenceHigh, []pipeline.SearchResult{who}, []string{"docs.python.org"}, pipeline.ConfidenceMedium},
		{"configured as a URL", pipeline.ConfidenceHigh, []pipeline.SearchResult{docs}, []string{"https://docs.python.org/"}, pipeline.ConfidenceHigh},
		{"no source", pipeline.ConfidenceHigh, nil, nil, pipeline.ConfidenceLow},
		{"never raised: Medium stays Medium", pipeline.ConfidenceMedium, []pipeline.SearchResult{bbc, reuters}, nil, pipeline.ConfidenceMedium},
		{"never raised: Low stays Low", pipeline.ConfidenceLow, []pipeline.SearchResult{who}, nil, pipeline.ConfidenceLow},
		{"unreadable counts as Low", "", []pipeline.SearchResult{bbc, reuters}, nil, pipeline.ConfidenceLow},
		{"invented level counts as Low", "Very high", []pipeline.SearchResult{bbc, reuters}, nil, pipeline.ConfidenceLow},
		{"independent among dependent ones", pipeline.ConfidenceHigh, []pipeline.SearchResult{bbc, bbcOther, reuters}, nil, pipeline.ConfidenceHigh},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Calibration{Authoritative: c.authoritative}.Calibrate(c.stated, c.sources)
			if got.Confidence != c.want {
				t.Errorf("Calibrate(%q, %d sources) = %s (%s), want %s", c.stated, len(c.sources), got.Confidence, got.Note, c.want)
			}
			if got.Note == "" {
				t.Error("a calibration always says why")
			}
			if pipeline.ConfidenceRank(got.Confidence) > pipeline.ConfidenceRank(c.stated) {
				t.Errorf("raised %q to %q", c.stated, got.Confidence)
			}
		})
	}
}

func TestIndependentSources(t *testing.T) {
	t.Parallel()
	got := IndependentSources([]pipeline.SearchResult{
		pipelinetest.SearchResult("https://www.bbc.co.uk/a", "BBC", ""),
		pipelinetest.SearchResult("https://news.bbc.co.uk/b", "", ""),        // same site
		pipelinetest.SearchResult("https://bbc-mirror.example/c", "bbc", ""), // same publisher, case aside
		pipelinetest.SearchResult("https://www.reuters.com/d", "", ""),
		pipelinetest.SearchResult("https://apnews.com/e", "", ""),
	})
	var sites []string
	for _, r := range got {
		sites = append(sites, r.Domain)
	}
	if strings.Join(sites, " ") != "bbc.co.uk reuters.com apnews.com" {
		t.Errorf("independent sources: %v", sites)
	}
}
