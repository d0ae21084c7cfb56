-- +goose Up

-- Sports venues sell the same inventory as hotels: a resource (a court, a lane's places, rental
-- gear) by the unit of time. Their units are real spans of time, so that the hour repeated when
-- the clocks go back is two units and the hour skipped when they go forward is none.
CREATE EXTENSION IF NOT EXISTS btree_gist;

-- A venue: its slots are laid out and shown in its time zone. Customers pay within
-- payment_window_seconds, may cancel for free until free_cancel_hours before a slot starts (not
-- at all afterwards; staff may still refund), and a paid booking nobody checked in by
-- no_show_grace_minutes after its end is a no-show.
CREATE TABLE venues (
    id                     text PRIMARY KEY,
    name                   text        NOT NULL DEFAULT '',
    time_zone              text        NOT NULL,
    payment_window_seconds integer     NOT NULL DEFAULT 900 CHECK (payment_window_seconds > 0),
    free_cancel_hours      integer     NOT NULL DEFAULT 24 CHECK (free_cancel_hours >= 0),
    no_show_grace_minutes  integer     NOT NULL DEFAULT 15 CHECK (no_show_grace_minutes >= 0),
    created_at             timestamptz NOT NULL DEFAULT now()
);

-- A resource belongs to a hotel (a room type, by the night) or to a venue: an exclusive slot
-- (a court: one unit per slot), a quota slot (a lane or class: N places per slot) or equipment
-- (rented by the hour or the day). code is its id within its site (the room type id for hotels);
-- capacity is what each new unit of a venue's resource holds.
ALTER TABLE resources RENAME COLUMN room_type_id TO code;
ALTER TABLE resources
    ALTER COLUMN hotel_id DROP NOT NULL,
    ADD COLUMN venue_id text REFERENCES venues (id),
    ADD COLUMN name     text NOT NULL DEFAULT '',
    ADD COLUMN sport    text NOT NULL DEFAULT '',
    ADD COLUMN capacity integer CHECK (capacity > 0),
    DROP CONSTRAINT resources_kind_check,
    DROP CONSTRAINT resources_unit_check,
    ADD CONSTRAINT resources_kind_unit CHECK (
        (kind = 'hotel_room_type' AND unit = 'night' AND hotel_id IS NOT NULL AND venue_id IS NULL) OR
        (kind IN ('exclusive_slot', 'quota_slot') AND unit = 'slot' AND venue_id IS NOT NULL AND hotel_id IS NULL
            AND capacity IS NOT NULL AND (kind = 'quota_slot' OR capacity = 1)) OR
        (kind = 'equipment' AND unit IN ('hour', 'day') AND venue_id IS NOT NULL AND hotel_id IS NULL
            AND capacity IS NOT NULL));
CREATE UNIQUE INDEX resources_venue_code ON resources (venue_id, code) WHERE venue_id IS NOT NULL;

-- A night's unit_start is its local date at 00:00 and it has no unit_end. A venue's unit is the
-- span [unit_start, unit_end) in UTC; two units of one resource never overlap. A closed unit is
-- not sold (its bookings stay), whatever its counts; releasing a booking never reopens it.
ALTER TABLE inventory
    ADD COLUMN unit_end      timestamp,
    ADD COLUMN closed_reason text,
    ADD COLUMN closed_by     text,
    ADD COLUMN closed_at     timestamptz,
    ADD CONSTRAINT unit_span CHECK (unit_end > unit_start),
    ADD CONSTRAINT closed_with_reason CHECK ((closed_at IS NULL) = (closed_reason IS NULL)),
    ADD CONSTRAINT units_never_overlap EXCLUDE USING gist (resource_id WITH =, tsrange(unit_start, unit_end) WITH &&)
        WHERE (unit_end IS NOT NULL);

-- +goose Down
ALTER TABLE inventory
    DROP CONSTRAINT units_never_overlap, DROP CONSTRAINT closed_with_reason, DROP CONSTRAINT unit_span,
    DROP COLUMN closed_at, DROP COLUMN closed_by, DROP COLUMN closed_reason, DROP COLUMN unit_end;
DROP INDEX resources_venue_code;
ALTER TABLE resources
    DROP CONSTRAINT resources_kind_unit,
    DROP COLUMN capacity, DROP COLUMN sport, DROP COLUMN name, DROP COLUMN venue_id,
    ALTER COLUMN hotel_id SET NOT NULL,
    ADD CONSTRAINT resources_kind_check CHECK (kind IN ('hotel_room_type')),
    ADD CONSTRAINT resources_unit_check CHECK (unit IN ('night'));
ALTER TABLE resources RENAME COLUMN code TO room_type_id;
DROP TABLE venues;
