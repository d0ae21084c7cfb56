-- +goose Up

-- An amendment changes what a booking holds (its dates, room type, quantity) under the same
-- booking id. Each is a record: what was asked, the booking's units and price before and after,
-- who asked, and the outcome. One per booking and idempotency key; the fingerprint tells a retry
-- from a key reused for another change.
CREATE TABLE booking_amendments (
    id              bigserial   PRIMARY KEY,
    booking_id      text        NOT NULL REFERENCES bookings (id),
    idempotency_key text        NOT NULL,
    fingerprint     text        NOT NULL,
    actor           text        NOT NULL,
    requested       jsonb       NOT NULL,
    before          jsonb       NOT NULL,
    after           jsonb       NOT NULL,
    -- difference is the new price less the old (minor units of currency): a balance due when
    -- positive, a refund by policy when negative.
    difference      bigint      NOT NULL,
    currency        text        NOT NULL,
    -- discount is what a length-of-stay rule took off the rooms the amendment adds.
    discount        bigint      NOT NULL DEFAULT 0,
    refund          bigint      NOT NULL DEFAULT 0 CHECK (refund >= 0),
    status          text        NOT NULL CHECK (status IN ('APPLIED', 'BALANCE_DUE', 'LAPSED', 'REFUSED', 'SUPPLIER_PENDING')),
    -- reason says why an amendment was refused (the night or rule) or lapsed.
    reason          text,
    -- due_by: when an unpaid balance lapses; balance_payment_id: the payment that paid it.
    due_by          timestamptz,
    balance_payment_id text     UNIQUE,
    -- A supplier's booking is amended as a new hold at its supplier, under supplier_hold_ref,
    -- confirmed (supplier_confirmation) before the amendment goes on; the old hold is then
    -- cancelled.
    supplier_hold_ref     text,
    supplier_confirmation text,
    -- left_hold_ref: the hold the booking left when the amendment was applied, for the supplier
    -- to cancel (asked again, the amendment still names it).
    left_hold_ref         text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    decided_at      timestamptz,
    UNIQUE (booking_id, idempotency_key)
);
-- At most one amendment waits (for its balance, or its supplier) per booking.
CREATE UNIQUE INDEX booking_amendments_one_pending ON booking_amendments (booking_id)
    WHERE status IN ('BALANCE_DUE', 'SUPPLIER_PENDING');

-- The reference the booking's supplier knows its hold by: the booking id until an amendment
-- moved it to a new hold.
ALTER TABLE bookings ADD COLUMN supplier_hold_ref text;

-- The units a pending amendment holds beside the booking's own: further lines of the booking
-- (taken and given back with it, counted by the invariant checker) until the balance is paid or
-- lapses.
ALTER TABLE booking_lines ADD COLUMN amendment_id bigint REFERENCES booking_amendments (id);

-- An agent hears of every amendment of its bookings: one notification per booking, event and
-- amendment (none for the other events).
ALTER TABLE agent_notifications
    ADD COLUMN amendment_id bigint REFERENCES booking_amendments (id),
    DROP CONSTRAINT agent_notifications_booking_id_event_key,
    ADD CONSTRAINT agent_notifications_once UNIQUE NULLS NOT DISTINCT (booking_id, event, amendment_id);

-- +goose Down
ALTER TABLE bookings DROP COLUMN supplier_hold_ref;
DELETE FROM agent_notifications WHERE amendment_id IS NOT NULL;
ALTER TABLE agent_notifications
    DROP CONSTRAINT agent_notifications_once,
    DROP COLUMN amendment_id,
    ADD CONSTRAINT agent_notifications_booking_id_event_key UNIQUE (booking_id, event);
ALTER TABLE booking_lines DROP COLUMN amendment_id;
DROP TABLE booking_amendments;
