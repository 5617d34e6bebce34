package pipeline

import (
	"strings"
	"testing"
)

// The calibration table of CoVe 2.0: High needs two independent sources or one authoritative
// primary source; a single unofficial source is at most Medium; no source is Low; the stated
// confidence is never raised.
func TestCalibrate(t *testing.T) {
	t.Parallel()
	bbc := result("https://www.bbc.co.uk/news/a", "BBC", "")
	bbcOther := result("https://news.bbc.co.uk/b", "BBC", "")
	reuters := result("https://www.reuters.com/c", "Reuters", "")
	reutersMirror := result("https://mirror.example/d", "Reuters", "")
	blog := result("https://someblog.example/post", "", "")
	who := result("https://www.who.int/news-room/fact-sheets/x", "World Health Organization", "")
	cdc := result("https://www.cdc.gov/flu/x", "CDC", "")
	docs := result("https://docs.python.org/3/whatsnew/3.12.html", "Python Software Foundation", "")
	cases := []struct {
		name          string
		stated        string
		sources       []SearchResult
		authoritative []string
		want          string
	}{
		{"two independent sources", ConfidenceHigh, []SearchResult{bbc, reuters}, nil, ConfidenceHigh},
		{"same site twice", ConfidenceHigh, []SearchResult{bbc, bbcOther}, nil, ConfidenceMedium},
		{"same publisher on two sites", ConfidenceHigh, []SearchResult{reuters, reutersMirror}, nil, ConfidenceMedium},
		{"one authoritative (.int)", ConfidenceHigh, []SearchResult{who}, nil, ConfidenceHigh},
		{"one authoritative (.gov)", ConfidenceHigh, []SearchResult{cdc}, nil, ConfidenceHigh},
		{"one unofficial", ConfidenceHigh, []SearchResult{blog}, nil, ConfidenceMedium},
		{"model says High with one blog", ConfidenceHigh, []SearchResult{blog}, nil, ConfidenceMedium},
		{"configured authoritative", ConfidenceHigh, []SearchResult{docs}, []string{"docs.python.org"}, ConfidenceHigh},
		{"configured list replaces the default", ConfidenceHigh, []SearchResult{who}, []string{"docs.python.org"}, ConfidenceMedium},
		{"configured as a URL", ConfidenceHigh, []SearchResult{docs}, []string{"https://docs.python.org/"}, ConfidenceHigh},
		{"no source", ConfidenceHigh, nil, nil, ConfidenceLow},
		{"never raised: Medium stays Medium", ConfidenceMedium, []SearchResult{bbc, reuters}, nil, ConfidenceMedium},
		{"never raised: Low stays Low", ConfidenceLow, []SearchResult{who}, nil, ConfidenceLow},
		{"unreadable counts as Low", "", []SearchResult{bbc, reuters}, nil, ConfidenceLow},
		{"invented level counts as Low", "Very high", []SearchResult{bbc, reuters}, nil, ConfidenceLow},
		{"independent among dependent ones", ConfidenceHigh, []SearchResult{bbc, bbcOther, reuters}, nil, ConfidenceHigh},
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
			if confidenceRank(got.Confidence) > confidenceRank(c.stated) {
				t.Errorf("raised %q to %q", c.stated, got.Confidence)
			}
		})
	}
}

func TestIndependentSources(t *testing.T) {
	t.Parallel()
	got := IndependentSources([]SearchResult{
		result("https://www.bbc.co.uk/a", "BBC", ""),
		result("https://news.bbc.co.uk/b", "", ""),        // same site
		result("https://bbc-mirror.example/c", "bbc", ""), // same publisher, case aside
		result("https://www.reuters.com/d", "", ""),
		result("https://apnews.com/e", "", ""),
	})
	var sites []string
	for _, r := range got {
		sites = append(sites, r.Domain)
	}
	if strings.Join(sites, " ") != "bbc.co.uk reuters.com apnews.com" {
		t.Errorf("independent sources: %v", sites)
	}
}
