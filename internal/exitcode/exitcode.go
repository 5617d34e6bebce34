// Package exitcode is the one meaning of an exit status across Corroborate's commands (worker,
// enqueue, report, corpus, evaluate, bench), so that a script or a scheduler reading $? learns the
// same thing from each: 0 done, 1 a service or a write failed (running again may succeed once it
// is back), 2 the command was wrong as given and nothing was done (usage, configuration, input,
// an empty input file included: running it again unchanged fails again), and codes from 3 up for
// what one command alone reports.
//
// A command returns these constants from its run function and lists the ones it uses in its
// --help with envflag.Set.ExitStatuses (or Help, for a usage text of its own), each meaning said
// once here and refined per command only where the command knows more.
package exitcode

import (
	"fmt"
	"strings"
)

// The exit statuses. A command that needs a status of its own adds it here, numbered after the
// last one, with its meaning in meanings, so that no two commands give one number two meanings.
const (
	// OK: done as asked.
	OK = 0
	// Failed: a service (PostgreSQL, NATS, the model endpoint) or a write failed; the input was
	// fine, and running again once the service is back may succeed.
	Failed = 1
	// Usage: bad usage, configuration or input, an empty input file included; nothing was done.
	// Running again unchanged fails again: fix what the message says.
	Usage = 2
	// JobsNotDone: enqueue --wait followed every job to its outcome, and some outcome is not done.
	JobsNotDone = 3
	// WaitGaveUp: enqueue --wait stopped before every job had an outcome (--wait-timeout passed,
	// or no worker consumed for --no-worker-timeout); the jobs stay queued.
	WaitGaveUp = 4
)

// meanings are the statuses' meanings, said once for every command's --help.
var meanings = map[int]string{
	OK:          "done",
	Failed:      "a service (PostgreSQL, NATS, the model endpoint) or a write failed; running again may succeed once it is back",
	Usage:       "bad usage, configuration or input (an empty input file included): nothing was done; fix it before running again",
	JobsNotDone: "--wait: some job ended failed, dead or rejected",
	WaitGaveUp:  "--wait gave up before every job had an outcome (--wait-timeout, or no worker consuming for --no-worker-timeout); the jobs stay queued",
}

// Status is an exit status as one command's --help explains it.
type Status struct {
	Code int
	// Meaning is the status's meaning in every command.
	Meaning string
	// Detail, when set, is what the status covers in this command ("NATS or PostgreSQL
	// unreachable, a publish not acknowledged").
	Detail string
}

// Of returns the status code with its common meaning and this command's detail ("" for none).
// A code package exitcode does not define panics: define it here first.
func Of(code int, detail string) Status {
	meaning, ok := meanings[code]
	if !ok {
		panic(fmt.Sprintf("exitcode: status %d has no meaning: define it in package exitcode", code))
	}
	return Status{Code: code, Meaning: meaning, Detail: detail}
}

// Common returns OK, Failed and Usage with their common meanings: the statuses of a command
// that has no status of its own.
func Common() []Status {
	return []Status{Of(OK, ""), Of(Failed, ""), Of(Usage, "")}
}

// Help formats statuses for a --help text: a heading line, then a line per status and, under
// it, the command's detail.
func Help(statuses []Status) string {
	var b strings.Builder
	b.WriteString("Exit status:\n")
	for _, s := range statuses {
		fmt.Fprintf(&b, "  %d  %s\n", s.Code, s.Meaning)
		if s.Detail != "" {
			fmt.Fprintf(&b, "     here: %s\n", s.Detail)
		}
	}
	return b.String()
}
