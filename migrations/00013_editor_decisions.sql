-- +goose Up

-- Where a statement came from, when the job says so (optional job fields source_url,
-- source_author, published_at): the ClaimReview export names it as the claim's appearance.
-- A later job of the same statement that carries them fills them in; one that does not leaves
-- them as they were.
ALTER TABLE statements
    ADD COLUMN source_url    text,
    ADD COLUMN source_author text,
    ADD COLUMN published_at  timestamptz;

-- A revision corrected the text when the two differ once case, punctuation and spacing are
-- ignored (the rule of pipeline.SameText). The reports' "corrected" is this one function.
-- +goose StatementBegin
CREATE FUNCTION text_corrected(draft text, revised text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT revised IS NOT NULL AND btrim(revised) <> ''
       AND btrim(regexp_replace(lower(coalesce(draft, '')), '[^[:alnum:]]+', ' ', 'g'))
        <> btrim(regexp_replace(lower(revised), '[^[:alnum:]]+', ' ', 'g'))
$$;
-- +goose StatementEnd

-- Editors who may sign in to the review page (report users add NAME): the secret is shown once
-- and only its argon2id hash is kept.
CREATE TABLE editor_accounts (
    name          text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz
);

-- Editor decisions on a claim of a run: approve the machine's verdict (verdict is that verdict),
-- override it (verdict is the editor's, with a reason), or send it back for re-checking
-- (recheck_job_id is the re-verification published). Append-only: a decision is never changed
-- or deleted, and the machine's verdict in claims is never touched; the latest decision of a
-- claim is the one that counts (editorial_verdicts).
CREATE TABLE editor_decisions (
    id             bigserial PRIMARY KEY,
    decided_at     timestamptz NOT NULL DEFAULT now(),
    editor         text NOT NULL CHECK (btrim(editor) <> ''),
    run_id         bigint NOT NULL,
    claim_position integer NOT NULL,
    decision       text NOT NULL CHECK (decision IN ('approve', 'override', 'recheck')),
    verdict        text CHECK (verdict IN ('supported', 'refuted', 'partly_supported', 'unverified', 'not_checked')),
    reason         text,
    recheck_job_id text,
    FOREIGN KEY (run_id, claim_position) REFERENCES claims (run_id, position),
    CHECK ((decision = 'recheck') = (verdict IS NULL)),
    CHECK (decision <> 'override' OR btrim(coalesce(reason, '')) <> '')
);
CREATE INDEX editor_decisions_claim ON editor_decisions (run_id, claim_position, decided_at DESC, id DESC);

-- +goose StatementBegin
CREATE FUNCTION editor_decisions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'editor_decisions is append-only: record a new decision instead of changing one';
END
$$;
-- +goose StatementEnd
CREATE TRIGGER editor_decisions_append_only BEFORE UPDATE OR DELETE ON editor_decisions
    FOR EACH ROW EXECUTE FUNCTION editor_decisions_append_only();

-- One row per claim of the latest runs: what the machine said, the latest editor decision, and
-- which verdict stands. An approval or an override stands (standing_source 'editor'); with no
-- decision, or when the latest one sent the claim back for re-checking, the machine's verdict
-- stands (standing_source 'machine'). A re-verification is a new run whose claims start with no
-- decision.
CREATE VIEW editorial_verdicts AS
SELECT s.id AS statement_id, s.external_id, r.id AS run_id, c.position, c.text AS claim_text,
       c.verdict AS machine_verdict, c.confidence AS machine_confidence, c.reason AS machine_reason,
       d.id AS decision_id, d.decision, d.verdict AS decision_verdict, d.editor AS decided_by,
       d.decided_at, d.reason AS decision_reason, d.recheck_job_id,
       CASE WHEN d.decision IN ('approve', 'override') THEN d.verdict ELSE c.verdict END AS standing_verdict,
       CASE WHEN d.decision IN ('approve', 'override') THEN 'editor' ELSE 'machine' END AS standing_source,
       r.finished_at
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN LATERAL (
    SELECT * FROM editor_decisions e
    WHERE e.run_id = c.run_id AND e.claim_position = c.position
    ORDER BY e.decided_at DESC, e.id DESC LIMIT 1
) d ON true;

-- claim_results as in 00009, and last: the standing verdict and its source (editorial_verdicts).
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
       ev.standing_source
FROM claims c
JOIN latest_runs r ON r.id = c.run_id
JOIN statements s ON s.id = r.statement_id
LEFT JOIN checks k ON k.run_id = c.run_id AND k.position = c.check_position
JOIN editorial_verdicts ev ON ev.run_id = c.run_id AND ev.position = c.position;

-- statement_results as in 00009, and last:
--   corrected: the revision changed the text (text_corrected);
--   standing_verdict: the most severe standing verdict of its claims, in the order refuted,
--     partly_supported, unverified, not_checked, supported (NULL without claims);
--   standing_source: 'editor' when an editor's decision stands for every claim, 'machine' when for
--     none, 'mixed' otherwise (NULL without claims);
--   source_url, source_author, published_at: where the statement appeared, when the job said so.
CREATE OR REPLACE VIEW statement_results AS
SELECT s.id AS statement_id, s.external_id, s.text, s.question, s.language,
       r.id AS run_id, r.job_id, r.method, r.requested_method, r.model, r.status,
       r.result_status, r.status_reason, r.error, r.draft, r.revised_text, r.report,
       k.checked,
       v.claims, v.supported, v.refuted, v.partly_supported, v.unverified, v.not_checked,
       r.model_calls, r.search_calls, r.total_tokens, r.reverify, r.review_flags,
       r.started_at, r.finished_at, r.duration_ms,
       r.review_flag_details,
       v.confirmed,
       text_corrected(r.draft, r.revised_text) AS corrected,
       e.standing_verdict,
       e.standing_source,
       s.source_url, s.source_author, s.published_at
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
) v
CROSS JOIN LATERAL (
    SELECT (array_agg(ev.standing_verdict ORDER BY array_position(
               ARRAY['refuted', 'partly_supported', 'unverified', 'not_checked', 'supported'], ev.standing_verdict)))[1] AS standing_verdict,
           CASE WHEN count(*) = 0 THEN NULL
                WHEN bool_and(ev.standing_source = 'editor') THEN 'editor'
                WHEN bool_or(ev.standing_source = 'editor') THEN 'mixed'
                ELSE 'machine' END AS standing_source
    FROM editorial_verdicts ev WHERE ev.run_id = r.id
) e;

-- +goose Down
DROP VIEW statement_results;
DROP VIEW claim_results;
DROP VIEW editorial_verdicts;
DROP TABLE editor_decisions;
DROP FUNCTION editor_decisions_append_only();
DROP TABLE editor_accounts;
DROP FUNCTION text_corrected(text, text);
ALTER TABLE statements DROP COLUMN source_url, DROP COLUMN source_author, DROP COLUMN published_at;

CREATE VIEW claim_results AS
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

CREATE VIEW statement_results AS
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
