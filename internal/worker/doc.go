// Package worker is the job executor: it takes one delivery of a job message from the consume
// loop (internal/jobs) and turns it into one recorded outcome. It decodes and validates the
// message, skips a job whose run is already stored (a duplicate), takes the job's lease so that
// copies delivered together run it once, chooses the method (the joint-agreement switch), runs
// it with the job's searcher and rate-limit identity, classifies the outcome once and records it
// through a narrow Store of its own, and returns it to the loop, which settles the message, logs
// the job's end and counts it.
//
// It knows jobs, pipeline and the record types of store; it opens no connection and reads no
// flag: cmd/worker wires it.
package worker
