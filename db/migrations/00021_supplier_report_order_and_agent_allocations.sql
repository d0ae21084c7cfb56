-- +goose Up

-- Supplier stock reports are applied in the order the supplier read them, night by night:
-- reported_at is the report time (the supplier's reportedAt, or bookflow's own stand-in) of the
-- report that last set the night. A report no newer than it leaves the night alone. NULL: set by
-- hand, or before reports had times; any report may write it.
ALTER TABLE inventory ADD COLUMN reported_at timestamptz;

-- The signed pushes accepted lately, by the digest of their signed timestamp and body: a push
-- replayed within the signature's tolerance is refused. Rows older than the tolerance are
-- pruned as pushes arrive.
CREATE TABLE supplier_pushes (
    supplier_id text        NOT NULL REFERENCES suppliers (id),
    digest      text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (supplier_id, digest)
);

-- An allocation is a channel's (agent_id NULL) or one of its agents'. The composite key keeps
-- an agent's allocation in that agent's channel (agents never move channels).
ALTER TABLE agents ADD CONSTRAINT agents_id_channel UNIQUE (id, channel_id);
ALTER TABLE allocations
    ADD COLUMN agent_id text,
    DROP CONSTRAINT allocations_pkey,
    ADD CONSTRAINT allocations_key UNIQUE NULLS NOT DISTINCT (resource_id, unit_start, channel_id, agent_id),
    ADD CONSTRAINT allocations_agent_of_channel FOREIGN KEY (agent_id, channel_id) REFERENCES agents (id, channel_id);

-- A booking may take a night from its agent's allocation and its channel's: one row for each.
ALTER TABLE booking_allocations
    ADD COLUMN agent_id text,
    DROP CONSTRAINT booking_allocations_pkey,
    ADD CONSTRAINT booking_allocations_key UNIQUE NULLS NOT DISTINCT (booking_id, resource_id, unit_start, agent_id);

-- +goose Down
DELETE FROM booking_allocations WHERE agent_id IS NOT NULL;
ALTER TABLE booking_allocations
    DROP CONSTRAINT booking_allocations_key,
    DROP COLUMN agent_id,
    ADD PRIMARY KEY (booking_id, resource_id, unit_start);
DELETE FROM allocations WHERE agent_id IS NOT NULL;
ALTER TABLE allocations
    DROP CONSTRAINT allocations_agent_of_channel,
    DROP CONSTRAINT allocations_key,
    DROP COLUMN agent_id,
    ADD PRIMARY KEY (resource_id, unit_start, channel_id);
ALTER TABLE agents DROP CONSTRAINT agents_id_channel;
DROP TABLE supplier_pushes;
ALTER TABLE inventory DROP COLUMN reported_at;
