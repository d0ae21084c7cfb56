-- +goose Up

-- How a payment was taken: through the provider, or at the desk by one of its methods, by whom,
-- with the desk's note. A desk payment's id is desk/<bookingId>/<idempotency key>.
ALTER TABLE payments
    ADD COLUMN method   text NOT NULL DEFAULT 'provider'
        CHECK (method IN ('provider', 'cash', 'card_terminal', 'bank_transfer', 'other')),
    ADD COLUMN taken_by text,
    ADD COLUMN note     text;

-- How a refund was made: through the provider, at the desk by the method of the payment it
-- gives back (recorded, never sent), or by hand outside bookflow (manual/<paymentId>/<key>,
-- with finance's reference).
ALTER TABLE refunds
    ADD COLUMN method      text NOT NULL DEFAULT 'provider'
        CHECK (method IN ('provider', 'cash', 'card_terminal', 'bank_transfer', 'other')),
    ADD COLUMN reference   text,
    ADD COLUMN recorded_by text;

-- Every price set by hand on a booking before it was paid: before and after, why, by whom.
CREATE TABLE price_changes (
    id         bigserial PRIMARY KEY,
    booking_id text        NOT NULL REFERENCES bookings (id),
    before     bigint      NOT NULL,
    after      bigint      NOT NULL CHECK (after >= 0),
    currency   text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    reason     text        NOT NULL CHECK (reason <> ''),
    actor      text        NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX price_changes_booking ON price_changes (booking_id);

-- Refunds staff gave on a booking that keeps its units (goodwill, the nights an early departure
-- did not use, or the reversal of a desk payment entered by mistake, which is due again): id is <bookingId>/<idempotency key>; parts are what it draws on each
-- payment, as the booking's workflow decided. bookings.paid is lowered by amount in the same
-- transaction, so what is kept never goes below zero.
CREATE TABLE staff_refunds (
    id         text PRIMARY KEY,
    booking_id text        NOT NULL REFERENCES bookings (id),
    kind       text        NOT NULL CHECK (kind IN ('goodwill', 'early_departure', 'reversal')),
    amount     bigint      NOT NULL CHECK (amount > 0),
    currency   text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    reason     text        NOT NULL CHECK (reason <> ''),
    actor      text        NOT NULL,
    parts      jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX staff_refunds_booking ON staff_refunds (booking_id);

-- What an early departure gives back of the nights not stayed.
ALTER TABLE hotels
    ADD COLUMN early_departure_refund text NOT NULL DEFAULT 'none'
        CHECK (early_departure_refund IN ('none', 'all', 'all_but_first'));

-- +goose Down
ALTER TABLE hotels DROP COLUMN early_departure_refund;
DROP TABLE staff_refunds;
DROP TABLE price_changes;
ALTER TABLE refunds DROP COLUMN recorded_by, DROP COLUMN reference, DROP COLUMN method;
ALTER TABLE payments DROP COLUMN note, DROP COLUMN taken_by, DROP COLUMN method;
