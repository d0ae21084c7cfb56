-- +goose Up

-- Out-of-order rooms (issue 39): a physical room taken out of use for a range of nights, with a
-- reason. They are the blocked rooms bookflow already counts: putting a room out of order raises
-- its room type's inventory.blocked on those nights by one (db/rooms_out_of_order.go), putting it
-- back lowers it. The database refuses two out-of-order ranges of one room overlapping (the
-- exclusion constraint) and a guest in a room out of order on one of their nights, whichever is
-- written second (the two triggers below). Each trigger first locks the room's row, so a room's
-- assignment and its going out of order are written one after the other: the second, reading
-- after the first committed (READ COMMITTED reads anew at each statement), sees it and is refused.
CREATE TABLE IF NOT EXISTS room_out_of_order (
    room_id  bigint      NOT NULL REFERENCES rooms (id),
    nights   daterange   NOT NULL CHECK (NOT isempty(nights)),
    reason   text        NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    put_by   text        NOT NULL DEFAULT '',
    put_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT one_out_of_order_range_per_room_and_night EXCLUDE USING gist (room_id WITH =, nights WITH &&)
);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION room_out_of_order_has_no_guest() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    other text;
BEGIN
    -- A range that only shrinks in its own room cannot meet anything new.
    IF TG_OP = 'UPDATE' AND NEW.room_id = OLD.room_id AND OLD.nights @> NEW.nights THEN
        RETURN NEW;
    END IF;
    PERFORM 1 FROM rooms WHERE id = NEW.room_id FOR NO KEY UPDATE;
    IF TG_TABLE_NAME = 'room_assignments' THEN
        SELECT lower(o.nights)::text INTO other FROM room_out_of_order o
            WHERE o.room_id = NEW.room_id AND o.nights && NEW.nights LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'room % is out of order from %', NEW.room_id, other
                USING ERRCODE = 'exclusion_violation', CONSTRAINT = 'room_out_of_order_has_no_guest';
        END IF;
    ELSE
        SELECT a.booking_id INTO other FROM room_assignments a
            WHERE a.room_id = NEW.room_id AND a.nights && NEW.nights LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'room % is booking %''s on a night of %', NEW.room_id, other, NEW.nights
                USING ERRCODE = 'exclusion_violation', CONSTRAINT = 'room_out_of_order_has_no_guest';
        END IF;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS room_out_of_order_has_no_guest ON room_assignments;
CREATE OR REPLACE TRIGGER room_out_of_order_has_no_guest BEFORE INSERT OR UPDATE OF room_id, nights ON room_assignments
    FOR EACH ROW EXECUTE FUNCTION room_out_of_order_has_no_guest();
DROP TRIGGER IF EXISTS room_out_of_order_has_no_guest ON room_out_of_order;
CREATE OR REPLACE TRIGGER room_out_of_order_has_no_guest BEFORE INSERT OR UPDATE OF room_id, nights ON room_out_of_order
    FOR EACH ROW EXECUTE FUNCTION room_out_of_order_has_no_guest();

-- +goose Down
DROP TRIGGER room_out_of_order_has_no_guest ON room_out_of_order;
DROP TRIGGER room_out_of_order_has_no_guest ON room_assignments;
DROP FUNCTION room_out_of_order_has_no_guest();
DROP TABLE room_out_of_order;
