-- ledger_on_amendment: posts an amendment's money: a balance due (a promise: sales to price),
-- lapsed (back), its balance's payment kept (ledger_keep), and the refund of an amendment that
-- lowered the price asked back (ledger_draw, cause amendment). was and was_paid are the row's
-- status and balance_payment_id before (NULL for a new row). Its entries name no actor: an
-- amendment may be the guest's own, and the ledger keeps no personal data (erasure never
-- rewrites it); the amendment's row says who asked. Called by its trigger
-- (ledger_after_amendment) and by the backfill.
CREATE OR REPLACE FUNCTION ledger_on_amendment(m booking_amendments, was text, was_paid text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF m.status = 'BALANCE_DUE' AND was IS DISTINCT FROM 'BALANCE_DUE' THEN
        PERFORM ledger_post(m.booking_id, '', 'balance_due', NULL, 'sales', 'price', m.difference, m.currency,
            'amendment-' || m.id, NULL, NULL, p_at);
    END IF;
    IF m.status = 'LAPSED' AND was = 'BALANCE_DUE' THEN
        PERFORM ledger_post(m.booking_id, '', 'balance_lapsed', NULL, 'price', 'sales', m.difference, m.currency,
            'amendment-' || m.id, NULL, NULL, p_at);
    END IF;
    IF m.balance_payment_id IS NOT NULL AND was_paid IS NULL THEN
        PERFORM ledger_keep(m.balance_payment_id, p_at);
    END IF;
    IF m.status = 'APPLIED' AND was IS DISTINCT FROM 'APPLIED' AND m.refund > 0 THEN
        PERFORM ledger_draw(m.booking_id, m.refund, 'amendment', m.booking_id || '/amendment-' || m.id, NULL, p_at);
    END IF;
END
$$;
