-- ledger_post: posts one entry of the money ledger (money_ledger, migration 00033), once per
-- kind and ref: a fact posted again (a trigger fired twice, the backfill meeting a trigger's
-- entry) is left as it was. Nothing is posted for an amount that is not above zero. An entry of
-- a payment (a promise names none) moves, in its one statement, what its booking keeps
-- (money_kept_by_booking, 00036: the row is locked for every entry of a payment, changed only by
-- one that moves a kept account), then its two accounts' balances (money_balances), locked in
-- the accounts' name order: posts on one booking's payments wait in that one order and never
-- deadlock.
CREATE OR REPLACE FUNCTION ledger_post(p_booking text, p_payment text, p_kind text, p_cause text, p_debit text,
    p_credit text, p_amount bigint, p_currency text, p_ref text, p_method text, p_actor text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_amount IS NULL OR p_amount <= 0 THEN
        RETURN;
    END IF;
    WITH entry AS (
        INSERT INTO money_ledger (at, booking_id, payment_id, kind, cause, debit, credit, amount, currency, ref, method,
            actor)
        VALUES (COALESCE(p_at, now()), p_booking, p_payment, p_kind, p_cause, p_debit, p_credit, p_amount, p_currency,
            p_ref, p_method, p_actor)
        ON CONFLICT (kind, ref) DO NOTHING
        RETURNING 1
    ), booking AS (
        -- A DO UPDATE whose WHERE is false still locks the row.
        INSERT INTO money_kept_by_booking AS k (booking_id, kept)
        SELECT p_booking, CASE WHEN p_credit = 'kept' THEN p_amount WHEN p_debit = 'kept' THEN -p_amount ELSE 0 END
        FROM entry WHERE p_payment <> ''
        ON CONFLICT (booking_id) DO UPDATE SET kept = k.kept + EXCLUDED.kept WHERE EXCLUDED.kept <> 0
        RETURNING 1
    )
    INSERT INTO money_balances AS m (payment_id, account, booking_id, balance)
    SELECT p_payment, a.account, p_booking, a.change
    -- the count makes the booking's row locked before the first balance is written
    FROM entry, (SELECT count(*) FROM booking) b,
        (VALUES (p_credit, p_amount), (p_debit, -p_amount)) a(account, change)
    WHERE p_payment <> ''
    ORDER BY a.account
    ON CONFLICT (payment_id, account) DO UPDATE SET balance = m.balance + EXCLUDED.balance;
END
$$;
