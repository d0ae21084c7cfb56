-- +goose Up

-- A hotel's physical rooms (issue 39): each of one room type, by its number. A booking's rooms
-- are assigned night by night (room_assignments: a move ends one room's range and starts
-- another's); the database refuses two bookings in one room on one night, whatever writes them
-- (the exclusion constraint over the nights' ranges). A booking that stops holding its nights
-- (cancelled, expired, refunded, a no-show), is shortened, or changes room type lets its rooms go
-- with them (the bookings trigger below), in the same transaction.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE IF NOT EXISTS rooms (
    id            bigserial PRIMARY KEY,
    hotel_id      text   NOT NULL REFERENCES hotels (id),
    room_type     bigint NOT NULL REFERENCES resources (id),
    number        text   NOT NULL CHECK (number ~ '^[A-Za-z0-9._-]{1,16}$'),
    UNIQUE (hotel_id, number)
);

CREATE TABLE IF NOT EXISTS room_assignments (
    booking_id  text        NOT NULL REFERENCES bookings (id),
    room_id     bigint      NOT NULL REFERENCES rooms (id),
    nights      daterange   NOT NULL CHECK (NOT isempty(nights)),
    assigned_by text        NOT NULL DEFAULT '',
    assigned_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT one_booking_per_room_and_night EXCLUDE USING gist (room_id WITH =, nights WITH &&)
);
CREATE INDEX IF NOT EXISTS room_assignments_booking ON room_assignments (booking_id);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rooms_follow_booking() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status NOT IN ('HOLD', 'CONFIRMED', 'COMPLETED') OR NEW.resource_id <> OLD.resource_id THEN
        DELETE FROM room_assignments WHERE booking_id = NEW.id;
    ELSIF NEW.unit_from <> OLD.unit_from OR NEW.unit_to <> OLD.unit_to THEN
        DELETE FROM room_assignments WHERE booking_id = NEW.id
            AND NOT nights && daterange(NEW.unit_from::date, NEW.unit_to::date);
        UPDATE room_assignments SET nights = nights * daterange(NEW.unit_from::date, NEW.unit_to::date)
            WHERE booking_id = NEW.id;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS rooms_follow_booking ON bookings;
CREATE TRIGGER rooms_follow_booking AFTER UPDATE OF status, unit_from, unit_to, resource_id ON bookings
    FOR EACH ROW WHEN (NEW.venue_id IS NULL) EXECUTE FUNCTION rooms_follow_booking();

-- +goose Down
DROP TRIGGER rooms_follow_booking ON bookings;
DROP FUNCTION rooms_follow_booking();
DROP TABLE room_assignments;
DROP TABLE rooms;
