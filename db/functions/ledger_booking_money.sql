-- ledger_booking_money: a booking's money, summed from its ledger entries. Of the payments it
-- kept: paid (what they brought), kept (what it keeps of them), owed (asked back, not yet sent),
-- refunding (sent, the provider's word not yet in), refunded (given back), reversed (what
-- reversals of desk payments asked back: due again). Of the payments it did not keep (a second
-- payment, a wrong amount): unkept (not yet given back) and unkept_refunded. The API's money,
-- the invariant checker and the report read these; see docs/payments-and-refunds.md.
CREATE OR REPLACE FUNCTION ledger_booking_money(p_booking text)
RETURNS TABLE (paid bigint, kept bigint, owed bigint, refunding bigint, refunded bigint, reversed bigint,
    unkept bigint, unkept_refunded bigint)
LANGUAGE sql STABLE AS $$
    WITH e AS (
        SELECT l.*, l.payment_id IN (SELECT k.payment_id FROM money_ledger k WHERE k.booking_id = p_booking
            AND k.kind = 'kept') AS own
        FROM money_ledger l WHERE l.booking_id = p_booking AND l.payment_id <> ''
    ), moves AS (
        SELECT own, kind, cause, credit AS account, amount FROM e
        UNION ALL
        SELECT own, kind, cause, debit, -amount FROM e
    )
    SELECT
        COALESCE(sum(amount) FILTER (WHERE own AND kind = 'kept' AND account = 'kept'), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE own AND account = 'kept'), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE own AND account = 'owed'), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE own AND account = 'refunding'), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE own AND account = 'paid_back'), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE own AND kind = 'refund_asked' AND cause = 'reversal' AND account = 'owed'), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE NOT own AND account IN ('received', 'owed', 'refunding')), 0)::bigint,
        COALESCE(sum(amount) FILTER (WHERE NOT own AND account = 'paid_back'), 0)::bigint
    FROM moves
$$;
