-- +goose Up

-- Group blocks (issue 37, docs/groups-and-blocks.md). Every statement may run twice: the upgrade
-- tests apply it to an old schema first, for today's store (db.MigrateToForTodaysStore).
--
-- A block sets rooms of one room type aside, night by night, for a group whose guests book later
-- under its code. INQUIRY deducts nothing; DEFINITE counts its unpicked rooms (block_nights.held)
-- in inventory.reserved, as a booking's rooms are, so every availability read, allocation check
-- and the sold-out gate see them taken without knowing of blocks. RELEASED and CANCELLED hold
-- nothing. rate_plan set: pickups are sold under that plan; NULL: at block_nights.price in
-- currency (a negotiated rate). release_kind: fixed (every night at release_date), rolling (each
-- night release_days before it) or none; release_time is the hour at the hotel.
CREATE TABLE IF NOT EXISTS blocks (
    id            text        PRIMARY KEY,
    hotel_id      text        NOT NULL REFERENCES hotels (id),
    resource_id   bigint      NOT NULL REFERENCES resources (id),
    group_code    text        NOT NULL,
    name          text        NOT NULL,
    status        text        NOT NULL DEFAULT 'INQUIRY' CHECK (status IN ('INQUIRY', 'DEFINITE', 'RELEASED', 'CANCELLED')),
    rate_plan     text,
    currency      text,
    overflow      boolean     NOT NULL DEFAULT false,
    release_kind  text        NOT NULL DEFAULT 'none' CHECK (release_kind IN ('fixed', 'rolling', 'none')),
    release_date  date,
    release_days  integer     CHECK (release_days BETWEEN 0 AND 730),
    release_time  time        NOT NULL DEFAULT '00:00',
    direct        boolean     NOT NULL DEFAULT true,
    channel_ids   text[]      NOT NULL DEFAULT '{}',
    owner_name    text        NOT NULL DEFAULT '',
    owner_contact text        NOT NULL DEFAULT '',
    created_by    text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    definite_at   timestamptz,
    CHECK ((rate_plan IS NULL) = (currency IS NOT NULL)),
    CHECK ((release_kind = 'fixed') = (release_date IS NOT NULL)),
    CHECK ((release_kind = 'rolling') = (release_days IS NOT NULL))
);

-- Guests type their code: one block per code and hotel, whatever its letters' case.
CREATE UNIQUE INDEX IF NOT EXISTS blocks_group_code ON blocks (hotel_id, lower(group_code));

-- One row per night of a block. rooms: what the group was promised; held: rooms still set aside
-- (counted in inventory.reserved); picked: rooms its guests' bookings took from it
-- (booking_blocks); released: rooms given back to sale (at the cut-off, early, by a wash, by a
-- pickup cancelled after the cut-off, or by the block's end). Once made definite
-- (blocks.definite_at), held + picked + released = rooms; until then all three are 0. release_at: when the night's unpicked rooms go back to sale
-- (NULL: never by itself); released_at: when the release sweep did it.
CREATE TABLE IF NOT EXISTS block_nights (
    block_id    text        NOT NULL REFERENCES blocks (id),
    resource_id bigint      NOT NULL REFERENCES resources (id),
    unit_start  timestamp   NOT NULL,
    rooms       integer     NOT NULL CHECK (rooms >= 0),
    held        integer     NOT NULL DEFAULT 0 CHECK (held >= 0),
    picked      integer     NOT NULL DEFAULT 0 CHECK (picked >= 0),
    released    integer     NOT NULL DEFAULT 0 CHECK (released >= 0),
    price       bigint      CHECK (price >= 0),
    release_at  timestamptz,
    released_at timestamptz,
    PRIMARY KEY (block_id, unit_start)
);
-- What the checker and a night's stock view read: the blocks over a unit.
CREATE INDEX IF NOT EXISTS block_nights_unit ON block_nights (resource_id, unit_start);
-- What the release sweep reads: nights due and still holding rooms.
CREATE INDEX IF NOT EXISTS block_nights_due ON block_nights (release_at) WHERE released_at IS NULL AND release_at IS NOT NULL;

-- A pickup's rooms drawn from its block, per night: a give-back returns them there (before the
-- cut-off) or to sale (after it).
CREATE TABLE IF NOT EXISTS booking_blocks (
    booking_id text      NOT NULL REFERENCES bookings (id),
    block_id   text      NOT NULL REFERENCES blocks (id),
    unit_start timestamp NOT NULL,
    quantity   integer   NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (booking_id, unit_start)
);
CREATE INDEX IF NOT EXISTS booking_blocks_block ON booking_blocks (block_id, unit_start);
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS block_id text REFERENCES blocks (id);
CREATE INDEX IF NOT EXISTS bookings_block ON bookings (block_id) WHERE block_id IS NOT NULL;

