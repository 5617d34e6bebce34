package main

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/llm/llmtest"
	"github.com/corroborate/corroborate/internal/pipeline"
)

// A model endpoint that cannot work as configured ends the worker at start, before it consumes
// anything, with exit 2 and one line saying what to fix; one that may recover (5xx) is only a
// warning and the worker goes on to drain its backlog.
func TestModelProbeAtStart(t *testing.T) {
	t.Parallel()
	bin := buildWorker(t)
	for _, tt := range []struct {
		name   string
		break_ func(b *bundle)
		exit   int
		// want is in the one line; for a worker that goes on, in its warning.
		want string
	}{
		{name: "bad key", break_: func(b *bundle) {
			b.model.StartOutage(llmtest.Response{Status: 401, Body: llmtest.ErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key")})
		}, exit: 2, want: "worker: OPENAI_API_KEY was refused by " + "URL" + " (HTTP 401: Incorrect API key provided): check the key"},
		{name: "unknown model", break_: func(b *bundle) { b.model = llmtest.NewServer(t, llmtest.WithModels("another-model")) },
			exit: 2, want: "check CORROBORATE_MODEL"},
		{name: "connection refused", break_: func(b *bundle) { b.model.RefuseConnections() },
			exit: 2, want: "(connection refused): check OPENAI_BASE_URL and that the model server is running"},
		{name: "server error goes on", break_: func(b *bundle) {
			b.model.StartOutage(llmtest.Response{Status: 503})
			b.factoredModel()
		}, exit: 0, want: "model endpoint failed the probe at start; consuming anyway"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			tt.break_(b)
			job := b.publish(t, jobs.Message{V: 1, Text: b.text, Method: pipeline.MethodFactored})
			var stderr syncBuffer
			cmd := b.processCmd(t, bin)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if tt.exit == 0 {
				// The endpoint recovers after the start: the job must still be done.
				deadline := time.Now().Add(30 * time.Second)
				for !strings.Contains(stderr.String(), tt.want) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				b.model.EndOutage()
			}
			err := cmd.Wait()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			out := strings.ReplaceAll(stderr.String(), b.model.URL(), "URL")
			if code != tt.exit {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.exit, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Fatalf("stderr does not say %q:\n%s", tt.want, out)
			}
			if tt.exit == 2 {
				if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 1 {
					t.Fatalf("stderr has %d lines, want one:\n%s", len(lines), out)
				}
				if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1`, job); n != 0 {
					t.Fatalf("the worker took a job before it exited")
				}
				return
			}
			if n := b.count(t, `SELECT count(*) FROM job_outcomes WHERE job_id = $1 AND status = 'done'`, job); n != 1 {
				t.Fatalf("the job was not done after a probe that met a 503:\n%s", out)
			}
		})
	}
}
