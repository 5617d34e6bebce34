package jobs

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"
)

// Defaults of StreamConfig, applied by WithDefaults.
const (
	DefaultStream         = "CORROBORATE"
	DefaultSubjects       = "corroborate.statements.>"
	DefaultPublishSubject = "corroborate.statements.backlog"
	// UrgentToken is the last token of the default urgent lane: the sibling of the publish
	// subject, corroborate.statements.urgent by default.
	UrgentToken            = "urgent"
	DefaultConsumer        = "corroborate-workers"
	DefaultDuplicateWindow = 24 * time.Hour
	DefaultMaxAge          = 14 * 24 * time.Hour
	DefaultReplicas        = 1
	DefaultAckWait         = 60 * time.Second
	DefaultMaxDeliver      = 5
	DefaultBackoffBase     = 5 * time.Second
	DefaultBackoffMax      = 5 * time.Minute
	// DefaultMaxAckPending is the server's own default: room for a fleet of workers and the
	// retries waiting out their delay (see maxAckPending).
	DefaultMaxAckPending = 1000
)

// StreamConfig says where jobs live: the work-queue stream and the durable consumers that every
// worker replica shares (one per lane, see SetupLanes). enqueue and worker both run Setup with it
// at start, so they must be given the same values (the worker's flags and their environment
// twins); the last Setup wins.
type StreamConfig struct {
	// Stream is the stream's name (default "CORROBORATE").
	Stream string
	// Subjects are the stream's subjects (default ["corroborate.statements.>"]): a job published
	// on any subject they match is run. With SingleLane they are also the one consumer's filter.
	Subjects []string
	// PublishSubject is where enqueue publishes (default "corroborate.statements.backlog"), and
	// the backlog lane; it must be a literal subject matched by one of Subjects.
	PublishSubject string
	// UrgentSubject is the urgent lane: its jobs are taken before any other whenever both have
	// work, and enqueue --urgent publishes there. Default: PublishSubject with its last token
	// replaced by "urgent" (corroborate.statements.urgent). It must be a literal subject matched
	// by one of Subjects.
	UrgentSubject string
	// SingleLane turns the lanes off: one consumer over all of Subjects, served in stream order
	// (the layout before lanes). The urgent subject is then only a subject like any other.
	SingleLane bool
	// Consumer is the durable name of the shared pull consumer of the backlog lane (default
	// "corroborate-workers"); the urgent lane's is Consumer + "-urgent" (see SetupLanes).
	Consumer string
	// DuplicateWindow is how long the stream remembers a Nats-Msg-Id to drop a republished job
	// (default 24h: a whole nightly batch can be re-enqueued safely).
	DuplicateWindow time.Duration
	// MaxMessageBytes bounds one message on the server (default 1 MiB), the same bound Decode
	// applies.
	MaxMessageBytes int
	// MaxAge drops jobs nobody consumed for this long (default 14 days).
	MaxAge time.Duration
	// Replicas of the stream in a NATS cluster (default 1).
	Replicas int
	// AckWait is how long the server waits for an ack or a heartbeat before redelivering
	// (default 60s). The consume loop heartbeats every AckWait/3.
	AckWait time.Duration
	// MaxDeliver is how many times a job is attempted (default 5): attempts that failed on the
	// job's own account, counted by the handler. See SetupLanes for dead letters.
	MaxDeliver int
	// Concurrency is how many jobs one worker runs at once; set by a worker, zero for callers
	// that run no jobs (enqueue), which leave MaxAckPending as it is.
	Concurrency int
	// MaxAckPending bounds the messages delivered and not yet settled across all workers, jobs
	// waiting out a retry delay included (a nakked message stays pending until redelivered).
	// Zero: DefaultMaxAckPending for a worker (see maxAckPending). Size it for the fleet's
	// concurrency plus the retries that may wait at once.
	MaxAckPending int
	// BackoffBase and BackoffMax bound the nak delays of retries: base*2^(attempt-1), capped at
	// max (defaults 5s and 5m).
	BackoffBase time.Duration
	BackoffMax  time.Duration
}

// WithDefaults returns c with every unset field at its default. It is the one place defaults are
// applied; Concurrency and MaxAckPending stay zero when unset (see Setup).
func (c StreamConfig) WithDefaults() StreamConfig {
	c.Stream = cmp.Or(c.Stream, DefaultStream)
	if len(c.Subjects) == 0 {
		c.Subjects = []string{DefaultSubjects}
	}
	c.PublishSubject = cmp.Or(c.PublishSubject, DefaultPublishSubject)
	c.UrgentSubject = cmp.Or(c.UrgentSubject, siblingSubject(c.PublishSubject, UrgentToken))
	c.Consumer = cmp.Or(c.Consumer, DefaultConsumer)
	c.DuplicateWindow = cmp.Or(c.DuplicateWindow, DefaultDuplicateWindow)
	c.MaxMessageBytes = cmp.Or(c.MaxMessageBytes, DefaultMaxMessageBytes)
	c.MaxAge = cmp.Or(c.MaxAge, DefaultMaxAge)
	c.Replicas = cmp.Or(c.Replicas, DefaultReplicas)
	c.AckWait = cmp.Or(c.AckWait, DefaultAckWait)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, DefaultMaxDeliver)
	c.BackoffBase = cmp.Or(c.BackoffBase, DefaultBackoffBase)
	c.BackoffMax = cmp.Or(c.BackoffMax, DefaultBackoffMax)
	return c
}

