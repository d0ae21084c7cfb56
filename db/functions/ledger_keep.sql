-- ledger_keep: the booking of a succeeded payment keeps it (its first payment, a desk payment,
-- an amendment's balance, a deposit plan's balance, the fee charged to its guarantee card; that
-- column, 00049, read through to_jsonb: a schema without it reads NULL): what of it was received and not yet asked back moves from received
-- to kept. A payment not kept by its booking (a second payment, a wrong amount) stays received
-- until it is refunded. Posted once per payment. The payment, whether its booking keeps it and
-- what it received are read in one statement (a confirmation runs this twice).
CREATE OR REPLACE FUNCTION ledger_keep(p_payment text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    p record;
BEGIN
    SELECT pay.booking_id, pay.currency, pay.method, COALESCE(m.balance, 0) AS received INTO p
    FROM payments pay LEFT JOIN money_balances m ON m.payment_id = pay.payment_id AND m.account = 'received'
    WHERE pay.payment_id = p_payment AND pay.status = 'succeeded'
        AND (pay.method <> 'provider'
            OR EXISTS (SELECT 1 FROM bookings b WHERE b.payment_id = p_payment)
            OR EXISTS (SELECT 1 FROM booking_amendments a WHERE a.balance_payment_id = p_payment)
            OR EXISTS (SELECT 1 FROM bookings b WHERE b.balance_payment_id = p_payment)
            OR EXISTS (SELECT 1 FROM bookings b WHERE b.id = pay.booking_id
                AND to_jsonb(b)->'guarantee_fee'->>'paymentId' = p_payment));
    IF FOUND THEN
        PERFORM ledger_post(p.booking_id, p_payment, 'kept', NULL, 'received', 'kept', p.received, p.currency,
            p_payment, p.method, NULL, p_at);
    END IF;
END
$$;
