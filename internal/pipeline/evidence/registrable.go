package evidence

import (
	"net"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// RegistrableDomain returns the domain a host was registered as, by the Public Suffix List: the
// public suffix and one label more ("news.bbc.co.uk" is "bbc.co.uk"; "example.github.io" is
// itself, since github.io is a suffix under which anyone publishes). Two sources on one
// registrable domain are one source for independence. A host that is an IP address, a single
// label ("localhost") or itself a public suffix is returned as it is, lower-cased without "www."
// and a trailing dot: it is its own source. Ports are dropped.
func RegistrableDomain(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "" || net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return host
	}
	domain, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		// The host is a public suffix itself (or malformed): nothing narrower to compare.
		return strings.TrimPrefix(host, "www.")
	}
	return domain
}
