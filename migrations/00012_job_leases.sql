-- +goose Up

-- job_leases: the job ids being run right now, one row each. A worker takes a job's lease before
-- its method runs and gives it back once the outcome is recorded, so that copies of one job
-- delivered together (the same body published twice outside the dedupe window, a redelivery
-- while the first delivery still runs) wait for the first instead of running it again. A lease
-- is renewed with the job's heartbeat and lapses at expires_at, so that a worker killed while
-- holding one blocks nobody for long. Times are the database's (now()), not the workers' clocks.
CREATE TABLE job_leases (
    job_id      text PRIMARY KEY,
    -- token names one holding (worker, message, attempt and a random part): only its holder
    -- renews or releases it.
    token       text NOT NULL,
    worker      text,
    stream_seq  bigint,
    taken_at    timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);

-- 'duplicate': a message whose job already had its run stored by another message (a copy
-- published again, a job re-enqueued after JetStream forgot its id). It is acknowledged without
-- running, its run_id points at the job's run and its reason says how that run ended, so that
-- counting job_outcomes by status counts each job's outcome once. job_outcomes keeps its columns;
-- its status column gains the value.
ALTER TABLE messages DROP CONSTRAINT messages_status_check,
    ADD CONSTRAINT messages_status_check
        CHECK (status IN ('pending', 'done', 'rejected', 'failed', 'dead', 'duplicate'));
ALTER TABLE message_attempts DROP CONSTRAINT message_attempts_outcome_check,
    ADD CONSTRAINT message_attempts_outcome_check
        CHECK (outcome IN ('done', 'rejected', 'failed', 'dead', 'retry', 'interrupted', 'duplicate'));

-- Statements without a run were left by copies of a job whose run another copy stored first
-- (SaveRun committed the copy's statement; it now undoes it). No run refers to them, no view
-- shows them: they go. Down cannot bring them back, and need not.
DELETE FROM statements s WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE r.statement_id = s.id);

-- +goose Down
-- Before 00012 a duplicate was recorded done.
UPDATE messages SET status = 'done' WHERE status = 'duplicate';
UPDATE message_attempts SET outcome = 'done' WHERE outcome = 'duplicate';
ALTER TABLE message_attempts DROP CONSTRAINT message_attempts_outcome_check,
    ADD CONSTRAINT message_attempts_outcome_check
        CHECK (outcome IN ('done', 'rejected', 'failed', 'dead', 'retry', 'interrupted'));
ALTER TABLE messages DROP CONSTRAINT messages_status_check,
    ADD CONSTRAINT messages_status_check
        CHECK (status IN ('pending', 'done', 'rejected', 'failed', 'dead'));
DROP TABLE job_leases;
