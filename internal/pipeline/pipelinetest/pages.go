package pipelinetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"github.com/corroborate/corroborate/internal/pipeline"
)

// PageEpoch is the fetch time of every page StubPages reads.
var PageEpoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// StubPages is the stub PageReader of the open-book tests: the main text of each known URL, read
// at PageEpoch with status 200; a URL it does not know is refused as an internal address would
// be. It records every URL it was asked for.
type StubPages struct {
	Texts map[string]string

	mu    sync.Mutex
	asked []string
}

// ReadPage returns url's page from Texts.
func (s *StubPages) ReadPage(_ context.Context, url string) pipeline.Page {
	s.mu.Lock()
	s.asked = append(s.asked, url)
	s.mu.Unlock()
	text, ok := s.Texts[url]
	if !ok {
		return pipeline.Page{URL: url, FetchedAt: PageEpoch, Failure: pipeline.PageAddressRefused, Error: url + " is not a public address"}
	}
	return pipeline.Page{URL: url, FinalURL: url, Status: 200, ContentType: "text/html", FetchedAt: PageEpoch,
		Text: text, TextSHA256: SHA256Hex(text)}
}

// Asked returns the URLs read so far, in the order asked.
func (s *StubPages) Asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// SHA256Hex is the hex SHA-256 of s, as Page.TextSHA256 holds it.
func SHA256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
