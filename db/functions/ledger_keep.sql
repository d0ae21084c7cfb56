-- ledger_keep: the booking of a succeeded payment keeps it (its first payment, a desk payment,
-- an amendment's balance): what of it was received and not yet asked back moves from received
-- to kept. A payment not kept by its booking (a second payment, a wrong amount) stays received
-- until it is refunded. Posted once per payment.
CREATE OR REPLACE FUNCTION ledger_keep(p_payment text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    p payments%ROWTYPE;
BEGIN
    SELECT * INTO p FROM payments WHERE payment_id = p_payment AND status = 'succeeded';
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF NOT (p.method <> 'provider'
        OR EXISTS (SELECT 1 FROM bookings b WHERE b.payment_id = p_payment)
        OR EXISTS (SELECT 1 FROM booking_amendments m WHERE m.balance_payment_id = p_payment)) THEN
        RETURN;
    END IF;
    PERFORM ledger_post(p.booking_id, p_payment, 'kept', NULL, 'received', 'kept',
        ledger_balance(p_payment, 'received'), p.currency, p_payment, p.method, NULL, p_at);
END
$$;
