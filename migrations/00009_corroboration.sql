-- +goose Up

-- Corroboration (docs/corroboration.md). evidence.quote already holds, per claim and cited source,
-- the passage the verdict relies on (checked in code to be in that source's text); stance says
-- whether that source supports or refutes the claim (multihop's judge names it; NULL when the
-- method gives none, as cove2's verifier, or when the source was not cited).
ALTER TABLE evidence ADD COLUMN stance text CHECK (stance IN ('supports', 'refutes'));

-- The passages a claim's citations rely on, one per cited source number, in number order:
-- [{"n": 2, "url": ..., "passage": ..., "stance": ...}] (stance and passage left out when NULL).
-- +goose StatementBegin
CREATE FUNCTION cited_passages(run_id bigint, claim_position integer, citations integer[]) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
               'n', p.source_number, 'url', p.url, 'passage', p.quote, 'stance', p.stance)) ORDER BY p.source_number), '[]')
    FROM (SELECT DISTINCT ON (e.source_number) e.source_number, e.url, e.quote, e.stance
          FROM evidence e
          WHERE e.run_id = cited_passages.run_id AND e.claim_position = cited_passages.claim_position
            AND e.source_number = ANY (cited_passages.citations)
          ORDER BY e.source_number, (e.quote IS NULL), e.id) p
$$;
-- +goose StatementEnd

-- statement_results as in 00007, and confirmed last: the claims that are supported at High or
-- Medium confidence. supported keeps counting every supported verdict (closed-book CoVe methods
-- and cove2's shallow claims carry no confidence), so a report of what was Confirmed reads
-- confirmed, never supported.
CREATE OR REPLACE VIEW statement_results AS
SELECT s.id AS statement_id, s.external_id, s.text, s.question, s.language,
       r.id AS run_id, r.job_id, r.method, r.requested_method, r.model, r.status,
       r.result_status, r.status_reason, r.error, r.draft, r.revised_text, r.report,
       k.checked,
       v.claims, v.supported, v.refuted, v.partly_supported, v.unverified, v.not_checked,
       r.model_calls, r.search_calls, r.total_tokens, r.reverify, r.review_flags,
       r.started_at, r.finished_at, r.duration_ms,
       r.review_flag_details,
       v.confirmed
FROM statements s
JOIN latest_runs r ON r.statement_id = s.id
CROSS JOIN LATERAL (SELECT count(*)::int AS checked FROM checks c WHERE c.run_id = r.id) k
CROSS JOIN LATERAL (
    SELECT count(*)::int AS claims,
           count(*) FILTER (WHERE c.verdict = 'supported')::int AS supported,
           count(*) FILTER (WHERE c.verdict = 'refuted')::int AS refuted,
           count(*) FILTER (WHERE c.verdict = 'partly_supported')::int AS partly_supported,
           count(*) FILTER (WHERE c.verdict = 'unverified')::int AS unverified,
           count(*) FILTER (WHERE c.verdict = 'not_checked')::int AS not_checked,
           count(*) FILTER (WHERE c.verdict = 'supported' AND c.confidence IN ('High', 'Medium'))::int AS confirmed
    FROM claims c WHERE c.run_id = r.id
) v;

-- claim_results as in 00007, and two columns last: confirmed (supported at High or Medium) and
-- cited_passages (cited_passages above).
CREATE OR REPLACE VIEW claim_results AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, r.job_id, r.method, r.model,
       c.position, c.claim_key, c.text AS claim_text, c.span_text, c.tier, c.verification_query,
       c.verdict, c.variant_verdict, c.confidence, c.reason, c.consistent_part, c.corrected_text,
       c.check_position, k.question AS check_question, k.answer AS check_answer,
       c.citations,
       cited_urls(c.run_id, c.citations) AS citation_urls,
       r.finished_at,
       c.verdict = 'supported' AND coalesce(c.confidence IN ('High', 'Medium'), false) AS confirmed,
       cited_passages(c.run_id, c.position, c.citations) AS cited_passages
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position;

-- +goose Down
DROP VIEW claim_results;
DROP VIEW statement_results;
DROP FUNCTION cited_passages(bigint, integer, integer[]);
ALTER TABLE evidence DROP COLUMN stance;

CREATE VIEW statement_results AS
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
