package main

import (
	"testing"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
)

func TestReverifyJobIsStoredAsOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.factoredModel()
	yes := true
	first := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
	b.runWorkers(t, 1)
	again := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored, Options: jobs.MessageOptions{Reverify: &yes}})
	b.runWorkers(t, 1)
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1 AND NOT reverify`, first); n != 1 {
		t.Fatal("the first run is not stored as a first verification")
	}
	if n := b.count(t, `SELECT count(*) FROM runs WHERE job_id = $1 AND reverify`, again); n != 1 {
		t.Fatal("the re-verification is not stored as one")
	}
	if n := b.count(t, `SELECT count(*) FROM statement_results WHERE job_id = $1 AND reverify`, again); n != 1 {
		t.Fatal("statement_results does not show the re-verification as the latest run")
	}
}
