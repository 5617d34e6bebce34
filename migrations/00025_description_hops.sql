-- +goose Up

-- query_hops.reason 'description' (issue 23): a search for the entity a bridge claim describes
-- whose judge named none, by what the statement says of it (the bridge claim's words and the
-- words of the claim building on it), recorded as that claim's hop.
ALTER TABLE query_hops DROP CONSTRAINT query_hops_reason_check;
ALTER TABLE query_hops
    ADD CONSTRAINT query_hops_reason_check CHECK (reason IN ('plan', 'follow_up', 'description'));

-- +goose Down
DELETE FROM query_hops WHERE reason = 'description';
ALTER TABLE query_hops DROP CONSTRAINT query_hops_reason_check;
ALTER TABLE query_hops
    ADD CONSTRAINT query_hops_reason_check CHECK (reason IN ('plan', 'follow_up'));
