-- ledger_post: posts one entry of the money ledger (money_ledger, migration 00033), once per
-- kind and ref: a fact posted again (a trigger fired twice, the backfill meeting a trigger's
-- entry) is left as it was. Nothing is posted for an amount that is not above zero. A payment's
-- entry moves its two accounts' balances (money_balances) in the same statement's transaction;
-- the two rows are locked in the accounts' name order, so two posts on one payment never
-- deadlock.
CREATE OR REPLACE FUNCTION ledger_post(p_booking text, p_payment text, p_kind text, p_cause text, p_debit text,
    p_credit text, p_amount bigint, p_currency text, p_ref text, p_method text, p_actor text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF p_amount IS NULL OR p_amount <= 0 THEN
        RETURN;
    END IF;
    INSERT INTO money_ledger (at, booking_id, payment_id, kind, cause, debit, credit, amount, currency, ref, method, actor)
    VALUES (COALESCE(p_at, now()), p_booking, p_payment, p_kind, p_cause, p_debit, p_credit, p_amount, p_currency,
        p_ref, p_method, p_actor)
    ON CONFLICT (kind, ref) DO NOTHING;
    IF NOT FOUND OR p_payment = '' THEN
        RETURN;
    END IF;
    INSERT INTO money_balances AS m (payment_id, account, booking_id, balance)
    SELECT p_payment, a.account, p_booking, a.change
    FROM (VALUES (p_credit, p_amount), (p_debit, -p_amount)) a(account, change) ORDER BY a.account
    ON CONFLICT (payment_id, account) DO UPDATE SET balance = m.balance + EXCLUDED.balance;
END
$$;
