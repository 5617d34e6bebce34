package evidence

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// DocumentKey returns the document a URL names, so that two links to one document compare
// equal: a DOI wherever it is hosted is "doi:" and the DOI in lower case; otherwise the host in
// lower case without "www." and without its default port, the path without a trailing slash,
// the query without tracking parameters (utm_*, fbclid, gclid and their kind) and sorted, and no
// scheme or fragment. A string that is not an absolute URL is returned trimmed and lower-cased.
// The key is an identity for comparing sources, not an address: it cannot be fetched. The form
// in which the corpus stores and fetches a URL is search.NormalizeURL's.
func DocumentKey(raw string) string {
	raw = strings.TrimSpace(raw)
	if doi := DOIOf(raw); doi != "" {
		return "doi:" + doi
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return strings.TrimSuffix(strings.ToLower(raw), "/")
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		host += ":" + p
	}
	s := host + strings.TrimSuffix(u.EscapedPath(), "/")
	q := u.Query()
	for k := range q {
		if isTrackingParameter(k) {
			q.Del(k)
		}
	}
	if len(q) > 0 {
		s += "?" + q.Encode() // Encode sorts by key
	}
	return s
}

// doiPattern is a DOI as Crossref describes it: "10.", a registrant code, "/", a suffix.
var doiPattern = regexp.MustCompile(`(?i)\b(10\.\d{4,9}/[^\s?#&"'<>]+)`)

// DOIOf returns the DOI a URL or string names, in lower case (DOIs are case-insensitive), or ""
// when it names none: doi.org/10.1000/xyz, a publisher's /doi/10.1000/xyz, "doi:10.1000/xyz" and
// a ?doi= parameter all name 10.1000/xyz.
func DOIOf(raw string) string {
	s := raw
	if u, err := url.Parse(raw); err == nil {
		if d := u.Query().Get("doi"); d != "" {
			s = d
		} else if u.Host != "" {
			s = u.Path
		}
	}
	m := doiPattern.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	if unescaped, err := url.PathUnescape(m[1]); err == nil {
		m[1] = unescaped
	}
	return strings.ToLower(strings.TrimRight(m[1], ".,;)"))
}

// trackingParameters are query parameters that say how a reader arrived, not which document:
// campaign tags of analytics, ad click identifiers, newsletter and share markers.
var trackingParameters = []string{
	"fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid",
	"igshid", "mc_cid", "mc_eid", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id",
	"vero_id", "rb_clickid", "s_cid", "cmpid", "ncid", "ocid", "smid", "ref", "ref_src",
	"ref_url", "ito", "at_medium", "at_campaign",
}

func isTrackingParameter(key string) bool {
	k := strings.ToLower(key)
	return strings.HasPrefix(k, "utm_") || strings.HasPrefix(k, "pk_") || slices.Contains(trackingParameters, k)
}
