-- +goose Up

-- claim_results.citation_urls listed a URL once per evidence row numbered with a cited source
-- number, and a source that two claims of a run cite is an evidence row of each: a claim citing
-- [1] got that URL twice. A source number names one URL in a run, so each is listed once, in
-- number order. The columns stay as they were.
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

-- +goose Down
CREATE OR REPLACE VIEW claim_results AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, r.job_id, r.method, r.model,
       c.position, c.claim_key, c.text AS claim_text, c.span_text, c.tier, c.verification_query,
       c.verdict, c.variant_verdict, c.confidence, c.reason, c.consistent_part, c.corrected_text,
       c.check_position, k.question AS check_question, k.answer AS check_answer,
       c.citations,
       ARRAY(SELECT e.url FROM evidence e
             WHERE e.run_id = c.run_id AND e.source_number = ANY (c.citations)
             ORDER BY e.source_number) AS citation_urls,
       r.finished_at
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position;
