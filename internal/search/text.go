package search

import (
	"errors"
	"html"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on what a result carries, whatever a provider sends.
const (
	maxTitleRunes   = 300
	maxSnippetRunes = 1000
	maxURLBytes     = 2048
)

// Domain returns the lower-case host of rawURL without a leading "www." and without a port; ""
// when rawURL has no host. A bare host ("BBC.co.uk") is read as one.
func Domain(rawURL string) string {
	s := strings.TrimSpace(rawURL)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	host = strings.TrimPrefix(host, "www.")
	return host
}

// NormalizeURL returns rawURL in the form the corpus stores and compares: scheme and host in
// lower case, no default port, no fragment. It fails for anything but an absolute http or https
// URL with a host. It is an address, kept fetchable (scheme, www., trailing slash and query as
// given); whether two URLs name one document is evidence.DocumentKey's question, which this
// package's exclusions answer with urlVariants.
func NormalizeURL(rawURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", err
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", errNotHTTP
	}
	if u.Hostname() == "" {
		return "", errNoHost
	}
	u.Host = strings.ToLower(u.Host)
	if (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443") {
		u.Host = strings.TrimSuffix(u.Host, ":"+u.Port())
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

var (
	errNotHTTP = errors.New("not an http or https URL")
	errNoHost  = errors.New("the URL has no host")
)

// urlVariants returns the forms under which the document at rawURL may be stored: http and
// https, with and without "www.", with and without a trailing slash. Excluding a URL excludes
// them all: they are the same document for source independence.
func urlVariants(rawURL string) []string {
	n, err := NormalizeURL(rawURL)
	if err != nil {
		if s := strings.TrimSpace(rawURL); s != "" {
			return []string{s}
		}
		return nil
	}
	u, _ := url.Parse(n)
	hosts := []string{u.Host}
	if h, ok := strings.CutPrefix(u.Host, "www."); ok {
		hosts = append(hosts, h)
	} else {
		hosts = append(hosts, "www."+u.Host)
	}
	paths := []string{u.EscapedPath()}
	switch p := u.EscapedPath(); {
	case p == "" || p == "/":
		paths = []string{"", "/"}
	case strings.HasSuffix(p, "/"):
		paths = append(paths, strings.TrimSuffix(p, "/"))
	default:
		paths = append(paths, p+"/")
	}
	var out []string
	for _, scheme := range []string{"https", "http"} {
		for _, h := range hosts {
			for _, p := range paths {
				v := scheme + "://" + h + p
				if u.RawQuery != "" {
					v += "?" + u.RawQuery
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// plainText turns a provider's snippet or title, which may hold HTML (Brave marks matches with
// <strong>; engines behind SearxNG send what they like, hostile pages included), into plain
// text: invisible characters removed, tags dropped with the content of script and style
// elements, entities decoded, then both again (so that "&lt;script&gt;" cannot come back as
// markup), white space collapsed, and the result cut to max runes. Characters are removed before
// tags are looked for, so that removing one cannot make a tag of "<" and what follows.
func plainText(s string, max int) string {
	s = dropInvisible(strings.ToValidUTF8(s, " "))
	s = stripTags(s)
	s = dropInvisible(html.UnescapeString(s))
	s = stripTags(s)
	return truncateRunes(strings.Join(strings.Fields(s), " "), max)
}

// dropInvisible removes control and format characters (zero-width spaces, direction overrides),
// keeping white space.
func dropInvisible(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}

// stripTags removes markup: anything from "<" followed by a letter, "/", "!" or "?" up to the
// next ">" (an unclosed tag runs to the end), and the whole content of script, style and
// similar elements. A "<" that starts no tag ("a < b") is text.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '<' || i+1 >= len(s) || !startsTag(s[i+1]) {
			b.WriteByte(c)
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			break
		}
		tag := strings.ToLower(s[i+1 : i+end])
		i += end + 1
		for _, raw := range []string{"script", "style", "noscript", "template", "iframe", "title"} {
			if tag == raw || strings.HasPrefix(tag, raw+" ") || strings.HasPrefix(tag, raw+"\t") || strings.HasPrefix(tag, raw+"\n") {
				close := strings.Index(strings.ToLower(s[i:]), "</"+raw)
				if close < 0 {
					i = len(s)
				} else {
					i += close
				}
				break
			}
		}
		b.WriteByte(' ')
	}
	return b.String()
}

func startsTag(c byte) bool {
	return c == '/' || c == '!' || c == '?' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// truncateRunes cuts s to at most max runes, marking a cut with "…".
func truncateRunes(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	return strings.TrimSpace(string(runes[:max-1])) + "…"
}
