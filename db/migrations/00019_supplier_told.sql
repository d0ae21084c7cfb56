-- +goose Up

-- A booking that went off while its supplier could not be told (supplier_not_told_at, set by its
-- workflow when it gives up) is settled once the supplier acknowledges it (supplier_told_at, set
-- whenever a cancel reaches the supplier): an operator's or the invariant checker's retry.
ALTER TABLE bookings ADD COLUMN supplier_told_at timestamptz, ADD COLUMN supplier_not_told_at timestamptz;
CREATE INDEX bookings_supplier_not_told ON bookings (id) WHERE supplier_not_told_at IS NOT NULL;

-- +goose Down
ALTER TABLE bookings DROP COLUMN supplier_told_at, DROP COLUMN supplier_not_told_at;
