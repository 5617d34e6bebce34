-- +goose Up

-- A claim checked once (issue 16, item 4). claims.reuse_key is a claim's normalised text (NULL:
-- never offered for reuse: time-sensitive, unchecked, or a method that does not reuse),
-- reuse_words its content words sorted (the candidates of a reworded match, which must have the
-- same), and reuse_context what else must match (method, language, evidence options); reused_from_run and
-- reused_from_position link a claim whose evidence and verdict were reused to the claim of the
-- run that verified it.
ALTER TABLE claims
    ADD COLUMN reuse_key            text,
    ADD COLUMN reuse_words          text,
    ADD COLUMN reuse_context        text,
    ADD COLUMN reused_from_run      bigint REFERENCES runs (id) ON DELETE SET NULL,
    ADD COLUMN reused_from_position integer;
CREATE INDEX claims_reuse ON claims (reuse_context, reuse_key) WHERE reuse_key IS NOT NULL;
CREATE INDEX claims_reuse_words ON claims (reuse_context, reuse_words) WHERE reuse_key IS NOT NULL;

-- claim_leases: the claims being verified right now, one row per claim key, so that concurrent
-- jobs with the same claim wait for one verification instead of paying twice. A lease is the
-- job's until its run is stored (then deleted) or until it expires (a worker that died).
CREATE TABLE claim_leases (
    context    text NOT NULL,
    key        text NOT NULL,
    job_id     text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (context, key)
);
CREATE INDEX claim_leases_job ON claim_leases (job_id);

-- claim_results as in 00013 (the standing verdict), and three columns last: where a reused
-- claim's verdict came from.
CREATE OR REPLACE VIEW claim_results AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, r.job_id, r.method, r.model,
       c.position, c.claim_key, c.text AS claim_text, c.span_text, c.tier, c.verification_query,
       c.verdict, c.variant_verdict, c.confidence, c.reason, c.consistent_part, c.corrected_text,
       c.check_position, k.question AS check_question, k.answer AS check_answer,
       c.citations,
       cited_urls(c.run_id, c.citations) AS citation_urls,
       r.finished_at,
       c.verdict = 'supported' AND coalesce(c.confidence IN ('High', 'Medium'), false) AS confirmed,
       cited_passages(c.run_id, c.position, c.citations) AS cited_passages,
       ev.standing_verdict,
       ev.standing_source,
       c.reused_from_run, c.reused_from_position, fr.job_id AS reused_from_job
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position
JOIN editorial_verdicts ev ON ev.run_id = c.run_id AND ev.position = c.position
LEFT JOIN runs fr ON fr.id = c.reused_from_run;

-- +goose Down
DROP VIEW claim_results;
-- claim_results as 00013 left it.
CREATE VIEW claim_results AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, r.job_id, r.method, r.model,
       c.position, c.claim_key, c.text AS claim_text, c.span_text, c.tier, c.verification_query,
       c.verdict, c.variant_verdict, c.confidence, c.reason, c.consistent_part, c.corrected_text,
       c.check_position, k.question AS check_question, k.answer AS check_answer,
       c.citations,
       cited_urls(c.run_id, c.citations) AS citation_urls,
       r.finished_at,
       c.verdict = 'supported' AND coalesce(c.confidence IN ('High', 'Medium'), false) AS confirmed,
       cited_passages(c.run_id, c.position, c.citations) AS cited_passages,
       ev.standing_verdict,
       ev.standing_source
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position
JOIN editorial_verdicts ev ON ev.run_id = c.run_id AND ev.position = c.position;
DROP TABLE claim_leases;
DROP INDEX claims_reuse_words;
DROP INDEX claims_reuse;
ALTER TABLE claims
    DROP COLUMN reuse_key,
    DROP COLUMN reuse_words,
    DROP COLUMN reuse_context,
    DROP COLUMN reused_from_run,
    DROP COLUMN reused_from_position;
