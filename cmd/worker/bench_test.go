package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// BenchmarkThroughput measures statements per second through the whole system: JetStream, one
// worker at --concurrency 8, the real openai-go client against an instant fake model, and the
// one-transaction write to PostgreSQL. Each iteration is one Factored statement with three checks
// (five model calls). Run it with:
//
//	go test -run '^$' -bench Throughput -benchtime 2000x ./cmd/worker
//
// It reports statements/s, model calls/s and the test process's peak RSS (which also holds the
// fake model server and the publisher, so the worker alone uses less).
func BenchmarkThroughput(b *testing.B) {
	bb := setup(b)
	bb.factoredModel()
	bb.cfg.Concurrency = 8
	for i := range b.N {
		bb.publish(b, jobs.Message{V: 1, Text: fmt.Sprintf("Benchmark statement %d of run %s was said in Paris.", i, bb.text), Method: pipeline.MethodFactored})
	}
	b.ResetTimer()
	start := time.Now()
	bb.runWorkers(b, 1)
	b.StopTimer()
	var last time.Time
	if err := bb.store.Pool().QueryRow(context.Background(), `SELECT max(finished_at) FROM runs WHERE subject = $1`, bb.cfg.Stream.PublishSubject).Scan(&last); err != nil {
		b.Fatal(err)
	}
	elapsed := last.Sub(start)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "statements/s")
	b.ReportMetric(float64(bb.model.Count())/elapsed.Seconds(), "model_calls/s")
	b.ReportMetric(peakRSSMiB(), "peak_RSS_MiB")
}

// peakRSSMiB reads the process's peak resident set size (VmHWM) from /proc.
func peakRSSMiB() float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fields := strings.Fields(line)
			kb, _ := strconv.ParseFloat(fields[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkMethodCost measures what each CoVe method costs per statement on the fake model (two
// checks per statement): model calls and tokens (the fake model counts four bytes a token).
//
//	go test -run '^$' -bench MethodCost -benchtime 50x ./cmd/worker
func BenchmarkMethodCost(b *testing.B) {
	for _, method := range []string{pipeline.MethodFactored, pipeline.MethodJoint, pipeline.MethodTwoStep, pipeline.MethodFactorRevise} {
		b.Run(method, func(b *testing.B) {
			bb := setup(b)
			bb.coveModel(false)
			bb.model.Reply(pipeline.MarkerDraft, "A test said it in Paris, in a draft answer of typical length.")
			for i := range b.N {
				bb.publish(b, jobs.Message{V: 1, Question: fmt.Sprintf("Which test said what, and where? (%d %s)", i, bb.text), Method: method})
			}
			b.ResetTimer()
			bb.runWorkers(b, 1)
			b.StopTimer()
			var calls, tokens, checks float64
			if err := bb.store.Pool().QueryRow(context.Background(), `
				SELECT avg(model_calls), avg(total_tokens), avg((SELECT count(*) FROM checks c WHERE c.run_id = r.id))
				FROM runs r WHERE subject = $1`, bb.cfg.Stream.PublishSubject).Scan(&calls, &tokens, &checks); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(calls, "calls/statement")
			b.ReportMetric(tokens, "tokens/statement")
			b.ReportMetric(calls/checks, "calls/check")
			b.ReportMetric(tokens/checks, "tokens/check")
		})
	}
}

// BenchmarkOpenBookCost measures what the open-book methods cost per statement and per claim on
// the fake model and the PostgreSQL corpus: model calls, searches and tokens (the fake model
// counts four bytes a token). cove2 verifies the tower draft (three claims: two deep, one
// shallow), multihop the bridge statement (two claims, two hops each, one cross-validation
// query); see openbook_test.go.
//
//	go test -run '^$' -bench OpenBookCost -benchtime 20x ./cmd/worker
func BenchmarkOpenBookCost(b *testing.B) {
	cases := []struct {
		method string
		script func(bb *bundle)
		text   string
	}{
		{pipeline.MethodCove2, func(bb *bundle) {
			bb.cove2Model(b, towerScript(towerDraft, "How tall is the Eiffel Tower?", "When was the Eiffel Tower completed?"))
		}, towerDraft},
		{pipeline.MethodMultihop, func(bb *bundle) { bb.multihopModel(b, bridgePlan(), bridgeJudge) }, bridgeStatement},
	}
	for _, c := range cases {
		b.Run(c.method, func(b *testing.B) {
			bb := setup(b)
			bb.openBook(b)
			c.script(bb)
			for i := range b.N {
				bb.publish(b, jobs.Message{V: 1, Text: fmt.Sprintf("%s (ref %s-%d)", c.text, bb.cfg.Stream.Stream, i), Method: c.method})
			}
			b.ResetTimer()
			bb.runWorkers(b, 1)
			b.StopTimer()
			var runs, calls, searches, tokens, claims float64
			if err := bb.store.Pool().QueryRow(context.Background(), `
				SELECT count(*), avg(model_calls), avg(search_calls), avg(total_tokens),
				       avg((SELECT count(*) FROM claims c WHERE c.run_id = r.id))
				FROM runs r WHERE subject = $1 AND status = 'done'`, bb.cfg.Stream.PublishSubject).Scan(&runs, &calls, &searches, &tokens, &claims); err != nil {
				b.Fatal(err)
			}
			if int(runs) != b.N {
				b.Fatalf("%v done runs of %d statements", runs, b.N)
			}
			b.ReportMetric(calls, "calls/statement")
			b.ReportMetric(searches, "searches/statement")
			b.ReportMetric(tokens, "tokens/statement")
			b.ReportMetric(claims, "claims/statement")
			b.ReportMetric(calls/claims, "calls/claim")
			b.ReportMetric(searches/claims, "searches/claim")
			b.ReportMetric(tokens/claims, "tokens/claim")
		})
	}
}
