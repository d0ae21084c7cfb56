-- ledger_on_refund: posts a refund attempt's entries (was: its status before, NULL for a new row).
-- - Sent (requested or pending): owed to refunding, once what it gives back is owed (ledger_owe).
-- - Its outcome: succeeded, refunding to paid_back; failed, refunding back to owed. One outcome
--   per attempt (the unique index money_ledger_one_outcome).
-- - Made at once: a desk refund (by the payment's method) is sent and succeeded; one settled by
--   hand (finance's manual/<payment>/<key>, or an operator's resolution <booking>/<step>/0) goes
--   from owed to paid_back.
-- - Refused by the per-payment bound (recorded failed, never sent): nothing.
-- Called by its trigger (ledger_after_refund) and by the backfill.
CREATE OR REPLACE FUNCTION ledger_on_refund(f refunds, was text, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    by_hand boolean := starts_with(f.id, 'manual/') OR f.id LIKE '%/0';
    cause text := CASE WHEN starts_with(f.id, 'manual/') THEN 'manual' ELSE 'extra' END;
    -- When it was sent and when it ended, as its row says (the backfill says so itself).
    sent_at timestamptz := COALESCE(p_at, f.created_at);
    ended_at timestamptz := COALESCE(p_at, f.updated_at);
BEGIN
    IF was IS NULL THEN
        IF f.status = 'failed' THEN
            RETURN;
        END IF;
        PERFORM ledger_owe(f.booking_id, f.payment_id, f.amount, f.currency, f.id, cause, f.recorded_by, sent_at);
        IF f.status = 'succeeded' AND by_hand THEN
            PERFORM ledger_post(f.booking_id, f.payment_id, 'settled_by_hand', NULL, 'owed', 'paid_back', f.amount,
                f.currency, f.id, f.method, f.recorded_by, ended_at);
            RETURN;
        END IF;
        PERFORM ledger_post(f.booking_id, f.payment_id, 'attempt_sent', NULL, 'owed', 'refunding', f.amount,
            f.currency, f.id, f.method, f.recorded_by, sent_at);
    END IF;
    IF f.status = 'succeeded' AND (was IS NULL OR was IN ('requested', 'pending')) THEN
        PERFORM ledger_post(f.booking_id, f.payment_id, 'refund_succeeded', NULL, 'refunding', 'paid_back',
            f.amount, f.currency, f.id, f.method, f.recorded_by, ended_at);
    ELSIF f.status = 'failed' AND was IN ('requested', 'pending') THEN
        PERFORM ledger_post(f.booking_id, f.payment_id, 'refund_failed', NULL, 'refunding', 'owed', f.amount,
            f.currency, f.id, f.method, NULL, ended_at);
    END IF;
    RETURN;
END
$$;
