-- +goose Up

-- Check-out (issue 39): when a checked-in hotel guest left, and which staff member checked them
-- out. The stay itself (its nights, an early departure's shortening and refund) is the
-- booking's as before; these say only that the guest has gone. Nullable, no default: no rewrite
-- of the table. IF NOT EXISTS: the upgrade tests add it to an old schema first.
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS checked_out_at timestamptz,
    ADD COLUMN IF NOT EXISTS checked_out_by text;

-- +goose Down
ALTER TABLE bookings DROP COLUMN checked_out_by, DROP COLUMN checked_out_at;
