package jobs

import (
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func connect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.Name(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func TestPublishDedupe(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ctx := testContext(t)
	m, err := Decode([]byte(`{"text":"The Moon orbits the Earth.","id":"row-1"}`), ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}

	first, err := Publish(ctx, b.js, b.subject, m, "")
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate || first.Sequence == 0 || first.JobID != DedupeID(m) {
		t.Errorf("first publish = %+v, want a new job with id %s", first, DedupeID(m))
	}
	// The same content under another producer reference is the same job.
	m.ID = "row-2"
	second, err := Publish(ctx, b.js, b.subject, m, "")
	if err != nil {
		t.Fatal(err)
	}
	if !second.Duplicate || second.Sequence != first.Sequence || second.JobID != first.JobID {
		t.Errorf("second publish = %+v, want a duplicate of %+v", second, first)
	}

	// An explicit id is used as given, and deduplicates on its own.
	own, err := Publish(ctx, b.js, b.subject, m, "producer-42")
	if err != nil || own.Duplicate || own.JobID != "producer-42" {
		t.Errorf("publish with own id = %+v, %v", own, err)
	}
	again, err := Publish(ctx, b.js, b.subject, m, "producer-42")
	if err != nil || !again.Duplicate {
		t.Errorf("republish with own id = %+v, %v; want a duplicate", again, err)
	}
	if n := b.streamMsgs(t); n != 2 {
		t.Errorf("stream holds %d messages, want 2", n)
	}

	// What went onto the stream decodes back to the message, with its Nats-Msg-Id.
	raw, err := b.stream.GetMsg(ctx, first.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	if got := raw.Header.Get(jetstream.MsgIDHeader); got != first.JobID {
		t.Errorf("Nats-Msg-Id = %q, want %q", got, first.JobID)
	}
	back, err := Decode(raw.Data, ValidationConfig{})
	if err != nil || back.Text != m.Text || back.ID != "row-1" || back.V != 1 {
		t.Errorf("published data decodes to %+v, %v", back, err)
	}
}

func TestPublishErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *StreamConfig) { c.MaxMessageBytes = 1024 })
	ctx := testContext(t)

	// Over the stream's MaxMsgSize: the server refuses it, and it is an error.
	_, err := PublishRaw(ctx, b.js, b.subject, []byte(strings.Repeat("x", 2048)), "big")
	if err == nil || !strings.Contains(err.Error(), b.subject) {
		t.Errorf("oversize publish: %v; want an error naming the subject", err)
	}
	// No stream listens: nobody acknowledges, and it is an error.
	nowhere := "nobody" + randomID(t) + ".statements.backlog"
	_, err = Publish(ctx, b.js, nowhere, Message{Text: "two words"}, "")
	if err == nil || !strings.Contains(err.Error(), nowhere) {
		t.Errorf("publish without a stream: %v; want an error naming the subject", err)
	}
	if n := b.streamMsgs(t); n != 0 {
		t.Errorf("stream holds %d messages after failed publishes", n)
	}
}
