package jobs

import (
	"fmt"

	"github.com/corroborate/corroborate/internal/envflag"
)

// DefineFlags defines the flags of the stream and consumer settings on fs, filling c.
//
// enqueue and worker both define the stream's flags through it, so that they read the same
// variables and agree on the stream and consumer they set up.
func (c *StreamConfig) DefineFlags(fs *envflag.Set) {
	fs.String(&c.Stream, "stream", "CORROBORATE_STREAM", DefaultStream, "JetStream stream name")
	fs.Strings(&c.Subjects, "subjects", "CORROBORATE_SUBJECTS", []string{DefaultSubjects}, "comma-separated subjects of the stream: a job on any of them is run")
	fs.String(&c.PublishSubject, "subject", "CORROBORATE_PUBLISH_SUBJECT", DefaultPublishSubject, "subject enqueue publishes on: the backlog lane")
	fs.String(&c.UrgentSubject, "urgent-subject", "CORROBORATE_URGENT_SUBJECT", "", "the urgent lane, served before the backlog (default: --subject with its last token replaced by \"urgent\")")
	fs.Bool(&c.SingleLane, "single-lane", "CORROBORATE_SINGLE_LANE", false, "no lanes: one consumer over all --subjects, in stream order")
	fs.String(&c.Consumer, "consumer", "CORROBORATE_CONSUMER", DefaultConsumer, "durable consumer shared by all workers")
	fs.Duration(&c.AckWait, "ack-wait", "CORROBORATE_ACK_WAIT", DefaultAckWait, "redelivery deadline without an ack or heartbeat (heartbeats every ack-wait/3)")
	fs.Int(&c.MaxAckPending, "max-ack-pending", "CORROBORATE_MAX_ACK_PENDING", 0, fmt.Sprintf("jobs delivered and not yet settled across all workers, retries waiting out their delay included (0: %d for a worker; enqueue keeps the consumer's)", DefaultMaxAckPending))
	fs.Int(&c.MaxDeliver, "max-deliver", "CORROBORATE_MAX_DELIVER", DefaultMaxDeliver, "attempts per job before it is recorded dead")
	fs.Duration(&c.DuplicateWindow, "dedupe-window", "CORROBORATE_DEDUPE_WINDOW", DefaultDuplicateWindow, "how long JetStream drops a republished job with the same id")
	fs.Int(&c.MaxMessageBytes, "max-message-bytes", "CORROBORATE_MAX_MESSAGE_BYTES", DefaultMaxMessageBytes, "largest accepted job message, in bytes")
	fs.Duration(&c.MaxAge, "max-age", "CORROBORATE_MAX_AGE", DefaultMaxAge, "how long an unconsumed job stays in the stream")
	fs.Int(&c.Replicas, "replicas", "CORROBORATE_REPLICAS", DefaultReplicas, "stream replicas in a NATS cluster")
}
