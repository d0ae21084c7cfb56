-- +goose Up

-- Hotel rooms bought from outside suppliers and resold through sales channels and their agents.
-- A supplier hotel is a hotel of the catalogue whose stock comes from a supplier:
-- direct_procure keeps its stock here (a NULL total is unlimited), direct_connect keeps none
-- and asks the supplier for every search and booking.
CREATE TABLE suppliers (
    id           text PRIMARY KEY,
    name         text    NOT NULL DEFAULT '',
    mode         text    NOT NULL CHECK (mode IN ('direct_connect', 'direct_procure')),
    -- endpoint is the supplier's API (stock, quotes, holds); push_secret signs its pushes.
    endpoint     text    NOT NULL DEFAULT '',
    push_secret  text    NOT NULL DEFAULT '',
    hold_minutes integer NOT NULL DEFAULT 30 CHECK (hold_minutes > 0),
    created_at   timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE hotels ADD COLUMN supplier_id text REFERENCES suppliers (id);

CREATE TABLE channels (
    id         text PRIMARY KEY,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);

-- An agent sells through one channel; its notifications go to webhook_url, signed with
-- webhook_secret, when one is set.
CREATE TABLE agents (
    id             text PRIMARY KEY,
    channel_id     text NOT NULL REFERENCES channels (id),
    name           text NOT NULL DEFAULT '',
    webhook_url    text NOT NULL DEFAULT '',
    webhook_secret text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- A NULL total is unlimited stock ("a price means a room"); reserved still counts what is held
-- and sold. synced_at and synced_from say when and from where the total last came.
ALTER TABLE inventory
    ALTER COLUMN total DROP NOT NULL,
    DROP CONSTRAINT reserved_within_total,
    ADD CONSTRAINT reserved_within_total CHECK (reserved >= 0 AND (total IS NULL OR reserved <= total)),
    ADD COLUMN synced_at   timestamptz,
    ADD COLUMN synced_from text CHECK (synced_from IN ('pull', 'push', 'manual'));

-- The rules that decide whether a stay may be sold at all. Each applies to a hotel, optionally
-- narrowed to a room type and to one channel or one agent (never both).
--   stop_sell:      the nights [from_date, to_date) are closed, with a reason.
--   sale_range:     only stays whose nights lie within [from_date, to_date] (both inclusive).
--   booking_window: check-in min_advance..max_advance days ahead, at the hotel.
--   length_of_stay: min_los..max_los nights for a check-in in [from_date, to_date) (open ends
--                   when NULL), with a discount once the stay reaches discount_from nights.
CREATE TABLE sale_rules (
    id               bigserial PRIMARY KEY,
    kind             text    NOT NULL CHECK (kind IN ('stop_sell', 'sale_range', 'booking_window', 'length_of_stay')),
    hotel_id         text    NOT NULL REFERENCES hotels (id),
    room_type        text,
    channel_id       text    REFERENCES channels (id),
    agent_id         text    REFERENCES agents (id),
    from_date        date,
    to_date          date,
    min_advance      integer CHECK (min_advance >= 0),
    max_advance      integer CHECK (max_advance >= 0),
    min_los          integer CHECK (min_los >= 1),
    max_los          integer CHECK (max_los >= 1),
    discount_from    integer CHECK (discount_from >= 1),
    discount_percent integer CHECK (discount_percent BETWEEN 1 AND 100),
    discount_amount  bigint  CHECK (discount_amount > 0),
    overrides_global boolean NOT NULL DEFAULT false,
    reason           text    CHECK (reason IN ('maintenance', 'full', 'event', 'seasonal', 'other')),
    note             text    NOT NULL DEFAULT '',
    set_by           text    NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- A cancelled stop-sell is sellable again at once; an expired one ended in the past.
    cancelled_at     timestamptz,
    expired_at       timestamptz,
    CHECK (channel_id IS NULL OR agent_id IS NULL),
    CHECK (from_date IS NULL OR to_date IS NULL OR to_date >= from_date),
    CHECK (kind <> 'stop_sell' OR (from_date IS NOT NULL AND to_date > from_date AND reason IS NOT NULL AND agent_id IS NULL)),
    CHECK (kind <> 'sale_range' OR (from_date IS NOT NULL AND to_date IS NOT NULL)),
    CHECK (kind <> 'booking_window' OR (min_advance IS NOT NULL AND max_advance IS NOT NULL AND max_advance >= min_advance)),
    CHECK (kind <> 'length_of_stay' OR (min_los IS NOT NULL AND (max_los IS NULL OR max_los >= min_los)
        AND (discount_from IS NULL) = (discount_percent IS NULL AND discount_amount IS NULL)
        AND (discount_percent IS NULL OR discount_amount IS NULL)))
);
CREATE INDEX sale_rules_hotel ON sale_rules (hotel_id, kind) WHERE cancelled_at IS NULL AND expired_at IS NULL;

-- A night's stock split between channels: each sells from its allocation first, then from the
-- shared pool (total minus every allocation). used counts what a channel took from its own
-- allocation; booking_allocations says which booking took it, so a release gives it back there.
-- Written only under the lock of the inventory row, like reserved; the allocations of a night
-- never add up to more than its total (checked under that lock).
CREATE TABLE allocations (
    resource_id bigint    NOT NULL,
    unit_start  timestamp NOT NULL,
    channel_id  text      NOT NULL REFERENCES channels (id),
    allotted    integer   NOT NULL CHECK (allotted >= 0),
    used        integer   NOT NULL DEFAULT 0,
    PRIMARY KEY (resource_id, unit_start, channel_id),
    FOREIGN KEY (resource_id, unit_start) REFERENCES inventory (resource_id, unit_start),
    CONSTRAINT used_within_allotted CHECK (used BETWEEN 0 AND allotted)
);

CREATE TABLE booking_allocations (
    booking_id  text      NOT NULL REFERENCES bookings (id),
    resource_id bigint    NOT NULL,
    unit_start  timestamp NOT NULL,
    channel_id  text      NOT NULL,
    quantity    integer   NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (booking_id, resource_id, unit_start)
);

ALTER TABLE bookings
    ADD COLUMN channel_id   text REFERENCES channels (id),
    ADD COLUMN agent_id     text REFERENCES agents (id),
    ADD COLUMN supplier_id  text REFERENCES suppliers (id), -- the supplier that confirms it
    ADD COLUMN supplier_ref text,
    ADD COLUMN discount     bigint NOT NULL DEFAULT 0,
    ADD COLUMN refusal      text,
    -- supplier_held: a direct_connect supplier holds the rooms; the booking takes no stock here.
    ADD COLUMN supplier_held boolean NOT NULL DEFAULT false;

-- Below threshold rooms left on a night, a low-stock alert is raised (once per night until
-- resolved).
CREATE TABLE stock_alert_thresholds (
    hotel_id  text    NOT NULL REFERENCES hotels (id),
    room_type text    NOT NULL,
    threshold integer NOT NULL CHECK (threshold >= 1),
    PRIMARY KEY (hotel_id, room_type)
);

-- What operators are asked to look at: low stock, and a supplier reporting fewer rooms than are
-- sold here (never silently "fixed").
CREATE TABLE stock_alerts (
    id          bigserial PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('low_stock', 'sync_conflict')),
    hotel_id    text NOT NULL,
    room_type   text NOT NULL,
    night       date NOT NULL,
    detail      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz
);
CREATE UNIQUE INDEX stock_alerts_open ON stock_alerts (kind, hotel_id, room_type, night) WHERE resolved_at IS NULL;

-- What an agent is told about its bookings (the supplier confirmed, rejected, did not answer,
-- the booking was cancelled): one record per booking and event, delivered to the agent's
-- webhook when it has one.
CREATE TABLE agent_notifications (
    id           bigserial PRIMARY KEY,
    agent_id     text NOT NULL REFERENCES agents (id),
    booking_id   text NOT NULL,
    event        text NOT NULL,
    detail       text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    last_error   text NOT NULL DEFAULT '',
    UNIQUE (booking_id, event)
);

-- +goose Down
DROP TABLE agent_notifications;
DROP TABLE stock_alerts;
DROP TABLE stock_alert_thresholds;
ALTER TABLE bookings DROP COLUMN supplier_id, DROP COLUMN supplier_held, DROP COLUMN refusal, DROP COLUMN discount, DROP COLUMN supplier_ref, DROP COLUMN agent_id, DROP COLUMN channel_id;
DROP TABLE booking_allocations;
DROP TABLE allocations;
DROP TABLE sale_rules;
ALTER TABLE inventory
    DROP COLUMN synced_from, DROP COLUMN synced_at,
    DROP CONSTRAINT reserved_within_total,
    ADD CONSTRAINT reserved_within_total CHECK (reserved BETWEEN 0 AND total),
    ALTER COLUMN total SET NOT NULL;
DROP TABLE agents;
DROP TABLE channels;
ALTER TABLE hotels DROP COLUMN supplier_id;
DROP TABLE suppliers;
