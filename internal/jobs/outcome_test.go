package jobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that jobs' goroutines may write to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestConsumeSettlesByOutcome: a Handler's typed outcome decides the message's fate, the
// Observer counts that outcome, and the loop logs the job's end once, with the handler's
// attributes and its error under the key "error".
func TestConsumeSettlesByOutcome(t *testing.T) {
	t.Parallel()
	for _, outcome := range []Outcome{OutcomeFailed, OutcomeDead, OutcomeRejected, OutcomeDuplicate} {
		t.Run(string(outcome), func(t *testing.T) {
			t.Parallel()
			b := setup(t, func(c *StreamConfig) { c.AckWait = time.Second })
			b.publishN(t, 1)
			var logs lockedBuffer
			var calls atomic.Int32
			obs := &recorder{}
			stop, _ := b.consume(t, ConsumeConfig{Observer: obs, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
				handlerOf(func(ctx context.Context, d *Delivery) Result {
					calls.Add(1)
					return Result{Outcome: outcome, Err: errors.New("the model said no"), Attrs: []slog.Attr{slog.Int64("run_id", 42)}}
				}))
			eventually(t, 5*time.Second, "the message leaves the stream", func() bool { return b.streamMsgs(t) == 0 })
			// Well past the ack wait: a message that was not really terminated would be back.
			time.Sleep(1500 * time.Millisecond)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("handler called %d times, want 1", n)
			}
			if obs.started != 1 || obs.count(outcome) != 1 {
				t.Errorf("observer saw %d started, outcomes %v; want one %s", obs.started, obs.outcomes, outcome)
			}
			var ends []string
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, `msg="job finished"`) {
					ends = append(ends, line)
				}
			}
			if len(ends) != 1 || !strings.Contains(ends[0], "outcome="+string(outcome)) || !strings.Contains(ends[0], "run_id=42") ||
				!strings.Contains(ends[0], `error="the model said no"`) || !strings.Contains(ends[0], "job_id=") {
				t.Errorf("end-of-job lines %q: want one with the outcome, the handler's attributes and the error", ends)
			}
		})
	}
}

// handlerOf adapts a function returning a Result to Handler.
type handlerOf func(ctx context.Context, d *Delivery) Result

func (f handlerOf) Handle(ctx context.Context, d *Delivery) Result { return f(ctx, d) }

func TestOutcomeFinal(t *testing.T) {
	t.Parallel()
	for o, want := range map[Outcome]bool{
		OutcomeDone: true, OutcomeRejected: true, OutcomeFailed: true, OutcomeDead: true, OutcomeDuplicate: true,
		OutcomeRetry: false, OutcomeInterrupted: false, "": false,
	} {
		if o.Final() != want {
			t.Errorf("%q.Final() = %v, want %v", o, o.Final(), want)
		}
	}
}
