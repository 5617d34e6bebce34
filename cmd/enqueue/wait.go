package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline/text"
	"github.com/corroborate/corroborate/internal/progress"
	"github.com/corroborate/corroborate/internal/store"
)

// publishedJob is a record that JetStream acknowledged, to follow with --wait.
type publishedJob struct {
	Source string
	JobID  string
}

// waitPoll is how often --wait reads the outcomes.
const waitPoll = 500 * time.Millisecond

// gaveUpError is --wait stopping before every job had an outcome (exitWaitGaveUp): the jobs
// stay queued for the workers.
type gaveUpError struct{ msg string }

func (e *gaveUpError) Error() string { return e.msg }

// wait follows the jobs in PostgreSQL until every one has a final outcome, shows progress (a
// bar on a terminal, plain lines otherwise), and prints a result table. It reports whether every
// job ended done. It gives up (a gaveUpError) after --wait-timeout, or when no worker has
// consumed for --no-worker-timeout (see workerWatch).
func wait(ctx context.Context, cfg Config, js jetstream.JetStream, published []publishedJob, stdout, stderr io.Writer) (bool, error) {
	st, err := openStore(ctx, cfg.DatabaseURL)
	if err != nil {
		return false, err
	}
	defer st.Close()
	if cfg.WaitTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.WaitTimeout)
		defer cancel()
	}
	watch := newWorkerWatch(js, cfg.Stream.WithDefaults())
	warned := false
	lastFinal := 0
	ids := make([]string, 0, len(published))
	for _, p := range published {
		ids = append(ids, p.JobID)
	}
	bar := progress.New("jobs have an outcome", len(ids), stderr)
	var results map[string]store.JobResult
	holds := holdNotice{w: stderr, jobs: len(ids)}
	final := 0
	for {
		results, err = st.JobResults(ctx, ids)
		switch {
		case err != nil && cfg.WaitTimeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return false, &gaveUpError{fmt.Sprintf("stopped waiting after --wait-timeout %s with jobs still running; their outcomes will be in job_outcomes", cfg.WaitTimeout)}
		case err != nil && ctx.Err() != nil:
			return false, fmt.Errorf("stopped waiting (%v) with jobs still running; their outcomes will be in job_outcomes", ctx.Err())
		case err != nil && store.OutageReason(err) == "":
			return false, err
		case err != nil:
			// The workers hold their jobs while the database is down; so does --wait.
			holds.say(time.Now(), len(ids)-final, fmt.Sprintf("PostgreSQL cannot be read (%s: %v); the workers hold their jobs until it is back", store.OutageReason(err), err))
		default:
			final = 0
			for _, r := range results {
				if r.Final() {
					final++
				}
			}
			holds.look(time.Now(), results)
		}
		bar.Set(final)
		if final == len(ids) {
			break
		}
		if final > lastFinal {
			watch.seen(time.Now())
			lastFinal = final
		}
		if cfg.NoWorkerTimeout > 0 {
			idle, err := watch.idleFor(ctx, time.Now())
			switch {
			case err != nil && ctx.Err() == nil:
				fmt.Fprintf(stderr, "enqueue: cannot tell whether a worker is consuming: %v\n", err)
			case idle >= cfg.NoWorkerTimeout:
				bar.Done()
				return false, &gaveUpError{fmt.Sprintf("no worker is consuming: for %s no worker asked consumer %q of stream %q for a job or held one (no pull request waiting, nothing awaiting an ack, no delivery); %d of %d jobs have no outcome and stay queued. Start a worker (worker, with the same NATS_URL and CORROBORATE_* stream settings), then follow them again with the same enqueue --wait (they come back as duplicates) or in job_outcomes",
					idle.Round(time.Second), watch.sc.Consumer, watch.sc.Stream, len(ids)-final, len(ids))}
			case watch.absent && !warned:
				warned = true
				fmt.Fprintf(stderr, "enqueue: no worker is consuming %q right now; waiting up to %s for one (--no-worker-timeout)\n", watch.sc.Consumer, cfg.NoWorkerTimeout)
			}
		}
		select {
		case <-ctx.Done():
			bar.Done()
			if cfg.WaitTimeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return false, &gaveUpError{fmt.Sprintf("stopped waiting after --wait-timeout %s with %d of %d jobs without an outcome; they go on in the workers", cfg.WaitTimeout, len(ids)-final, len(ids))}
			}
			return false, fmt.Errorf("stopped waiting (%v) with %d of %d jobs without an outcome; they go on in the workers", ctx.Err(), len(ids)-final, len(ids))
		case <-time.After(waitPoll):
		}
	}
	bar.Done()
	return printResults(stdout, published, results), nil
}

// holdNotice tells the user of --wait, on stderr, when jobs make no progress because the workers
// hold them for a service that is down (store.JobResult.Held), or the database cannot be read:
// once when it starts or its reason changes, then every heldRepeat while it lasts, and once when
// it ends, so that a wait never goes on in silence for a reason the user could act on.
type holdNotice struct {
	w    io.Writer
	jobs int
	// why is the reason last said, empty when nothing is held; said is when.
	why  string
	said time.Time
}

