package jobs

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestEncodeOnce(t *testing.T) {
	t.Parallel()
	cfg := ValidationConfig{DefaultMethod: "cove-joint"}
	built, err := EncodeMessage(Message{Text: "The Eiffel Tower is in Paris."}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	read, err := DecodeEncoded([]byte(`{"v":1,  "text":"The Eiffel Tower is in Paris."}`), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Built from fields or read from a line, the same job is the same bytes, defaults included.
	want := `{"v":1,"text":"The Eiffel Tower is in Paris.","method":"cove-joint","language":"en"}`
	for name, e := range map[string]Encoded{"EncodeMessage": built, "DecodeEncoded": read} {
		if !bytes.Equal(e.Data, []byte(want)) {
			t.Errorf("%s: data %s, want %s", name, e.Data, want)
		}
		if e.Message.Method != "cove-joint" || e.Message.Language != "en" || e.Message.V != Version {
			t.Errorf("%s: message %+v has not its defaults", name, e.Message)
		}
	}
	var verr *ValidationError
	if _, err := EncodeMessage(Message{Text: "word"}, cfg); !errors.As(err, &verr) {
		t.Errorf("a one-word statement: %v, want a *ValidationError", err)
	}
	if _, err := DecodeEncoded([]byte(`{"v":1}`), cfg); !errors.As(err, &verr) {
		t.Errorf("no text: %v, want a *ValidationError", err)
	}
}

// A text over the text limit is said to be that, even when it also makes the message too large
// (a 2 MB CSV cell).
func TestEncodeMessageNamesTheTextLimit(t *testing.T) {
	t.Parallel()
	_, err := EncodeMessage(Message{V: Version, Text: strings.Repeat("word ", 420_000)}, ValidationConfig{})
	if err == nil || !strings.Contains(err.Error(), "text: is 2100000 bytes, over the limit of 32768") || strings.Contains(err.Error(), "message: is") {
		t.Fatalf("EncodeMessage of a 2 MB text: %v; want the text limit named, not the message limit", err)
	}
}