// Validate reports every problem of a defaulted config in one error.
func (c StreamConfig) Validate() error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if strings.ContainsAny(c.Stream, " .*>\t\r\n/\\") {
		bad("stream name %q must not contain spaces, '.', '*', '>' or slashes", c.Stream)
	}
	if strings.ContainsAny(c.Consumer, " .*>\t\r\n/\\") {
		bad("consumer name %q must not contain spaces, '.', '*', '>' or slashes", c.Consumer)
	}
	if !matchesAny(c.Subjects, c.PublishSubject) {
		bad("publish subject %q is not matched by the stream's subjects %v", c.PublishSubject, c.Subjects)
	}
	if !literalSubject(c.PublishSubject) {
		bad("publish subject %q must be a literal subject (no empty tokens, '*' or '>')", c.PublishSubject)
	}
	switch {
	case c.SingleLane:
		// No urgent lane: the urgent subject matters only to enqueue --urgent.
	case !literalSubject(c.UrgentSubject):
		bad("urgent subject %q must be a literal subject (no empty tokens, '*' or '>')", c.UrgentSubject)
	case !matchesAny(c.Subjects, c.UrgentSubject):
		bad("urgent subject %q is not matched by the stream's subjects %v (set --urgent-subject)", c.UrgentSubject, c.Subjects)
	case c.UrgentSubject == c.PublishSubject:
		bad("urgent subject %q must differ from the publish subject, the backlog lane", c.UrgentSubject)
	}
	if c.MaxMessageBytes < 1 || c.MaxMessageBytes > math.MaxInt32 {
		bad("max message bytes %d must be between 1 and %d", c.MaxMessageBytes, math.MaxInt32)
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		bad("replicas %d must be between 1 and 5", c.Replicas)
	}
	if c.AckWait < time.Second {
		bad("ack wait %s must be at least 1s (heartbeats go every ack wait / 3)", c.AckWait)
	}
	if c.MaxDeliver < 1 {
		bad("max deliver %d must be at least 1", c.MaxDeliver)
	}
	if c.Concurrency < 0 || c.MaxAckPending < 0 {
		bad("concurrency %d and max ack pending %d must not be negative", c.Concurrency, c.MaxAckPending)
	}
	if c.BackoffBase <= 0 || c.BackoffMax < c.BackoffBase {
		bad("backoff %s..%s must be positive and growing", c.BackoffBase, c.BackoffMax)
	}
	if c.DuplicateWindow <= 0 || c.MaxAge < c.DuplicateWindow {
		bad("duplicate window %s must be positive and not longer than max age %s", c.DuplicateWindow, c.MaxAge)
	}
	if len(problems) > 0 {
		return fmt.Errorf("jobs stream configuration: %s", strings.Join(problems, "; "))
	}
	return nil
}

// ConsumeConfig returns the consume loop's settings that must agree with the consumer's.
func (c StreamConfig) ConsumeConfig() ConsumeConfig {
	c = c.WithDefaults()
	return ConsumeConfig{
		Concurrency: c.Concurrency,
		AckWait:     c.AckWait,
		MaxDeliver:  c.MaxDeliver,
		BackoffBase: c.BackoffBase,
		BackoffMax:  c.BackoffMax,
	}
}

// matchesAny reports whether subject is matched by one of the NATS subject filters.
func matchesAny(filters []string, subject string) bool {
	for _, f := range filters {
		if subjectMatches(f, subject) {
			return true
		}
	}
	return false
}

func subjectMatches(filter, subject string) bool {
	ft := strings.Split(filter, ".")
	st := strings.Split(subject, ".")
	for i, t := range ft {
		switch {
		case t == ">":
			return len(st) > i
		case i >= len(st):
			return false
		case t != "*" && t != st[i]:
			return false
		}
	}
	return len(ft) == len(st)
}

// literalSubject reports whether s is a subject one can publish on: tokens, none empty, none a
// wildcard.
func literalSubject(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	for _, t := range strings.Split(s, ".") {
		if t == "" || t == "*" || t == ">" {
			return false
		}
	}
	return true
}

// siblingSubject is subject with its last token replaced by token: the urgent lane beside the
// backlog one.
func siblingSubject(subject, token string) string {
	i := strings.LastIndexByte(subject, '.')
	if i < 0 {
		return token
	}
	return subject[:i+1] + token
}
