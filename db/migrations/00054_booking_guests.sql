-- +goose Up

-- Guests (issue 39): who stays or plays under a booking, as the front desk writes it down (name,
-- phone, e-mail, how many, when they arrive, notes and requests). Personal data: PostgreSQL
-- only, never a workflow's input or state; a customer's erasure deletes their bookings' rows.
-- The front desk finds bookings by these (Store.SearchBookings): trigram indexes answer a part of
-- a name, a phone's digits or an e-mail in milliseconds at 100,000 bookings.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE IF NOT EXISTS booking_guests (
    booking_id   text PRIMARY KEY REFERENCES bookings (id),
    name         text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
    phone        text NOT NULL DEFAULT '' CHECK (phone = '' OR phone ~ '^\+[1-9][0-9]{7,14}$'),
    email        text NOT NULL DEFAULT '' CHECK (length(email) <= 254),
    guests       integer CHECK (guests BETWEEN 1 AND 99),
    arrival_time text CHECK (arrival_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
    notes        text NOT NULL DEFAULT '' CHECK (length(notes) <= 2000),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    updated_by   text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS booking_guests_name_trgm ON booking_guests USING gin (lower(name) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS booking_guests_phone_trgm ON booking_guests USING gin (phone gin_trgm_ops);
CREATE INDEX IF NOT EXISTS booking_guests_email_trgm ON booking_guests USING gin (lower(email) gin_trgm_ops);
-- A walk-in's name and phone (walk_in_customers), and a group guest's name (block_guests), are
-- found the same way.
CREATE INDEX IF NOT EXISTS walk_in_customers_name_trgm ON walk_in_customers USING gin (lower(name) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS walk_in_customers_phone_trgm ON walk_in_customers USING gin (phone gin_trgm_ops);
CREATE INDEX IF NOT EXISTS block_guests_name_trgm ON block_guests USING gin (lower(name) gin_trgm_ops);
-- A supplier's reference, and a booking's customer, are found whole.
CREATE INDEX IF NOT EXISTS bookings_supplier_ref ON bookings (supplier_ref) WHERE supplier_ref IS NOT NULL;

-- +goose Down
DROP INDEX bookings_supplier_ref;
DROP INDEX block_guests_name_trgm;
DROP INDEX walk_in_customers_phone_trgm;
DROP INDEX walk_in_customers_name_trgm;
DROP TABLE booking_guests;
