-- +goose Up

-- The invariant checker's scans: bookings holding units from yesterday on, holds by expiry,
-- refunds by age, refund attempts not settled.
CREATE INDEX bookings_holding ON bookings (unit_to) WHERE status IN ('HOLD', 'CONFIRMED');
CREATE INDEX bookings_hold_expiry ON bookings (expires_at) WHERE status = 'HOLD';
CREATE INDEX bookings_refunding ON bookings (updated_at) WHERE status = 'REFUNDING';
CREATE INDEX refunds_unsettled ON refunds (updated_at) WHERE status IN ('requested', 'pending');

-- +goose Down
DROP INDEX refunds_unsettled;
DROP INDEX bookings_refunding;
DROP INDEX bookings_hold_expiry;
DROP INDEX bookings_holding;
