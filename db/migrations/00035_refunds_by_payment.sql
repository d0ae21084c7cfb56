-- +goose Up

-- What is left of a payment to refund is read on every refund attempt, under the payment's lock
-- (lockPaymentLeft, checkParts, manual refunds): by payment, not by scanning every refund.
CREATE INDEX refunds_payment ON refunds (payment_id);

-- +goose Down
DROP INDEX refunds_payment;
