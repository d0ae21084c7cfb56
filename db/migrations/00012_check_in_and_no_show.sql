-- +goose Up

-- COMPLETED: checked in by staff (the units stay taken); NO_SHOW: nobody checked in by the
-- deadline (the units went back, the payment is kept).
ALTER TABLE bookings
    DROP CONSTRAINT bookings_status_check,
    ADD CONSTRAINT bookings_status_check CHECK (status IN
        ('HOLD', 'CONFIRMED', 'COMPLETED', 'NO_SHOW', 'EXPIRED', 'CANCELLED', 'REJECTED', 'REFUNDING', 'REFUNDED'));

-- The statuses that hold units now include COMPLETED.
DROP INDEX bookings_holding;
CREATE INDEX bookings_holding ON bookings (unit_to) WHERE status IN ('HOLD', 'CONFIRMED', 'COMPLETED');
DROP INDEX bookings_one_active_order_per_slot;
CREATE UNIQUE INDEX bookings_one_active_order_per_slot ON bookings (customer_id, resource_id, unit_from)
    WHERE venue_id IS NOT NULL AND status IN ('HOLD', 'CONFIRMED', 'COMPLETED');

-- +goose Down
DROP INDEX bookings_one_active_order_per_slot;
CREATE UNIQUE INDEX bookings_one_active_order_per_slot ON bookings (customer_id, resource_id, unit_from)
    WHERE venue_id IS NOT NULL AND status IN ('HOLD', 'CONFIRMED');
DROP INDEX bookings_holding;
CREATE INDEX bookings_holding ON bookings (unit_to) WHERE status IN ('HOLD', 'CONFIRMED');
ALTER TABLE bookings
    DROP CONSTRAINT bookings_status_check,
    ADD CONSTRAINT bookings_status_check CHECK (status IN
        ('HOLD', 'CONFIRMED', 'EXPIRED', 'CANCELLED', 'REJECTED', 'REFUNDING', 'REFUNDED'));
