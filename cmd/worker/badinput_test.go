package main

import (
	"context"
	"strings"
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// Messages published straight onto the subject, the way another system might get them wrong:
// each ends rejected with a reason that names what is wrong, and the worker goes on.
func TestHostileMessagesAreRejectedWithTheirReason(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	// Each statement carries this run's tag and a word of its own: a message with a statement is
	// named by its content (jobs.DedupeID, which reads neither the language nor the model), and
	// messages that share it are one job. One an earlier run in the same schema sent (go test
	// -count=2) was recorded as its duplicate, not rejected; two of this run ("language" and
	// "model" differ in what DedupeID does not read) were two deliveries of one job, maybe at once
	// under 8 handlers, which is the duplicate tests' concern, not this one's.
	tag := randomLetters(8)
	cases := []struct{ payload, reason string }{
		{``, "is empty"},
		{`[1,2,3]`, "object"},
		{`{"v":2,"text":"A statement from the future ` + tag + `."}`, "v"},
		{`{"v":1,"text":42}`, "text"},
		{`{"v":1,"text":"Two words here ` + tag + ` method.","method":"rm -rf /"}`, "method"},
		{`{"v":1,"text":"Two words here ` + tag + ` language.","language":"english"}`, "language"},
		{`{"v":1,"text":"Two words here ` + tag + ` questions.","options":{"max_questions":100000}}`, "options.max_questions"},
		{`{"v":1,"text":"Two words here ` + tag + ` hops.","options":{"max_hops":-3}}`, "options.max_hops"},
		{`{"v":1,"text":"Two words here ` + tag + ` start.","options":{"temporal_scope":{"start_date":"2024-13-45"}}}`, "temporal_scope"},
		{`{"v":1,"text":"Two words here ` + tag + ` range.","options":{"temporal_scope":{"start_date":"2024-05-01","end_date":"2023-01-01"}}}`, "temporal_scope"},
		{`{"v":1,"text":"Two words here ` + tag + ` model.","model":"gpt-5","concurrency":1000}`, "model"},
		{`{"v":1,"text":"` + tag + strings.Repeat(" word", 10000) + `"}`, "text"},
		{"{\"v\":1,\"text\":\"bad \xff utf-8 here " + tag + "\"}", "UTF-8"},
		{`{"v":1,"text":"null \u0000 byte inside ` + tag + `"}`, "text"},
	}
	for _, c := range cases {
		b.publishRaw(t, c.payload)
	}
	good := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)

	rows, err := b.store.Pool().Query(context.Background(), `SELECT status, coalesce(reason, '') FROM job_outcomes WHERE subject = $1 AND job_id <> $2 ORDER BY stream_seq`, b.cfg.Stream.PublishSubject, good)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var status, reason string
		if err := rows.Scan(&status, &reason); err != nil {
			t.Fatal(err)
		}
		if i >= len(cases) {
			t.Fatalf("more outcomes than messages: %s %s", status, reason)
		}
		if status != "rejected" || !strings.Contains(reason, cases[i].reason) {
			t.Errorf("message %d %.60q: %s %q, want rejected naming %q", i+1, cases[i].payload, status, reason, cases[i].reason)
		}
		i++
	}
	if i != len(cases) {
		t.Fatalf("%d outcomes for %d bad messages", i, len(cases))
	}
	if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done'`, good); n != 1 {
		t.Fatal("the worker stopped working after the bad messages")
	}
}
