package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Encoded is a job message ready to publish: Message passed Decode and carries its defaults,
// and Data is its one encoding, the bytes that are published and that the worker decodes.
// A producer that validates before it publishes (enqueue) encodes each message once this way,
// instead of encoding it to validate it and again to publish it.
type Encoded struct {
	Message Message
	Data    []byte
}

// EncodeMessage gives m its defaults, encodes it and checks the encoding with Decode, the check
// the worker applies: what it returns is what the worker will read.
func EncodeMessage(m Message, cfg ValidationConfig) (Encoded, error) {
	cfg = cfg.WithDefaults()
	// The fields are checked before the encoding, so that a text over its own limit is said to
	// be that (a 2 MB CSV cell is a text too long, not a message too long).
	verr := &ValidationError{}
	checkMessage(m, cfg, verr)
	if len(verr.Problems) > 0 {
		return Encoded{}, verr
	}
	// The defaults go in before the encoding, so that the bytes checked are the bytes sent.
	data, err := json.Marshal(m.withDefaults(cfg))
	if err != nil {
		return Encoded{}, fmt.Errorf("encoding the job: %w", err)
	}
	decoded, err := Decode(data, cfg)
	if err != nil {
		return Encoded{}, err
	}
	return Encoded{Message: decoded, Data: data}, nil
}

// DecodeEncoded checks data (a message as a producer wrote it, such as a JSONL line) with
// Decode and encodes the result once, with its defaults: a message that names no method is
// sent with cfg.DefaultMethod, so that the worker does not apply a default of its own.
func DecodeEncoded(data []byte, cfg ValidationConfig) (Encoded, error) {
	m, err := Decode(data, cfg)
	if err != nil {
		return Encoded{}, err
	}
	out, err := json.Marshal(m)
	if err != nil {
		return Encoded{}, fmt.Errorf("encoding the job: %w", err)
	}
	return Encoded{Message: m, Data: out}, nil
}

// PublishEncoded publishes e.Data as it is, with Nats-Msg-Id msgID, or DedupeID(e.Message) when
// msgID is empty. It returns only after the stream acknowledged the message.
func PublishEncoded(ctx context.Context, js jetstream.JetStream, subject string, e Encoded, msgID string) (PubResult, error) {
	if msgID == "" {
		msgID = DedupeID(e.Message)
	}
	return publish(ctx, js, &nats.Msg{Subject: subject, Data: e.Data}, msgID)
}
