-- ledger_draw: asks back p_amount of what a booking keeps, drawn on its kept payments newest
-- first, each up to what it keeps of it (kept to owed, one entry per payment, ref
-- <p_ref>@<paymentId>). What no kept payment covers is not posted: the refund attempts that
-- follow take it where they draw it (ledger_owe).
CREATE OR REPLACE FUNCTION ledger_draw(p_booking text, p_amount bigint, p_cause text, p_ref text, p_actor text,
    p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r record;
    left_over bigint := p_amount;
    take bigint;
BEGIN
    FOR r IN SELECT k.payment_id, k.currency, COALESCE(m.balance, 0) AS kept
        FROM money_ledger k LEFT JOIN money_balances m ON m.payment_id = k.payment_id AND m.account = 'kept'
        WHERE k.booking_id = p_booking AND k.kind = 'kept' ORDER BY k.id DESC
    LOOP
        EXIT WHEN left_over <= 0;
        take := least(r.kept, left_over);
        IF take > 0 THEN
            PERFORM ledger_post(p_booking, r.payment_id, 'refund_asked', p_cause, 'kept', 'owed', take, r.currency,
                p_ref || '@' || r.payment_id, NULL, p_actor, p_at);
            left_over := left_over - take;
        END IF;
    END LOOP;
END
$$;
