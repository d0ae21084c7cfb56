-- +goose Up

-- One key space for the commands that move a booking's money (issue 34): a desk payment, a
-- refund that keeps the units (goodwill, a reversal, an early departure's), a cancel with the
-- refund staff decide (releaseUnits), an amendment. Each claims its idempotency key here in the
-- transaction that moves its money (db.claimMoneyCommand). A key is the booking's once: the same
-- command again is answered by its first outcome, another command under it (another body, or
-- another kind) is refused (422). An expand step (docs/kubernetes.md): the previous release's
-- pods neither read nor write it.
CREATE TABLE money_commands (
    booking_id text        NOT NULL REFERENCES bookings (id),
    key        text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('desk_payment', 'goodwill', 'reversal', 'early_departure',
        'cancel_refund', 'amendment')),
    -- body is what the command moves, compared as JSON: its amount and currency, a desk
    -- payment's method, the payment a reversal gives back, an amendment's fingerprint.
    body       jsonb       NOT NULL,
    -- actor is the staff member who asked; NULL for an amendment, named on its own row.
    actor      text,
    at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (booking_id, key)
);

-- The keys of the commands recorded before, from the rows they wrote. A cancel with a refund kept
-- its key in its workflow only (CancelledWith): that workflow still answers a retry of it.
INSERT INTO money_commands (booking_id, key, kind, body, actor, at)
SELECT booking_id, substr(payment_id, length('desk/' || booking_id || '/') + 1), 'desk_payment',
       jsonb_build_object('amount', amount, 'currency', currency, 'method', method), taken_by, created_at
  FROM payments
 WHERE method <> 'provider' AND starts_with(payment_id, 'desk/' || booking_id || '/')
ON CONFLICT DO NOTHING;

INSERT INTO money_commands (booking_id, key, kind, body, actor, at)
SELECT booking_id, substr(id, length(booking_id) + 2), kind,
       jsonb_build_object('amount', amount, 'currency', currency) || CASE WHEN kind = 'reversal'
           AND jsonb_array_length(parts) = 1 THEN jsonb_build_object('reverses', parts -> 0 ->> 'id') ELSE '{}' END,
       actor, created_at
  FROM staff_refunds
 WHERE starts_with(id, booking_id || '/')
ON CONFLICT DO NOTHING;

INSERT INTO money_commands (booking_id, key, kind, body, at)
SELECT booking_id, idempotency_key, 'amendment', jsonb_build_object('fingerprint', fingerprint), created_at
  FROM booking_amendments
ON CONFLICT DO NOTHING;

-- +goose Down
DROP TABLE money_commands;
