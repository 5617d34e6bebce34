-- +goose Up

-- Evidence from the page, not the snippet (issue 26). When a run read the page behind a source,
-- its evidence row says what it read and when: page_fetched_at (the first fetch, for a page
-- the cache answered: page_cached), page_status (the final HTTP status), page_final_url (after
-- redirects), page_content_type, page_text_sha256 (hex SHA-256 of the main text the passages
-- come from) and page_passages (the passages the judge was given: [{"start","end","text"}],
-- byte offsets in that text). A page that was not read has page_failure (why: one word of the
-- list below) and page_error (what happened). All NULL when no read was tried (the corpus, or
-- page reading off). No view changes: the new columns are additions.
ALTER TABLE evidence
    ADD COLUMN page_fetched_at   timestamptz,
    ADD COLUMN page_cached       boolean,
    ADD COLUMN page_status       integer,
    ADD COLUMN page_final_url    text,
    ADD COLUMN page_content_type text,
    ADD COLUMN page_text_sha256  text CHECK (page_text_sha256 ~ '^[0-9a-f]{64}$'),
    ADD COLUMN page_passages     jsonb,
    ADD COLUMN page_failure      text CHECK (page_failure IN ('address_refused', 'scheme_refused',
        'robots_disallowed', 'too_large', 'timeout', 'too_many_redirects', 'http_error',
        'unsupported_type', 'no_text', 'network_error')),
    ADD COLUMN page_error        text;

-- +goose Down
ALTER TABLE evidence
    DROP COLUMN page_error,
    DROP COLUMN page_failure,
    DROP COLUMN page_passages,
    DROP COLUMN page_text_sha256,
    DROP COLUMN page_content_type,
    DROP COLUMN page_final_url,
    DROP COLUMN page_status,
    DROP COLUMN page_cached,
    DROP COLUMN page_fetched_at;
