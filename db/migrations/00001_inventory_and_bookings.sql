-- +goose Up

-- A hotel (later also a venue or a supplier's property). Its stay dates are local to time_zone.
CREATE TABLE hotels (
    id         text PRIMARY KEY,
    name       text NOT NULL DEFAULT '',
    time_zone  text NOT NULL DEFAULT 'UTC',
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Anything sold by the unit of time: for hotels, one room type, sold by the night. Venue slots,
-- equipment and supplier stock become other kinds of resource sharing the same inventory table.
CREATE TABLE resources (
    id           bigserial PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('hotel_room_type')),
    hotel_id     text NOT NULL REFERENCES hotels (id),
    room_type_id text NOT NULL,
    unit         text NOT NULL DEFAULT 'night' CHECK (unit IN ('night')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (hotel_id, room_type_id)
);

-- One row per resource and unit of time: the last line of defence against overselling is the
-- CHECK below. unit_start is the local (wall-clock) start of the unit in the resource's time
-- zone; a night starts at 00:00 of its date. A missing row means the unit is not on sale.
CREATE TABLE inventory (
    resource_id bigint    NOT NULL REFERENCES resources (id),
    unit_start  timestamp NOT NULL,
    total       integer   NOT NULL CHECK (total >= 0),
    reserved    integer   NOT NULL DEFAULT 0,
    PRIMARY KEY (resource_id, unit_start),
    CONSTRAINT reserved_within_total CHECK (reserved BETWEEN 0 AND total)
);

-- A booking takes quantity units of one resource over the contiguous run [unit_from, unit_to).
-- Its quantity is counted in inventory.reserved exactly while status is HOLD or CONFIRMED; only
-- the reserve and release transactions move a booking into or out of those states, together
-- with the counts.
CREATE TABLE bookings (
    id              text PRIMARY KEY,
    customer_id     text        NOT NULL,
    idempotency_key text        NOT NULL,
    fingerprint     text        NOT NULL,
    resource_id     bigint      NOT NULL REFERENCES resources (id),
    unit_from       timestamp   NOT NULL,
    unit_to         timestamp   NOT NULL,
    quantity        integer     NOT NULL CHECK (quantity > 0),
    status          text        NOT NULL CHECK (status IN ('HOLD', 'CONFIRMED', 'EXPIRED', 'CANCELLED', 'REJECTED')),
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (customer_id, idempotency_key),
    CHECK (unit_to > unit_from)
);

CREATE INDEX bookings_resource_status ON bookings (resource_id, status);

-- +goose Down
DROP TABLE bookings;
DROP TABLE inventory;
DROP TABLE resources;
DROP TABLE hotels;
