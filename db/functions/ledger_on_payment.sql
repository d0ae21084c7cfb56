-- ledger_on_payment: posts a payment's entries when it succeeds (captured: from the outside,
-- paid_in, to received), and keeps it for its booking when the booking already names it
-- (ledger_keep). Called by its trigger (ledger_after_payment) and by the backfill.
CREATE OR REPLACE FUNCTION ledger_on_payment(p payments, was text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p.status = 'succeeded' AND was IS DISTINCT FROM 'succeeded' THEN
        PERFORM ledger_post(p.booking_id, p.payment_id, 'captured', NULL, 'paid_in', 'received', p.amount,
            p.currency, p.payment_id, p.method, p.taken_by, COALESCE(p_at, p.succeeded_at));
        PERFORM ledger_keep(p.payment_id, p_at);
    END IF;
END
$$;
