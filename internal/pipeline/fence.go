package pipeline

import (
	"strings"
)

// EscapeFenced makes untrusted text safe to place inside a prompt's fence (<untrusted_question>,
// <evidence>, <source>, <untrusted_draft>, ...): every angle bracket, the fullwidth and small
// forms a model may read as one included, becomes an entity, so nothing inside can open or close
// a tag, whatever its case or spacing. It is the one escaping function of every fence: a prompt
// that carries a draft, a query, a search result or a model reply passes it through here (or
// through fenceAttr, which is built on it), so no fence can be closed from inside.
//
// Escaping only the brackets keeps the text readable for the model; a literal "&lt;" in the
// input stays as it is, which is harmless: it opens nothing.
func EscapeFenced(s string) string {
	if !strings.ContainsAny(s, "<>\uFF1C\uFF1E\uFE64\uFE65") {
		return s
	}
	return fenceEscaper.Replace(s)
}

var fenceEscaper = strings.NewReplacer(
	"<", "&lt;", ">", "&gt;",
	"\uFF1C", "&lt;", "\uFF1E", "&gt;", // fullwidth
	"\uFE64", "&lt;", "\uFE65", "&gt;", // small form variants
)

// FenceAttr makes untrusted text safe as a quoted attribute value of a fence tag
// (<source url="...">): EscapeFenced, quotes escaped, and line breaks folded so the tag stays on
// one line.
func FenceAttr(s string) string {
	s = EscapeFenced(s)
	s = strings.ReplaceAll(s, `"`, "&quot;")
	return strings.Join(strings.Fields(s), " ")
}

// Fence returns body, escaped, between <tag> and </tag> on lines of their own. attrs, when given,
// are name and value pairs for the opening tag, each value escaped by fenceAttr.
func Fence(tag, body string, attrs ...string) string {
	return openTag(tag, attrs) + "\n" + EscapeFenced(strings.TrimSpace(body)) + "\n</" + tag + ">"
}

// openTag renders <tag name="value" ...>, each value escaped by fenceAttr.
func openTag(tag string, attrs []string) string {
	var b strings.Builder
	b.WriteString("<" + tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		b.WriteString(" " + attrs[i] + `="` + FenceAttr(attrs[i+1]) + `"`)
	}
	b.WriteString(">")
	return b.String()
}

// InlineFence is fence on one line, for short items (a claim): <tag attrs>body</tag>, with the
// body's line breaks folded.
func InlineFence(tag, body string, attrs ...string) string {
	return openTag(tag, attrs) + EscapeFenced(strings.Join(strings.Fields(body), " ")) + "</" + tag + ">"
}

// FenceLine makes untrusted text safe as one entry of a line-structured block of a prompt (a
// "Q: ..." or "A: ..." line of checks, a numbered question): EscapeFenced, and its line breaks
// folded into spaces, so that it can neither close a fence nor start a line of its own that
// forges another entry.
func FenceLine(s string) string {
	return strings.Join(strings.Fields(EscapeFenced(s)), " ")
}
