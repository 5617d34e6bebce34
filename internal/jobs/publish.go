package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PubResult is what JetStream acknowledged for one published job.
type PubResult struct {
	// Sequence is the job's stream sequence (for a duplicate, that of the first copy).
	Sequence uint64
	// Duplicate is true when the stream already had a message with this job id inside its
	// duplicate window: nothing new was queued.
	Duplicate bool
	// JobID is the Nats-Msg-Id the message was published with.
	JobID string
}

// Publish encodes m and publishes it on subject with Nats-Msg-Id msgID, or DedupeID(m) when
// msgID is empty, so that publishing the same job twice queues it once. It returns only after
// the stream acknowledged the message; a publish the server did not acknowledge is an error.
// m should have passed Decode (enqueue validates every record before publishing any).
func Publish(ctx context.Context, js jetstream.JetStream, subject string, m Message, msgID string) (PubResult, error) {
	if m.V == 0 {
		m.V = Version
	}
	data, err := json.Marshal(m)
	if err != nil {
		return PubResult{}, fmt.Errorf("encoding job for %s: %w", subject, err)
	}
	if msgID == "" {
		msgID = DedupeID(m)
	}
	return publish(ctx, js, &nats.Msg{Subject: subject, Data: data}, msgID)
}

// PublishRaw publishes data as it is, with Nats-Msg-Id msgID when that is not empty: for tests
// and tools that must put arbitrary bytes (invalid JSON, oversize messages) on the subject, the
// way another system might.
func PublishRaw(ctx context.Context, js jetstream.JetStream, subject string, data []byte, msgID string) (PubResult, error) {
	return publish(ctx, js, &nats.Msg{Subject: subject, Data: data}, msgID)
}

func publish(ctx context.Context, js jetstream.JetStream, msg *nats.Msg, msgID string) (PubResult, error) {
	var opts []jetstream.PublishOpt
	if msgID != "" {
		opts = append(opts, jetstream.WithMsgID(msgID))
	}
	ack, err := js.PublishMsg(ctx, msg, opts...)
	if err != nil {
		return PubResult{}, fmt.Errorf("publishing job %s to %s: %w", msgID, msg.Subject, err)
	}
	if ack == nil || ack.Stream == "" {
		return PubResult{}, fmt.Errorf("publishing job %s to %s: %w", msgID, msg.Subject, jetstream.ErrInvalidJSAck)
	}
	return PubResult{Sequence: ack.Sequence, Duplicate: ack.Duplicate, JobID: msgID}, nil
}
