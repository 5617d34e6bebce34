package jobs

import (
	"strings"
	"testing"
	"time"
)

// source_url, source_author and published_at are optional: a v1 message without them stays
// valid, one with them keeps them, and a bad one is refused naming the field.
func TestSourceFieldsAreOptionalAndChecked(t *testing.T) {
	t.Parallel()
	m, err := Decode([]byte(`{"v":1,"text":"The tower is 330 metres tall."}`), ValidationConfig{})
	if err != nil || m.SourceURL != "" || m.PublishedTime() != nil {
		t.Fatalf("a v1 message without sources: %+v, %v", m, err)
	}
	m, err = Decode([]byte(`{"v":1,"text":"The tower is 330 metres tall.","source_url":"https://news.example/a","source_author":"A. Speaker","published_at":"2026-11-30T09:00:00Z"}`), ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC); m.SourceURL != "https://news.example/a" || m.SourceAuthor != "A. Speaker" || !m.PublishedTime().Equal(want) {
		t.Errorf("decoded %+v (published %v)", m, m.PublishedTime())
	}
	if m, err := Decode([]byte(`{"text":"The tower is tall.","published_at":"2026-11-30"}`), ValidationConfig{}); err != nil || m.PublishedTime() == nil {
		t.Errorf("a date alone: %v", err)
	}
	for _, bad := range []struct{ json, field string }{
		{`{"text":"The tower is tall.","source_url":"javascript:alert(1)"}`, "source_url"},
		{`{"text":"The tower is tall.","source_url":"https://"}`, "source_url"},
		{`{"text":"The tower is tall.","source_author":""}`, "source_author"},
		{`{"text":"The tower is tall.","published_at":"yesterday"}`, "published_at"},
		{`{"text":"The tower is tall.","published_at":"2026-13-40"}`, "published_at"},
	} {
		_, err := Decode([]byte(bad.json), ValidationConfig{})
		if err == nil || !strings.Contains(err.Error(), bad.field) {
			t.Errorf("%s: %v, want a problem naming %s", bad.json, err, bad.field)
		}
	}
}
