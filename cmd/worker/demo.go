package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/corroborate/corroborate/examples"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/store"
)

// demoWorkers is how many worker loops the demo runs side by side on the one shared consumer.
const demoWorkers = 2

// demo runs the whole system on embedded defaults: the services that are not configured are
// started (an in-process NATS, a throwaway PostgreSQL in a fresh folder), the bundled example
// statements are published, two workers run until the backlog is drained, and the stored
// results are printed from PostgreSQL.
func demo(ctx context.Context, cfg Config, log *slog.Logger, stdout io.Writer) error {
	dir, err := os.MkdirTemp("", "corroborate-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	cfg.DevDir = dir
	if err := probeModel(ctx, cfg, log); err != nil {
		return err
	}
	s, err := connect(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer s.close()

	sc := cfg.streamConfig()
	if _, _, err := jobs.Setup(ctx, s.js, sc); err != nil {
		return err
	}
	var jobIDs []string
	scanner := bufio.NewScanner(bytes.NewReader(examples.Statements))
	for line := 1; scanner.Scan(); line++ {
		m, err := jobs.Decode(scanner.Bytes(), jobs.ValidationConfig{DefaultMethod: cfg.DefaultMethod})
		if err != nil {
			return fmt.Errorf("examples/statements.jsonl:%d: %w", line, err)
		}
		res, err := jobs.Publish(ctx, s.js, sc.WithDefaults().PublishSubject, m, "")
		if err != nil {
			return err
		}
		jobIDs = append(jobIDs, res.JobID)
	}
	fmt.Fprintf(stdout, "Published %d example statements to %s.\n", len(jobIDs), s.natsURL)

	m := newMetrics()
	var wg sync.WaitGroup
	errs := make([]error, demoWorkers)
	for i := range demoWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = consume(ctx, cfg, log.With("worker", i+1), s, m, "")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}

	runs, err := s.store.RunSummaries(ctx, jobIDs)
	if err != nil {
		return err
	}
	printRuns(stdout, runs, s.replay)
	if len(runs) != len(jobIDs) {
		return fmt.Errorf("demo: %d of %d statements have a stored run", len(runs), len(jobIDs))
	}
	return nil
}

func printRuns(w io.Writer, runs []store.RunSummary, replay bool) {
	banner := strings.Repeat("=", 78)
	fmt.Fprintln(w, banner)
	if replay {
		fmt.Fprintln(w, "REPLAY: no model was configured, so these results come from recorded replies")
		fmt.Fprintln(w, "(examples/replay.json), not from a live verification. Set OPENAI_API_KEY or")
		fmt.Fprintln(w, "OPENAI_BASE_URL to verify with a real model.")
		fmt.Fprintln(w, banner)
	}
	fmt.Fprintf(w, "Results from PostgreSQL (%d runs):\n", len(runs))
	for _, r := range runs {
		fmt.Fprintln(w)
		title := r.Text
		if title == "" {
			title = r.Question
		}
		fmt.Fprintf(w, "[%s] %s\n", r.ExternalID, title)
		fmt.Fprintf(w, "  method %s, model %s, run %s (%s)\n", r.Method, r.Model, r.Status, r.ResultStatus)
		if r.Draft != r.Text {
			fmt.Fprintf(w, "  draft:   %s\n", r.Draft)
		}
		for _, c := range r.Checks {
			fmt.Fprintf(w, "  check %d: %s -> %s (%s)\n", c.Position, c.Question, c.Answer, c.Status)
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  error:   %s\n", r.Error)
		}
		fmt.Fprintf(w, "  revised: %s\n", r.RevisedText)
	}
	fmt.Fprintln(w, banner)
}