-- The names a rooming list gave its guests booked without a phone (a phone's walk-in keeps its
-- name in walk_in_customers). Personal data: PostgreSQL only, never a workflow's input.
CREATE TABLE IF NOT EXISTS block_guests (
    booking_id text        PRIMARY KEY REFERENCES bookings (id),
    block_id   text        NOT NULL REFERENCES blocks (id),
    name       text        NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Each rooming list uploaded, under its Idempotency-Key: the same key with another upload is
-- refused, so its lines' bookings (keyed by the upload's key and their line) are always its own.
CREATE TABLE IF NOT EXISTS rooming_lists (
    block_id        text        NOT NULL REFERENCES blocks (id),
    created_by      text        NOT NULL,
    idempotency_key text        NOT NULL,
    fingerprint     text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (block_id, created_by, idempotency_key)
);

-- Every move of a block, who made it and what it changed.
CREATE TABLE IF NOT EXISTS block_changes (
    id       bigserial   PRIMARY KEY,
    block_id text        NOT NULL REFERENCES blocks (id),
    at       timestamptz NOT NULL DEFAULT now(),
    actor    text        NOT NULL,
    action   text        NOT NULL,
    detail   jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS block_changes_block ON block_changes (block_id, id);

-- Integrators' events of a block, one per recorded change, ordered per block
-- (event_deliveries.booking_id is the ordering key: 'block-<id>'). They name no person: the
-- organiser stays in the block's row.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION queue_block_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t text := CASE NEW.action WHEN 'created' THEN 'block.created' WHEN 'definite' THEN 'block.definite'
        WHEN 'cancelled' THEN 'block.cancelled' ELSE 'block.released' END;
BEGIN
    INSERT INTO event_deliveries (event_id, subscriber_id, booking_id, type, payload)
    SELECT 'evt_blk' || NEW.id, s.id, 'block-' || b.id, t,
           jsonb_build_object('id', 'evt_blk' || NEW.id, 'type', t, 'createdAt', NEW.at,
               'data', jsonb_strip_nulls(jsonb_build_object(
                   'blockId', b.id, 'groupCode', b.group_code, 'hotelId', b.hotel_id, 'roomTypeId', r.code,
                   'status', b.status, 'change', NEW.action, 'released', NEW.detail -> 'released',
                   'nights', (SELECT jsonb_agg(jsonb_build_object('date', n.unit_start::date, 'rooms', n.rooms,
                                  'remaining', n.held, 'picked', n.picked, 'released', n.released) ORDER BY n.unit_start)
                              FROM block_nights n WHERE n.block_id = b.id))))
      FROM event_subscribers s, blocks b JOIN resources r ON r.id = b.resource_id
     WHERE t = ANY (s.events) AND b.id = NEW.block_id
    ON CONFLICT (subscriber_id, event_id) DO NOTHING;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS block_changes_events ON block_changes;
CREATE TRIGGER block_changes_events AFTER INSERT ON block_changes
    FOR EACH ROW EXECUTE FUNCTION queue_block_events();

-- +goose Down
DROP TRIGGER block_changes_events ON block_changes;
DROP FUNCTION queue_block_events();
DROP TABLE block_changes;
DROP TABLE block_guests;
DROP TABLE rooming_lists;
ALTER TABLE bookings DROP COLUMN block_id;
DROP TABLE booking_blocks;
DROP TABLE block_nights;
DROP TABLE blocks;
