package pagefetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/ledongthuc/pdf"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/corroborate/corroborate/internal/pipeline/text"
)

// errUnsupportedType: the body is of a type whose text is not extracted.
var errUnsupportedType = errors.New("unsupported content type")

// extractText returns the main text of body and its media type: readability's article for HTML
// (navigation, ads and boilerplate left out), the text of a PDF, plain text as it is. A missing
// or generic Content-Type is sniffed from the body.
func extractText(body []byte, contentType string, pageURL *url.URL) (text, mediaType string, err error) {
	mediaType, _, _ = mime.ParseMediaType(contentType)
	if mediaType == "" || mediaType == "application/octet-stream" {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		if body, err = toUTF8(body, contentType); err == nil {
			text, err = htmlText(body, pageURL)
		}
	case "application/pdf":
		text, err = pdfText(body)
	case "text/plain":
		body, err = toUTF8(body, contentType)
		text = string(body)
	default:
		return "", mediaType, fmt.Errorf("%w %q: only HTML, PDF and plain text are read", errUnsupportedType, mediaType)
	}
	if err != nil {
		return "", mediaType, err
	}
	text = tidyText(strings.ToValidUTF8(text, "\uFFFD"))
	if text == "" {
		return "", mediaType, errors.New("no text in the page")
	}
	return text, mediaType, nil
}

// toUTF8 decodes body from the charset its Content-Type or (for HTML) its <meta> declares, or
// that its bytes suggest, so that a Latin-1 page's "é" is read as "é", not as a replacement
// character.
func toUTF8(body []byte, contentType string) ([]byte, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return nil, fmt.Errorf("decoding the text: %w", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("decoding the text: %w", err)
	}
	return out, nil
}

func htmlText(body []byte, pageURL *url.URL) (string, error) {
	article, err := readability.FromReader(bytes.NewReader(body), pageURL)
	if err != nil {
		return "", fmt.Errorf("extracting the main text: %w", err)
	}
	if article.Node == nil {
		return "", errors.New("extracting the main text: readability found no article")
	}
	noteLinkTargets(article.Node)
	var b strings.Builder
	if err := article.RenderText(&b); err != nil {
		return "", fmt.Errorf("extracting the main text: %w", err)
	}
	return b.String(), nil
}

// noteLinkTargets writes after each link whose title attribute names what its text does not
// where it leads (text.LinkNote: "Bologna (link: Virtus Pallacanestro Bologna)"): a page often
// says who or what it means only by a link, and its text alone would not. The title counts only
// where the link's address ends in it ("/wiki/Virtus_Pallacanestro_Bologna"): then it is the
// name of the page the link leads to, not a tooltip, which may say anything and is shown to no
// reader of the page's text.
func noteLinkTargets(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.Data != "a" {
			noteLinkTargets(c)
			continue
		}
		var title, href string
		for _, a := range c.Attr {
			switch a.Key {
			case "title":
				title = a.Val
			case "href":
				href = a.Val
			}
		}
		if !addressNames(href, title) {
			continue
		}
		if note := text.LinkNote(render.InnerText(c), title); note != "" {
			n.InsertBefore(&html.Node{Type: html.TextNode, Data: note}, c.NextSibling)
			c = c.NextSibling
		}
	}
}

// addressNames reports whether href's last path segment is title, word for word ("_" and "-"
// between words, escapes decoded, case and accents aside).
func addressNames(href, title string) bool {
	u, err := url.Parse(href)
	if err != nil || title == "" {
		return false
	}
	segment := u.Path[strings.LastIndex(u.Path, "/")+1:]
	want := text.Words(text.FoldForMatch(title))
	return len(want) > 0 && slices.Equal(text.Words(text.FoldForMatch(segment)), want)
}

// pdfText returns a PDF's text. The PDF reader panics on some malformed files; a page is
// untrusted input, so a panic is a failed extraction, not a crashed worker.
func pdfText(body []byte) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("reading the PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", fmt.Errorf("reading the PDF: %w", err)
	}
	plain, err := r.GetPlainText()
	if err != nil {
		return "", fmt.Errorf("reading the PDF's text: %w", err)
	}
	b, err := io.ReadAll(plain)
	if err != nil {
		return "", fmt.Errorf("reading the PDF's text: %w", err)
	}
	return string(b), nil
}

// tidyText makes extracted text into paragraphs: each line's white space folded, lines of one
// paragraph kept on their own lines, and runs of blank lines made one blank line between
// paragraphs, so that passages split at blank lines follow the page's paragraphs.
func tidyText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	blank := false
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			if blank {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		blank = false
		b.WriteString(line)
	}
	return b.String()
}
