-- +goose Up

-- Every booking state change and every change of a unit's counts, written by triggers in the
-- transaction that makes the change, so no path can skip them. A transaction acting for a
-- booking names it with set_config('bookflow.booking_id', ...): the unit changes it makes are
-- recorded against that booking.
CREATE TABLE booking_changes (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    booking_id  text        NOT NULL,
    from_status text,
    to_status   text        NOT NULL
);
CREATE INDEX booking_changes_booking ON booking_changes (booking_id, id);

CREATE TABLE inventory_changes (
    id              bigserial PRIMARY KEY,
    at              timestamptz NOT NULL DEFAULT now(),
    resource_id     bigint      NOT NULL,
    unit_start      timestamp   NOT NULL,
    change          text        NOT NULL CHECK (change IN ('created', 'updated', 'removed')),
    reserved_before integer,
    reserved_after  integer,
    total_before    integer,
    total_after     integer,
    closed_before   boolean,
    closed_after    boolean,
    closed_reason   text,
    booking_id      text
);
CREATE INDEX inventory_changes_unit ON inventory_changes (resource_id, unit_start, id);
CREATE INDEX inventory_changes_booking ON inventory_changes (booking_id, id) WHERE booking_id IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION record_booking_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO booking_changes (booking_id, to_status) VALUES (NEW.id, NEW.status);
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO booking_changes (booking_id, from_status, to_status) VALUES (NEW.id, OLD.status, NEW.status);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER bookings_record_change AFTER INSERT OR UPDATE OF status ON bookings
    FOR EACH ROW EXECUTE FUNCTION record_booking_change();

-- +goose StatementBegin
CREATE FUNCTION record_inventory_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    booking text := NULLIF(current_setting('bookflow.booking_id', true), '');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_after, total_after, closed_after, booking_id)
        VALUES (NEW.resource_id, NEW.unit_start, 'created', NEW.reserved, NEW.total, NEW.closed_at IS NOT NULL, booking);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, total_before, closed_before, booking_id)
        VALUES (OLD.resource_id, OLD.unit_start, 'removed', OLD.reserved, OLD.total, OLD.closed_at IS NOT NULL, booking);
    ELSIF NEW.reserved IS DISTINCT FROM OLD.reserved OR NEW.total IS DISTINCT FROM OLD.total
        OR (NEW.closed_at IS NULL) <> (OLD.closed_at IS NULL) THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, reserved_after, total_before,
            total_after, closed_before, closed_after, closed_reason, booking_id)
        VALUES (NEW.resource_id, NEW.unit_start, 'updated', OLD.reserved, NEW.reserved, OLD.total, NEW.total,
            OLD.closed_at IS NOT NULL, NEW.closed_at IS NOT NULL, COALESCE(NEW.closed_reason, OLD.closed_reason), booking);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER inventory_record_change AFTER INSERT OR DELETE OR UPDATE OF reserved, total, closed_at ON inventory
    FOR EACH ROW EXECUTE FUNCTION record_inventory_change();

-- +goose Down
DROP TRIGGER inventory_record_change ON inventory;
DROP FUNCTION record_inventory_change();
DROP TRIGGER bookings_record_change ON bookings;
DROP FUNCTION record_booking_change();
DROP TABLE inventory_changes;
DROP TABLE booking_changes;
