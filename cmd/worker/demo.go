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
	"time"

	"github.com/corroborate/corroborate/examples"
	"github.com/corroborate/corroborate/internal/jobs"
	"github.com/corroborate/corroborate/internal/pipeline"
	"github.com/corroborate/corroborate/internal/search"
	"github.com/corroborate/corroborate/internal/store"
)

// demoWorkers is how many worker loops the demo runs side by side on the one shared consumer.
const demoWorkers = 2

// demo runs the whole system on embedded defaults: the services that are not configured are
// started (an in-process NATS, a throwaway PostgreSQL in a fresh folder), the bundled archive
// (examples/archive.jsonl) is loaded into the PostgreSQL corpus that multihop and cove2 search,
// the bundled example statements are published, two workers run until the backlog is drained,
// and the stored results are printed from PostgreSQL.
func demo(ctx context.Context, cfg Config, log *slog.Logger, stdout io.Writer) error {
	return runDemo(ctx, cfg, log, stdout, nil)
}

// runDemo is demo with model, when not nil, in place of the configured one (or the replay):
// how the replay's recorder (TestDemoReplayIsRecordedFromThePipeline) runs the real methods
// against its scripted model.
func runDemo(ctx context.Context, cfg Config, log *slog.Logger, stdout io.Writer, model pipeline.Model) error {
	dir, err := os.MkdirTemp("", "corroborate-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	cfg.DevDir = dir
	if cfg.Today == "" {
		cfg.Today = examples.Date
	}
	if model == nil {
		if err := probeModel(ctx, cfg, log); err != nil {
			return err
		}
	}
	s, err := connect(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer s.close()
	if model != nil {
		s.model, s.replay = model, false
	}

	loaded, err := search.NewCorpus(s.store.Pool(), search.CorpusOpts{}).
		Load(ctx, bytes.NewReader(examples.Archive), search.LoadOpts{})
	if err != nil {
		return fmt.Errorf("examples/archive.jsonl: %w", err)
	}
	if day, err := time.Parse(time.DateOnly, cfg.Today); err == nil {
		how := "the date its examples and recorded replies were written for"
		if cfg.Today != examples.Date {
			how = "as --today says"
		}
		fmt.Fprintf(stdout, "The demo takes %s as today, %s (the prompts carry the date).\n", day.Format("2 January 2006"), how)
	}
	fmt.Fprintf(stdout, "Loaded %d documents of examples/archive.jsonl into the PostgreSQL corpus.\n", loaded.Documents)

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
	printNext(stdout, cfg)
	if len(runs) != len(jobIDs) {
		return fmt.Errorf("demo: %d of %d statements have a stored run", len(runs), len(jobIDs))
	}
	for _, r := range runs {
		if r.Status != store.RunDone {
			return fmt.Errorf("demo: the run of %s ended %s: %s", r.ExternalID, r.Status, r.Error)
		}
	}
	return nil
}

// printNext ends the demo with what to try next. The demo's PostgreSQL is thrown away when it
// ends, so the commands name a database of one's own (DATABASE_URL), or the one given to the demo.
func printNext(w io.Writer, cfg Config) {
	fmt.Fprintln(w, "Next:")
	if cfg.DatabaseURL != "" {
		fmt.Fprintln(w, "  The results above are in DATABASE_URL; read them with:")
		fmt.Fprintln(w, "    go run ./cmd/report html --out report          # a static report: report/index.html")
		fmt.Fprintln(w, "    go run ./cmd/report serve                      # the review page on http://127.0.0.1:8080")
		return
	}
	fmt.Fprintln(w, "  This demo's PostgreSQL was a throwaway one, removed now. To keep the results, give the")
	fmt.Fprintln(w, "  demo a database of your own and read it with the report command:")
	fmt.Fprintln(w, "    createdb corroborate_demo")
	fmt.Fprintln(w, "    export DATABASE_URL=postgres://localhost:5432/corroborate_demo")
	fmt.Fprintln(w, "    go run ./cmd/worker demo                       # the same demo, kept in DATABASE_URL")
	fmt.Fprintln(w, "    go run ./cmd/report html --out report          # a static report: report/index.html")
	fmt.Fprintln(w, "    go run ./cmd/report serve                      # the review page on http://127.0.0.1:8080")
	fmt.Fprintln(w, "  Against your own services and model: README.md, \"Quick start against your own services\".")
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
		if r.Method == pipeline.MethodMultihop || r.Method == pipeline.MethodCove2 {
			for _, c := range r.Claims {
				fmt.Fprintf(w, "  claim %d: %s\n", c.Position, c.Text)
				verdict := c.Verdict
				if c.Confidence != "" {
					verdict += ", " + c.Confidence + " confidence"
				}
				fmt.Fprintf(w, "    verdict: %s\n", verdict)
				if c.Correction != "" {
					fmt.Fprintf(w, "    correction: %s\n", c.Correction)
				}
				if len(c.Sources) == 0 && c.Reason != "" {
					fmt.Fprintf(w, "    why: %s\n", c.Reason)
				}
				for _, src := range c.Sources {
					fmt.Fprintf(w, "    source: %s (%s)\n", src.Title, src.URL)
				}
			}
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  error:   %s\n", r.Error)
		}
		fmt.Fprintf(w, "  revised: %s\n", r.RevisedText)
	}
	fmt.Fprintln(w, banner)
}
