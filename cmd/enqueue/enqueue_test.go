package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// enqueueEnv points run at a stream of the test's own on the test NATS and PostgreSQL.
func enqueueEnv(t *testing.T) (args []string, js jetstream.JetStream, stream string) {
	t.Helper()
	id := fmt.Sprintf("%d", rand.Uint64())
	stream = "E" + id
	js, err := jetstream.New(testenv.NATS(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteStream(context.Background(), stream) })
	return []string{"--nats-url", testenv.NATSURL(t), "--stream", stream, "--subjects", "e" + id + ".>", "--subject", "e" + id + ".backlog", "--consumer", "c" + id}, js, stream
}

func TestInvalidInputPublishesNothing(t *testing.T) {
	t.Parallel()
	args, js, stream := enqueueEnv(t)
	path := writeFile(t, "mixed.jsonl", `{"v":1,"text":"A valid statement here."}`+"\n"+`{"v":1,"text":"invalid"}`+"\n")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(args, path), nil, &stdout, &stderr)
	if code != exitInvalid || !strings.Contains(stderr.String(), "mixed.jsonl:2") || !strings.Contains(stderr.String(), "nothing was published") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	if _, err := js.Stream(context.Background(), stream); err == nil {
		t.Fatal("invalid input must not even create the stream")
	}

	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), append(args, "--skip-invalid", path), nil, &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "1 queued, 0 duplicates, 1 invalid skipped") {
		t.Fatalf("--skip-invalid: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	s, err := js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Info(context.Background()); info.State.Msgs != 1 {
		t.Fatalf("stream holds %d messages, want 1", info.State.Msgs)
	}
}

func TestPublishReportsDuplicates(t *testing.T) {
	t.Parallel()
	args, _, _ := enqueueEnv(t)
	text := fmt.Sprintf("A statement of test %d to publish twice.", rand.Uint64())
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append(args, "--text", text, "--text", text), nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "queued    --text #1") || !strings.Contains(stdout.String(), "duplicate --text #2") || !strings.Contains(stdout.String(), "1 queued, 1 duplicates") {
		t.Fatalf("stdout:\n%s", stdout.String())
	}
}

