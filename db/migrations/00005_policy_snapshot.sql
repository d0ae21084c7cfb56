-- +goose Up

-- A fixed cancellation fee is an amount of one currency.
ALTER TABLE hotels ADD COLUMN fee_currency text CHECK (fee_currency ~ '^[A-Z]{3}$');
UPDATE hotels h SET fee_currency = (
    SELECT i.currency FROM inventory i JOIN resources r ON r.id = i.resource_id
    WHERE r.hotel_id = h.id AND i.currency IS NOT NULL LIMIT 1)
WHERE fee_fixed > 0;

-- The cancellation policy and time zone a booking was held under: a cancellation is judged by
-- them, not by whatever the hotel's policy became later.
ALTER TABLE bookings ADD COLUMN policy jsonb, ADD COLUMN time_zone text;
UPDATE bookings b SET time_zone = h.time_zone,
    policy = jsonb_build_object('freeUntilHours', h.free_until_hours, 'feePercent', h.fee_percent,
        'feeFixed', h.fee_fixed, 'feeCurrency', COALESCE(h.fee_currency, ''), 'noRefundHours', h.no_refund_hours)
FROM resources r JOIN hotels h ON h.id = r.hotel_id WHERE r.id = b.resource_id;

-- +goose Down
ALTER TABLE bookings DROP COLUMN time_zone, DROP COLUMN policy;
ALTER TABLE hotels DROP COLUMN fee_currency;
