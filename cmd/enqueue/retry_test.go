package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// seedOutcome records a message that ended with outcome, its payload kept as job_outcomes keeps
// the payload of every message that did not end done.
func seedOutcome(t *testing.T, st *store.Store, jobID, text string, outcome jobs.Outcome, retryOf string) {
	t.Helper()
	msg, err := jobs.EncodeMessage(jobs.Message{V: jobs.Version, Text: text, Method: pipeline.MethodFactored, RetryOf: retryOf}, jobs.ValidationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.RecordOutcome(context.Background(), store.MessageOutcome{
		Delivery: store.Delivery{JobID: jobID, StreamSeq: rand.Uint64N(1 << 40), Subject: "seed", Attempt: 5,
			Payload: msg.Data, ReceivedAt: time.Now(), RetryOf: retryOf},
		Status: outcome, Reason: "model: 401 Unauthorized: check OPENAI_API_KEY",
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRetryLinksToTheOriginalAndIsIdempotent(t *testing.T) {
	t.Parallel()
	natsArgs, js, stream := enqueueEnv(t)
	dbURL := testenv.SchemaURL(t, "enqueue")
	st := store.New(testenv.Postgres(t, "enqueue"))
	ctx := context.Background()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("retry-%d/", rand.Uint64())
	failed, dead, rejected := prefix+"failed", prefix+"dead", prefix+"rejected"
	seedOutcome(t, st, failed, "The Eiffel Tower was finished in 1889.", jobs.OutcomeFailed, "")
	seedOutcome(t, st, dead, "Water boils at 100 degrees at sea level.", jobs.OutcomeDead, "")
	seedOutcome(t, st, rejected, "The Moon orbits the Earth.", jobs.OutcomeRejected, "")
	idsFile := writeFile(t, "ids.txt", "# the jobs of this test\n"+failed+"\n"+dead+"\n"+rejected+"\n")
	retry := func(extra ...string) (int, string, string) {
		args := append([]string{"retry", "--database-url", dbURL, "--ids", idsFile}, natsArgs...)
		var stdout, stderr bytes.Buffer
		code := run(ctx, append(args, extra...), nil, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	code, out, errOut := retry("--dry-run")
	if code != exitOK || strings.Count(out, "would queue") != 2 || strings.Contains(out, rejected) {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := retry("--dry-run", "--status", "dead"); code != exitOK || strings.Count(out, "would queue") != 1 || !strings.Contains(out, dead) {
		t.Fatalf("--status dead: exit %d\n%s", code, out)
	}
	code, out, errOut = retry("--method", pipeline.MethodJoint)
	if code != exitOK || !strings.Contains(out, "2 queued, 0 duplicates, 0 skipped") {
		t.Fatalf("first retry: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = retry("--method", pipeline.MethodJoint)
	if code != exitOK || !strings.Contains(out, "0 queued, 2 duplicates, 0 skipped") {
		t.Fatalf("second retry the same day: exit %d\n%s\n%s", code, out, errOut)
	}

	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().Format(time.DateOnly)
	for seq, original := range map[uint64]string{1: failed, 2: dead} {
		raw, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		m, err := jobs.Decode(raw.Data, jobs.ValidationConfig{})
		if err != nil {
			t.Fatal(err)
		}
		jobID := raw.Header.Get("Nats-Msg-Id")
		if jobID != "retry:"+original+":"+today || m.RetryOf != original || m.Method != pipeline.MethodJoint {
			t.Fatalf("message %d: job %s, retry_of %q, method %s; want retry:%s:%s retrying %s with %s", seq, jobID, m.RetryOf, m.Method, original, today, original, pipeline.MethodJoint)
		}
		// A stand-in worker: the retry of the failed job ends done (the key was fixed), the retry
		// of the dead one fails again.
		outcome := jobs.OutcomeFailed
		if original == failed {
			outcome = jobs.OutcomeDone
		}
		err = st.RecordOutcome(ctx, store.MessageOutcome{Delivery: store.Delivery{JobID: jobID, StreamSeq: seq, Subject: raw.Subject,
			Attempt: 1, Payload: raw.Data, ReceivedAt: time.Now(), RetryOf: m.RetryOf}, Status: outcome})
		if err != nil {
			t.Fatal(err)
		}
	}
	var linked string
	if err := st.Pool().QueryRow(ctx, `SELECT retry_of FROM job_outcomes WHERE job_id = $1`, "retry:"+failed+":"+today).Scan(&linked); err != nil || linked != failed {
		t.Fatalf("job_outcomes.retry_of of the retry = %q (%v), want %q", linked, err, failed)
	}
	// The job fixed by its retry is not selected again; the one whose retry failed is, and a
	// retry of a retry is a job of its own.
	code, out, errOut = retry("--dry-run")
	if code != exitOK || strings.Count(out, "would queue") != 1 || !strings.Contains(out, dead) || strings.Contains(out, "job "+failed+" ") {
		t.Fatalf("after the retries: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestRetryRefusesBadUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"retry", "--database-url="}, "no database"},
		{[]string{"retry", "--database-url", "postgres://x/y", "--status", "rejected"}, "would be rejected again"},
		{[]string{"retry", "--database-url", "postgres://x/y", "--status", "done"}, `--status "done"`},
		{[]string{"retry", "--database-url", "postgres://x/y", "--method", "magic"}, `--method "magic"`},
		{[]string{"retry", "--database-url", "postgres://x/y", "--since", "-1h"}, "--since"},
		// --ids is read once the flags are valid, and a dry run needs no NATS.
		{[]string{"retry", "--dry-run", "--database-url", "postgres://x/y", "--ids", "/nonexistent/ids.txt"}, "--ids"},
		{[]string{"retry", "--nats-url=", "--database-url", "postgres://x/y"}, "no NATS"},
		{[]string{"retry", "--database-url", "postgres://x/y", "stray"}, "unexpected arguments"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tt.args, nil, &stdout, &stderr); code != exitInvalid || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tt.args, code, stderr.String(), exitInvalid, tt.want)
		}
	}
}
