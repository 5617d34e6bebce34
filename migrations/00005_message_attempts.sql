-- +goose Up

-- message_attempts: one row per handled attempt of a message (a delivery that a worker took to an
-- outcome), as river keeps every error of a job: messages.reason is only the latest word, and a
-- job retried twice before it was done kept no trace of why. A delivery cut short by a crash
-- leaves no row (nothing handled it), so counting a message's rows counts its handled attempts,
-- which is what deciding to dead-letter on real attempts needs; messages.attempts stays the
-- highest delivery number seen.
CREATE TABLE message_attempts (
    job_id       text NOT NULL,
    stream_seq   bigint NOT NULL,
    attempt      integer NOT NULL,
    outcome      text NOT NULL CHECK (outcome IN ('done', 'rejected', 'failed', 'dead', 'retry', 'interrupted')),
    reason       text,
    worker       text,
    received_at  timestamptz NOT NULL,
    finished_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, stream_seq, attempt),
    FOREIGN KEY (job_id, stream_seq) REFERENCES messages (job_id, stream_seq) ON DELETE CASCADE
);

-- job_outcomes keeps its columns, in their order, and adds handled_attempts: the number of rows
-- of the message in message_attempts.
CREATE OR REPLACE VIEW job_outcomes AS
SELECT m.job_id, m.stream_seq, m.subject, m.status, m.reason, m.attempts,
       m.first_received_at AS received_at, m.last_received_at, m.finished_at,
       m.run_id, r.statement_id, m.payload,
       (SELECT count(*) FROM message_attempts a
        WHERE a.job_id = m.job_id AND a.stream_seq = m.stream_seq)::int AS handled_attempts
FROM messages m
LEFT JOIN runs r ON r.id = m.run_id;

-- +goose Down
DROP VIEW job_outcomes;
CREATE VIEW job_outcomes AS
SELECT m.job_id, m.stream_seq, m.subject, m.status, m.reason, m.attempts,
       m.first_received_at AS received_at, m.last_received_at, m.finished_at,
       m.run_id, r.statement_id, m.payload
FROM messages m
LEFT JOIN runs r ON r.id = m.run_id;
DROP TABLE message_attempts;
