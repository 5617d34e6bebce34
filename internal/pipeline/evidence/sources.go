package evidence

import (
	"net/url"
	"strings"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// SourceKeys are the parts of one source that independence compares.
type SourceKeys struct {
	Domain, Publisher, URL string
}

// KeysOf returns what independence compares of r: its registrable domain, publisher and document.
func KeysOf(r pipeline.SearchResult) SourceKeys {
	domain := r.Domain
	if domain == "" {
		if u, err := url.Parse(r.URL); err == nil {
			domain = u.Hostname()
		}
	}
	return SourceKeys{Domain: RegistrableDomain(domain), Publisher: NormalizePublisher(r.Publisher), URL: CanonicalURL(r.URL)}
}

// NormalizePublisher returns the publisher name independence compares: case and spacing aside.
func NormalizePublisher(p string) string {
	return strings.Join(strings.Fields(strings.ToLower(p)), " ")
}
