-- +goose Up

-- The nightly rate of a room type, in minor units; a night without a rate cannot be booked.
ALTER TABLE inventory
    ADD COLUMN rate     bigint CHECK (rate >= 0),
    ADD COLUMN currency text   CHECK (currency ~ '^[A-Z]{3}$'),
    ADD CONSTRAINT rate_has_currency CHECK ((rate IS NULL) = (currency IS NULL));

-- Cancellation policy per hotel (see domain.CancellationPolicy); the defaults refund in full
-- until check-in.
ALTER TABLE hotels
    ADD COLUMN free_until_hours integer NOT NULL DEFAULT 0 CHECK (free_until_hours >= 0),
    ADD COLUMN fee_percent      integer NOT NULL DEFAULT 0 CHECK (fee_percent BETWEEN 0 AND 100),
    ADD COLUMN fee_fixed        bigint  NOT NULL DEFAULT 0 CHECK (fee_fixed >= 0),
    ADD COLUMN no_refund_hours  integer NOT NULL DEFAULT 0 CHECK (no_refund_hours >= 0);

-- The price snapshot taken with the hold, and what the guest paid and got back.
ALTER TABLE bookings
    ADD COLUMN currency      text,
    ADD COLUMN total         bigint,
    ADD COLUMN nightly_rates jsonb,
    ADD COLUMN payment_id    text UNIQUE,
    ADD COLUMN paid          bigint NOT NULL DEFAULT 0 CHECK (paid >= 0),
    ADD COLUMN refund_due    bigint NOT NULL DEFAULT 0 CHECK (refund_due >= 0),
    DROP CONSTRAINT bookings_status_check,
    ADD CONSTRAINT bookings_status_check CHECK (status IN
        ('HOLD', 'CONFIRMED', 'EXPIRED', 'CANCELLED', 'REJECTED', 'REFUNDING', 'REFUNDED'));

-- Every payment the provider reported, once per provider payment id.
CREATE TABLE payments (
    payment_id  text PRIMARY KEY,
    booking_id  text        NOT NULL,
    amount      bigint      NOT NULL CHECK (amount >= 0),
    currency    text        NOT NULL,
    status      text        NOT NULL CHECK (status IN ('succeeded', 'failed')),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX payments_booking ON payments (booking_id);

-- Every webhook event, once per provider event id, with its raw payload for audit.
-- delivered_at is set once the booking workflow has the event, so a redelivery of an event
-- that was recorded but not delivered is delivered then.
CREATE TABLE payment_events (
    event_id     text PRIMARY KEY,
    type         text        NOT NULL,
    booking_id   text        NOT NULL,
    payment_id   text,
    refund_id    text,
    payload      jsonb       NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz
);

-- Every refund attempt: id is the idempotency key sent to the provider (booking, step,
-- attempt), so a retried call of one attempt is the same refund and a new attempt is a new one.
CREATE TABLE refunds (
    id                 text PRIMARY KEY,
    booking_id         text        NOT NULL,
    payment_id         text        NOT NULL,
    amount             bigint      NOT NULL CHECK (amount > 0),
    currency           text        NOT NULL,
    reason             text        NOT NULL,
    status             text        NOT NULL CHECK (status IN ('requested', 'pending', 'succeeded', 'failed')),
    provider_refund_id text UNIQUE,
    last_error         text,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refunds_booking ON refunds (booking_id);

-- What operators did, who did it, when and why.
CREATE TABLE audit_log (
    id         bigserial PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    actor      text        NOT NULL,
    action     text        NOT NULL,
    booking_id text,
    reason     text        NOT NULL,
    details    jsonb
);

-- +goose Down
DROP TABLE audit_log;
DROP TABLE refunds;
DROP TABLE payment_events;
DROP TABLE payments;
ALTER TABLE bookings
    DROP CONSTRAINT bookings_status_check,
    ADD CONSTRAINT bookings_status_check CHECK (status IN ('HOLD', 'CONFIRMED', 'EXPIRED', 'CANCELLED', 'REJECTED')),
    DROP COLUMN refund_due, DROP COLUMN paid, DROP COLUMN payment_id,
    DROP COLUMN nightly_rates, DROP COLUMN total, DROP COLUMN currency;
ALTER TABLE hotels DROP COLUMN no_refund_hours, DROP COLUMN fee_fixed, DROP COLUMN fee_percent, DROP COLUMN free_until_hours;
ALTER TABLE inventory DROP CONSTRAINT rate_has_currency, DROP COLUMN currency, DROP COLUMN rate;
