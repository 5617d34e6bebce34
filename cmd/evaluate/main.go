// Command evaluate measures the multihop method against spec 004's quality criteria, with the
// measurement methods the spec names:
//
//	evaluate plans [--n 20] [--dataset factcheck-GPT-benchmark.jsonl] [--json]
//	    asks the configured model for the plans of N factcheck-bench statements and of a built-in
//	    set of deliberately ambiguous statements, through multihop's own plan step, and reports
//	    schema compliance (first reply, after one repair), claim recall against the human gold
//	    claims, hallucinated claims (no span in the statement), near-duplicate queries, and the
//	    share of ambiguous statements whose plan notes the ambiguity.
//	evaluate retrieval [--feverous feverous_s_dev.json] [--limit 50] [--json]
//	    loads FEVEROUS-S into a throwaway PostgreSQL corpus and runs the queries of the model's
//	    plans (or, without a model, the claims themselves): MRR@10 of a gold page, and the Jaccard
//	    similarity of the top-10 sets of every pair of queries within a statement, flagged > 0.7,
//	    and chain recall per hop count against one query with the claim text.
//	evaluate honest [--datasets DIR]
//	    runs the query sanitizer over every claim of FEVEROUS-S, factcheck-bench and EX-FEVER
//	    used as a query, and the citation parsers over every evidence URL of those sets written
//	    in the reply formats the prompts ask for; lists every change and every broken URL.
//	evaluate verdicts --dataset feverous-s|factcheck-bench|FILE [--method M] [--n 200] [--out F]
//	    runs labelled claims through a method as the worker does and scores the verdicts
//	    (docs/evaluation.md); --model scripted-fake runs the scripted fake, marked FAKE.
//
// The model is any OpenAI-compatible endpoint (OPENAI_API_KEY, OPENAI_BASE_URL,
// CORROBORATE_MODEL), as for the worker. The commands live in internal/evaluate; this main only
// hands them the command line and the process's signals.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/corroborate/corroborate/internal/evaluate"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(evaluate.Run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}
