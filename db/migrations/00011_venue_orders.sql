-- +goose Up

-- A venue order is a booking: its own resource and span are the order's first line, and its
-- further lines (the rackets with the court) are kept here, taken and given back with it in the
-- same transactions. line_prices is the order's price snapshot per line.
ALTER TABLE bookings
    ADD COLUMN venue_id    text REFERENCES venues (id),
    ADD COLUMN line_prices jsonb;

CREATE TABLE booking_lines (
    booking_id  text      NOT NULL REFERENCES bookings (id),
    line_no     integer   NOT NULL CHECK (line_no > 0),
    resource_id bigint    NOT NULL REFERENCES resources (id),
    unit_from   timestamp NOT NULL,
    unit_to     timestamp NOT NULL,
    quantity    integer   NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (booking_id, line_no),
    CHECK (unit_to > unit_from)
);
CREATE INDEX booking_lines_holding ON booking_lines (resource_id, unit_from);

-- A customer holds at most one active order per slot (its first line), whatever idempotency
-- keys two clicks sent.
CREATE UNIQUE INDEX bookings_one_active_order_per_slot ON bookings (customer_id, resource_id, unit_from)
    WHERE venue_id IS NOT NULL AND status IN ('HOLD', 'CONFIRMED');

-- +goose Down
DROP INDEX bookings_one_active_order_per_slot;
DROP TABLE booking_lines;
ALTER TABLE bookings DROP COLUMN line_prices, DROP COLUMN venue_id;
