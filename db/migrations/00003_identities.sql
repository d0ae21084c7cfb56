-- +goose Up

-- Who created a booking: the customer, or the staff member who booked for them. A booking's id
-- is derived from (customer, creator, idempotency key), so a key is scoped to its creator.
ALTER TABLE bookings ADD COLUMN created_by text;
UPDATE bookings SET created_by = customer_id;
ALTER TABLE bookings
    ALTER COLUMN created_by SET NOT NULL,
    DROP CONSTRAINT bookings_customer_id_idempotency_key_key,
    ADD CONSTRAINT bookings_idempotency UNIQUE (customer_id, created_by, idempotency_key);

-- A customer's bookings, newest first (their list, and counting their active holds).
CREATE INDEX bookings_customer_created ON bookings (customer_id, created_at DESC, id DESC);
-- Every booking, newest first (the staff list).
CREATE INDEX bookings_created ON bookings (created_at DESC, id DESC);

-- +goose Down
DROP INDEX bookings_created;
DROP INDEX bookings_customer_created;
ALTER TABLE bookings
    DROP CONSTRAINT bookings_idempotency,
    ADD CONSTRAINT bookings_customer_id_idempotency_key_key UNIQUE (customer_id, idempotency_key),
    DROP COLUMN created_by;
