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
	return SourceKeys{Domain: RegistrableDomain(domain), Publisher: NormalizePublisher(r.Publisher), URL: NormalizeURL(r.URL)}
}

// secondLevelLabels are the labels under a country code that registries sell names below
// ("bbc.co.uk", "abc.net.au"), the common cases of the public suffix list.
var secondLevelLabels = pipeline.WordSet("co com org net ac gov edu ne or go gob mil nic ltd plc sch")

// RegistrableDomain returns the domain a host belongs to for independence: its last two labels,
// or three under a country code's second-level label (news.bbc.co.uk is bbc.co.uk). It is a
// heuristic in place of the public suffix list, erring towards treating hosts as one source.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	host = strings.TrimPrefix(host, "www.")
	labels := strings.Split(host, ".")
	if len(labels) <= 2 {
		return host
	}
	n := 2
	if len(labels[len(labels)-1]) == 2 && secondLevelLabels[labels[len(labels)-2]] {
		n = 3
	}
	return strings.Join(labels[len(labels)-n:], ".")
}

// NormalizePublisher returns the publisher name independence compares: case and spacing aside.
func NormalizePublisher(p string) string {
	return strings.Join(strings.Fields(strings.ToLower(p)), " ")
}

// NormalizeURL returns the document a URL names: host without "www.", path without trailing
// slash, query kept, scheme and fragment dropped.
func NormalizeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return strings.TrimSuffix(strings.ToLower(raw), "/")
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	s := host + strings.TrimSuffix(u.EscapedPath(), "/")
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}