// --wait follows the jobs in PostgreSQL: here a stand-in worker records their outcomes.
func TestWaitPrintsResultsAndFailsOnAFailedJob(t *testing.T) {
	t.Parallel()
	args, js, stream := enqueueEnv(t)
	dbURL := testenv.SchemaURL(t, "enqueue")
	st := store.New(testenv.Postgres(t, "enqueue"))
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	texts := []string{fmt.Sprintf("First statement %d to wait for.", rand.Uint64()), fmt.Sprintf("Second statement %d to wait for.", rand.Uint64())}

	// The stand-in worker: done for the first job, rejected for the second.
	go func() {
		ctx := context.Background()
		for {
			s, err := js.Stream(ctx, stream)
			if err == nil {
				if info, err := s.Info(ctx); err == nil && info.State.Msgs == 2 {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		s, _ := js.Stream(ctx, stream)
		for seq := uint64(1); seq <= 2; seq++ {
			raw, err := s.GetMsg(ctx, seq)
			if err != nil {
				t.Error(err)
				return
			}
			d := store.Delivery{JobID: raw.Header.Get("Nats-Msg-Id"), StreamSeq: seq, Subject: raw.Subject, Attempt: 1, Payload: raw.Data}
			if seq == 1 {
				_, err = st.SaveRun(ctx, store.RunRecord{Delivery: d, Statement: store.Statement{Text: texts[0], Language: "en"}, Method: pipeline.MethodFactored, Status: store.RunDone,
					Result: &pipeline.Result{Status: pipeline.StatusChecked, RevisedText: "The revised first statement."}})
			} else {
				err = st.RecordOutcome(ctx, store.MessageOutcome{Delivery: d, Status: jobs.OutcomeRejected, Reason: "a reason to reject"})
			}
			if err != nil {
				t.Error(err)
			}
		}
	}()

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(args, "--wait", "--database-url", dbURL, "--wait-timeout", "30s", "--text", texts[0], "--text", texts[1]), nil, &stdout, &stderr)
	out := stdout.String()
	if code != exitJobsFail || !strings.Contains(out, "The revised first statement.") || !strings.Contains(out, "a reason to reject") || !strings.Contains(out, "1 done, 1 rejected, 0 failed, 0 dead") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "progress: 2 of 2 jobs have an outcome") {
		t.Fatalf("progress lines off a terminal:\n%s", stderr.String())
	}
}

// --urgent publishes on the urgent lane, which workers serve before the backlog.
func TestUrgentPublishesOnTheUrgentLane(t *testing.T) {
	t.Parallel()
	args, js, stream := enqueueEnv(t)
	var stdout, stderr bytes.Buffer
	text := fmt.Sprintf("An urgent statement %d to check tonight.", rand.Uint64())
	if code := run(context.Background(), append(args, "--urgent", "--text", text), nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	s, err := js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	urgent := strings.Replace(args[5], ".>", ".urgent", 1)
	msg, err := s.GetLastMsgForSubject(context.Background(), urgent)
	if err != nil {
		t.Fatalf("nothing on %s: %v", urgent, err)
	}
	if !strings.Contains(string(msg.Data), text) {
		t.Fatalf("the urgent message is %s", msg.Data)
	}
}

// --quiet prints the summary line and nothing per record.
func TestQuietPrintsOnlyTheSummary(t *testing.T) {
	t.Parallel()
	args, _, _ := enqueueEnv(t)
	var stdout, stderr bytes.Buffer
	args = append(args, "--quiet", "--text", fmt.Sprintf("The Eiffel Tower is in Paris %d.", rand.Uint64()), "--text", fmt.Sprintf("Water boils at 100 degrees %d.", rand.Uint64()))
	if code := run(context.Background(), args, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if got := stdout.String(); got != "2 queued, 0 duplicates, 0 invalid skipped\n" {
		t.Errorf("--quiet printed %q, want the summary line only", got)
	}
}

// --wait with no worker consuming says so and gives up with its own exit status, instead of
// waiting forever (it waited until --wait-timeout, or forever without one, before).
func TestWaitSaysWhenNoWorkerIsConsuming(t *testing.T) {
	t.Parallel()
	args, _, _ := enqueueEnv(t)
	dbURL := testenv.SchemaURL(t, "enqueue")
	var stdout, stderr bytes.Buffer
	text := fmt.Sprintf("A statement %d that no worker takes.", rand.Uint64())
	code := run(context.Background(), append(args, "--wait", "--database-url", dbURL, "--no-worker-timeout", "3s", "--text", text), nil, &stdout, &stderr)
	if code != exitWaitGaveUp || !strings.Contains(stderr.String(), "no worker is consuming:") || !strings.Contains(stderr.String(), "1 of 1 jobs have no outcome and stay queued") {
		t.Fatalf("exit %d (want %d)\nstdout %s\nstderr %s", code, exitWaitGaveUp, stdout.String(), stderr.String())
	}
}

// A worker that holds a pull request, or a job it has not finished, is consuming: --wait goes on
// until --wait-timeout, which is exit 4 too, said as a timeout.
func TestWaitGoesOnWhileAWorkerConsumes(t *testing.T) {
	t.Parallel()
	args, js, stream := enqueueEnv(t)
	dbURL := testenv.SchemaURL(t, "enqueue")
	sc := jobs.StreamConfig{Stream: stream, Subjects: []string{args[5]}, PublishSubject: args[7], Consumer: args[9]}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := jobs.Setup(ctx, js, sc); err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(ctx, stream, sc.Consumer)
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in worker: always a pull request waiting; the job it takes it keeps in progress.
	go func() {
		for ctx.Err() == nil {
			msg, err := cons.Next(jetstream.FetchMaxWait(time.Second))
			if err == nil {
				_ = msg.InProgress()
			}
		}
	}()
	var stdout, stderr bytes.Buffer
	text := fmt.Sprintf("A statement %d that a slow worker holds.", rand.Uint64())
	code := run(context.Background(), append(args, "--wait", "--database-url", dbURL, "--no-worker-timeout", "3s", "--wait-timeout", "10s", "--text", text), nil, &stdout, &stderr)
	if code != exitWaitGaveUp || !strings.Contains(stderr.String(), "stopped waiting after --wait-timeout 10s") || strings.Contains(stderr.String(), "no worker is consuming") {
		t.Fatalf("exit %d (want %d)\nstdout %s\nstderr %s", code, exitWaitGaveUp, stdout.String(), stderr.String())
	}
}

// A job the workers hold for a service that is down is not a silent wait: --wait says how many
// jobs are held and why, while it waits (it waited in silence for ever when the model breaker
// held every job of the quick start).
func TestWaitSaysWhenJobsAreHeld(t *testing.T) {
	t.Parallel()
	args, js, stream := enqueueEnv(t)
	dbURL := testenv.SchemaURL(t, "enqueue")
	st := store.New(testenv.Postgres(t, "enqueue"))
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	sc := jobs.StreamConfig{Stream: stream, Subjects: []string{args[5]}, PublishSubject: args[7], Consumer: args[9]}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := jobs.Setup(ctx, js, sc); err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(ctx, stream, sc.Consumer)
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in worker holds the job it takes, as the model breaker does: the attempt recorded
	// as held, the delivery kept in progress.
	why := "the model endpoint is unavailable, the job runs again when it answers: HTTP 503"
	go func() {
		for ctx.Err() == nil {
			msg, err := cons.Next(jetstream.FetchMaxWait(time.Second))
			if err != nil {
				continue
			}
			meta, _ := msg.Metadata()
			d := store.Delivery{JobID: msg.Headers().Get("Nats-Msg-Id"), StreamSeq: meta.Sequence.Stream, Subject: msg.Subject(), Attempt: 1, Payload: msg.Data()}
			if err := st.RecordOutcome(ctx, store.MessageOutcome{Delivery: d, Status: jobs.OutcomeInterrupted, Reason: store.HeldReason(1, why)}); err != nil && ctx.Err() == nil {
				t.Error(err)
			}
			for ctx.Err() == nil {
				_ = msg.InProgress()
				time.Sleep(200 * time.Millisecond)
			}
		}
	}()
	var stdout, stderr bytes.Buffer
	text := fmt.Sprintf("A statement %d that a worker holds.", rand.Uint64())
	code := run(context.Background(), append(args, "--wait", "--database-url", dbURL, "--wait-timeout", "5s", "--text", text), nil, &stdout, &stderr)
	if code != exitWaitGaveUp || !strings.Contains(stderr.String(), "enqueue: 1 of 1 jobs are held by the workers, waiting for a service, not failed: "+why+".") {
		t.Fatalf("exit %d (want %d)\nstdout %s\nstderr %s", code, exitWaitGaveUp, stdout.String(), stderr.String())
	}
}

// enqueue has no default NATS server, as the worker has none: the two cannot reach different
// servers by one of them defaulting.
func TestEnqueueRequiresNATSURL(t *testing.T) {
	t.Setenv("NATS_URL", "")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--text", "A statement that has nowhere to go."}, nil, &stdout, &stderr)
	if code != exitInvalid || !strings.Contains(stderr.String(), "no NATS: set NATS_URL") {
		t.Fatalf("exit %d\nstderr %s", code, stderr.String())
	}
}
