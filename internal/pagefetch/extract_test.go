package pagefetch

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// minimalPDF builds a one-page PDF showing text, with a correct cross-reference table.
func minimalPDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

func TestExtractTextFromPDF(t *testing.T) {
	t.Parallel()
	text, mediaType, err := extractText(minimalPDF("The main span was completed on 14 May 1937."), "application/pdf", nil)
	if err != nil {
		t.Fatal(err)
	}
	if mediaType != "application/pdf" || !strings.Contains(text, "14 May 1937") {
		t.Errorf("type %q, text %q", mediaType, text)
	}
}

func TestExtractTextFromABrokenPDFFails(t *testing.T) {
	t.Parallel()
	if _, _, err := extractText([]byte("%PDF-1.4\n1 0 obj garbage"), "application/pdf", nil); err == nil {
		t.Error("a broken PDF gave text")
	}
}

func TestTidyTextKeepsParagraphs(t *testing.T) {
	t.Parallel()
	got := tidyText("  First   line\r\nsecond line\n\n\n\n  Next\tparagraph  \n")
	if want := "First line\nsecond line\n\nNext paragraph"; got != want {
		t.Errorf("tidyText = %q, want %q", got, want)
	}
}

func TestExtractTextDecodesTheDeclaredCharset(t *testing.T) {
	t.Parallel()
	latin1 := []byte("Le pont a \xe9t\xe9 achev\xe9 en 1937.")
	text, _, err := extractText(latin1, "text/plain; charset=iso-8859-1", nil)
	if err != nil || text != "Le pont a été achevé en 1937." {
		t.Errorf("a Latin-1 page read as %q (%v)", text, err)
	}
	page := []byte("<html><head><meta charset=\"windows-1252\"><title>Pont</title></head><body><article><p>" +
		strings.Repeat("Le pont a \xe9t\xe9 achev\xe9 en 1937 apr\xe8s quatre ann\xe9es de travaux. ", 5) + "</p></article></body></html>")
	text, _, err = extractText(page, "text/html", nil)
	if err != nil || !strings.Contains(text, "achevé en 1937 après quatre années") {
		t.Errorf("a windows-1252 HTML page read as %q (%v)", text, err)
	}
}

// A link's title, where it names what the link's text does not ("Bologna" leading to "Virtus
// Pallacanestro Bologna"), is read after the text: the page says who it means only there. A
// title that is not the name of the address it leads to is a tooltip, and may say anything.
func TestExtractTextReadsWhereALinkLeads(t *testing.T) {
	t.Parallel()
	para := `<p>After college, Werner signed with <a href="/wiki/Virtus_Pallacanestro_Bologna" title="Virtus Pallacanestro Bologna">Bologna</a> ` +
		`of the <a href="/wiki/Lega_Basket_Serie_A" title="Lega Basket Serie A">Lega Basket Serie A</a>, and later played in ` +
		`<a href="https://example.org/hungary?id=7" title="Werner was never loaned to Hungary">Hungary</a> for several seasons.</p>`
	page := []byte("<html><head><title>Werner</title></head><body><article>" + strings.Repeat(para, 4) + "</article></body></html>")
	text, _, err := extractText(page, "text/html", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "signed with Bologna (link: Virtus Pallacanestro Bologna) of the Lega Basket Serie A, and later played in Hungary for") {
		t.Errorf("the page read as %q", text)
	}
}
