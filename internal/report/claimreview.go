package report

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/store"
)

// Publisher is the organisation that publishes the fact-checks, and where its review pages are:
// what a ClaimReview names as its author and url.
type Publisher struct {
	// Name and URL of the publishing organisation (ClaimReview author).
	Name string
	URL  string
	// ReviewURL is the public address of the review pages: a claim's review is at
	// ReviewURL/statements/<statement_id>#claim-<position>.
	ReviewURL string
}

// Validate reports every missing or bad field in one error.
func (p Publisher) Validate() error {
	var problems []string
	if strings.TrimSpace(p.Name) == "" {
		problems = append(problems, "no publisher: give the publishing organisation's name (--publisher-name)")
	}
	for _, u := range []struct{ flag, value string }{{"--publisher-url", p.URL}, {"--review-url", p.ReviewURL}} {
		parsed, err := url.Parse(u.value)
		if u.value == "" && u.flag == "--publisher-url" {
			continue
		}
		if err != nil || parsed.Host == "" || (parsed.Scheme != "https" && parsed.Scheme != "http") {
			problems = append(problems, fmt.Sprintf("%s %q: give an absolute http or https URL", u.flag, u.value))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// Ratings is the rating scale of the ClaimReview export, from a standing verdict: ratingValue
// on a scale from 1 (false) to 5 (true), and alternateName, the rating in words that
// fact-check readers show. An unverified claim has no place on the true-false scale: it gets
// its words and no value. not_checked claims are not published.
var Ratings = map[string]struct {
	Value int
	Name  string
}{
	pipeline.VerdictRefuted:         {1, "False"},
	pipeline.VerdictPartlySupported: {3, "Partly true"},
	pipeline.VerdictSupported:       {5, "True"},
	pipeline.VerdictUnverified:      {0, "Unproven"},
}

// ClaimReview is a schema.org ClaimReview, as JSON-LD.
type ClaimReview struct {
	Context       string       `json:"@context"`
	Type          string       `json:"@type"`
	URL           string       `json:"url"`
	ClaimReviewed string       `json:"claimReviewed"`
	DatePublished string       `json:"datePublished"`
	InLanguage    string       `json:"inLanguage,omitempty"`
	Author        thing        `json:"author"`
	ReviewRating  rating       `json:"reviewRating"`
	ItemReviewed  claimedThing `json:"itemReviewed"`
}

type thing struct {
	Type string `json:"@type"`
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type rating struct {
	Type          string `json:"@type"`
	RatingValue   int    `json:"ratingValue,omitempty"`
	BestRating    int    `json:"bestRating,omitempty"`
	WorstRating   int    `json:"worstRating,omitempty"`
	AlternateName string `json:"alternateName"`
}

type claimedThing struct {
	Type            string  `json:"@type"`
	Author          *thing  `json:"author,omitempty"`
	DatePublished   string  `json:"datePublished,omitempty"`
	Appearance      []thing `json:"appearance,omitempty"`
	FirstAppearance *thing  `json:"firstAppearance,omitempty"`
}

// NewClaimReview is the ClaimReview of one published claim. The claim's author, appearance and
// first appearance are named only when its job carried them (source_author, source_url,
// published_at).
func NewClaimReview(p Publisher, c store.PublishedClaim) ClaimReview {
	r := Ratings[c.Verdict]
	cr := ClaimReview{
		Context: "https://schema.org", Type: "ClaimReview",
		URL:           fmt.Sprintf("%s/statements/%d#claim-%d", strings.TrimRight(p.ReviewURL, "/"), c.StatementID, c.Position),
		ClaimReviewed: c.ClaimText,
		DatePublished: c.DecidedAt.UTC().Format(time.DateOnly),
		InLanguage:    c.Language,
		Author:        thing{Type: "Organization", Name: p.Name, URL: p.URL},
		ReviewRating:  rating{Type: "Rating", AlternateName: cmp.Or(r.Name, c.Verdict)},
		ItemReviewed:  claimedThing{Type: "Claim"},
	}
	if r.Value > 0 {
		cr.ReviewRating.RatingValue, cr.ReviewRating.BestRating, cr.ReviewRating.WorstRating = r.Value, 5, 1
	}
	if c.SourceAuthor != "" {
		// A name alone does not say whether a person or an organisation spoke; schema.org's
		// Thing is the honest type.
		cr.ItemReviewed.Author = &thing{Type: "Thing", Name: c.SourceAuthor}
	}
	if c.PublishedAt != nil {
		cr.ItemReviewed.DatePublished = c.PublishedAt.UTC().Format(time.DateOnly)
	}
	if c.SourceURL != "" {
		cr.ItemReviewed.Appearance = []thing{{Type: "CreativeWork", URL: c.SourceURL}}
		cr.ItemReviewed.FirstAppearance = &thing{Type: "CreativeWork", URL: c.SourceURL}
	}
	return cr
}

// publishedClaims are the claims of a statement page whose standing verdict an editor decided,
// as EachPublishedClaim reads them.
func publishedClaims(sp store.StatementPage) []store.PublishedClaim {
	var out []store.PublishedClaim
	for _, d := range sp.Decisions {
		if d.StandingSource != store.SourceEditor || d.StandingVerdict == pipeline.VerdictNotChecked || d.DecidedAt == nil {
			continue
		}
		st := sp.Statement
		out = append(out, store.PublishedClaim{StatementID: st.StatementID, ExternalID: st.ExternalID, RunID: d.RunID,
			Position: d.Position, ClaimText: d.ClaimText, Language: st.Language, Verdict: d.StandingVerdict,
			Decision: d.Decision, DecidedBy: d.DecidedBy, DecidedAt: *d.DecidedAt,
			SourceURL: st.SourceURL, SourceAuthor: st.SourceAuthor, PublishedAt: st.PublishedAt})
	}
	return out
}

// ExportClaimReviews writes the ClaimReview of every published claim f selects to w as one
// JSON-LD array, showing progress on progressOut, and returns how many it wrote.
func ExportClaimReviews(ctx context.Context, w io.Writer, p Publisher, f store.ReportFilter, progressOut io.Writer,
	count func(context.Context, store.ReportFilter) (int, error),
	each func(context.Context, store.ReportFilter, func(store.PublishedClaim) error) error) (int, error) {
	total, err := count(ctx, f)
	if err != nil {
		return 0, err
	}
	bar := progress.New("claim reviews", total, progressOut)
	defer bar.Done()
	if _, err := io.WriteString(w, "["); err != nil {
		return 0, err
	}
	n := 0
	err = each(ctx, f, func(c store.PublishedClaim) error {
		data, err := json.MarshalIndent(NewClaimReview(p, c), "  ", "  ")
		if err != nil {
			return err
		}
		sep := "\n  "
		if n > 0 {
			sep = ",\n  "
		}
		if _, err := io.WriteString(w, sep+string(data)); err != nil {
			return err
		}
		n++
		bar.Add(1)
		return nil
	})
	if err != nil {
		return n, err
	}
	_, err = io.WriteString(w, "\n]\n")
	return n, err
}
