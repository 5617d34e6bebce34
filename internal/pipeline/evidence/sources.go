package evidence

import (
	"cmp"
	"net/url"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// SourceKeys are the parts of one source that independence compares. Two sources are one voice
// when they share any of them: a registrable domain, a publisher (the page's own name or the
// organisation that owns its domain), a document (one canonical URL or DOI), or their text (one
// is a near-duplicate of the other: syndicated or copied).
type SourceKeys struct {
	// Domain is the registrable domain, by the Public Suffix List.
	Domain string
	// Publisher is the page's own publisher name and Organisation the owner of its domain from
	// the source_owners table, both as NormalizePublisher writes them; either may be empty.
	Publisher, Organisation string
	// URL is the canonical URL: "doi:" and the DOI for a DOI wherever it is hosted.
	URL string
	// Content is the fingerprint of the title and snippet, for near-duplicate detection.
	Content Fingerprint
}

// KeysOf returns what independence compares of r.
func KeysOf(r pipeline.SearchResult) SourceKeys {
	domain := r.Domain
	if domain == "" {
		if u, err := url.Parse(r.URL); err == nil {
			domain = u.Hostname()
		}
	}
	return SourceKeys{
		Domain:       RegistrableDomain(domain),
		Publisher:    NormalizePublisher(r.Publisher),
		Organisation: NormalizePublisher(r.Organisation),
		URL:          DocumentKey(r.URL),
		Content:      FingerprintOf(r.Title + "\n" + r.Snippet),
	}
}

// NormalizePublisher returns the publisher name independence compares: case and spacing aside.
func NormalizePublisher(p string) string {
	return strings.Join(strings.Fields(strings.ToLower(p)), " ")
}

// PublisherNames are the names k is published under: its organisation and its page publisher,
// each once, the organisation first.
func (k SourceKeys) PublisherNames() []string {
	switch {
	case k.Organisation == "" && k.Publisher == "":
		return nil
	case k.Organisation == "" || k.Publisher == "" || k.Organisation == k.Publisher:
		return []string{cmp.Or(k.Organisation, k.Publisher)}
	}
	return []string{k.Organisation, k.Publisher}
}

// SameDocument reports whether k and o are one document: one canonical URL or DOI.
func (k SourceKeys) SameDocument(o SourceKeys) bool { return k.URL != "" && k.URL == o.URL }

// SameDomain reports whether k and o are on one registrable domain.
func (k SourceKeys) SameDomain(o SourceKeys) bool { return k.Domain != "" && k.Domain == o.Domain }

// SamePublisher returns the name k and o are both published under, "" when none: a page
// publisher or an organisation of one may be the other's (corpus metadata naming "Associated
// Press" on one, the source_owners table on the other), so every name of each is compared.
func (k SourceKeys) SamePublisher(o SourceKeys) string {
	for _, a := range k.PublisherNames() {
		for _, b := range o.PublisherNames() {
			if a == b {
				return a
			}
		}
	}
	return ""
}

// SameContent reports whether k's and o's texts are near-duplicates (NearDuplicate): one
// syndicated or copied text, whatever the domains it is on.
func (k SourceKeys) SameContent(o SourceKeys) bool { return NearDuplicate(k.Content, o.Content) }

// Shared says what makes k and o one source, as a reason a person reads ("its domain
// example.com"), or "" when they are independent.
func (k SourceKeys) Shared(o SourceKeys) string {
	switch {
	case k.SameDocument(o):
		return "its document " + k.URL
	case k.SameDomain(o):
		return "its domain " + k.Domain
	}
	if name := k.SamePublisher(o); name != "" {
		if name == k.Organisation || name == o.Organisation {
			return "its organisation " + name
		}
		return "its publisher " + name
	}
	if k.SameContent(o) {
		return "its text (a near-duplicate copy)"
	}
	return ""
}
