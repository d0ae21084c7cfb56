-- +goose Up

-- The reconciliation and the webhook look a payment's events up by payment.
CREATE INDEX payment_events_payment ON payment_events (payment_id) WHERE payment_id IS NOT NULL;

-- +goose Down
DROP INDEX payment_events_payment;