// heldRepeat is how often a hold that goes on is said again.
const heldRepeat = 30 * time.Second

// look reads the holds off the jobs' latest outcomes.
func (h *holdNotice) look(now time.Time, results map[string]store.JobResult) {
	held, why := 0, ""
	for _, r := range results {
		if reason, ok := r.Held(); ok {
			held++
			if why == "" || reason < why {
				why = reason // the same reason whichever job the map gives first
			}
		}
	}
	h.say(now, held, why)
}

// say tells of held jobs held, for why (none: the hold, if any, is over).
func (h *holdNotice) say(now time.Time, held int, why string) {
	switch {
	case held == 0 && h.why != "":
		fmt.Fprintln(h.w, "enqueue: no job is held any more; the workers run them again")
		h.why = ""
	case held == 0:
	case why != h.why || now.Sub(h.said) >= heldRepeat:
		fmt.Fprintf(h.w, "enqueue: %d of %d jobs are held by the workers, waiting for a service, not failed: %s. They run again when it is back and spend no attempt on it; still waiting (--wait-timeout to bound it; the jobs stay queued when you stop)\n",
			held, h.jobs, text.OneLineCut(why, 400))
		h.why, h.said = why, now
	}
}

// printResults prints one row per job and reports whether all ended done.
func printResults(w io.Writer, published []publishedJob, results map[string]store.JobResult) bool {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tOUTCOME\tMETHOD\tCHECKS\tRESULT")
	allDone := true
	counts := map[jobs.Outcome]int{}
	for _, p := range published {
		r := results[p.JobID]
		counts[r.Status]++
		if r.Status != jobs.OutcomeDone {
			allDone = false
		}
		result := deref(r.RevisedText)
		if r.Status != jobs.OutcomeDone {
			result = deref(r.Reason)
		}
		checks := ""
		if r.Checked != nil {
			checks = fmt.Sprint(*r.Checked)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Source, r.Status, deref(r.Method), checks, text.OneLineCut(result, 100))
	}
	tw.Flush()
	fmt.Fprintf(w, "%d done, %d rejected, %d failed, %d dead\n", counts[jobs.OutcomeDone], counts[jobs.OutcomeRejected], counts[jobs.OutcomeFailed], counts[jobs.OutcomeDead])
	return allDone
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// workerWatch tells whether any worker is consuming the stream, from what the server knows of
// the lanes' durable consumers (the backlog lane and the urgent one). A worker that is there
// shows in one of three ways, on nats-server 2.9 as on later ones: an idle worker keeps a pull
// request waiting on a lane (ConsumerInfo.NumWaiting; a request of a worker that is gone expires
// within its fetch wait); a busy one holds jobs unacknowledged (NumAckPending, kept by its
// heartbeats, a breaker's hold included); and any delivery moves Delivered.Last (last_active).
// When none of these has shown for a while, and no job got an outcome, nobody is consuming.
type workerWatch struct {
	js       jetstream.JetStream
	sc       jobs.StreamConfig
	lastSeen time.Time
	checked  time.Time
	// absent is whether the last look at the server found no sign of a worker.
	absent bool
}

// workerCheckEvery spaces the consumer info requests (waitPoll is for PostgreSQL reads).
const workerCheckEvery = 2 * time.Second

func newWorkerWatch(js jetstream.JetStream, sc jobs.StreamConfig) *workerWatch {
	return &workerWatch{js: js, sc: sc, lastSeen: time.Now()}
}

// seen records evidence of a worker at t (a job got its outcome).
func (w *workerWatch) seen(t time.Time) {
	if t.After(w.lastSeen) {
		w.lastSeen = t
	}
}

// idleFor asks the server about the lanes (at most every workerCheckEvery) and returns how long
// no worker has shown; 0 when one shows now.
func (w *workerWatch) idleFor(ctx context.Context, now time.Time) (time.Duration, error) {
	if now.Sub(w.checked) < workerCheckEvery {
		return now.Sub(w.lastSeen), nil
	}
	w.checked = now
	w.absent = true
	found := false
	for _, name := range []string{w.sc.Consumer, w.sc.Consumer + jobs.UrgentSuffix} {
		cons, err := w.js.Consumer(ctx, w.sc.Stream, name)
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			continue // SingleLane has no urgent lane
		}
		if err != nil {
			return 0, err
		}
		info, err := cons.Info(ctx)
		if err != nil {
			return 0, err
		}
		found = true
		if info.NumWaiting > 0 || info.NumAckPending > 0 {
			w.seen(now)
			w.absent = false
		}
		if last := info.Delivered.Last; last != nil {
			w.seen(*last)
		}
	}
	if !found {
		return 0, fmt.Errorf("stream %q has no consumer %q", w.sc.Stream, w.sc.Consumer)
	}
	return max(0, now.Sub(w.lastSeen)), nil
}
