package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/report"
	"github.com/corroborate/corroborate/internal/store"
)

// factCheckSchema compiles the JSON Schema of the fields fact-check markup requires.
func factCheckSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	const path = "../../internal/report/testdata/claimreview.schema.json"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("claimreview.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("claimreview.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validClaimReview(t *testing.T, sch *jsonschema.Schema, raw []byte) map[string]any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("a ClaimReview fails the fact-check markup schema: %v\n%s", err, raw)
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

// publishEiffel records where the Eiffel statement appeared and an editor's approval of claim 1
// (supported) and override of claim 2 (refuted → partly supported).
func publishEiffel(t *testing.T, st *store.Store, b batch) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Pool().Exec(ctx, `UPDATE statements SET source_url = 'https://news.example/tower-interview',
		source_author = 'A. Guide', published_at = '2026-11-28T10:00:00Z' WHERE id = $1`, b.eiffel); err != nil {
		t.Fatal(err)
	}
	for _, d := range []store.Decision{
		{Editor: "ana", RunID: b.eiffelRun, Position: 1, Kind: store.DecisionApprove},
		{Editor: "ana", RunID: b.eiffelRun, Position: 2, Kind: store.DecisionOverride, Verdict: pipeline.VerdictPartlySupported,
			Reason: "330 m includes the antennas; the structure is 300 m"},
	} {
		if _, err := st.Decide(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
}

var publisherArgs = []string{"--publisher-name", "Example Fact Desk", "--publisher-url", "https://desk.example", "--review-url", "https://factcheck.example/review/"}

// report export --format claimreview writes a ClaimReview for each claim whose standing
// verdict an editor decided, and each passes the fact-check markup schema.
func TestExportClaimReviewsOfPublishedClaims(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	publishEiffel(t, st, b)
	out := filepath.Join(t.TempDir(), "claimreview.json")
	args := append([]string{"export", "--database-url", dbURL, "--format", "claimreview", "--external-id-prefix", b.prefix, "--out", out}, publisherArgs...)
	code, _, errOut := runReport(t, args...)
	if code != exitOK || !strings.Contains(errOut, "2 claim reviews written") {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var records []json.RawMessage
	if err := json.Unmarshal(data, &records); err != nil || len(records) != 2 {
		t.Fatalf("want a JSON array of 2 ClaimReviews (the unpublished claims left out), got %d: %v\n%s", len(records), err, data)
	}
	sch := factCheckSchema(t)
	byClaim := map[string]map[string]any{}
	for _, raw := range records {
		m := validClaimReview(t, sch, raw)
		byClaim[fmt.Sprint(m["claimReviewed"])] = m
	}
	t.Logf("one record:\n%s", records[len(records)-1])
	for claim, want := range map[string]struct {
		rating string
		value  float64
	}{
		"The Eiffel Tower was completed in 1889": {"True", 5},
		"The Eiffel Tower is 300 metres tall":    {"Partly true", 3},
	} {
		m := byClaim[claim]
		rating, _ := m["reviewRating"].(map[string]any)
		item, _ := m["itemReviewed"].(map[string]any)
		author, _ := m["author"].(map[string]any)
		if rating["alternateName"] != want.rating || rating["ratingValue"] != want.value {
			t.Errorf("%s: rating %v, want %s (%v)", claim, rating, want.rating, want.value)
		}
		first, _ := item["firstAppearance"].(map[string]any)
		if first["url"] != "https://news.example/tower-interview" || item["datePublished"] != "2026-11-28" || author["name"] != "Example Fact Desk" {
			t.Errorf("%s: itemReviewed %v, author %v", claim, item, author)
		}
		if u := fmt.Sprint(m["url"]); !strings.HasPrefix(u, fmt.Sprintf("https://factcheck.example/review/statements/%d#claim-", b.eiffel)) {
			t.Errorf("%s: url %s", claim, u)
		}
	}
	// Without a publisher the export says what to give.
	code, _, errOut = runReport(t, "export", "--database-url", dbURL, "--format", "claimreview")
	if code != exitInvalid || !strings.Contains(errOut, "--publisher-name") || !strings.Contains(errOut, "--review-url") {
		t.Errorf("claimreview without a publisher: exit %d %s", code, errOut)
	}
}

var jsonLD = regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`)

// A statement page embeds the ClaimReview of its published claims, and only of those.
func TestStatementPageEmbedsClaimReviewWhenPublished(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	publishEiffel(t, st, b)
	ro, err := openReadOnly(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	srv, err := report.NewServer(ro, 50, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv.Publish(report.Publisher{Name: "Example Fact Desk", URL: "https://desk.example", ReviewURL: "https://factcheck.example/review"})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	_, _, body := get(t, http.MethodGet, fmt.Sprintf("%s/statements/%d", ts.URL, b.eiffel))
	blocks := jsonLD.FindAllStringSubmatch(body, -1)
	if len(blocks) != 2 {
		t.Fatalf("the published statement's page embeds %d ClaimReview blocks, want 2:\n%s", len(blocks), body)
	}
	sch := factCheckSchema(t)
	for _, blk := range blocks {
		validClaimReview(t, sch, []byte(blk[1]))
	}
	_, _, hostile := get(t, http.MethodGet, fmt.Sprintf("%s/statements/%d", ts.URL, b.hostile))
	if strings.Contains(hostile, "<script") {
		t.Error("an unpublished statement's page embeds a script element")
	}
}
