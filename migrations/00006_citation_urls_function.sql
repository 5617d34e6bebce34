-- +goose Up

-- One definition of "the URLs a claim cites", used by every view that lists them. The subquery was
-- copied into claim_results and twice into verdict_changes, and migration 00004 fixed its
-- duplicates in claim_results only: verdict_changes still listed a URL once per evidence row
-- carrying a cited source number (a source that two claims of a run cite is an evidence row of
-- each). A source number names one URL in a run, so each is listed once, in number order.
-- It runs once per claim row, as the subquery did (a body with a sub-SELECT is not inlined), on
-- the evidence primary key (run_id, id).
-- +goose StatementBegin
CREATE FUNCTION cited_urls(run_id bigint, citations integer[]) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ARRAY(SELECT DISTINCT ON (e.source_number) e.url FROM evidence e
                 WHERE e.run_id = cited_urls.run_id AND e.source_number = ANY (cited_urls.citations)
                 ORDER BY e.source_number, e.id)
$$;
-- +goose StatementEnd

CREATE OR REPLACE VIEW claim_results AS
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

CREATE OR REPLACE VIEW verdict_changes AS
SELECT r.statement_id, s.external_id, c.text AS claim_text,
       p.verdict AS old_verdict, c.verdict AS new_verdict,
       prev.id AS old_run_id, r.id AS new_run_id,
       r.finished_at AS changed_at, c.reason AS new_reason, p.reason AS old_reason,
       prev.finished_at AS old_finished_at,
       r.reverify,
       prev.method AS old_method, r.method AS new_method,
       p.confidence AS old_confidence, c.confidence AS new_confidence,
       cited_urls(p.run_id, p.citations) AS old_citation_urls,
       cited_urls(c.run_id, c.citations) AS new_citation_urls,
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

-- statement_results counted checks and claims with seven correlated subqueries per row: now one
-- aggregate over the run's claims with FILTER, and one count of its checks. Same columns, same
-- meaning, same order.
CREATE OR REPLACE VIEW statement_results AS
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

-- +goose Down
-- The views of 00001, 00003 and 00004 again.
CREATE OR REPLACE VIEW statement_results AS
SELECT s.id AS statement_id, s.external_id, s.text, s.question, s.language,
       r.id AS run_id, r.job_id, r.method, r.requested_method, r.model, r.status,
       r.result_status, r.status_reason, r.error, r.draft, r.revised_text, r.report,
       (SELECT count(*) FROM checks c WHERE c.run_id = r.id)::int AS checked,
       (SELECT count(*) FROM claims c WHERE c.run_id = r.id)::int AS claims,
       (SELECT count(*) FROM claims c WHERE c.run_id = r.id AND c.verdict = 'supported')::int AS supported,
       (SELECT count(*) FROM claims c WHERE c.run_id = r.id AND c.verdict = 'refuted')::int AS refuted,
       (SELECT count(*) FROM claims c WHERE c.run_id = r.id AND c.verdict = 'partly_supported')::int AS partly_supported,
       (SELECT count(*) FROM claims c WHERE c.run_id = r.id AND c.verdict = 'unverified')::int AS unverified,
       (SELECT count(*) FROM claims c WHERE c.run_id = r.id AND c.verdict = 'not_checked')::int AS not_checked,
       r.model_calls, r.search_calls, r.total_tokens, r.reverify, r.review_flags,
       r.started_at, r.finished_at, r.duration_ms
FROM statements s
JOIN latest_runs r ON r.statement_id = s.id;

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
CROSS JOIN LATERAL (
    SELECT o.run_id, o.verdict, o.reason, o.confidence, o.citations
    FROM claims o
    WHERE o.run_id = prev.id AND lower(btrim(o.text)) = lower(btrim(c.text))
    ORDER BY o.position
    LIMIT 1
) p
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position
WHERE r.status = 'done' AND p.verdict <> c.verdict;

CREATE OR REPLACE VIEW claim_results AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, r.job_id, r.method, r.model,
       c.position, c.claim_key, c.text AS claim_text, c.span_text, c.tier, c.verification_query,
       c.verdict, c.variant_verdict, c.confidence, c.reason, c.consistent_part, c.corrected_text,
       c.check_position, k.question AS check_question, k.answer AS check_answer,
       c.citations,
       ARRAY(SELECT DISTINCT ON (e.source_number) e.url FROM evidence e
             WHERE e.run_id = c.run_id AND e.source_number = ANY (c.citations)
             ORDER BY e.source_number, e.id) AS citation_urls,
       r.finished_at
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position;

DROP FUNCTION cited_urls(bigint, integer[]);
