-- ledger_post: posts one entry of the money ledger (money_ledger, migration 00033), once per
-- kind and ref: a fact posted again (a trigger fired twice, the backfill meeting a trigger's
-- entry) is left as it was. Nothing is posted for an amount that is not above zero. An entry of
-- a payment (a promise names none) moves, in its one statement, what its booking keeps
-- (money_kept_by_booking, 00036: the row is locked for every entry of a payment, changed only by
-- one that moves a kept account), then its two accounts' balances (money_balances), locked in
-- the accounts' name order: posts on one booking's payments wait in that one order and never
-- deadlock.
--
-- It refuses (check_violation) an entry that would take a payment's kept, owed, refunding or
-- paid_back account below zero: money moved that is not there, such as a refund beyond what is
-- left of its payment, whatever path asks. received is held to it once the payment is captured;
-- before, a refund attempt of a payment its booking never kept may be recorded ahead of the
-- payment's own row (ledger_owe), and the captured entry fills it. paid_in (the outside) and the
-- promises' accounts may go below zero.
CREATE OR REPLACE FUNCTION ledger_post(p_booking text, p_payment text, p_kind text, p_cause text, p_debit text,
    p_credit text, p_amount bigint, p_currency text, p_ref text, p_method text, p_actor text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    left_over bigint;
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
    ), moved AS (
        INSERT INTO money_balances AS m (payment_id, account, booking_id, balance)
        SELECT p_payment, a.account, p_booking, a.change
        -- the count makes the booking's row locked before the first balance is written
        FROM entry, (SELECT count(*) FROM booking) b,
            (VALUES (p_credit, p_amount), (p_debit, -p_amount)) a(account, change)
        WHERE p_payment <> ''
        ORDER BY a.account
        ON CONFLICT (payment_id, account) DO UPDATE SET balance = m.balance + EXCLUDED.balance
        RETURNING m.account, m.balance
    )
    SELECT balance INTO left_over FROM moved WHERE account = p_debit;
    IF left_over < 0 AND (p_debit IN ('kept', 'owed', 'refunding', 'paid_back')
        OR (p_debit = 'received' AND ledger_balance(p_payment, 'paid_in') < 0)) THEN
        RAISE EXCEPTION 'the ledger refuses % % of payment %: its % account would hold %', p_kind, p_amount,
            p_payment, p_debit, left_over
            USING ERRCODE = 'check_violation', DETAIL = format('booking %s, ref %s', p_booking, p_ref);
    END IF;
END
$$;
