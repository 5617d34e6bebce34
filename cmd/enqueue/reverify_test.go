package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/envflag"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// seedStatement stores one done run of a statement, finished ago before now.
func seedStatement(t *testing.T, st *store.Store, externalID, text, method string, options string, ago time.Duration, verdict string) store.Saved {
	t.Helper()
	finished := time.Now().Add(-ago)
	saved, err := st.SaveRun(context.Background(), store.RunRecord{
		Delivery:  store.Delivery{JobID: fmt.Sprintf("seed-%d", rand.Uint64()), StreamSeq: rand.Uint64N(1 << 40), Subject: "seed", Attempt: 1},
		Statement: store.Statement{ExternalID: externalID, Text: text, Language: "en"},
		Method:    method, Model: "gpt-4o-mini", Status: store.RunDone, Options: json.RawMessage(options),
		StartedAt: finished.Add(-time.Second), FinishedAt: finished,
		Result: &pipeline.Result{Status: pipeline.StatusChecked, RevisedText: text,
			Claims: []pipeline.Claim{{Position: 1, Text: text, Verdict: verdict, Reason: "seeded"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

func TestReverifyTwiceTheSameNightEnqueuesOnce(t *testing.T) {
	t.Parallel()
	natsArgs, js, stream := enqueueEnv(t)
	dbURL := testenv.SchemaURL(t, "enqueue")
	st := store.New(testenv.Postgres(t, "enqueue"))
	ctx := context.Background()
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("reverify-%d/", rand.Uint64())
	seedStatement(t, st, prefix+"old-refuted", "The Eiffel Tower was finished in 1887.", pipeline.MethodMultihop, `{"max_hops":2}`, 48*time.Hour, pipeline.VerdictRefuted)
	seedStatement(t, st, prefix+"old-supported", "Water boils at 100 degrees at sea level.", pipeline.MethodFactored, `{}`, 72*time.Hour, pipeline.VerdictSupported)
	seedStatement(t, st, prefix+"recent", "The Moon orbits the Earth.", pipeline.MethodMultihop, `{}`, time.Hour, pipeline.VerdictSupported)
	reverify := func(extra ...string) (int, string, string) {
		args := append([]string{"reverify", "--database-url", dbURL, "--older-than", "24h", "--external-id-prefix", prefix}, natsArgs...)
		var stdout, stderr bytes.Buffer
		code := run(ctx, append(args, extra...), nil, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	// A dry run lists, and publishes nothing (the stream is not even created).
	code, out, errOut := reverify("--dry-run")
	if code != exitOK || strings.Count(out, "would queue") != 2 || !strings.Contains(out, "dry run: 2 would be queued, 0 skipped") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := js.Stream(ctx, stream); err == nil {
		t.Fatal("a dry run created the stream")
	}
	if code, out, _ := reverify("--dry-run", "--verdict", "refuted"); code != exitOK || !strings.Contains(out, prefix+"old-refuted") || strings.Contains(out, prefix+"old-supported") {
		t.Fatalf("--verdict refuted: exit %d\n%s", code, out)
	}

	code, out, errOut = reverify()
	if code != exitOK || !strings.Contains(out, "2 queued, 0 duplicates, 0 skipped") {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = reverify()
	if code != exitOK || !strings.Contains(out, "0 queued, 2 duplicates, 0 skipped") {
		t.Fatalf("second run the same night: exit %d\n%s\n%s", code, out, errOut)
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Info(ctx); info.State.Msgs != 2 {
		t.Fatalf("the stream holds %d messages, want 2", info.State.Msgs)
	}

	// The messages: oldest latest run first, each the statement with its method and options,
	// marked reverify, under the night's job id.
	nights := []string{time.Now().Add(-24 * time.Hour).Format(time.DateOnly), time.Now().Add(-25 * time.Hour).Format(time.DateOnly)}
	for seq, want := range map[uint64]struct{ id, method, text string }{
		1: {prefix + "old-supported", pipeline.MethodFactored, "Water boils at 100 degrees at sea level."},
		2: {prefix + "old-refuted", pipeline.MethodMultihop, "The Eiffel Tower was finished in 1887."},
	} {
		raw, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		m, err := jobs.Decode(raw.Data, jobs.ValidationConfig{})
		if err != nil {
			t.Fatal(err)
		}
		jobID := raw.Header.Get("Nats-Msg-Id")
		if m.ID != want.id || m.Method != want.method || m.Text != want.text || m.Options.Reverify == nil || !*m.Options.Reverify ||
			!strings.HasPrefix(jobID, "reverify:") || !(strings.HasSuffix(jobID, ":"+nights[0]) || strings.HasSuffix(jobID, ":"+nights[1])) {
			t.Fatalf("message %d: job %s %+v", seq, jobID, m)
		}
		if want.method == pipeline.MethodMultihop && (m.Options.MaxHops == nil || *m.Options.MaxHops != 2) {
			t.Fatalf("the latest job's options are kept: %+v", m.Options)
		}
		if jobID == jobs.DedupeID(m) {
			t.Fatal("a reverify job must not reuse the content hash of the original job")
		}

		// A stand-in worker runs it: the statement's latest run is now new, and the next night
		// with the same cutoff finds nothing to do.
		_, err = st.SaveRun(ctx, store.RunRecord{
			Delivery:  store.Delivery{JobID: jobID, StreamSeq: seq, Subject: raw.Subject, Attempt: 1},
			Statement: store.Statement{ExternalID: m.ID, Text: m.Text, Language: m.Language},
			Method:    m.Method, Status: store.RunDone, Reverify: true, StartedAt: time.Now(), FinishedAt: time.Now(),
			Result: &pipeline.Result{Status: pipeline.StatusChecked, Claims: []pipeline.Claim{{Position: 1, Text: m.Text, Verdict: pipeline.VerdictSupported}}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := reverify(); code != exitOK || !strings.Contains(out, "0 statement(s)") {
		t.Fatalf("after the runs: exit %d\n%s\n%s", code, out, errOut)
	}
	var reverified int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM statement_results WHERE starts_with(external_id, $1) AND reverify`, prefix).Scan(&reverified); err != nil || reverified != 2 {
		t.Fatalf("statement_results marks %d re-verifications, want 2 (%v)", reverified, err)
	}
	var changed int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM verdict_changes WHERE starts_with(external_id, $1) AND reverify AND old_verdict = 'refuted' AND new_verdict = 'supported'`, prefix).Scan(&changed); err != nil || changed != 1 {
		t.Fatalf("verdict_changes shows %d changes by the re-verification, want 1 (%v)", changed, err)
	}
}

func TestReverifyRefusesBadUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		// An empty flag wins over a DATABASE_URL the test environment may have set.
		{[]string{"--database-url=", "--older-than", "24h"}, "no database"},
		{[]string{"--database-url", "postgres://x", "--older-than", "0s"}, "--older-than 0s"},
		{[]string{"--database-url", "postgres://x", "--verdict", "true"}, `--verdict "true" is not a verdict`},
		{[]string{"--database-url", "postgres://x", "--method", "magic"}, `--method "magic" is not a method`},
		{[]string{"--database-url", "postgres://x", "backlog.csv"}, "unexpected arguments"},
		{[]string{"--nats-url=", "--database-url", "postgres://x"}, "no NATS"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"reverify"}, tt.args...), nil, &stdout, &stderr)
		if code != exitInvalid || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to say %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// The configuration table of docs/operations.md names every variable of its own that enqueue
// reverify reads.
func TestDocsNameEveryReverifyVariable(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	var cfg ReverifyConfig
	fs := envflag.New("enqueue reverify", reverifyUsage)
	cfg.flags(fs)
	var help bytes.Buffer
	fs.SetOutput(&help)
	fs.Usage()
	variables := 0
	for _, line := range strings.Split(help.String(), "\n") {
		i := strings.Index(line, "[$")
		if i < 0 {
			continue
		}
		variable := strings.TrimSuffix(line[i+2:], "]")
		// The shared NATS and stream variables are the worker's too; its own test checks them.
		if !strings.HasPrefix(variable, "CORROBORATE_REVERIFY_") {
			continue
		}
		variables++
		if !bytes.Contains(page, []byte("`"+variable+"`")) {
			t.Errorf("docs/operations.md does not document $%s", variable)
		}
	}
	if variables < 6 {
		t.Fatalf("found %d variables in --help:\n%s", variables, help.String())
	}
}
