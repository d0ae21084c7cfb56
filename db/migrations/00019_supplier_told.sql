-- +goose Up

-- When the supplier last acknowledged that a booking is off. A booking flagged
-- supplier_not_told (its workflow could not tell the supplier) is settled once this is set:
-- an operator's or the invariant checker's retry sets it.
ALTER TABLE bookings ADD COLUMN supplier_told_at timestamptz;

-- +goose Down
ALTER TABLE bookings DROP COLUMN supplier_told_at;
