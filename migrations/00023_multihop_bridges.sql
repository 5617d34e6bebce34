-- +goose Up

-- Multi-hop that bridges (issue 23). evidence.from_claim_position: the source was given to the
-- claim's judge because a claim it depends on cited it (that claim's position); NULL for the
-- claim's own evidence. evidence.not_independent_of_hop: the source shares a domain, publisher
-- or document with that earlier hop of the chain (the search of an emptied hop, run without its
-- exclusions, found it); it reached the judge marked so and counts as one voice with that hop.
-- query_hops.reason: why the hop ran, 'plan' or 'follow_up' (a search for what the judge found
-- missing); NULL on rows written before. No view changes: the new columns are additions.
ALTER TABLE evidence
    ADD COLUMN from_claim_position    integer,
    ADD COLUMN not_independent_of_hop integer;
ALTER TABLE query_hops
    ADD COLUMN reason text CHECK (reason IN ('plan', 'follow_up'));

-- +goose Down
ALTER TABLE query_hops DROP COLUMN reason;
ALTER TABLE evidence
    DROP COLUMN not_independent_of_hop,
    DROP COLUMN from_claim_position;
