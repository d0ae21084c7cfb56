-- record_inventory_change: the trigger function of inventory_record_change, which records every
-- change of a unit's counts (inventory_changes) and queues it for the availability cache
-- (availability_outbox), in the transaction that makes it, so no path can skip them.
--
-- This file is the function's definition: applied after every migration, every time, it wins
-- over the migrations that wrote it before (00013, 00017, 00020, 00027). Change it here, never
-- in a migration; the rules are in README.md beside it. The trigger itself, and the columns it
-- fires on (reserved, total, closed_at, blocked), are schema: migration 00020.
--
-- A transaction acting for a booking names it with set_config('bookflow.booking_id', ...): the
-- unit changes it makes are recorded against that booking. An update made while
-- bookflow.unit_history is 'written' is not recorded here: its transaction records it itself
-- (reserve_stays, per booking); it is queued for the cache all the same.
CREATE OR REPLACE FUNCTION record_inventory_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    booking text := NULLIF(current_setting('bookflow.booking_id', true), '');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_after, total_after, closed_after,
            blocked_after, booking_id)
        VALUES (NEW.resource_id, NEW.unit_start, 'created', NEW.reserved, NEW.total, NEW.closed_at IS NOT NULL,
            NEW.blocked, booking);
        INSERT INTO availability_outbox (resource_id, unit_start) VALUES (NEW.resource_id, NEW.unit_start);
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, total_before, closed_before,
            blocked_before, booking_id)
        VALUES (OLD.resource_id, OLD.unit_start, 'removed', OLD.reserved, OLD.total, OLD.closed_at IS NOT NULL,
            OLD.blocked, booking);
        INSERT INTO availability_outbox (resource_id, unit_start) VALUES (OLD.resource_id, OLD.unit_start);
    ELSIF NEW.reserved IS DISTINCT FROM OLD.reserved OR NEW.total IS DISTINCT FROM OLD.total
        OR (NEW.closed_at IS NULL) <> (OLD.closed_at IS NULL) OR NEW.blocked <> OLD.blocked THEN
        IF current_setting('bookflow.unit_history', true) IS DISTINCT FROM 'written' THEN
            INSERT INTO inventory_changes (resource_id, unit_start, change, reserved_before, reserved_after, total_before,
                total_after, closed_before, closed_after, closed_reason, blocked_before, blocked_after, booking_id)
            VALUES (NEW.resource_id, NEW.unit_start, 'updated', OLD.reserved, NEW.reserved, OLD.total, NEW.total,
                OLD.closed_at IS NOT NULL, NEW.closed_at IS NOT NULL, COALESCE(NEW.closed_reason, OLD.closed_reason),
                OLD.blocked, NEW.blocked, booking);
        END IF;
        INSERT INTO availability_outbox (resource_id, unit_start) VALUES (NEW.resource_id, NEW.unit_start);
    END IF;
    RETURN NULL;
END $$;
