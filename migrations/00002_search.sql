-- +goose Up

-- BM25 ranking in the corpus needs what PostgreSQL's own rankers lack: how rare each lexeme is
-- (document frequency) and how long each document is against the average. documents.tsv and
-- documents.length are computed together by one trigger (one to_tsvector per write, instead of
-- a generated column plus a second pass for the length), and statement-level triggers keep the
-- per-configuration statistics as documents load, change or go: whatever writes the table, the
-- loader or plain SQL, the statistics stay right.

ALTER TABLE documents ALTER COLUMN tsv DROP EXPRESSION;

-- +goose StatementBegin
CREATE FUNCTION documents_index() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.tsv := setweight(to_tsvector(NEW.ts_config, coalesce(NEW.title, '')), 'A') ||
               setweight(to_tsvector(NEW.ts_config, coalesce(NEW.body, '')), 'B');
    -- length is the number of indexed tokens (title and body, stop words excluded), the document
    -- length of BM25: the sum of each lexeme's positions.
    NEW.length := coalesce((SELECT sum(cardinality(u.positions)) FROM unnest(NEW.tsv) AS u), 0);
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER documents_index BEFORE INSERT OR UPDATE ON documents
    FOR EACH ROW EXECUTE FUNCTION documents_index();

-- Re-index what is already there through the new trigger.
UPDATE documents SET title = title;

-- corpus_configs: per text search configuration, how many documents and how many tokens.
CREATE TABLE corpus_configs (
    ts_config     regconfig PRIMARY KEY,
    documents     bigint NOT NULL,
    total_length  bigint NOT NULL
);

-- corpus_lexemes: per configuration and lexeme, the number of documents that contain it.
CREATE TABLE corpus_lexemes (
    ts_config  regconfig NOT NULL,
    lexeme     text NOT NULL,
    documents  integer NOT NULL,
    PRIMARY KEY (ts_config, lexeme)
);

INSERT INTO corpus_configs (ts_config, documents, total_length)
SELECT ts_config, count(*), sum(length) FROM documents GROUP BY ts_config;

INSERT INTO corpus_lexemes (ts_config, lexeme, documents)
SELECT d.ts_config, l.lexeme, count(*)
FROM documents d, unnest(tsvector_to_array(d.tsv)) AS l(lexeme)
GROUP BY d.ts_config, l.lexeme;

-- corpus_stats_apply adds the rows of new_docs and subtracts those of old_docs (the statement's
-- transition tables: an INSERT has only the first, a DELETE only the second, so the source is
-- chosen by TG_OP and the work is one dynamic statement). Rows are upserted in key order, so that
-- concurrent loads take their row locks in the same order and cannot deadlock.
-- +goose StatementBegin
CREATE FUNCTION corpus_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    source text := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT 1 AS sign, ts_config, tsv, length FROM new_docs'
        WHEN 'DELETE' THEN 'SELECT -1 AS sign, ts_config, tsv, length FROM old_docs'
        ELSE 'SELECT 1 AS sign, ts_config, tsv, length FROM new_docs
              UNION ALL SELECT -1, ts_config, tsv, length FROM old_docs'
    END;
BEGIN
    EXECUTE format($q$
        WITH delta AS (%s),
        configs AS (
            INSERT INTO corpus_configs AS c (ts_config, documents, total_length)
            SELECT ts_config, sum(sign), sum(sign * length) FROM delta
            GROUP BY ts_config ORDER BY ts_config
            ON CONFLICT (ts_config) DO UPDATE
                SET documents = c.documents + EXCLUDED.documents,
                    total_length = c.total_length + EXCLUDED.total_length
        )
        INSERT INTO corpus_lexemes AS l (ts_config, lexeme, documents)
        SELECT d.ts_config, x.lexeme, sum(d.sign)
        FROM delta d, unnest(tsvector_to_array(d.tsv)) AS x(lexeme)
        GROUP BY d.ts_config, x.lexeme
        HAVING sum(d.sign) <> 0
        ORDER BY d.ts_config, x.lexeme
        ON CONFLICT (ts_config, lexeme) DO UPDATE SET documents = l.documents + EXCLUDED.documents
    $q$, source);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Transition tables allow one event per trigger, hence three.
CREATE TRIGGER documents_stats_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_docs FOR EACH STATEMENT EXECUTE FUNCTION corpus_stats_apply();
CREATE TRIGGER documents_stats_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS old_docs NEW TABLE AS new_docs FOR EACH STATEMENT EXECUTE FUNCTION corpus_stats_apply();
CREATE TRIGGER documents_stats_delete AFTER DELETE ON documents
    REFERENCING OLD TABLE AS old_docs FOR EACH STATEMENT EXECUTE FUNCTION corpus_stats_apply();

CREATE INDEX documents_ts_config ON documents (ts_config);

-- Expired cache rows are purged by expiry time.
CREATE INDEX search_cache_expires ON search_cache (expires_at);

-- +goose Down
DROP INDEX search_cache_expires;
DROP INDEX documents_ts_config;
DROP TRIGGER documents_stats_delete ON documents;
DROP TRIGGER documents_stats_update ON documents;
DROP TRIGGER documents_stats_insert ON documents;
DROP FUNCTION corpus_stats_apply();
DROP TABLE corpus_lexemes;
DROP TABLE corpus_configs;
DROP TRIGGER documents_index ON documents;
DROP FUNCTION documents_index();
ALTER TABLE documents DROP COLUMN tsv;
ALTER TABLE documents ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector(ts_config, coalesce(title, '')), 'A') ||
    setweight(to_tsvector(ts_config, coalesce(body, '')), 'B')) STORED;
CREATE INDEX documents_tsv ON documents USING gin (tsv);
