-- +goose Up

-- What analysts report on, beyond the first reporting views: what a day cost (usage_per_day,
-- priced from model_prices) and a verdict_changes that says when and why a claim's verdict moved.
-- Views keep every column they had (README, "Reporting views"); new columns come last.

-- model_prices: the price table of cost estimates, one row per model name as runs record it
-- (the worker's --model). Seeded empty: a newsroom fills in its own contract prices, and a model
-- without a row has no estimate (NULL), never a guessed one.
CREATE TABLE model_prices (
    model                  text PRIMARY KEY,
    prompt_per_million     numeric NOT NULL CHECK (prompt_per_million >= 0),
    completion_per_million numeric NOT NULL CHECK (completion_per_million >= 0),
    currency               text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$')
);

-- usage_per_day: per day (of finished_at, in the session's TimeZone), model and method, what the
-- runs cost. Every run counts, first runs and re-verifications, done and failed.
CREATE VIEW usage_per_day AS
SELECT r.finished_at::date AS day,
       coalesce(r.model, '') AS model,
       r.method,
       count(*)::int AS runs,
       count(*) FILTER (WHERE r.status = 'failed')::int AS failed_runs,
       count(*) FILTER (WHERE r.reverify)::int AS reverify_runs,
       sum(r.model_calls)::bigint AS model_calls,
       sum(r.prompt_tokens)::bigint AS prompt_tokens,
       sum(r.completion_tokens)::bigint AS completion_tokens,
       sum(r.total_tokens)::bigint AS total_tokens,
       sum(r.search_calls)::bigint AS searches,
       (sum(r.prompt_tokens) * p.prompt_per_million / 1000000
        + sum(r.completion_tokens) * p.completion_per_million / 1000000)::numeric(14, 6) AS cost_estimate,
       p.currency
FROM runs r
LEFT JOIN model_prices p ON p.model = r.model
GROUP BY 1, 2, 3, p.prompt_per_million, p.completion_per_million, p.currency;

-- verdict_changes, as before (a claim whose verdict differs from the one it had in the previous
-- done run of the same statement, matched by claim text), found through the runs_statement index
-- instead of a window over every run, so that "since last night" reads only last night's runs;
-- and with more of the why: the confidence and sources on both sides, the check that decided the
-- new verdict, both methods, and whether the new run was a re-verification.
CREATE OR REPLACE VIEW verdict_changes AS
SELECT r.statement_id, s.external_id, c.text AS claim_text,
       p.verdict AS old_verdict, c.verdict AS new_verdict,
       prev.id AS old_run_id, r.id AS new_run_id,
       r.finished_at AS changed_at, c.reason AS new_reason, p.reason AS old_reason,
       prev.finished_at AS old_finished_at,
       r.reverify,
       prev.method AS old_method, r.method AS new_method,
       p.confidence AS old_confidence, c.confidence AS new_confidence,
       ARRAY(SELECT e.url FROM evidence e
             WHERE e.run_id = p.run_id AND e.source_number = ANY (p.citations)
             ORDER BY e.source_number) AS old_citation_urls,
       ARRAY(SELECT e.url FROM evidence e
             WHERE e.run_id = c.run_id AND e.source_number = ANY (c.citations)
             ORDER BY e.source_number) AS new_citation_urls,
       k.question AS new_check_question, k.answer AS new_check_answer,
       c.position AS new_position
FROM runs r
JOIN statements s ON s.id = r.statement_id
CROSS JOIN LATERAL (
    SELECT q.id, q.method, q.finished_at
    FROM runs q
    WHERE q.statement_id = r.statement_id AND q.status = 'done'
      AND (q.finished_at, q.id) < (r.finished_at, r.id)
    ORDER BY q.finished_at DESC, q.id DESC
    LIMIT 1
) prev
JOIN claims c ON c.run_id = r.id
-- The first claim of the previous run with the same text: a run that states one claim twice
-- gives one change, not two.
CROSS JOIN LATERAL (
    SELECT o.run_id, o.verdict, o.reason, o.confidence, o.citations
    FROM claims o
    WHERE o.run_id = prev.id AND lower(btrim(o.text)) = lower(btrim(c.text))
    ORDER BY o.position
    LIMIT 1
) p
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position
WHERE r.status = 'done' AND p.verdict <> c.verdict;

-- +goose Down
DROP VIEW verdict_changes;
CREATE VIEW verdict_changes AS
WITH ranked AS (
    SELECT r.id AS run_id, r.statement_id, r.finished_at,
           lag(r.id) OVER (PARTITION BY r.statement_id ORDER BY r.finished_at, r.id) AS previous_run_id
    FROM runs r
    WHERE r.status = 'done'
)
SELECT x.statement_id, s.external_id, c.text AS claim_text,
       p.verdict AS old_verdict, c.verdict AS new_verdict,
       x.previous_run_id AS old_run_id, x.run_id AS new_run_id,
       x.finished_at AS changed_at, c.reason AS new_reason, p.reason AS old_reason
FROM ranked x
JOIN statements s ON s.id = x.statement_id
JOIN claims c ON c.run_id = x.run_id
JOIN claims p ON p.run_id = x.previous_run_id AND lower(btrim(p.text)) = lower(btrim(c.text))
WHERE x.previous_run_id IS NOT NULL AND p.verdict <> c.verdict;
DROP VIEW usage_per_day;
DROP TABLE model_prices;
