-- +goose Up

-- statements: what was sent to be verified. One row per distinct (producer reference, question,
-- text); every job on it, first run or re-verification, is a row in runs.
CREATE TABLE statements (
    id           bigserial PRIMARY KEY,
    content_key  text NOT NULL UNIQUE,
    external_id  text,
    text         text,
    question     text,
    language     text NOT NULL DEFAULT 'en',
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX statements_external_id ON statements (external_id);

-- messages: one row per JetStream message received (job id and stream sequence); a redelivery
-- updates its row. The job_outcomes view reads it.
CREATE TABLE messages (
    id                bigserial PRIMARY KEY,
    job_id            text NOT NULL,
    stream            text NOT NULL DEFAULT '',
    stream_seq        bigint NOT NULL,
    subject           text NOT NULL,
    status            text NOT NULL CHECK (status IN ('pending', 'done', 'rejected', 'failed', 'dead')),
    reason            text,
    attempts          integer NOT NULL DEFAULT 1,
    -- payload is kept for every message that did not end done, so that it can be inspected and
    -- re-published: rejected, failed and dead messages are the dead letters.
    payload           bytea,
    run_id            bigint,
    first_received_at timestamptz NOT NULL DEFAULT now(),
    last_received_at  timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    UNIQUE (job_id, stream_seq)
);
CREATE INDEX messages_status ON messages (status, last_received_at);

-- runs: one per job (job_id unique): which method and model, how it ended, what it cost.
CREATE TABLE runs (
    id                bigserial PRIMARY KEY,
    job_id            text NOT NULL UNIQUE,
    statement_id      bigint NOT NULL REFERENCES statements (id),
    method            text NOT NULL,
    -- requested_method differs from method when the worker ran another one (method_reason says
    -- why: the Joint agreement-rate switch, for example).
    requested_method  text NOT NULL,
    method_reason     text,
    model             text,
    status            text NOT NULL CHECK (status IN ('done', 'failed')),
    result_status     text CHECK (result_status IN ('checked', 'nothing_checked', 'no_verification_needed')),
    status_reason     text,
    error             text,
    attempt           integer NOT NULL DEFAULT 1,
    reverify          boolean NOT NULL DEFAULT false,
    options           jsonb NOT NULL DEFAULT '{}',
    draft             text,
    draft_from_input  boolean NOT NULL DEFAULT false,
    plan_raw          text,
    plan              jsonb,
    plan_violations   jsonb,
    plan_repaired     boolean NOT NULL DEFAULT false,
    revised_text      text,
    report            text,
    agreed            boolean,
    review_flags      text[] NOT NULL DEFAULT '{}',
    model_calls       integer NOT NULL DEFAULT 0,
    search_calls      integer NOT NULL DEFAULT 0,
    prompt_tokens     bigint NOT NULL DEFAULT 0,
    completion_tokens bigint NOT NULL DEFAULT 0,
    total_tokens      bigint NOT NULL DEFAULT 0,
    subject           text,
    stream_seq        bigint,
    worker            text,
    received_at       timestamptz,
    started_at        timestamptz NOT NULL,
    finished_at       timestamptz NOT NULL,
    duration_ms       double precision NOT NULL
);
CREATE INDEX runs_statement ON runs (statement_id, finished_at DESC, id DESC);
CREATE INDEX runs_finished ON runs (finished_at);
CREATE INDEX runs_agreement ON runs (model, finished_at DESC) WHERE method = 'cove-joint' AND agreed IS NOT NULL;
ALTER TABLE messages ADD FOREIGN KEY (run_id) REFERENCES runs (id);

-- checks: verification questions and their answers, in plan order.
CREATE TABLE checks (
    run_id          bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position        integer NOT NULL,
    question        text NOT NULL,
    answer          text,
    status          text NOT NULL CHECK (status IN ('answered', 'unsure', 'failed')),
    error           text,
    attempts        integer NOT NULL DEFAULT 1,
    claim_position  integer,
    PRIMARY KEY (run_id, position)
);

-- claims: the claims of a statement and their verdicts, in one vocabulary across methods.
CREATE TABLE claims (
    run_id                    bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position                  integer NOT NULL,
    claim_key                 text,
    text                      text NOT NULL,
    span_start                integer,
    span_end                  integer,
    span_text                 text,
    entities                  jsonb,
    verifiable                boolean,
    requires_temporal_scope   boolean,
    ambiguity_note            text,
    tier                      text CHECK (tier IN ('deep', 'shallow')),
    verification_query        text,
    query_flags               text[] NOT NULL DEFAULT '{}',
    sub_queries               jsonb,
    source_independence_score double precision,
    verdict                   text NOT NULL CHECK (verdict IN ('supported', 'refuted', 'partly_supported', 'unverified', 'not_checked')),
    variant_verdict           text,
    confidence                text,
    reason                    text,
    consistent_part           text,
    corrected_text            text,
    check_position            integer,
    citations                 integer[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, position),
    CHECK (verdict NOT IN ('unverified', 'not_checked') OR reason IS NOT NULL)
);

-- model_calls: every call to the model, with the full prompt and the full reply.
CREATE TABLE model_calls (
    run_id             bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                integer NOT NULL,
    step               text NOT NULL,
    target             integer,
    prompt             text NOT NULL,
    reply              text,
    model              text,
    finish_reason      text,
    prompt_tokens      bigint NOT NULL DEFAULT 0,
    completion_tokens  bigint NOT NULL DEFAULT 0,
    started_at         timestamptz NOT NULL,
    latency_ms         double precision NOT NULL,
    error              text,
    PRIMARY KEY (run_id, seq)
);

-- search_calls: every search a run made, with its options and results.
CREATE TABLE search_calls (
    run_id        bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq           integer NOT NULL,
    provider      text NOT NULL,
    query         text NOT NULL,
    options       jsonb NOT NULL DEFAULT '{}',
    results       jsonb,
    result_count  integer NOT NULL DEFAULT 0,
    cached        boolean NOT NULL DEFAULT false,
    started_at    timestamptz NOT NULL,
    latency_ms    double precision NOT NULL,
    error         text,
    PRIMARY KEY (run_id, seq)
);

-- query_hops: the hops of multi-hop query chains, with what each excluded for independence.
CREATE TABLE query_hops (
    run_id                 bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    claim_position         integer NOT NULL,
    hop_number             integer NOT NULL,
    query                  text NOT NULL,
    target_source_type     text,
    expected_evidence_type text,
    excluded_domains       text[] NOT NULL DEFAULT '{}',
    excluded_publishers    text[] NOT NULL DEFAULT '{}',
    excluded_urls          text[] NOT NULL DEFAULT '{}',
    status                 text,
    note                   text,
    search_seq             integer,
    PRIMARY KEY (run_id, claim_position, hop_number)
);

-- cross_validations: queries that test two or more claims jointly.
CREATE TABLE cross_validations (
    run_id          bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position        integer NOT NULL,
    query           text NOT NULL,
    relationship    text,
    claim_positions integer[] NOT NULL,
    verdict         text CHECK (verdict IN ('supported', 'refuted', 'partly_supported', 'unverified', 'not_checked')),
    reason          text,
    search_seq      integer,
    PRIMARY KEY (run_id, position)
);

-- evidence: what searches returned and verifiers used; source_number is the [n] of citations.
CREATE TABLE evidence (
    run_id          bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    id              integer NOT NULL,
    source_number   integer,
    claim_position  integer,
    hop_number      integer,
    search_seq      integer,
    url             text NOT NULL,
    title           text,
    snippet         text,
    quote           text,
    domain          text,
    publisher       text,
    published_at    timestamptz,
    provider        text,
    rank            integer,
    PRIMARY KEY (run_id, id)
);
CREATE INDEX evidence_claim ON evidence (run_id, claim_position);

-- documents: the PostgreSQL search corpus (a newsroom's archive), with full-text search.
CREATE TABLE documents (
    id            bigserial PRIMARY KEY,
    url           text NOT NULL UNIQUE,
    title         text NOT NULL DEFAULT '',
    body          text NOT NULL DEFAULT '',
    publisher     text,
    domain        text NOT NULL DEFAULT '',
    published_at  timestamptz,
    language      text NOT NULL DEFAULT 'en',
    ts_config     regconfig NOT NULL DEFAULT 'simple',
    tsv           tsvector GENERATED ALWAYS AS (
                      setweight(to_tsvector(ts_config, coalesce(title, '')), 'A') ||
                      setweight(to_tsvector(ts_config, coalesce(body, '')), 'B')) STORED,
    length        integer NOT NULL DEFAULT 0,
    loaded_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX documents_tsv ON documents USING gin (tsv);
CREATE INDEX documents_domain ON documents (domain);
CREATE INDEX documents_published ON documents (published_at);

-- search_cache: search results by provider, query and options, until expires_at.
CREATE TABLE search_cache (
    provider    text NOT NULL,
    cache_key   text NOT NULL,
    query       text NOT NULL,
    options     jsonb NOT NULL DEFAULT '{}',
    results     jsonb NOT NULL,
    fetched_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (provider, cache_key)
);

-- Reporting views. Their columns are a public contract (README, "Reporting views"): tables may
-- change, a view changes only by a migration that keeps its old columns working.

CREATE VIEW job_outcomes AS
SELECT m.job_id, m.stream_seq, m.subject, m.status, m.reason, m.attempts,
       m.first_received_at AS received_at, m.last_received_at, m.finished_at,
       m.run_id, r.statement_id, m.payload
FROM messages m
LEFT JOIN runs r ON r.id = m.run_id;

CREATE VIEW latest_runs AS
SELECT DISTINCT ON (r.statement_id) r.*
FROM runs r
ORDER BY r.statement_id, r.finished_at DESC, r.id DESC;

CREATE VIEW statement_results AS
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

CREATE VIEW claim_results AS
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

-- joint_agreement: per model, how often cove-joint checks agreed with the draft, overall and
-- over the last 50 runs (the worker's switch to cove-factored uses its own configured window).
CREATE VIEW joint_agreement AS
WITH ranked AS (
    SELECT model, agreed, finished_at,
           row_number() OVER (PARTITION BY model ORDER BY finished_at DESC, id DESC) AS recency
    FROM runs
    WHERE method = 'cove-joint' AND agreed IS NOT NULL
)
SELECT model, count(*)::int AS runs,
       count(*) FILTER (WHERE agreed)::int AS agreed,
       avg(CASE WHEN agreed THEN 1.0 ELSE 0.0 END)::double precision AS agreement_rate,
       count(*) FILTER (WHERE recency <= 50)::int AS recent_runs,
       (avg(CASE WHEN agreed THEN 1.0 ELSE 0.0 END) FILTER (WHERE recency <= 50))::double precision AS recent_agreement_rate,
       max(finished_at) AS last_run_at
FROM ranked
GROUP BY model;

-- +goose Down
DROP VIEW joint_agreement;
DROP VIEW verdict_changes;
DROP VIEW claim_results;
DROP VIEW statement_results;
DROP VIEW latest_runs;
DROP VIEW job_outcomes;
DROP TABLE search_cache;
DROP TABLE documents;
DROP TABLE evidence;
DROP TABLE cross_validations;
DROP TABLE query_hops;
DROP TABLE search_calls;
DROP TABLE model_calls;
DROP TABLE claims;
DROP TABLE checks;
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_run_id_fkey;
DROP TABLE runs;
DROP TABLE messages;
DROP TABLE statements;
