-- +goose Up

-- Review flags were bare codes ("max_hops_above_5") or "code: sentence" strings, so that
-- 'citation_removed' = ANY (review_flags) missed cove2's flags. review_flags now holds the codes
-- only, one per flag, in order; review_flag_details holds the same flags, in the same order, as
-- [{"code": ..., "detail": ...}] (detail left out when there is none). Rows written before are
-- split on the first ": ".
ALTER TABLE runs ADD COLUMN review_flag_details jsonb NOT NULL DEFAULT '[]';
UPDATE runs SET
    review_flag_details = (
        SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                   'code', split_part(f.flag, ': ', 1),
                   'detail', CASE WHEN strpos(f.flag, ': ') > 0 THEN substr(f.flag, strpos(f.flag, ': ') + 2) END))
               ORDER BY f.n)
        FROM unnest(review_flags) WITH ORDINALITY AS f(flag, n)),
    review_flags = ARRAY(SELECT split_part(f.flag, ': ', 1)
                         FROM unnest(review_flags) WITH ORDINALITY AS f(flag, n) ORDER BY f.n)
WHERE cardinality(review_flags) > 0;

-- latest_runs is runs.*, expanded when the view was made: made again, it gains the new column
-- (last, so that every view on it keeps its columns).
CREATE OR REPLACE VIEW latest_runs AS
SELECT DISTINCT ON (r.statement_id) r.*
FROM runs r
ORDER BY r.statement_id, r.finished_at DESC, r.id DESC;

-- statement_results as in 00006, and review_flag_details last.
CREATE OR REPLACE VIEW statement_results AS
SELECT s.id AS statement_id, s.external_id, s.text, s.question, s.language,
       r.id AS run_id, r.job_id, r.method, r.requested_method, r.model, r.status,
       r.result_status, r.status_reason, r.error, r.draft, r.revised_text, r.report,
       k.checked,
       v.claims, v.supported, v.refuted, v.partly_supported, v.unverified, v.not_checked,
       r.model_calls, r.search_calls, r.total_tokens, r.reverify, r.review_flags,
       r.started_at, r.finished_at, r.duration_ms,
       r.review_flag_details
FROM statements s
JOIN latest_runs r ON r.statement_id = s.id
CROSS JOIN LATERAL (SELECT count(*)::int AS checked FROM checks c WHERE c.run_id = r.id) k
CROSS JOIN LATERAL (
    SELECT count(*)::int AS claims,
           count(*) FILTER (WHERE c.verdict = 'supported')::int AS supported,
           count(*) FILTER (WHERE c.verdict = 'refuted')::int AS refuted,
           count(*) FILTER (WHERE c.verdict = 'partly_supported')::int AS partly_supported,
           count(*) FILTER (WHERE c.verdict = 'unverified')::int AS unverified,
           count(*) FILTER (WHERE c.verdict = 'not_checked')::int AS not_checked
    FROM claims c WHERE c.run_id = r.id
) v;

-- +goose Down
-- The flags joined back into "code: detail" strings, and the views of 00006 without the column.
-- A view cannot lose a column by CREATE OR REPLACE: the three on latest_runs are made again.
DROP VIEW claim_results;
DROP VIEW statement_results;
DROP VIEW latest_runs;

UPDATE runs SET review_flags = ARRAY(
    SELECT (f.flag->>'code') || coalesce(': ' || (f.flag->>'detail'), '')
    FROM jsonb_array_elements(review_flag_details) WITH ORDINALITY AS f(flag, n) ORDER BY f.n)
WHERE jsonb_array_length(review_flag_details) > 0;
ALTER TABLE runs DROP COLUMN review_flag_details;

CREATE VIEW latest_runs AS
SELECT DISTINCT ON (r.statement_id) r.*
FROM runs r
ORDER BY r.statement_id, r.finished_at DESC, r.id DESC;

CREATE VIEW statement_results AS
SELECT s.id AS statement_id, s.external_id, s.text, s.question, s.language,
       r.id AS run_id, r.job_id, r.method, r.requested_method, r.model, r.status,
       r.result_status, r.status_reason, r.error, r.draft, r.revised_text, r.report,
       k.checked,
       v.claims, v.supported, v.refuted, v.partly_supported, v.unverified, v.not_checked,
       r.model_calls, r.search_calls, r.total_tokens, r.reverify, r.review_flags,
       r.started_at, r.finished_at, r.duration_ms
FROM statements s
JOIN latest_runs r ON r.statement_id = s.id
CROSS JOIN LATERAL (SELECT count(*)::int AS checked FROM checks c WHERE c.run_id = r.id) k
CROSS JOIN LATERAL (
    SELECT count(*)::int AS claims,
           count(*) FILTER (WHERE c.verdict = 'supported')::int AS supported,
           count(*) FILTER (WHERE c.verdict = 'refuted')::int AS refuted,
           count(*) FILTER (WHERE c.verdict = 'partly_supported')::int AS partly_supported,
           count(*) FILTER (WHERE c.verdict = 'unverified')::int AS unverified,
           count(*) FILTER (WHERE c.verdict = 'not_checked')::int AS not_checked
    FROM claims c WHERE c.run_id = r.id
) v;

CREATE VIEW claim_results AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, r.job_id, r.method, r.model,
       c.position, c.claim_key, c.text AS claim_text, c.span_text, c.tier, c.verification_query,
       c.verdict, c.variant_verdict, c.confidence, c.reason, c.consistent_part, c.corrected_text,
       c.check_position, k.question AS check_question, k.answer AS check_answer,
       c.citations,
       cited_urls(c.run_id, c.citations) AS citation_urls,
       r.finished_at
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position;
