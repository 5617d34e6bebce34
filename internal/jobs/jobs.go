// Package jobs is Corroborate's room for NATS JetStream: the job message (its JSON Schema, its
// validation and its dedupe id), the stream and consumer setup shared by enqueue and worker, the
// publisher, and the consume loop that runs a Handler it is given with bounded concurrency,
// heartbeats, acks, naks with backoff, terms and dead letters.
//
// It knows nothing of the verification methods or of PostgreSQL: the worker's Handler does the
// job and records its outcome; this package decides only what happens to the message afterwards.
package jobs
