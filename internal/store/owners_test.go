package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/store"
)

func TestOwnerDomain(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"apnews.com": "apnews.com", " APNews.com. ": "apnews.com", "www.bbc.co.uk": "bbc.co.uk",
		"https://www.ap.org/about/": "ap.org", "reuters.com:443": "reuters.com", "example.github.io": "example.github.io",
	} {
		if got, err := store.OwnerDomain(raw); err != nil || got != want {
			t.Errorf("OwnerDomain(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for raw, want := range map[string]string{
		"":                 "empty",
		"news.bbc.co.uk":   "add bbc.co.uk",
		"co.uk":            "public suffix",
		"github.io":        "public suffix",
		"127.0.0.1":        "IP address",
		"localhost":        "not a registrable domain",
		"ap news.com":      "not a domain",
		"apnews.com/world": "not a domain",
		"https://":         "not a URL",
	} {
		if got, err := store.OwnerDomain(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OwnerDomain(%q) = %q, %v; want an error saying %q", raw, got, err, want)
		}
	}
}

func TestSourceOwners(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	seed, err := s.SourceOwnerMap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if seed["apnews.com"] != "Associated Press" || seed["ap.org"] != "Associated Press" || seed["bbc.com"] != seed["bbc.co.uk"] {
		t.Errorf("seed list: %v", seed)
	}
	got, err := s.AddSourceOwner(ctx, "https://www.Owners-Test.example/news", "  Owners   Test Group ", "editor: test")
	if err != nil {
		t.Fatal(err)
	}
	if got.Domain != "owners-test.example" || got.Organisation != "Owners Test Group" || got.Source != "editor: test" || got.AddedAt.IsZero() {
		t.Errorf("added %+v", got)
	}
	if got, err = s.AddSourceOwner(ctx, "owners-test.example", "Owners Test Holdings", ""); err != nil || got.Organisation != "Owners Test Holdings" {
		t.Errorf("re-adding: %+v, %v; want the new organisation", got, err)
	}
	if _, err := s.AddSourceOwner(ctx, "news.owners-test.example", "X", ""); err == nil || !strings.Contains(err.Error(), "add owners-test.example") {
		t.Errorf("a subdomain: %v", err)
	}
	if _, err := s.AddSourceOwner(ctx, "owners-test2.example", " ", ""); err == nil || !strings.Contains(err.Error(), "organisation is empty") {
		t.Errorf("no organisation: %v", err)
	}
	m, err := s.SourceOwnerMap(ctx)
	if err != nil || m["owners-test.example"] != "Owners Test Holdings" || m["owners-test2.example"] != "" {
		t.Errorf("after adding: %v, %v", m["owners-test.example"], err)
	}
}
