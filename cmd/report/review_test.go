package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/reverify"
	"github.com/corroborate/corroborate/internal/store"
	"github.com/corroborate/corroborate/internal/testenv"
)

// report review records approvals and overrides beside the machine's verdict, refuses what is
// wrong with what to do, and a recheck publishes the statement's re-verification once.
func TestReviewCommandRecordsDecisions(t *testing.T) {
	t.Parallel()
	st, dbURL := setup(t)
	b := seedBatch(t, st)
	claim := func(pos int) string { return fmt.Sprintf("%d:%d", b.eiffelRun, pos) }
	base := []string{"--database-url", dbURL, "--editor", "ana"}

	code, out, errOut := runReport(t, append([]string{"review", "approve", "--claim", claim(1)}, base...)...)
	if code != exitOK || !strings.Contains(out, "standing verdict: supported") {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errOut)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"review", "override", "--claim", claim(2), "--verdict", "supported"}, "needs a reason"},
		{[]string{"review", "override", "--claim", claim(2), "--verdict", "true", "--reason", "x"}, "one of supported"},
		{[]string{"review", "approve", "--claim", "2"}, "RUN:POSITION"},
		{[]string{"review", "approve", "--claim", fmt.Sprintf("%d:1", b.earlierRun)}, "newer run"},
		{[]string{"review", "publish", "--claim", claim(1)}, "approve, override or recheck"},
	} {
		code, _, errOut := runReport(t, append(tt.args, base...)...)
		if code != exitInvalid || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", tt.args, code, tt.want, errOut)
		}
	}
	code, out, errOut = runReport(t, append([]string{"review", "override", "--claim", claim(2), "--verdict", "partly_supported", "--reason", "antennas"}, base...)...)
	if code != exitOK || !strings.Contains(out, "standing verdict: partly_supported") {
		t.Fatalf("override: exit %d\n%s%s", code, out, errOut)
	}

	// recheck: on a stream of the test's own.
	id := fmt.Sprint(rand.Uint64())
	stream := "R" + id
	js, err := jetstream.New(testenv.NATS(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteStream(context.Background(), stream) })
	natsArgs := []string{"--nats-url", testenv.NATSURL(t), "--stream", stream, "--subjects", "r" + id + ".>", "--subject", "r" + id + ".backlog", "--consumer", "c" + id}
	recheck := append(append([]string{"review", "recheck", "--claim", claim(2)}, base...), natsArgs...)
	jobID := reverify.RecheckJobID(b.eiffel, b.eiffelRun)
	code, out, errOut = runReport(t, recheck...)
	if code != exitOK || !strings.Contains(out, "re-check queued: job "+jobID) {
		t.Fatalf("recheck: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runReport(t, recheck...)
	if code != exitOK || !strings.Contains(out, "re-check already queued") {
		t.Errorf("a second recheck: exit %d %s", code, out)
	}
	s, err := js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil || info.State.Msgs != 1 {
		t.Fatalf("the stream holds %d messages, want 1 (%v)", info.State.Msgs, err)
	}
	msg, err := s.GetMsg(context.Background(), info.State.FirstSeq)
	if err != nil {
		t.Fatal(err)
	}
	var m jobs.Message
	if err := json.Unmarshal(msg.Data, &m); err != nil || msg.Header.Get("Nats-Msg-Id") != jobID || m.Text == "" || m.Options.Reverify == nil || !*m.Options.Reverify {
		t.Errorf("the re-check message: id %q, %+v, %v", msg.Header.Get("Nats-Msg-Id"), m, err)
	}
	rows, err := st.EditorialVerdicts(context.Background(), b.eiffelRun)
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	if r := rows[1]; r.Decision != store.DecisionRecheck || r.StandingSource != store.SourceMachine || r.RecheckJobID != jobID {
		t.Errorf("after the recheck, claim 2: %+v", r)
	}
}
