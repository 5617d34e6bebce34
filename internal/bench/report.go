package bench

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// printTable prints one row per run (throughput against the bound, 429s, latency against the
// critical path, memory), then each run's latency split into its parts.
func printTable(w io.Writer, cfg Config, results []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "mode\tworkers\tconc\tK\tstmts/min\tcalls/min\tbound/min\tratio\t429s\tcalls/stmt\ttokens/stmt\tp50\tp95\tcrit. path\tp95/crit.\toverhead p50\tpeak RSS MiB\t")
	for _, r := range results {
		bound, ratio := "-", "-"
		if r.bound > 0 {
			bound, ratio = fmt.Sprintf("%.0f", r.bound), fmt.Sprintf("%.3f", r.stmtsPerMin/r.bound)
		}
		share := 0.0
		if r.provider.Requests > 0 {
			share = float64(r.provider.Limited) / float64(r.provider.Requests)
		}
		overhead := "-"
		if r.mode == modeUnbound {
			overhead = fmt.Sprintf("%+.1f ms (%+.2f%%)", ms(r.p50-r.critical), 100*float64(r.p50-r.critical)/float64(r.critical))
		}
		mode := r.modeName()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.0f\t%s\t%s\t%.2f%% (%d/%d)\t%.2f\t%.0f\t%.0f ms\t%.0f ms\t%.0f ms\t%.2f\t%s\t%.1f\t\n",
			mode, r.workers, r.concurrency, r.statements, r.stmtsPerMin, r.callsPerMin, bound, ratio,
			100*share, r.provider.Limited, r.provider.Requests, r.callsPerStmt, r.tokensPerStmt,
			ms(r.p50), ms(r.p95), ms(r.critical), float64(r.p95)/float64(r.critical), overhead, float64(r.peakRSS)/(1<<20))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Per statement, latency is received -> result stored; its own critical path is the sum of its rounds' slowest model call:")
	tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "mode\tworkers\tconc\town crit. path p50\tlatency - own crit. p50\tmean\tp95 of latency / own crit.\tbefore the method p50\tin the method p50\tstoring p50\t")
	for _, r := range results {
		mode := r.modeName()
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f ms\t%.1f ms\t%.1f ms\t%.3f\t%.1f ms\t%.1f ms\t%.1f ms\t\n", mode, r.workers, r.concurrency,
			ms(r.ownCriticalP50), ms(r.overheadP50), ms(r.overheadMean), r.ownRatioP95, ms(r.beforeP50), ms(r.inMethodP50), ms(r.storeP50))
	}
	_ = tw.Flush()
}

// printLearning prints the learned runs by number of workers: how close to the bound they ran and
// how many calls were refused, and how long they took to come back after a storm.
func printLearning(w io.Writer, cfg Config, results []result) {
	type row struct{ learned, storm *result }
	rows := map[int]*row{}
	var workers []int
	for i := range results {
		r := &results[i]
		if r.mode != modeLearned {
			continue
		}
		if rows[r.workers] == nil {
			rows[r.workers] = &row{}
			workers = append(workers, r.workers)
		}
		if r.storm {
			rows[r.workers].storm = r
		} else {
			rows[r.workers].learned = r
		}
	}
	if len(workers) == 0 {
		return
	}
	fmt.Fprintln(w)
	when := fmt.Sprintf("%s into its own run", cfg.StormAfter)
	if cfg.StormAfter == 0 {
		when = "from the first request of its own run, before anything was learned"
	}
	retryAfter := "no Retry-After"
	if cfg.StormRetryAfter > 0 {
		retryAfter = fmt.Sprintf("Retry-After %d", int(cfg.StormRetryAfter.Seconds()))
	}
	fmt.Fprintf(w, "Learned (nothing configured) from a provider sending %s rate-limit headers; storm: %s of 429s with no headers and %s, %s; recovery: from the storm's end to the first 10 s with 90%% of the bound's calls accepted:\n",
		cfg.Headers, cfg.Storm, retryAfter, when)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "workers\tratio to the bound\t429 share\trecovery after the storm\t429s in the storm run outside the storm\t")
	for _, n := range workers {
		ratio, share, rec, after := "-", "-", "-", "-"
		if r := rows[n].learned; r != nil && r.bound > 0 {
			ratio = fmt.Sprintf("%.3f", r.stmtsPerMin/r.bound)
			share = fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(r.provider.Limited)/float64(max(r.provider.Requests, 1)), r.provider.Limited, r.provider.Requests)
		}
		if r := rows[n].storm; r != nil {
			rec = "not within the run"
			if r.recovery >= 0 {
				rec = r.recovery.String()
			}
			outside := r.provider.Limited - r.provider.Stormed
			after = fmt.Sprintf("%.2f%% (%d/%d)", 100*float64(outside)/float64(max(r.provider.Requests-r.provider.Stormed, 1)), outside, r.provider.Requests-r.provider.Stormed)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t\n", n, ratio, share, rec, after)
	}
	_ = tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
