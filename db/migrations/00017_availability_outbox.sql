-- +goose Up

-- The transactional outbox of the availability cache: every change of a unit's counts, state or
-- split between channels adds a row here in the transaction that makes it, so no path can skip
-- the cache. The relay applies the rows to Redis (reading the unit as it then stands, versioned
-- by the row's id) and deletes them; a NOTIFY at commit wakes it.
CREATE TABLE availability_outbox (
    id          bigserial   PRIMARY KEY,
    resource_id bigint      NOT NULL,
    unit_start  timestamp   NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX availability_outbox_unit ON availability_outbox (resource_id, unit_start);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_inventory_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    booking text := NULLIF(current_setting('bookflow.booking_id', true), '');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_after, total_after, closed_after, booking_id)
        VALUES (NEW.resource_id, NEW.unit_start, 'created', NEW.reserved, NEW.total, NEW.closed_at IS NOT NULL, booking);
        INSERT INTO availability_outbox (resource_id, unit_start) VALUES (NEW.resource_id, NEW.unit_start);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, total_before, closed_before, booking_id)
        VALUES (OLD.resource_id, OLD.unit_start, 'removed', OLD.reserved, OLD.total, OLD.closed_at IS NOT NULL, booking);
        INSERT INTO availability_outbox (resource_id, unit_start) VALUES (OLD.resource_id, OLD.unit_start);
    ELSIF NEW.reserved IS DISTINCT FROM OLD.reserved OR NEW.total IS DISTINCT FROM OLD.total
        OR (NEW.closed_at IS NULL) <> (OLD.closed_at IS NULL) THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, reserved_after, total_before,
            total_after, closed_before, closed_after, closed_reason, booking_id)
        VALUES (NEW.resource_id, NEW.unit_start, 'updated', OLD.reserved, NEW.reserved, OLD.total, NEW.total,
            OLD.closed_at IS NOT NULL, NEW.closed_at IS NOT NULL, COALESCE(NEW.closed_reason, OLD.closed_reason), booking);
        INSERT INTO availability_outbox (resource_id, unit_start) VALUES (NEW.resource_id, NEW.unit_start);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- A night newly split between channels, or no longer, is read differently by searches.
-- +goose StatementBegin
CREATE FUNCTION record_allocation_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR TG_OP = 'INSERT' OR NEW.allotted IS DISTINCT FROM OLD.allotted THEN
        INSERT INTO availability_outbox (resource_id, unit_start)
        VALUES (COALESCE(NEW.resource_id, OLD.resource_id), COALESCE(NEW.unit_start, OLD.unit_start));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER allocations_record_change AFTER INSERT OR DELETE OR UPDATE OF allotted ON allocations
    FOR EACH ROW EXECUTE FUNCTION record_allocation_change();

-- +goose StatementBegin
CREATE FUNCTION notify_availability() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('bookflow_availability', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER availability_outbox_notify AFTER INSERT ON availability_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION notify_availability();

-- +goose Down
DROP TRIGGER availability_outbox_notify ON availability_outbox;
DROP FUNCTION notify_availability();
DROP TRIGGER allocations_record_change ON allocations;
DROP FUNCTION record_allocation_change();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_inventory_change() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP TABLE availability_outbox;
