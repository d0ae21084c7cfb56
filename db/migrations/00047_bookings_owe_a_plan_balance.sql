-- +goose Up

-- A booking sold under a deposit plan (issue 35) is confirmed by its deposit and owes the rest of
-- its price by a date: balance_due_at, set at the reservation from the plan's balanceDueDays
-- before the check-in, on the hotel's clock, and only while that date is still ahead (a booking
-- made later pays in full). It is cleared when the booking is confirmed by its whole price or by
-- a person without money (then nothing lapses). balance_payment_id names the online payment that
-- paid the rest: the booking keeps it, as it keeps its first payment (ledger_keep). Nullable, no
-- default: no rewrite of the table. IF NOT EXISTS: the upgrade tests add them to an old schema
-- first (db.MigrateToForTodaysStore).
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS balance_due_at timestamptz,
    ADD COLUMN IF NOT EXISTS balance_payment_id text;

-- +goose Down
ALTER TABLE bookings DROP COLUMN balance_payment_id, DROP COLUMN balance_due_at;
