-- +goose Up

-- messages.retry_of: the job a message runs again (enqueue retry), so that a failed or dead job
-- and the retry that fixed it stay linked. job_outcomes keeps every column, in order, and adds it.
ALTER TABLE messages ADD COLUMN retry_of text;
CREATE INDEX messages_retry_of ON messages (retry_of) WHERE retry_of IS NOT NULL;

CREATE OR REPLACE VIEW job_outcomes AS
SELECT m.job_id, m.stream_seq, m.subject, m.status, m.reason, m.attempts,
       m.first_received_at AS received_at, m.last_received_at, m.finished_at,
       m.run_id, r.statement_id, m.payload,
       (SELECT count(*) FROM message_attempts a
        WHERE a.job_id = m.job_id AND a.stream_seq = m.stream_seq)::int AS handled_attempts,
       m.retry_of
FROM messages m
LEFT JOIN runs r ON r.id = m.run_id;

-- +goose Down
DROP VIEW job_outcomes;
CREATE VIEW job_outcomes AS
SELECT m.job_id, m.stream_seq, m.subject, m.status, m.reason, m.attempts,
       m.first_received_at AS received_at, m.last_received_at, m.finished_at,
       m.run_id, r.statement_id, m.payload,
       (SELECT count(*) FROM message_attempts a
        WHERE a.job_id = m.job_id AND a.stream_seq = m.stream_seq)::int AS handled_attempts
FROM messages m
LEFT JOIN runs r ON r.id = m.run_id;
DROP INDEX messages_retry_of;
ALTER TABLE messages DROP COLUMN retry_of;
